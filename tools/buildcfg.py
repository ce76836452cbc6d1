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


def c_flags():
    march = "-march=native" if os.environ.get("PADDLE_C_NATIVE") == "1" else "-march=x86-64-v3"
    return {
        "cflags": ["-std=c11", "-O3", march, "-fopenmp", "-Wall", "-Wextra", "-Werror",
                   "-Wno-unused-parameter", "-fno-strict-aliasing", "-fno-math-errno", "-D_GNU_SOURCE", "-fPIC"],
        "include_dirs": [OPENBLAS_INC] if os.path.isdir(OPENBLAS_INC) else [],
    }


def link_flags():
    flags = ["-fopenmp", "-lm"]
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
