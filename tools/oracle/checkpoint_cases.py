"""Checkpoint compatibility with real PaddlePaddle 2.6.2 (issue 23): one list of layer
constructions, each a Python expression both frameworks evaluate under `import paddle`. For each,
real Paddle records the ordered state_dict keys with shapes and dtypes, and the outputs (a few
statistics) of the layer in eval mode on a fixed input after every state_dict entry was set
deterministically from its key and shape (integer arithmetic, det_value) through set_state_dict:
no weights are committed except a few small Paddle-written .pdparams. Then the two frameworks
exchange checkpoints for the models of CROSS: Paddle-C saves, real Paddle loads, and the reverse.
tests/conformance/test_checkpoints.py runs the same constructions in Paddle-C.

Record (writes tests/conformance/expected/checkpoints.json and expected/checkpoints/*.pdparams;
Paddle-C's side runs as `PADDLE_C_PY` (default <repo>/.venv/bin/python) with PYTHONPATH=<repo>/python,
at the Paddle 2.6 API level, FLAGS_set_to_1d=0):

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/repo/tools/oracle/checkpoint_cases.py record

The `save NAME PATH` and `load NAME PATH` commands are the Paddle-C side of the exchange.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(ROOT, "tests", "conformance", "expected")

_TE = "paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0{})"
_TD = "paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0{})"
_VM = "paddle.vision.models."

# name -> (expression, inputs): an input is ("f", shape) (float32) or ("i", shape, high) (int64);
# inputs None: keys only (too large to run at a small cost)
CASES = {
    "Linear": ("paddle.nn.Linear(4, 3)", [("f", [2, 4])]),
    "Linear|nobias": ("paddle.nn.Linear(4, 3, bias_attr=False)", [("f", [2, 4])]),
    "Bilinear": ("paddle.nn.Bilinear(3, 4, 5)", [("f", [2, 3]), ("f", [2, 4])]),
    "Conv1D": ("paddle.nn.Conv1D(3, 4, 3)", [("f", [2, 3, 7])]),
    "Conv2D": ("paddle.nn.Conv2D(3, 4, 3, padding=1)", [("f", [2, 3, 5, 5])]),
    "Conv2D|groups_nobias": ("paddle.nn.Conv2D(4, 6, 3, groups=2, bias_attr=False)", [("f", [2, 4, 6, 6])]),
    "Conv3D": ("paddle.nn.Conv3D(2, 4, 3)", [("f", [1, 2, 4, 5, 5])]),
    "Conv1DTranspose": ("paddle.nn.Conv1DTranspose(3, 4, 3, stride=2)", [("f", [2, 3, 5])]),
    "Conv2DTranspose": ("paddle.nn.Conv2DTranspose(4, 6, 3, stride=2, groups=2)", [("f", [1, 4, 3, 3])]),
    "Conv2DTranspose|nobias": ("paddle.nn.Conv2DTranspose(3, 4, 2, bias_attr=False)", [("f", [1, 3, 3, 3])]),
    "Conv3DTranspose": ("paddle.nn.Conv3DTranspose(2, 3, 2)", [("f", [1, 2, 2, 3, 3])]),
    "BatchNorm1D": ("paddle.nn.BatchNorm1D(4)", [("f", [2, 4, 5])]),
    "BatchNorm2D": ("paddle.nn.BatchNorm2D(4)", [("f", [2, 4, 3, 3])]),
    "BatchNorm3D": ("paddle.nn.BatchNorm3D(4)", [("f", [1, 4, 2, 3, 3])]),
    "BatchNorm": ("paddle.nn.BatchNorm(4)", [("f", [2, 4, 3, 3])]),
    "LayerNorm": ("paddle.nn.LayerNorm(4)", [("f", [2, 3, 4])]),
    "LayerNorm|2d": ("paddle.nn.LayerNorm([3, 4])", [("f", [2, 3, 4])]),
    "GroupNorm": ("paddle.nn.GroupNorm(2, 4)", [("f", [2, 4, 3, 3])]),
    "InstanceNorm2D": ("paddle.nn.InstanceNorm2D(4)", [("f", [2, 4, 3, 3])]),
    "Embedding": ("paddle.nn.Embedding(10, 4, padding_idx=0)", [("i", [2, 5], 10)]),
    "PReLU": ("paddle.nn.PReLU(4)", [("f", [2, 4, 3])]),
    "Conv2D+BN": ("paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3), paddle.nn.BatchNorm2D(4))",
                  [("f", [2, 3, 5, 5])]),
    "MultiHeadAttention": ("paddle.nn.MultiHeadAttention(8, 2)", [("f", [2, 3, 8])] * 3),
    "MultiHeadAttention|kdim_vdim": ("paddle.nn.MultiHeadAttention(8, 2, kdim=6, vdim=4)",
                                     [("f", [2, 3, 8]), ("f", [2, 5, 6]), ("f", [2, 5, 4])]),
    "TransformerEncoderLayer": (_TE.format(""), [("f", [2, 5, 8])]),
    "TransformerEncoder": ("paddle.nn.TransformerEncoder(" + _TE.format("") + ", 2)", [("f", [2, 5, 8])]),
    "TransformerEncoder|prenorm": ("paddle.nn.TransformerEncoder(" + _TE.format(", normalize_before=True")
                                   + ", 2, norm=paddle.nn.LayerNorm(8))", [("f", [2, 5, 8])]),
    "TransformerDecoder": ("paddle.nn.TransformerDecoder(" + _TD.format("") + ", 2)",
                           [("f", [2, 4, 8]), ("f", [2, 5, 8])]),
    "Transformer": ("paddle.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)", [("f", [2, 5, 8]), ("f", [2, 4, 8])]),
    "LSTMCell": ("paddle.nn.LSTMCell(3, 4)", [("f", [2, 3])]),
    "GRUCell": ("paddle.nn.GRUCell(3, 4)", [("f", [2, 3])]),
    "SimpleRNNCell": ("paddle.nn.SimpleRNNCell(3, 4)", [("f", [2, 3])]),
    "RNN": ("paddle.nn.RNN(paddle.nn.GRUCell(3, 4))", [("f", [2, 5, 3])]),
    "BiRNN": ("paddle.nn.BiRNN(paddle.nn.LSTMCell(3, 4), paddle.nn.LSTMCell(3, 4))", [("f", [2, 5, 3])]),
    "BatchNorm2D|noaffine": ("paddle.nn.BatchNorm2D(4, weight_attr=False, bias_attr=False)", [("f", [2, 4, 3, 3])]),
    "SyncBatchNorm": ("paddle.nn.SyncBatchNorm(4)", None),  # Paddle's CPU build has no kernel
    "LayerNorm|noaffine": ("paddle.nn.LayerNorm(4, weight_attr=False, bias_attr=False)", [("f", [2, 3, 4])]),
    "GroupNorm|noaffine": ("paddle.nn.GroupNorm(2, 4, weight_attr=False, bias_attr=False)", [("f", [2, 4, 3, 3])]),
    "InstanceNorm1D|noaffine": ("paddle.nn.InstanceNorm1D(4, weight_attr=False, bias_attr=False)",
                                [("f", [2, 4, 5])]),
    "MultiHeadAttention|nobias": ("paddle.nn.MultiHeadAttention(8, 2, bias_attr=False)", [("f", [2, 3, 8])] * 3),
    "TransformerDecoderLayer": (_TD.format(", normalize_before=True"), [("f", [2, 4, 8]), ("f", [2, 5, 8])]),
    "weight_norm": ("paddle.nn.utils.weight_norm(paddle.nn.Linear(4, 3))", [("f", [2, 4])]),
    "weight_norm|conv_dim1": ("paddle.nn.utils.weight_norm(paddle.nn.Conv2D(2, 3, 3), dim=1)",
                              [("f", [1, 2, 4, 4])]),
    "spectral_norm": ("paddle.nn.utils.spectral_norm(paddle.nn.Linear(4, 3))", [("f", [2, 4])]),
    "SpectralNorm": ("paddle.nn.SpectralNorm([4, 6], power_iters=2)", [("f", [4, 6])]),
    "ParameterList": ("paddle.nn.ParameterList([paddle.create_parameter([2, 3], 'float32'), "
                      "paddle.create_parameter([4], 'float32')])", None),
    "LayerDict": ("paddle.nn.LayerDict({'b': paddle.nn.Linear(2, 3), 'a': paddle.nn.Conv2D(1, 2, 1)})", None),
    "LeNet": (_VM + "LeNet(num_classes=10)", [("f", [1, 1, 28, 28])]),
    "resnet18": (_VM + "resnet18(num_classes=10)", [("f", [1, 3, 32, 32])]),
    "mobilenet_v1": (_VM + "mobilenet_v1(scale=0.25, num_classes=10)", [("f", [1, 3, 32, 32])]),
    "mobilenet_v2": (_VM + "mobilenet_v2(scale=0.25, num_classes=10)", [("f", [1, 3, 32, 32])]),
    "mobilenet_v3_small": (_VM + "mobilenet_v3_small(scale=0.5, num_classes=10)", [("f", [1, 3, 32, 32])]),
    "squeezenet1_0": (_VM + "squeezenet1_0(num_classes=10)", [("f", [1, 3, 64, 64])]),
    "shufflenet_v2_x0_25": (_VM + "shufflenet_v2_x0_25(num_classes=10)", [("f", [1, 3, 32, 32])]),
    "densenet121": (_VM + "densenet121(num_classes=10)", [("f", [1, 3, 32, 32])]),
    "vgg11": (_VM + "vgg11(num_classes=10)", None),
    "alexnet": (_VM + "alexnet(num_classes=10)", None),
    "resnet50": (_VM + "resnet50(num_classes=10)", [("f", [1, 3, 32, 32])]),
    "resnext50_32x4d": (_VM + "resnext50_32x4d(num_classes=10)", None),
    "mobilenet_v3_large": (_VM + "mobilenet_v3_large(scale=0.5, num_classes=10)", [("f", [1, 3, 32, 32])]),
    "googlenet": (_VM + "googlenet(num_classes=10)", [("f", [1, 3, 224, 224])]),
    "inception_v3": (_VM + "inception_v3(num_classes=10)", [("f", [1, 3, 75, 75])]),
}
for _cls in ("LSTM", "GRU", "SimpleRNN"):
    for _dir in ("forward", "bidirect"):
        for _n in (1, 2):
            CASES[f"{_cls}|{_dir}|{_n}"] = (f"paddle.nn.{_cls}(3, 4, num_layers={_n}, direction='{_dir}')",
                                            [("f", [2, 5, 3])])

# exchanged between the frameworks (both directions); Paddle's .pdparams of the small ones are committed
CROSS = ["Linear", "Conv2D+BN", "LSTM|bidirect|2", "TransformerEncoder", "resnet18", "mobilenet_v3_small"]
COMMITTED = ["Linear", "Conv2D+BN", "LSTM|bidirect|2", "TransformerEncoder"]


def pdparams_path(name):
    return os.path.join(EXPECTED, "checkpoints", name.replace("|", "_").replace("+", "_") + ".pdparams")


def build(paddle, name):
    m = eval(CASES[name][0], {"paddle": paddle})  # noqa: S307 (the constructions above)
    m.eval()
    return m


def _dt(t):
    return str(t.dtype).replace("paddle.", "")


def keys(m):
    """[[key, shape, dtype], ...] of m.state_dict() in order."""
    return [[k, list(t.shape), _dt(t)] for k, t in m.state_dict().items()]


def det_value(key, shape, dtype):
    """A deterministic value for a state_dict entry from its key and shape: uniform-like in
    [-0.5, 0.5) by integer arithmetic (no generator), scaled by the entry's role: running
    variances in [0.5, 1.5), means small, 1-D weights / scales near 1, biases small, matrices and
    kernels ~ 1 / sqrt(fan)."""
    n = int(np.prod(shape)) if len(shape) else 1
    off = sum((i + 1) * ord(c) for i, c in enumerate(key)) % 997
    i = np.arange(n, dtype=np.int64)
    u = ((i * 2654435761 + (i * i % 1009) * 40503 + off * 7919) % 1000) / 1000.0 - 0.5
    leaf = key.rsplit(".", 1)[-1]
    if leaf.endswith("_variance"):
        v = 1.0 + u
    elif leaf.endswith("_mean"):
        v = 0.2 * u
    elif len(shape) <= 1:
        v = 1.0 + 0.5 * u if leaf in ("weight", "scale", "_weight") else 0.2 * u
    else:
        fan = n // shape[0] if len(shape) >= 3 else shape[0]
        v = u * np.sqrt(12.0 / max(fan, 1))
    return v.reshape(shape).astype(dtype)


def set_det_weights(paddle, m):
    """Every state_dict entry set to det_value through set_state_dict; keys naming one tensor
    (the recurrent layers' flat and per-cell names) get the first key's value."""
    sd, seen, vals = m.state_dict(), {}, {}
    for k, t in sd.items():
        if id(t) not in seen:
            seen[id(t)] = paddle.to_tensor(det_value(k, list(t.shape), _dt(t)))
        vals[k] = seen[id(t)]
    missing, unexpected = m.set_state_dict(vals)
    assert not missing and not unexpected, (missing, unexpected)


def make_inputs(paddle, specs):
    out = []
    for j, s in enumerate(specs):
        n = int(np.prod(s[1]))
        i = np.arange(n, dtype=np.int64)
        if s[0] == "i":
            out.append(paddle.to_tensor(((i * 7 + 3 * j + 1) % s[2]).reshape(s[1]).astype("int64")))
        else:
            u = ((i * 40503 + (i * i % 101) * 17 + 311 * j) % 1000) / 500.0 - 1.0
            out.append(paddle.to_tensor(u.reshape(s[1]).astype("float32")))
    return out


def _flat(r):
    if isinstance(r, (list, tuple)):
        return [t for v in r for t in _flat(v)]
    return [r]


def _g(v):
    return float(f"{float(v):.8g}")


def outputs(paddle, m, name):
    """Statistics of each output tensor: shape, dtype, sum, sum of |x|, 6 evenly spaced entries."""
    with paddle.no_grad():
        r = m(*make_inputs(paddle, CASES[name][1]))
    res = []
    for t in _flat(r):
        a = np.asarray(t.numpy()).astype("float64").ravel()
        idx = np.linspace(0, a.size - 1, 6).round().astype(np.int64) if a.size else []
        res.append({"shape": list(t.shape), "dtype": _dt(t), "sum": _g(a.sum()), "abs": _g(np.abs(a).sum()),
                    "sample": [_g(a[j]) for j in idx]})
    return res


def agree(exp, got):
    """None when the statistics agree at float32 tolerance, else what differs."""
    if len(exp) != len(got):
        return f"{len(got)} outputs, Paddle {len(exp)}"
    for j, (e, g) in enumerate(zip(exp, got)):
        if e["shape"] != g["shape"] or e["dtype"] != g["dtype"]:
            return f"output {j}: {g['dtype']}{g['shape']}, Paddle {e['dtype']}{e['shape']}"
        n = max(int(np.prod(e["shape"])), 1)
        scale = e["abs"] / n + 1e-6
        if abs(g["sum"] - e["sum"]) > 2e-4 * e["abs"] + 1e-5 or abs(g["abs"] - e["abs"]) > 2e-4 * e["abs"] + 1e-5:
            return f"output {j}: sum {g['sum']} / {g['abs']}, Paddle {e['sum']} / {e['abs']}"
        if not np.allclose(g["sample"], e["sample"], rtol=5e-4, atol=5e-4 * scale):
            return f"output {j}: sample {g['sample']}, Paddle {e['sample']}"
    return None


def case(paddle, name):
    m = build(paddle, name)
    res = {"keys": keys(m)}
    if CASES[name][1] is not None:
        set_det_weights(paddle, m)
        res["outputs"] = outputs(paddle, m, name)
    return res


def load_into(paddle, name, path):
    """A fresh model of `name` loaded from the .pdparams at path: missing / unexpected keys and outputs."""
    m = build(paddle, name)
    missing, unexpected = m.set_state_dict(paddle.load(path))
    return {"missing": list(missing), "unexpected": list(unexpected), "outputs": outputs(paddle, m, name)}


def _ours(cmd, name, path):
    py = os.environ.get("PADDLE_C_PY", os.path.join(ROOT, ".venv", "bin", "python"))
    # at the Paddle 2.6 API level, whose networks are real Paddle 2.6.2's (MobileNetV3)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), FLAGS_set_to_1d="0")
    with tempfile.TemporaryDirectory() as cwd:
        r = subprocess.run([py, os.path.abspath(__file__), cmd, name, path], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return {"error": r.stderr[-2000:]}
    return json.loads(r.stdout.strip().splitlines()[-1]) if cmd == "load" else {}


def record(paddle):
    """Real Paddle's answers for every construction and both directions of the exchange."""
    cases = {name: case(paddle, name) for name in CASES}
    cross = {}
    os.makedirs(os.path.join(EXPECTED, "checkpoints"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in CROSS:
            exp = cases[name]["outputs"]
            ours = os.path.join(tmp, "ours.pdparams")
            err = _ours("save", name, ours).get("error")
            res = {"error": err} if err else load_into(paddle, name, ours)
            if not err:
                res["agree"] = agree(exp, res["outputs"]) is None and not res["missing"] and not res["unexpected"]
            m = build(paddle, name)
            set_det_weights(paddle, m)
            theirs = pdparams_path(name) if name in COMMITTED else os.path.join(tmp, "paddle.pdparams")
            paddle.save(m.state_dict(), theirs)
            back = _ours("load", name, theirs)
            if "error" not in back:
                back["agree"] = (agree(exp, back["outputs"]) is None and not back["missing"]
                                 and not back["unexpected"])
            cross[name] = {"paddle_loads_ours": res, "ours_loads_paddles": back}
    return {"paddle": paddle.__version__, "cases": cases, "cross": cross}


def main(argv):
    import paddle
    cmd = argv[1] if len(argv) > 1 else "record"
    if cmd == "save":
        m = build(paddle, argv[2])
        set_det_weights(paddle, m)
        paddle.save(m.state_dict(), argv[3])
    elif cmd == "load":
        print(json.dumps(load_into(paddle, argv[2], argv[3])))
    elif cmd == "record":
        res = record(paddle)
        with open(os.path.join(EXPECTED, "checkpoints.json"), "w") as f:
            f.write('{"paddle": ' + json.dumps(res["paddle"]) + ',\n"cases": {\n'
                    + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(res["cases"].items()))
                    + '},\n"cross": {\n'
                    + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(res["cross"].items()))
                    + "}}\n")
        bad = {k: v for k, v in res["cross"].items() if not (v["paddle_loads_ours"].get("agree")
                                                             and v["ours_loads_paddles"].get("agree"))}
        print("cross-framework disagreements:", json.dumps(bad)[:4000] if bad else "none")
    else:
        raise SystemExit(f"usage: {argv[0]} record | save NAME PATH | load NAME PATH")


if __name__ == "__main__":
    main(sys.argv)
