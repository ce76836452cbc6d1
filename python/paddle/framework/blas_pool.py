"""One thread pool for the whole process: numpy's own OpenBLAS is set to one thread at import.

numpy's wheels bundle a pthreads OpenBLAS with its own worker threads, which spin for a while
after every numpy BLAS call. On a small machine they take the cores our OpenMP pool's lockstep
kernels are waiting on: one 0.4 ms np.dot per training step made an LSTM(128->256) step 4x
slower here (9 -> 40 ms); with numpy's BLAS on one thread the same loop costs 9.4 + 0.8 ms. So
paddle sets every OpenBLAS loaded into the process that is not an OpenMP build (ours shares the
OpenMP pool of the kernels) to PADDLE_C_NUMPY_BLAS_THREADS threads (default 1; 0 leaves them
alone). Only OpenBLAS is recognised (the library numpy's wheels and Debian's numpy use)."""
import ctypes
import os

_PREFIXES = ("scipy_openblas", "openblas")
_SUFFIXES = ("64_", "_64_", "")


def _symbol(lib, name):
    for prefix in _PREFIXES:
        for suffix in _SUFFIXES:
            fn = getattr(lib, f"{prefix}_{name}{suffix}", None)
            if fn is not None:
                return fn
    return None


def loaded_openblas():
    """Paths of the OpenBLAS libraries mapped into this process (Linux; [] elsewhere)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.rsplit("/", 1)[-1]}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/"))


def _open(path):
    """(library, threads, parallel mode: 0 sequential, 1 pthreads, 2 OpenMP) of a loaded
    OpenBLAS, or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    get_n, get_par = _symbol(lib, "get_num_threads"), _symbol(lib, "get_parallel")
    if get_n is None or get_par is None:
        return None
    return lib, int(get_n()), int(get_par())


def threads_of(path):
    """(threads, parallel mode) of a loaded OpenBLAS, or None."""
    info = _open(path)
    return info and info[1:]


def limit_foreign_blas(n=None):
    """Sets every loaded OpenBLAS that is not an OpenMP build to n threads (default: the
    PADDLE_C_NUMPY_BLAS_THREADS environment variable, else 1; 0 changes nothing)."""
    if n is None:
        try:
            n = int(os.environ.get("PADDLE_C_NUMPY_BLAS_THREADS", "1"))
        except ValueError:
            n = 1
    if n <= 0:
        return
    for path in loaded_openblas():
        info = _open(path)
        if info is None or info[2] == 2 or info[1] == n:
            continue
        set_n = _symbol(info[0], "set_num_threads")
        if set_n is not None:
            set_n(ctypes.c_int(n))
