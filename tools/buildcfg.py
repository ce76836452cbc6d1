"""One place for compiler/linker flags and the list of library sources, used by setup.py and
the Makefile (via `python tools/buildcfg.py cflags|ldflags|sources|baseline-sources|isa-sources|isa-levels|isa-cflags L`,
`cuda-lib OUT [JOBS]`: the CUDA library, where nvcc is found)."""
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


# Run-time ISA dispatch (issue 21; docs/arch/core.md "One build for every x86-64 CPU with
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
    "csrc/kernels/cpu/conv.c", "csrc/kernels/cpu/conv_pw_small.c", "csrc/kernels/cpu/conv_winograd.c",
    "csrc/kernels/cpu/conv_winograd_s2.c", "csrc/kernels/cpu/conv_winograd_train.c",
    "csrc/kernels/cpu/interp.c", "csrc/kernels/cpu/loss.c",
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



# The CUDA backend (issue 22; docs/arch/cuda.md "CUDA runtime and build"): every csrc/cuda/*.cu
# compiled by nvcc into <package>/libs/libpaddle_c_cuda.so, which paddle._C dlopen's only where a
# GPU is found. Built only where nvcc is found (PADDLE_C_NVCC, else PATH, else
# /usr/local/cuda/bin/nvcc; PADDLE_C_CUDA=0 skips it); the CPU build is the same without it.
# The CUDA runtime is linked statically (the library needs only the driver, libcuda.so.1) and
# the only exported name is pd_cuda_get_api. Objects and nvcc's dependency files live in
# build/cuda/; a .cu recompiles only when it, a header it includes, or the flags changed.
NVCC_FLAGS = ["-std=c++17", "-O3", "--expt-relaxed-constexpr",
              "-gencode", "arch=compute_90a,code=sm_90a",   # Hopper machine code (wgmma, setmaxnreg)
              "-gencode", "arch=compute_90,code=compute_90",  # + PTX the driver compiles for newer GPUs
              "-Xcompiler", "-fPIC,-fvisibility=hidden,-Wall,-Werror", "-Werror", "all-warnings",
              "-Icsrc/cuda", "-Icsrc"]
NVCC_LINK_FLAGS = ["-shared", "-cudart", "static", "-Xlinker", "--no-undefined"]  # a missing symbol fails here, not at dlopen
CUDA_LIB = "libpaddle_c_cuda.so"


def nvcc_path():
    """The nvcc to use, or None (with the reason as a second value) when the CUDA build is off."""
    import shutil
    if os.environ.get("PADDLE_C_CUDA") == "0":
        return None, "PADDLE_C_CUDA=0"
    env = os.environ.get("PADDLE_C_NVCC")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise SystemExit(f"buildcfg: error: PADDLE_C_NVCC={env} is not an executable")
        return env, None
    p = shutil.which("nvcc")
    if p:
        return p, None
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        return "/usr/local/cuda/bin/nvcc", None
    return None, "nvcc not found (PATH, /usr/local/cuda/bin)"


def cuda_sources(root):
    return [os.path.relpath(s, root) for s in sorted(glob.glob(os.path.join(root, "csrc", "cuda", "*.cu")))]


def _dep_stale(obj, dep, src):
    """obj missing, or older than src or than a file its nvcc dependency list names"""
    if not (os.path.exists(obj) and os.path.exists(dep)):
        return True
    t = os.path.getmtime(obj)
    with open(dep) as f:
        text = f.read().replace("\\\n", " ")
    files = text.split(":", 1)[1].split() if ":" in text else [src]
    return any(not os.path.exists(d) or os.path.getmtime(d) > t for d in files + [src])


def build_cuda(root, out, jobs=2, log=None):
    """Builds out (<package>/libs/libpaddle_c_cuda.so) from csrc/cuda/*.cu when nvcc is found;
    returns out, or None when the CUDA build is off (one line says why). Raises SystemExit on a
    compile or link error (warnings are errors). Incremental: unchanged sources are not recompiled
    and an up-to-date library is not relinked."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor
    log = log or (lambda m: print(m, file=sys.stderr))
    nvcc, why = nvcc_path()
    if nvcc is None:
        log(f"buildcfg: {why}: {CUDA_LIB} (the CUDA backend) is not built")
        return None
    objdir = os.path.join(root, "build", "cuda")
    os.makedirs(objdir, exist_ok=True)
    sig = " ".join([nvcc] + NVCC_FLAGS) + "\n"  # beside each object: another nvcc or flags recompile it
    srcs = cuda_sources(root)
    jobs_todo, objs = [], []
    for s in srcs:
        base = os.path.join(objdir, os.path.splitext(os.path.basename(s))[0])
        obj, dep, cmdf = base + ".o", base + ".d", base + ".cmd"
        objs.append(obj)
        old = open(cmdf).read() if os.path.exists(cmdf) else None
        if old != sig or _dep_stale(obj, dep, os.path.join(root, s)):
            jobs_todo.append((s, obj, dep))

    def compile_one(job):
        s, obj, dep = job
        cmd = [nvcc] + NVCC_FLAGS + ["-MMD", "-MF", dep, "-c", s, "-o", obj]
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if r.returncode != 0:
            if os.path.exists(obj):
                os.remove(obj)  # never link a stale object of a source that no longer compiles
        else:
            with open(os.path.splitext(obj)[0] + ".cmd", "w") as f:
                f.write(sig)
        return s, cmd, r

    if jobs_todo:
        failed = []
        with ThreadPoolExecutor(max(1, min(int(jobs or 1), len(jobs_todo)))) as pool:
            for s, cmd, r in pool.map(compile_one, jobs_todo):
                msg = (r.stdout + r.stderr).strip()
                if r.returncode != 0:
                    failed.append(s)
                    log(" ".join(cmd) + "\n" + msg)
                elif msg:
                    log(msg)
        if failed:
            raise SystemExit(f"buildcfg: error: nvcc failed on {', '.join(failed)}")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    objs_file = os.path.join(objdir, "objects.txt")  # a removed .cu or new link flags relink too
    link_sig = "\n".join([nvcc] + NVCC_LINK_FLAGS + objs)
    listed = open(objs_file).read() if os.path.exists(objs_file) else None
    if (os.path.exists(out) and listed == link_sig and
            all(os.path.getmtime(o) <= os.path.getmtime(out) for o in objs)):
        return out
    vs = os.path.join(objdir, "paddle_c_cuda.map")
    with open(vs, "w") as f:
        f.write("{ global: pd_cuda_get_api; local: *; };\n")
    tmp = out + ".tmp"
    cmd = [nvcc] + NVCC_LINK_FLAGS + ["-o", tmp] + objs + [
        "-Xlinker", f"--version-script={vs}", "-Xlinker", f"-soname={CUDA_LIB}"]
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        log(" ".join(cmd) + "\n" + (r.stdout + r.stderr).strip())
        raise SystemExit(f"buildcfg: error: linking {CUDA_LIB} failed")
    os.replace(tmp, out)  # a running process keeps the old inode
    with open(objs_file, "w") as f:
        f.write(link_sig)
    return out


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
    elif what == "cuda-lib":  # python tools/buildcfg.py cuda-lib OUT [JOBS]
        build_cuda(root, sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    elif what == "reuse-objects":
        reuse_objects(root, sys.argv[2], os.path.join(root, "build", "obj"))
