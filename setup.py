"""Builds paddle._C (the C core, kernels, op table and the CPython binding, all C11) and installs
the Python package. `pip install .` or, for development, `pip install -e .` / `python setup.py
build_ext --inplace`. C libraries come from Debian: OpenBLAS (OpenMP build) and libgomp; oneDNN 3.2
from PyPI (onednn-cpu-gomp, in the build Python's prefix: tools/buildcfg.py), copied into
paddle/libs/ and found there through $ORIGIN rpaths, as Paddle's own wheel bundles it."""
import glob
import os
import sys

import shutil

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from buildcfg import (CUDA_LIB, DNNL_SONAME, FILE_FLAGS, ISA_LEVELS, ISA_SOURCES, baseline_sources,  # noqa: E402
                      build_cuda, c_flags, dnnl_dirs, isa_flags, link_flags)
import isa_build  # noqa: E402

# the per-ISA kernel files (buildcfg.ISA_SOURCES) are compiled once per level in build_extension
sources = baseline_sources(ROOT) + sorted(glob.glob("csrc/python/**/*.c", recursive=True))

ext = Extension(
    "paddle._C",
    sources=sources,
    depends=sorted(glob.glob("csrc/**/*.h", recursive=True)),  # a header edit reaches _compile's check
    include_dirs=["csrc"] + c_flags()["include_dirs"],
    extra_compile_args=c_flags()["cflags"],
    extra_link_args=link_flags(dnnl_rpath="$ORIGIN/libs"),  # paddle/_C*.so -> paddle/libs/libdnnl.so.3
)


def _mpi_extension():
    """paddle._dist: the MPI collectives (csrc/dist), a separate module so that only it links libmpi
    (`import paddle` works without MPI at run time). Built where `mpicc --showme` answers
    (Debian's libopenmpi-dev); skipped otherwise (paddle.distributed then says MPI is missing)."""
    import subprocess
    try:
        comp = subprocess.run(["mpicc", "--showme:compile"], capture_output=True, text=True, check=True).stdout.split()
        link = subprocess.run(["mpicc", "--showme:link"], capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        print("setup.py: mpicc not found: paddle._dist (paddle.distributed) is not built", file=sys.stderr)
        return None
    libdirs = [f[2:] for f in link if f.startswith("-L")]
    return Extension(
        "paddle._dist",
        sources=sorted(glob.glob("csrc/dist/*.c")),
        depends=sorted(glob.glob("csrc/dist/*.h")),
        include_dirs=[f[2:] for f in comp if f.startswith("-I")],
        extra_compile_args=[f for f in c_flags()["cflags"] if f != "-fopenmp"] + [f for f in comp if not f.startswith("-I")],
        extra_link_args=link + [f"-Wl,-rpath,{d}" for d in libdirs],
    )


_dist_ext = _mpi_extension()


class BuildWithInferenceLib(build_ext):
    """Also links the C inference library from the same objects, without the Python binding:
    <package>/libs/libpaddle_inference_c.so (only the PD_* names exported), its header in
    <package>/include/pd_inference_api.h (+ pd_extension.h, custom operators) and <package>/libs/pkgconfig/paddle_inference_c.pc
    (what paddle.sysconfig.get_include() / get_lib() name). Where nvcc is found, also the CUDA
    backend <package>/libs/libpaddle_c_cuda.so from csrc/cuda/*.cu (tools/buildcfg.py build_cuda,
    compiled while the C sources compile; without nvcc one line says so and nothing else changes)."""

    def build_extension(self, e):
        # an in-place rebuild compiles only the objects older than their source or any header it
        # included (gcc's -MMD dependency file beside each object; no such file: compile)
        compile_one = self.compiler._compile

        def _stale(obj, src):
            dep = os.path.splitext(obj)[0] + ".d"
            if not (os.path.exists(obj) and os.path.exists(dep)):
                return True
            t = os.path.getmtime(obj)
            with open(dep) as f:
                text = f.read().replace("\\\n", " ")
            files = text.split(":", 1)[1].split() if ":" in text else [src]
            return any(not os.path.exists(d) or os.path.getmtime(d) > t for d in files)

        def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
            if not _stale(obj, src):
                return
            dep = os.path.splitext(obj)[0] + ".d"
            extra = FILE_FLAGS.get(os.path.relpath(os.path.abspath(src), ROOT), [])
            compile_one(obj, src, ext, cc_args, list(extra_postargs) + extra + ["-MMD", "-MF", dep], pp_opts)

        self.compiler._compile = _compile
        cuda = None
        if e.name == "paddle._C":  # nvcc runs beside the C compiler (objects in build/cuda/)
            from concurrent.futures import ThreadPoolExecutor
            cuda_pool = ThreadPoolExecutor(1)
            cuda_out = os.path.join(os.path.dirname(self.get_ext_fullpath(e.name)), "libs", CUDA_LIB)
            cuda = cuda_pool.submit(build_cuda, ROOT, cuda_out, max(1, int(self.parallel or 1)))
            cuda_pool.shutdown(wait=False)
        try:
            self._build_c(e)
        finally:
            if cuda is not None:
                cuda.result()  # re-raises a CUDA compile error

    def _build_c(self, e):
        isa_objs = self._build_isa_kernels(e) if e.name == "paddle._C" else []
        e.extra_objects = list(e.extra_objects or []) + isa_objs
        # distutils relinks only when a source or a `depends` entry is newer than the library, and
        # extra_objects are neither: a rebuilt per-ISA object must count, or the old copy stays linked
        e.depends = list(e.depends or []) + [o for o in isa_objs if o not in (e.depends or [])]
        super().build_extension(e)
        if e.name != "paddle._C":
            return
        pkg = os.path.dirname(self.get_ext_fullpath(e.name))
        libs, inc = os.path.join(pkg, "libs"), os.path.join(pkg, "include")
        os.makedirs(os.path.join(libs, "pkgconfig"), exist_ok=True)
        os.makedirs(inc, exist_ok=True)
        objs = [os.path.join(self.build_temp, os.path.splitext(s)[0] + self.compiler.obj_extension)
                for s in baseline_sources(ROOT)] + isa_objs
        vs = os.path.join(self.build_temp, "paddle_inference_c.map")
        with open(vs, "w") as f:
            f.write("{ global: PD_*; local: *; };\n")
        self._bundle_dnnl(libs)
        out = os.path.join(libs, "libpaddle_inference_c.so")
        self.compiler.link_shared_object(objs, out, extra_postargs=link_flags(dnnl_rpath="$ORIGIN") + [
            f"-Wl,--version-script={vs}", "-Wl,-soname,libpaddle_inference_c.so"])
        for h in ("pd_inference_api.h", "pd_extension.h"):  # the custom-operator header too
            shutil.copyfile(os.path.join(ROOT, "csrc", "api", h), os.path.join(inc, h))
        self._write_pc(pkg)
        self._inference_pkg = pkg

    @staticmethod
    def _bundle_dnnl(libs):
        """oneDNN's library beside libpaddle_inference_c.so (paddle/libs/): _C and the inference
        library find it through their $ORIGIN rpaths, so neither the build venv nor Debian's
        libdnnl.so.2 is needed at run time. Copied only when it changed (54 MB)."""
        src, dst = os.path.join(dnnl_dirs()[1], DNNL_SONAME), os.path.join(libs, DNNL_SONAME)
        s = os.stat(src)
        if os.path.exists(dst):
            d = os.stat(dst)
            if d.st_size == s.st_size and d.st_mtime >= s.st_mtime:
                return
        tmp = dst + ".tmp"
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)  # a running process keeps the old inode

    def _build_isa_kernels(self, e):
        """Compiles each of buildcfg.ISA_SOURCES once per ISA level (2 at a time), suffixes their
        functions with the level (tools/isa_build.py) and compiles the dispatch table; returns
        the objects to link."""
        from concurrent.futures import ThreadPoolExecutor
        levels = [lv for lv, _ in ISA_LEVELS]

        def one(job):
            lv, src = job
            obj, = self.compiler.compile([src], output_dir=os.path.join(self.build_temp, "isa_" + lv),
                                         macros=e.define_macros, include_dirs=e.include_dirs,
                                         extra_postargs=e.extra_compile_args + isa_flags(lv), depends=e.depends)
            isa_build.rename(lv, obj)
            return obj

        jobs = [(lv, s) for lv in levels for s in ISA_SOURCES]
        with ThreadPoolExecutor(max(2, int(self.parallel or 2))) as pool:
            objs = list(pool.map(one, jobs))
        table = os.path.abspath(os.path.join(self.build_temp, "pd_isa_table.c"))
        isa_build.write_table(table, levels, {lv: [o for (l2, _), o in zip(jobs, objs) if l2 == lv] for lv in levels})
        tobj, = self.compiler.compile([table], output_dir="/", macros=e.define_macros,
                                      include_dirs=e.include_dirs, extra_postargs=e.extra_compile_args)
        return objs + [tobj]

    def run(self):
        super().run()
        pkg = getattr(self, "_inference_pkg", None)
        if self.inplace and pkg:  # the package in the source tree gets them too
            dst = os.path.join(ROOT, "python", "paddle")
            for d in ("libs", "include"):
                shutil.copytree(os.path.join(pkg, d), os.path.join(dst, d), dirs_exist_ok=True)
            self._write_pc(dst)

    @staticmethod
    def _write_pc(pkg):
        with open(os.path.join(pkg, "libs", "pkgconfig", "paddle_inference_c.pc"), "w") as f:
            f.write("prefix=${pcfiledir}/../..\nincludedir=${prefix}/include\nlibdir=${prefix}/libs\n\n"
                    "Name: paddle_inference_c\nDescription: Paddle-C's C inference API (pd_inference_api.h)\n"
                    "Version: 0.1.0\nCflags: -I${includedir}\n"
                    "Libs: -L${libdir} -Wl,-rpath,${libdir} -lpaddle_inference_c\n")


setup(
    name="paddle-c",
    version="0.1.0",
    description="PaddlePaddle 2.x API with a C11 engine",
    package_dir={"": "python"},
    packages=find_packages("python"),
    ext_modules=[ext] + ([_dist_ext] if _dist_ext else []),
    cmdclass={"build_ext": BuildWithInferenceLib},
    python_requires=">=3.9",
    install_requires=["numpy"],
)
