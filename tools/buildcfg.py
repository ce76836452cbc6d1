"""One place for compiler/linker flags and the list of library sources, used by setup.py and
the Makefile (via `python tools/buildcfg.py cflags|ldflags|sources|baseline-sources|isa-sources|isa-levels|isa-cflags L`)."""
import glob
import os
import sys

OPENBLAS_OMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
OPENBLAS_INC = "/usr/include/x86_64-linux-gnu/openblas-openmp"
# oneDNN 3.2 (the version Paddle 2.6.2 ships) from PyPI's onednn-cpu-gomp / onednn-devel-cpu-gomp
# (GNU OpenMP build: the same libgomp as OpenBLAS's OpenMP build, one thread pool), installed by
# scripts/deps.sh into the build Python's prefix (<venv>/lib/libdnnl.so.3, <venv>/include/oneapi/dnnl);
# PADDLE_C_ONEDNN_ROOT names another prefix. The library is copied next to the package at build time
# (paddle/libs/, setup.py) and found through an rpath.
DNNL_SONAME = "libdnnl.so.3"


def dnnl_dirs():
    """(include dir, lib dir) of oneDNN 3.x; a clear error when it is missing"""
    root = os.environ.get("PADDLE_C_ONEDNN_ROOT") or sys.prefix
    inc, lib = os.path.join(root, "include"), os.path.join(root, "lib")
    if not (os.path.exists(os.path.join(lib, DNNL_SONAME)) and os.path.exists(os.path.join(inc, "oneapi", "dnnl", "dnnl.h"))):
        raise SystemExit(f"buildcfg: oneDNN 3 not found under {root} (lib/{DNNL_SONAME}, include/oneapi/dnnl/dnnl.h): "
                         "run scripts/deps.sh (pip install onednn-cpu-gomp==2023.2.0 onednn-devel-cpu-gomp==2023.2.0 "
                         "into the build Python) or set PADDLE_C_ONEDNN_ROOT")
    return inc, lib


def library_sources(root):
    pats = ["csrc/core/**/*.c", "csrc/ops/**/*.c", "csrc/kernels/**/*.c", "csrc/autograd/**/*.c",
            "csrc/graph/**/*.c", "csrc/api/**/*.c"]
    out = []
    for p in pats:
        out += sorted(glob.glob(os.path.join(root, p), recursive=True))
    return [os.path.relpath(s, root) for s in out]


# Run-time ISA dispatch (issue 21; docs/architecture.md "One build for every x86-64 CPU with
# AVX2"). The library is compiled for x86-64-v3 (AVX2, FMA, F16C, BMI1/2: the declared minimum,
# checked at import before any of it runs), whatever the build machine has. The hot kernel
# translation units below are compiled once more per ISA level, their function symbols renamed
# with a `__<level>` suffix (tools/isa_build.py); each public name becomes a jump through a slot
# of a table that csrc/core/pd_isa.c fills once at load time from cpuid + XGETBV
# (PADDLE_C_ISA=avx2|avx512 forces a level the CPU has).
BASELINE_MARCH = ["-march=x86-64-v3"]
ISA_LEVELS = [  # lowest first; the first is what a v3 CPU runs
    ("avx2", ["-march=x86-64-v3"]),
    ("avx512", ["-march=x86-64-v4", "-mprefer-vector-width=512"]),
]
ISA_SOURCES = [  # the hot loops: elementwise, casts, reductions, softmax/norms, RNN, optimizers ...
    "csrc/core/generated/cast_loops.c",
    "csrc/kernels/cpu/activation.c", "csrc/kernels/cpu/amp.c", "csrc/kernels/cpu/attention.c",
    "csrc/kernels/cpu/binary.c", "csrc/kernels/cpu/common.c", "csrc/kernels/cpu/compare.c",
    "csrc/kernels/cpu/conv.c", "csrc/kernels/cpu/interp.c", "csrc/kernels/cpu/loss.c",
    "csrc/kernels/cpu/matmul.c", "csrc/kernels/cpu/norm.c", "csrc/kernels/cpu/optim.c",
    "csrc/kernels/cpu/pool.c", "csrc/kernels/cpu/reduce.c", "csrc/kernels/cpu/reduce_arg.c",
    "csrc/kernels/cpu/rnn.c", "csrc/kernels/cpu/rnn_gemm.c", "csrc/kernels/cpu/rnn_seq.c",
    "csrc/kernels/cpu/scan.c", "csrc/kernels/cpu/softmax.c", "csrc/kernels/cpu/unary.c",
]
# files compiled without the baseline -march: the cpuid check must run on any x86-64 CPU
FILE_FLAGS = {"csrc/core/pd_isa.c": ["-march=x86-64", "-mtune=generic"]}


def baseline_sources(root):
    """library_sources less the per-ISA ones (those are compiled once per level instead)."""
    isa = set(ISA_SOURCES)
    return [s for s in library_sources(root) if s not in isa]


def isa_flags(level):
    return dict(ISA_LEVELS)[level] + [f"-DPD_ISA_LEVEL_{level.upper()}=1"]


def march_flags():
    """The baseline ISA: x86-64-v3 on every build machine (never the build machine's own level:
    the code may run elsewhere). PADDLE_C_MARCH / PADDLE_C_NATIVE=1 override it for a local,
    non-portable build (the per-ISA kernels keep their own levels)."""
    if os.environ.get("PADDLE_C_MARCH"):
        return [f"-march={os.environ['PADDLE_C_MARCH']}"]
    if os.environ.get("PADDLE_C_NATIVE") == "1":
        return ["-march=native"]
    return list(BASELINE_MARCH)


def c_flags():
    return {
        "cflags": ["-std=c11", "-O3"] + march_flags() + ["-fopenmp", "-Wall", "-Wextra", "-Werror",
                   "-Wno-unused-parameter", "-fno-strict-aliasing", "-fno-math-errno", "-fno-trapping-math", "-D_GNU_SOURCE", "-fPIC"],
        "include_dirs": [dnnl_dirs()[0]] + ([OPENBLAS_INC] if os.path.isdir(OPENBLAS_INC) else []),
    }


def link_flags(dnnl_rpath=None):
    """dnnl_rpath: where the linked object finds libdnnl.so.3 at run time (setup.py: $ORIGIN-relative,
    the copy in paddle/libs/); default the build prefix's lib dir (the Makefile's test binaries)"""
    lib = dnnl_dirs()[1]
    flags = ["-fopenmp", "-lm", f"-L{lib}", f"-l:{DNNL_SONAME}", f"-Wl,-rpath,{dnnl_rpath or lib}",
             "-lprotobuf-c", "-lfftw3f_omp", "-lfftw3_omp", "-lfftw3f", "-lfftw3"]
    if os.path.isdir(OPENBLAS_OMP):
        flags += [f"-L{OPENBLAS_OMP}", f"-Wl,-rpath,{OPENBLAS_OMP}", "-lopenblas"]
    else:
        flags += ["-lopenblas"]
    return flags


def reuse_objects(root, temp, out):
    """Copies the library objects setup.py built (baseline and per-ISA; same sources and flags as the
    Makefile's plain build, plus Python's -DNDEBUG -g -fwrapv) into the Makefile's build/obj where
    they are newer, with their dependency files retargeted, so the plain C tests link what ships
    instead of compiling the library a second time (scripts/test.sh; ~2.5 of CI's minutes). The
    ASan build always compiles its own (asserts on). The dispatch table is left to the Makefile."""
    import shutil
    pairs = [(s, s) for s in baseline_sources(root)]
    pairs += [(os.path.join("isa_" + lv, s), os.path.join("isa_" + lv, s)) for lv, _ in ISA_LEVELS for s in ISA_SOURCES]
    n = 0
    for src_rel, dst_rel in pairs:
        o = os.path.join(temp, os.path.splitext(src_rel)[0] + ".o")
        d = os.path.splitext(o)[0] + ".d"
        to = os.path.join(out, os.path.splitext(dst_rel)[0] + ".o")
        if not (os.path.exists(o) and os.path.exists(d)):
            continue
        if os.path.exists(to) and os.path.getmtime(to) >= os.path.getmtime(o):
            continue
        os.makedirs(os.path.dirname(to), exist_ok=True)
        with open(d) as f:
            text = f.read()
        head, sep, rest = text.partition(":")
        if not sep:
            continue
        shutil.copy2(o, to)
        with open(os.path.splitext(to)[0] + ".d", "w") as f:
            f.write(os.path.relpath(to, root) + ":" + rest)
        n += 1
    print(f"buildcfg: {n} objects reused from {os.path.relpath(temp, root)}")


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
    elif what == "baseline-sources":
        print(" ".join(baseline_sources(root)))
    elif what == "isa-sources":
        print(" ".join(ISA_SOURCES))
    elif what == "isa-levels":
        print(" ".join(name for name, _ in ISA_LEVELS))
    elif what == "isa-cflags":
        print(" ".join(isa_flags(sys.argv[2])))
    elif what == "file-cflags":
        print(" ".join(FILE_FLAGS.get(sys.argv[2], [])))
    elif what == "reuse-objects":
        reuse_objects(root, sys.argv[2], os.path.join(root, "build", "obj"))
