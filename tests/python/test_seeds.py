"""The seed programs from the Paddle 2.0 docs, run verbatim (examples/run_seed.py), with their
deterministic output checked: e16 (print format, c = a + b, d = a @ b), e17 (each row equals
a**i + b or a**i - b in int64), and the broadcast example E10. The in-repo copies must equal
../shared/seed_examples when that folder is present."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_seed(name):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"), name],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.returncode == 0, r.stderr
    return r.stdout


def parse_tensors(out):
    blocks = re.findall(r"Tensor\(shape=\[([\d, ]*)\], dtype=(\w+), place=CPUPlace, "
                        r"stop_gradient=(True|False),\n(.*?)\)(?:\n|$)", out, re.S)
    res = []
    for shape, dtype, _, data in blocks:
        shape = [int(s) for s in shape.split(",") if s.strip()]
        vals = [float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]\d+)?", data)]
        res.append((shape, dtype, np.array(vals).reshape(shape)))
    return res


def test_e16_tensor_print():
    out = run_seed("e16_tensor_print")
    ts = parse_tensors(out)
    assert [t[0] for t in ts] == [[4, 2], [2], [4, 2], [4]]
    assert all(t[1] == "float32" for t in ts)
    a, b, c, d = (t[2] for t in ts)
    np.testing.assert_array_equal(b, [1.0, 2.0])
    np.testing.assert_allclose(c, a + b, atol=2e-7 * 10)
    np.testing.assert_allclose(d, a @ b, atol=1e-6)
    lines = out.splitlines()
    assert lines[0] == "Tensor(shape=[4, 2], dtype=float32, place=CPUPlace, stop_gradient=True,"
    assert lines[1].startswith("       [[")
    assert lines[5] == "Tensor(shape=[2], dtype=float32, place=CPUPlace, stop_gradient=True,"
    assert lines[6] == "       [1., 2.])"
    # 8 decimals everywhere
    for v in re.findall(r"-?\d+\.\d+", out):
        assert len(v.split(".")[1]) == 8


def test_e17_control_flow():
    out = run_seed("e17_control_flow").strip().splitlines()
    assert len(out) == 10
    a = np.array([1, 2, 3], dtype=np.int64)
    b = np.array([4, 5, 6], dtype=np.int64)
    for i, line in enumerate(out):
        m = re.match(r"^(\d) (\+>|->) \[(.*)\]$", line)
        assert m and int(m.group(1)) == i, line
        got = np.array([int(v) for v in m.group(3).split()])
        want = a ** i + b if m.group(2) == "+>" else a ** i - b
        np.testing.assert_array_equal(got, want)
        assert m.group(3) == np.array2string(want)[1:-1]  # numpy's int formatting


def test_e10_broadcast():
    a = paddle.to_tensor([[0, 0, 0], [10, 10, 10], [20, 20, 20], [30, 30, 30]])
    b = paddle.to_tensor([0, 1, 2])
    assert (a + b).tolist() == [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]


@pytest.mark.parametrize("name", ["e16_tensor_print.py", "e17_control_flow.py", "e13_amp.py",
                                  "e20_to_static_jit_save.py", "e21_traced_layer_fluid.py"])
def test_seed_copies_are_verbatim(name):
    shared = os.path.join(os.path.dirname(ROOT), "shared", "seed_examples", name)
    if not os.path.exists(shared):
        pytest.skip("../shared/seed_examples not present")
    with open(shared, "rb") as f1, open(os.path.join(ROOT, "examples", "seeds", name), "rb") as f2:
        assert f1.read() == f2.read()


def test_e18_weight_sharing_loss_falls():
    out = run_seed("e18_weight_sharing").strip().splitlines()
    assert len(out) == 10
    losses = []
    for i, line in enumerate(out):
        m = re.match(r"^step: (\d), loss: \[(\d+\.\d+(?:e-?\d+)?)\]$", line)
        assert m and int(m.group(1)) == i, line  # loss prints as a shape-[1] array
        losses.append(float(m.group(2)))
    assert 0.15 < losses[0] < 0.6
    assert all(b < a for a, b in zip(losses, losses[1:]))  # Adam lowers it step by step
    assert losses[-1] < 0.6 * losses[0]


def test_e05_mynet_verbatim_forward_and_training_step():
    epilogue = (
        "net = MyNet()\n"
        "x = paddle.rand([4, 3, 64, 64])\n"
        "y = net(x)\n"
        "print(y.shape)\n"
        "print(float((y * y).sum(axis=1).mean()))\n"
        "opt = paddle.optimizer.Adam(parameters=net.parameters())\n"
        "loss = (y ** 2).mean() * 0 + (net(x)[:, 0] - 1.0).abs().mean()\n"
        "loss.backward(); opt.step()\n"
        "print('trained')\n")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"),
                        "e05_mynet_similarity", "--then", epilogue], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "[4, 8]"
    assert abs(float(lines[1]) - 1.0) < 1e-5  # rows are L2-normalised
    assert lines[2] == "trained"


def _run(args, timeout):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"), *args],
                       capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.replace("\r", "\n"), r.stderr


def test_e01_e02_verbatim_fashion_mnist():
    """Seeds E1 (5 epochs, batch 32, verbose=1) and E2 (the summary of E1's model) verbatim;
    Fashion-MNIST stands in for MNIST (no network here), the one announced edit. The seed is
    unseeded, so its final accuracy is a draw: real PaddlePaddle 2.6.2 running it on the same
    files gave 88.33% and 87.70%, Paddle-C 87.0-88.3% over seven runs (mean 87.7%), and from the
    same initial weights and data order both give the same losses up to float rounding
    (tools/oracle/e01_trajectory.py). 86.5% is about two standard deviations under the mean:
    a broken optimizer, loss or data path lands far below it, luck does not. One epoch's test
    accuracy also swings by about 1.5 points from the epoch before (seen: 87.66% then 85.85%; and
    87.36%, 86.34%, 85.99% in the last three epochs of one CI run whose code was not at fault: the
    same tree passed before and after), so the bar holds for the best of the last three epochs,
    and the last must stay above 85%."""
    out, err = _run(["e01_mnist_hapi_fit", "e02_summary"], timeout=1500)
    if "FashionMNIST instead" not in err:
        pytest.skip("real MNIST present: the Fashion-MNIST bar does not apply")
    for e in range(1, 6):
        assert f"Epoch {e}/5" in out
    assert re.search(r"step 1875/1875 \[=+\] - loss: \d+\.\d{4} - acc: 0\.\d{4} - \d+ms/step", out)
    assert out.count("Eval samples: 10000") == 5
    accs = [float(a) for a in re.findall(r"step 313/313 \[=+\] - loss: [\d.e+-]+ - acc: (0\.\d{4})", out)]
    assert len(accs) >= 5 and max(accs[-3:]) >= 0.865 and accs[-1] >= 0.85, accs
    for line in ["Total params: 1,333,770", "Trainable params: 1,333,770", "Non-trainable params: 0",
                 "Input size (MB): 0.00", "Forward/backward pass size (MB): 0.03", "Params size (MB): 5.09",
                 "Estimated Total Size (MB): 5.12"]:
        assert line in out
    assert out.strip().splitlines()[-1] == "{'total_params': 1333770, 'trainable_params': 1333770}"
    rows = re.findall(r"(Flatten|Linear|ReLU)-\d+\s+(\[\[[\d, ]+\]\])\s+(\[[\d, ]+\])\s+([\d,]+)", out)
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("Flatten", "[1, 784]", "0"), ("Linear", "[1, 1024]", "803,840"), ("ReLU", "[1, 1024]", "0"),
        ("Linear", "[1, 512]", "524,800"), ("ReLU", "[1, 512]", "0"), ("Linear", "[1, 10]", "5,130")]


def test_e13_amp_verbatim_sgd_step(tmp_path):
    """Seed E13 verbatim: Conv2D under auto_cast (conv2d on float16-rounded inputs, the bias add
    promoted to float32), mean, GradScaler(1024) scale/backward/minimize. The epilogue rebuilds
    the initial weights and data from the same seed; the update must be SGD(0.01) with the
    unscaled gradient of that float16 computation."""
    out = tmp_path / "e13.npz"
    epilogue = (
        "w1, b1 = model.weight.numpy(), model.bias.numpy()\n"
        "paddle.seed(13)\n"
        "m0 = paddle.nn.Conv2D(3, 2, 3, bias_attr=True)\n"
        "d0 = paddle.rand([10, 3, 32, 32])\n"
        f"np.savez({str(out)!r}, w0=m0.weight.numpy(), b0=m0.bias.numpy(), x=data.numpy(), "
        "x0=d0.numpy(), w1=w1, b1=b1, loss=loss.numpy(), scaled=scaled.numpy(), conv_dtype=str(conv.dtype), "
        "loss_dtype=str(loss.dtype), grad=model.weight.grad.numpy(), scale=scaler.state_dict()['scale'])\n")
    _run(["e13_amp", "--pre", "paddle.seed(13)", "--then", epilogue], timeout=300)
    r = np.load(out)
    np.testing.assert_array_equal(r["x"], r["x0"])  # the same seed rebuilt the same start
    assert str(r["conv_dtype"]) == "paddle.float32" and str(r["loss_dtype"]) == "paddle.float32"
    r16 = lambda a: a.astype(np.float16).astype(np.float64)  # noqa: E731
    x, w0, b0 = r["x"].astype(np.float64), r["w0"], r["b0"]
    conv = np.zeros((10, 2, 30, 30))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", r16(x)[:, :, i:i + 30, j:j + 30], r16(w0)[:, :, i, j])
    loss = (r16(conv) + b0[None, :, None, None]).mean()
    np.testing.assert_allclose(r["loss"], [loss], rtol=1e-4)
    np.testing.assert_allclose(r["scaled"], [loss * 1024], rtol=1e-4)
    # the gradient: d mean / d out = 1/numel, scaled by 1024, rounded to float16 on the way back
    g = r16(np.float32(1024.0 / conv.size))
    gw = np.zeros_like(w0, dtype=np.float64)
    for i in range(3):
        for j in range(3):
            gw[:, :, i, j] = np.einsum("nchw->c", r16(x)[:, :, i:i + 30, j:j + 30])[None, :] * g
    gw = r16(gw) / 1024.0
    np.testing.assert_allclose(r["grad"], gw, rtol=2e-3)
    np.testing.assert_allclose(r["w1"], w0 - 0.01 * gw, rtol=0, atol=5e-6)
    np.testing.assert_allclose(r["b1"], b0 - 0.01 * 0.5, rtol=0, atol=1e-6)  # d mean / d b = 1/2
    assert float(r["scale"][0]) == 1024.0  # one good step of 1000 before it grows


def test_e04_facenet_resnet50_loss_falls():
    """Seed E4 verbatim (FaceNet on a resnet50 backbone, Adam, MSELoss, batch 256) on a small
    synthetic keypoint dataset, with its 60 epochs cut to 2 (the announced edit): the train and
    eval losses of epoch 2 are below epoch 1's."""
    pre = open(os.path.join(ROOT, "examples", "seed_data", "e04_keypoints.py")).read()
    out, err = _run(["e04_facenet_resnet50", "--pre", pre, "--sub", "epochs=60=>epochs=2"], timeout=900)
    assert "'epochs=60' -> 'epochs=2'" in err
    assert "Epoch 2/2" in out and out.count("Eval samples: 64") == 2
    ends = re.findall(r"step (\d+)/\1 \[=+\] - loss: ([\d.e+-]+)", out)
    losses = [float(v) for _, v in ends]
    assert len(losses) == 4, out
    train1, eval1, train2, eval2 = losses
    assert train2 < train1 and eval2 < eval1, losses


# ---------------------------------------------------------------------------------- E20, E21 (paddle.jit)
_HAS_PROGRAM_FILES = hasattr(paddle.static, "save_inference_model") and \
    hasattr(paddle.static.Program, "parse_from_string")
_needs_program_files = pytest.mark.xfail(not _HAS_PROGRAM_FILES, raises=NotImplementedError, strict=True,
                                         reason="program files (.pdmodel/.pdiparams) arrive with branch io")


def _run_in(cwd, args, timeout=300):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"), *args], cwd=cwd,
                       capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    if r.returncode != 0 and "NotImplementedError" in r.stderr and not _HAS_PROGRAM_FILES:
        raise NotImplementedError(r.stderr[-500:])
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@_needs_program_files
def test_e20_to_static_jit_save(tmp_path):
    """Seed E20 verbatim: ./simple_net.pdmodel/.pdiparams/.pdiparams.info appear, and what they hold
    (loaded back with paddle.jit.load) computes what the seed's net computes."""
    import pickle
    check = ("x = paddle.rand([4, 10]); y = paddle.rand([3]); want = net(x, y).numpy(); "
             "m = paddle.jit.load('./simple_net'); "
             "print('MAXDIFF', float(np.abs(m(x, y).numpy() - want).max()))")
    out = _run_in(str(tmp_path), ["e20_to_static_jit_save", "--then", check])
    for s in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert (tmp_path / ("simple_net" + s)).exists()
    assert float(out.split("MAXDIFF")[1]) < 1e-6
    with open(tmp_path / "simple_net.pdiparams.info", "rb") as f:
        info = pickle.load(f)
    assert sorted(e["structured_name"] for e in info.values()) == ["linear.bias", "linear.weight"]
    assert all(e["trainable"] and not e["stop_gradient"] for e in info.values())


def test_e21_traced_layer_prints(tmp_path):
    """Seed E21 verbatim (paddle.fluid 1.7 API): prints 1 and (2, 10) (before it saves)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"), "e21_traced_layer_fluid"],
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.stdout.splitlines()[:2] == ["1", "(2, 10)"], r.stderr[-3000:]


@_needs_program_files
def test_e21_traced_layer_saves(tmp_path):
    """Seed E21 verbatim runs to the end: save_inference_model(dirname=...) writes the 1.x layout."""
    out = _run_in(str(tmp_path), ["e21_traced_layer_fluid"])
    assert out.splitlines()[:2] == ["1", "(2, 10)"]
    d = tmp_path / "saved_infer_model"
    assert (d / "__model__").exists() and (d / "linear_0.w_0").exists() and (d / "linear_0.b_0").exists()
