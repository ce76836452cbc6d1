"""paddle.utils.cpp_extension: custom operators written in C, compiled and registered at run time.

A library implements operators against `pd_extension.h` (in paddle.sysconfig.get_include(); see
that header and examples/custom_op/) and exports them with PD_CUSTOM_OP_LIBRARY(table).

    ops = paddle.utils.cpp_extension.load(name="custom_ops", sources=["relu_op.c"])
    y = ops.custom_relu(x)          # eager, with autograd; records into static programs

`load` compiles with the system compiler (cc for .c, c++ for .cc/.cpp/.cxx) into
get_build_directory()/<name>/ (rebuilt only when the sources or flags change), registers the
operators and returns a module with one function per operator: its inputs, then its attributes
(numbers) in declaration order; one Tensor for one output, else a list. The operators then work
in programs (type = the operator's name, as Paddle writes custom operators), through
paddle.jit.save / load, and from the C inference API (PD_LoadCustomOpLibrary, or a program linked
against the library). `setup(name=..., ext_modules=CppExtension(sources=[...]))` builds an
installable package the same way (`import <name>` then gives the operator functions).

What differs from Paddle: operators are written in C against pd_extension.h (not Paddle's C++
PD_BUILD_OP), attributes are numbers (int, int64, float, bool), CUDA sources are refused (this
build has no GPU)."""
import hashlib
import os
import shutil
import subprocess
import sys
import types

__all__ = ["load", "setup", "CppExtension", "CUDAExtension", "BuildExtension", "get_build_directory",
           "load_op_library"]

_C_SUFFIXES = (".c",)
_CXX_SUFFIXES = (".cc", ".cpp", ".cxx", ".C")


def get_build_directory(verbose=False):
    """Where load() builds: $PADDLE_EXTENSION_DIR, else ~/.cache/paddle_extensions (created)."""
    root = os.environ.get("PADDLE_EXTENSION_DIR")
    if not root:
        root = os.path.join(os.path.expanduser("~"), ".cache", "paddle_extensions")
    os.makedirs(root, exist_ok=True)
    if verbose:
        print(f"Compiling user custom op, it will cost a few seconds.....\n  build directory: {root}")
    return root


def _compiler(src):
    if src.endswith(_CXX_SUFFIXES):
        return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++"
    if src.endswith(_C_SUFFIXES):
        return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"
    if src.endswith(".cu"):
        raise NotImplementedError(f"{src}: CUDA sources need the CUDA build of Paddle-C; this build runs on CPU only")
    raise ValueError(f"{src}: expected a C (.c) or C++ (.cc, .cpp, .cxx) source")


def _as_list(v, what):
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{what} must be a list of str, but received {type(v).__name__}")
    return list(v)


def _build(name, sources, cflags, ldflags, include_paths, out_dir, verbose):
    """Compiles sources into out_dir/lib<name>.so unless an up-to-date one exists; returns its path."""
    from ... import sysconfig
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a valid Python identifier, but received {name!r}")
    sources = [os.path.abspath(s) for s in _as_list(sources, "sources")]
    if not sources:
        raise ValueError("sources must list at least one source file")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"custom operator source {s} does not exist")
        _compiler(s)
    incs = [sysconfig.get_include()] + [os.path.abspath(p) for p in include_paths]
    os.makedirs(out_dir, exist_ok=True)
    lib = os.path.join(out_dir, f"lib{name}.so")
    h = hashlib.sha256()
    for s in sources:
        with open(s, "rb") as f:
            h.update(s.encode() + b"\0" + f.read())
    for part in (cflags, ldflags, incs):
        h.update(repr(part).encode())
    with open(os.path.join(sysconfig.get_include(), "pd_extension.h"), "rb") as f:
        h.update(f.read())
    stamp = lib + ".sha256"
    if os.path.exists(lib) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == h.hexdigest():
                if verbose:
                    print(f"{lib} is up to date")
                return lib
    objs = []
    for i, s in enumerate(sources):
        obj = os.path.join(out_dir, f"{i}_{os.path.basename(s)}.o")
        std = ["-std=c11"] if s.endswith(_C_SUFFIXES) else []
        cmd = [_compiler(s), "-O2", "-fPIC", "-Wall"] + std + [f"-I{p}" for p in incs] + cflags + ["-c", s, "-o", obj]
        _run(cmd, verbose)
        objs.append(obj)
    tmp = lib + f".tmp{os.getpid()}"
    link = shutil.which("c++") if any(s.endswith(_CXX_SUFFIXES) for s in sources) else None
    _run([link or _compiler(sources[0]), "-shared", "-o", tmp] + objs + ldflags, verbose)
    os.replace(tmp, lib)  # atomic: a process loading the old library keeps its mapping
    with open(stamp, "w") as f:
        f.write(h.hexdigest())
    return lib


def _run(cmd, verbose):
    if verbose:
        print(" ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"Compiling the custom operator failed ({' '.join(cmd)}):\n{p.stdout}")
    elif verbose and p.stdout:
        print(p.stdout)


def _make_op(info):
    from ... import _C
    from ..._C import _C_ops
    name, inputs, outputs, attr_names, attr_kinds, _ = info
    n_in, n_attr = len(inputs), len(attr_names)

    def op(*args, **kwargs):
        vals = list(args)
        for k in list(inputs) + list(attr_names):
            if k in kwargs:
                vals.append(kwargs.pop(k))
        if kwargs:
            raise TypeError(f"{name}() got unexpected keyword arguments {sorted(kwargs)}")
        if len(vals) != n_in + n_attr:
            raise TypeError(f"{name}() takes {n_in} tensor inputs ({', '.join(inputs)}) and {n_attr} attributes "
                            f"({', '.join(attr_names) or 'none'}), but received {len(vals)} arguments")
        attrs = []
        for an, ak, v in zip(attr_names, attr_kinds, vals[n_in:]):
            if ak == "float":
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    raise TypeError(f"{name}(): attribute {an} must be a float, but received {type(v).__name__}")
            elif ak == "bool":
                if not isinstance(v, bool):
                    raise TypeError(f"{name}(): attribute {an} must be a bool, but received {type(v).__name__}")
            elif not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"{name}(): attribute {an} must be an int, but received {type(v).__name__}")
            attrs.append(float(v))
        outs = _C_ops.custom_op(list(vals[:n_in]), name, attrs, False)
        return outs[0] if len(outputs) == 1 else list(outs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Custom operator {name}({', '.join(list(inputs) + list(attr_names))}) -> "
                  f"{', '.join(outputs)} (loaded from a pd_extension.h library).")
    _ = _C
    return op


def load_op_library(path, module_name=None):
    """Registers the operators of an already built library; returns a module of their functions."""
    from ... import _C
    infos = _C._load_custom_op_library(os.path.abspath(path))
    mod = types.ModuleType(module_name or os.path.splitext(os.path.basename(path))[0])
    mod.__file__ = os.path.abspath(path)
    for info in infos:
        setattr(mod, info[0], _make_op(info))
    mod.__all__ = [i[0] for i in infos]
    return mod


def load(name, sources, extra_cxx_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
         extra_include_paths=None, extra_library_paths=None, build_directory=None, verbose=False,
         extra_cflags=None):
    """Compiles sources into a custom-operator library, registers its operators and returns a
    module with a function per operator (Paddle's signature; extra_library_paths become -L
    flags; extra_cflags, a Paddle-C addition, is an alias of extra_cxx_cflags for C sources)."""
    if extra_cuda_cflags:
        raise NotImplementedError("extra_cuda_cflags: this build of Paddle-C has no CUDA; custom operators run on CPU")
    cflags = _as_list(extra_cxx_cflags, "extra_cxx_cflags") + _as_list(extra_cflags, "extra_cflags")
    ldflags = ["-L" + os.path.abspath(d) for d in _as_list(extra_library_paths, "extra_library_paths")]
    ldflags += _as_list(extra_ldflags, "extra_ldflags")
    incs = _as_list(extra_include_paths, "extra_include_paths")
    root = build_directory or get_build_directory(verbose)
    lib = _build(name, sources, cflags, ldflags, incs, os.path.join(root, name), verbose)
    mod = load_op_library(lib, name)
    sys.modules.setdefault(name, mod)
    return mod


# ---------------------------------------------------------------- setup()
def CppExtension(sources, *args, **kwargs):
    """A setuptools Extension for setup(): the sources of one custom-operator library."""
    from setuptools import Extension
    kwargs.setdefault("language", "c")
    ext = Extension("_pd_custom_ops", list(sources), *args, **kwargs)
    ext._paddle_c_custom = True
    return ext


def CUDAExtension(sources, *args, **kwargs):
    raise NotImplementedError("CUDAExtension: this build of Paddle-C has no CUDA; use CppExtension (CPU)")


def _stub(lib_name):
    return ("# generated by paddle.utils.cpp_extension.setup: loads the custom-operator library beside it\n"
            "import os as _os\n"
            "from paddle.utils.cpp_extension import load_op_library as _load\n"
            f"_m = _load(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), {lib_name!r}), __name__)\n"
            "globals().update({_k: getattr(_m, _k) for _k in _m.__all__})\n"
            "__all__ = list(_m.__all__)\n")


class BuildExtension:
    """setup()'s build_ext: compiles each CppExtension with the same flags as load() into
    <name>/lib<name>.so and writes the package's __init__.py that registers it on import."""

    @classmethod
    def with_options(cls, **options):
        return cls

    @staticmethod
    def make(name):
        from setuptools.command.build_ext import build_ext

        class _Build(build_ext):
            def build_extension(self, ext):
                pkg_dir = os.path.join(self.build_lib if not self.inplace else os.getcwd(), name)
                cflags = list(getattr(ext, "extra_compile_args", []) or [])
                ldflags = list(getattr(ext, "extra_link_args", []) or [])
                lib = _build(name, ext.sources, cflags, ldflags, list(ext.include_dirs or []), pkg_dir,
                             self.verbose)
                os.remove(lib + ".sha256")
                with open(os.path.join(pkg_dir, "__init__.py"), "w") as f:
                    f.write(_stub(os.path.basename(lib)))

            def get_outputs(self):
                d = os.path.join(self.build_lib, name)
                return [os.path.join(d, f"lib{name}.so"), os.path.join(d, "__init__.py")]

        return _Build


def setup(**attr):
    """Paddle's setup(name=..., ext_modules=CppExtension(...)): builds and installs a package
    `name` whose import registers the operators and exposes their functions."""
    import setuptools
    name = attr.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"setup(name=...) must be a valid Python identifier, but received {name!r}")
    exts = attr.get("ext_modules")
    if exts is None:
        raise ValueError("setup() needs ext_modules=CppExtension(sources=[...])")
    if not isinstance(exts, (list, tuple)):
        exts = [exts]
    if len(exts) != 1:
        raise ValueError(f"setup() builds one custom-operator library per package, received {len(exts)} extensions")
    attr["ext_modules"] = list(exts)
    cmd = dict(attr.get("cmdclass") or {})
    cmd["build_ext"] = BuildExtension.make(name)
    attr["cmdclass"] = cmd
    attr.setdefault("packages", [])
    attr.setdefault("zip_safe", False)
    return setuptools.setup(**attr)
