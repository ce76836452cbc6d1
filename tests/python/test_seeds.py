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


@pytest.mark.parametrize("name", ["e16_tensor_print.py", "e17_control_flow.py"])
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
