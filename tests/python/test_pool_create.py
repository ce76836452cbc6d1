"""oneDNN primitives created while the pool's thread governor has the calling thread on fewer threads
than configured (a one-thread window: the OpenMP ICV at 1) are created for the configured count
(pd_pool_create_begin): oneDNN's GEMM convolution fixes its split of the work and of the sums at
creation, and conv_dnnl.c caches primitives by geometry, so one made in such a window had run on one
thread from then on (1.2-1.45x the layer's time at 2 threads on the AVX2 EPYC) and computed other
last bits than one made at 2. The window is emulated by setting the ICV through libgomp directly
(the pool caches what it set and does not set it again); the governor is off in the children so
nothing else moves the count."""
import os
import subprocess
import sys

import numpy as np

_CHILD = r"""
import ctypes, sys, numpy as np, paddle, paddle.nn.functional as F
gomp = ctypes.CDLL("libgomp.so.1")
rng = np.random.default_rng(7)
x = paddle.to_tensor(rng.standard_normal((3, 130, 6, 5)).astype("float32"))
w = paddle.to_tensor((rng.standard_normal((250, 130, 3, 3)) / 30).astype("float32"))
paddle.abs(paddle.ones([1 << 20]))  # a governed call first: the pool sets this thread's count (2), caches it
if sys.argv[1] == "window":
    gomp.omp_set_num_threads(1)  # what the governor's one-thread window does
    F.conv2d(x, w, padding=1)    # the primitive is created here (the 2-D GEMM-convolution case)
    gomp.omp_set_num_threads(2)
y = F.conv2d(x, w, padding=1)
np.save(sys.argv[2], y.numpy())
"""


def _child(mode, path):
    env = dict(os.environ, OMP_NUM_THREADS="2", PADDLE_C_THREAD_GOVERNOR="0")
    r = subprocess.run([sys.executable, "-c", _CHILD, mode, path], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return np.load(path)


def test_primitive_made_in_a_one_thread_window_is_the_configured_ones(tmp_path):
    made_in_window = _child("window", str(tmp_path / "a.npy"))
    made_at_two = _child("plain", str(tmp_path / "b.npy"))
    assert made_in_window.tobytes() == made_at_two.tobytes(), int((made_in_window != made_at_two).sum())
