"""oneDNN primitives created while the pool's thread governor has the calling thread on fewer threads
than configured (a one-thread window: the OpenMP ICV at 1) are created for the configured count
(pd_pool_create_begin): oneDNN's GEMM convolution fixes its split of the work and of the sums at
creation, and conv_dnnl.c caches primitives by geometry, so one made in such a window had run on one
thread from then on (1.2-1.45x the layer's time at 2 threads on the AVX2 EPYC) and computed other
last bits than one made at 2. The window is emulated by setting the ICV through libgomp directly
(the pool caches what it set and does not set it again); the governor is off in the children so
nothing else moves the count. The forward jit convolutions (blocked layouts) are the exception: their
cache keys them by the thread count at the call, and the one for a one-thread window must be built
for one thread, or the governor's one-thread mode never reaches them (oneDNN runs a primitive on the
threads its split was made for, whatever the ICV says)."""
import os
import subprocess
import sys

import numpy as np

# both children: libgomp, a governed call first (the pool sets this thread's count, 2, and caches
# it), and x, w from a seed
_PRELUDE = r"""
import ctypes, os, sys, time, numpy as np, paddle, paddle.nn.functional as F
gomp = ctypes.CDLL("libgomp.so.1")
paddle.abs(paddle.ones([1 << 20]))
def data(seed, xshape, wshape, scale):
    rng = np.random.default_rng(seed)
    return (paddle.to_tensor(rng.standard_normal(xshape).astype("float32")),
            paddle.to_tensor((rng.standard_normal(wshape) / scale).astype("float32")))
"""

_CHILD = _PRELUDE + r"""
x, w = data(7, (3, 130, 6, 5), (250, 130, 3, 3), 30)
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


_CHILD_JIT = _PRELUDE + r"""
x, w = data(3, (4, 64, 56, 56), (128, 64, 3, 3), 24)
F.conv2d(x, w, stride=2, padding=1)  # the 2-thread primitive (stride 2: oneDNN's blocked jit kernel)

def cpu_of_others():
    # user + system ticks of every thread of the process but this one
    me, tot = str(threading_id()), 0
    for t in os.listdir("/proc/self/task"):
        if t != me:
            f = open(f"/proc/self/task/{t}/stat").read().rsplit(")", 1)[1].split()
            tot += int(f[11]) + int(f[12])
    return tot

def threading_id():
    return ctypes.CDLL(None).syscall(186)  # gettid

gomp.omp_set_num_threads(1)  # what the governor's one-thread window does
F.conv2d(x, w, stride=2, padding=1)  # the window's primitive is created here
o0, c0, t_end = cpu_of_others(), time.process_time(), time.time() + 1.5
while time.time() < t_end:
    F.conv2d(x, w, stride=2, padding=1)
c1, o1 = time.process_time(), cpu_of_others()
gomp.omp_set_num_threads(2)
tick = os.sysconf("SC_CLK_TCK")
print((o1 - o0) / tick, c1 - c0)
"""


def test_jit_primitive_made_in_a_one_thread_window_runs_on_one_thread():
    """in the window, the other OpenMP threads do (next to) none of the convolutions' work: their CPU
    time stays under a tenth of the process's (with the window's primitive built for 2 threads, as
    before the fix, they took half of it)"""
    env = dict(os.environ, OMP_NUM_THREADS="2", PADDLE_C_THREAD_GOVERNOR="0", GOMP_SPINCOUNT="0")
    r = subprocess.run([sys.executable, "-c", _CHILD_JIT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    others, total = (float(v) for v in r.stdout.split())
    assert total > 0.5, total  # the convolutions ran for most of the 1.5 s
    assert others < 0.1 * total, (others, total)
