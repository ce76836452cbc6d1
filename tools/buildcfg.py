"""One place for compiler/linker flags and the list of library sources, used by setup.py and
the Makefile (via `python tools/buildcfg.py cflags|ldflags|sources`)."""
import glob
import os
import sys

OPENBLAS_OMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
OPENBLAS_INC = "/usr/include/x86_64-linux-gnu/openblas-openmp"


def library_sources(root):
    pats = ["csrc/core/**/*.c", "csrc/ops/**/*.c", "csrc/kernels/**/*.c", "csrc/autograd/**/*.c",
            "csrc/graph/**/*.c", "csrc/api/**/*.c"]
    out = []
    for p in pats:
        out += sorted(glob.glob(os.path.join(root, p), recursive=True))
    return [os.path.relpath(s, root) for s in out]


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def march_flags():
    """The ISA level the build machine supports: x86-64-v4 (AVX-512, 512-bit vectors preferred:
    Zen 5 has full-width units) when present, else v3 (AVX2+FMA+F16C), else baseline.
    PADDLE_C_NATIVE=1 uses -march=native; PADDLE_C_MARCH overrides."""
    if os.environ.get("PADDLE_C_MARCH"):
        return [f"-march={os.environ['PADDLE_C_MARCH']}"]
    if os.environ.get("PADDLE_C_NATIVE") == "1":
        return ["-march=native"]
    fl = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"} <= fl:
        return ["-march=x86-64-v4", "-mprefer-vector-width=512"]
    if {"avx2", "fma", "f16c", "bmi2"} <= fl:
        return ["-march=x86-64-v3"]
    return []


def c_flags():
    return {
        "cflags": ["-std=c11", "-O3"] + march_flags() + ["-fopenmp", "-Wall", "-Wextra", "-Werror",
                   "-Wno-unused-parameter", "-fno-strict-aliasing", "-fno-math-errno", "-fno-trapping-math", "-D_GNU_SOURCE", "-fPIC"],
        "include_dirs": [OPENBLAS_INC] if os.path.isdir(OPENBLAS_INC) else [],
    }


def link_flags():
    flags = ["-fopenmp", "-lm", "-ldnnl", "-lprotobuf-c"]
    if os.path.isdir(OPENBLAS_OMP):
        flags += [f"-L{OPENBLAS_OMP}", f"-Wl,-rpath,{OPENBLAS_OMP}", "-lopenblas"]
    else:
        flags += ["-lopenblas"]
    return flags


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    what = sys.argv[1]
    if what == "cflags":
        cf = c_flags()
        print(" ".join(cf["cflags"] + ["-I" + d for d in cf["include_dirs"]]))
    elif what == "ldflags":
        print(" ".join(link_flags()))
    elif what == "sources":
        print(" ".join(library_sources(root)))
