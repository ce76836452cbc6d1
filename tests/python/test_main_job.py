"""The README's main job (examples/train_fashion_mnist.py): one epoch of seed E1's MLP on the
real Fashion-MNIST data through paddle.Model, save, reload into a fresh Model, same accuracy
(the script asserts accuracy > 0.75 and an identical reloaded evaluation)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


@pytest.mark.skipif(not os.path.exists(DATA), reason="Debian's dataset-fashion-mnist is not installed")
def test_main_job_trains_saves_and_reloads(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train_fashion_mnist.py"),
                        "--epochs", "1", "--out", str(tmp_path)], capture_output=True, text=True,
                       timeout=900, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "Epoch 1/1" in r.stdout and "Eval samples: 10000" in r.stdout
    assert "Total params: 1,333,770" in r.stdout
    assert (tmp_path / "mlp.pdparams").exists() and (tmp_path / "mlp.pdopt").exists()
    assert (tmp_path / "vdl" / "scalars.jsonl").exists()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    png = tmp_path / "vdl" / "curves.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"training curves: {png}" in r.stdout
