"""import paddle puts numpy's own (pthreads) OpenBLAS on one thread, so its spinning workers do
not take the cores of paddle's OpenMP pool (python/paddle/framework/blas_pool.py), and leaves
paddle's OpenMP-build OpenBLAS and pool alone. Each case runs in a fresh interpreter."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROBE = r"""
import json, sys
sys.path.insert(0, {path!r})
if {with_paddle}:
    import paddle
    n_pool = paddle._C.get_num_threads()
else:
    import numpy
    n_pool = None
import importlib.util
spec = importlib.util.spec_from_file_location("bp", {bp!r})
bp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bp)
print(json.dumps({{"libs": {{p: bp.threads_of(p) for p in bp.loaded_openblas()}}, "pool": n_pool}}))
"""


def probe(with_paddle, **env):
    code = PROBE.format(path=os.path.join(ROOT, "python"), with_paddle=with_paddle,
                        bp=os.path.join(ROOT, "python", "paddle", "framework", "blas_pool.py"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="", **env))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def numpy_blas(libs):
    """numpy's library: the pthreads (mode 1) OpenBLAS."""
    found = [info for info in libs.values() if info and info[1] == 1]
    if not found:
        pytest.skip("numpy does not use a pthreads OpenBLAS in this environment")
    return found[0]


def test_numpy_openblas_gets_one_thread_and_ours_keeps_the_pool():
    alone = numpy_blas(probe(False)["libs"])
    if alone[0] < 2:
        pytest.skip("numpy's OpenBLAS starts with one thread here (one core)")
    got = probe(True)
    assert numpy_blas(got["libs"])[0] == 1
    ours = [info for info in got["libs"].values() if info and info[1] == 2]
    assert ours and ours[0][0] == 2 and got["pool"] == 2


def test_numpy_blas_threads_setting():
    alone = numpy_blas(probe(False)["libs"])
    assert numpy_blas(probe(True, PADDLE_C_NUMPY_BLAS_THREADS="0")["libs"]) == alone
    assert numpy_blas(probe(True, PADDLE_C_NUMPY_BLAS_THREADS="3")["libs"])[0] == 3
