"""Builds paddle._C (the C core, kernels, op table and the CPython binding, all C11) and installs
the Python package. `pip install .` or, for development, `pip install -e .` / `python setup.py
build_ext --inplace`. C libraries come from Debian: OpenBLAS (OpenMP build) and libgomp."""
import glob
import os
import sys

from setuptools import Extension, find_packages, setup

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from buildcfg import c_flags, link_flags, library_sources  # noqa: E402

sources = library_sources(ROOT) + sorted(glob.glob("csrc/python/**/*.c", recursive=True))

ext = Extension(
    "paddle._C",
    sources=sources,
    include_dirs=["csrc"] + c_flags()["include_dirs"],
    extra_compile_args=c_flags()["cflags"],
    extra_link_args=link_flags(),
)

setup(
    name="paddle-c",
    version="0.1.0",
    description="PaddlePaddle 2.x API with a C11 engine",
    package_dir={"": "python"},
    packages=find_packages("python"),
    ext_modules=[ext],
    python_requires=">=3.9",
    install_requires=["numpy"],
)
