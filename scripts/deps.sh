#!/usr/bin/env bash
# Installs what Paddle-C needs and is missing, idempotently: Debian packages (OpenBLAS OpenMP
# build, protobuf-c, OpenMPI, the Fashion-MNIST data, clang with libFuzzer for the fuzz
# targets of tests/fuzz), a virtual environment at .venv
# with numpy/pytest/pyyaml (and onnx/onnxruntime for the ONNX export tests) and oneDNN 3.2 (PyPI's
# GNU-OpenMP build, the version Paddle 2.6.2 ships; the build bundles it into paddle/libs/), and the package
# itself built in place (editable install).
# Sourced by scripts/setup.sh and scripts/test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

APT_PKGS=(build-essential libopenblas-openmp-dev libopenblas-dev libprotobuf-c-dev
          protobuf-c-compiler libfftw3-dev libopenmpi-dev openmpi-bin dataset-fashion-mnist clang libclang-rt-14-dev
          zlib1g-dev pkg-config)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "[deps] installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "[deps] creating .venv"
  "$PY" -m venv .venv
fi
VPY="$ROOT/.venv/bin/python"
need_pip=0
"$VPY" -c "import numpy, pytest, xdist, yaml, setuptools, wheel, PIL, matplotlib, onnx, onnxruntime, perfetto, atheris" 2>/dev/null || need_pip=1
if [ "$need_pip" = 1 ]; then
  echo "[deps] installing Python packages into .venv"
  "$VPY" -m pip install -q --upgrade pip >/dev/null
  "$VPY" -m pip install -q numpy pytest pytest-xdist pyyaml "setuptools>=64" wheel pillow matplotlib \
    "onnx>=1.14" "onnxruntime>=1.16" "perfetto>=0.59" atheris
  # pytest-xdist: the suite runs on two workers (scripts/test.sh); onnx, onnxruntime: tests of paddle.onnx.export (the library imports onnx lazily); perfetto: its
  # trace schema (perfetto_trace_pb2) checks export_protobuf's files; atheris: the coverage-guided
  # fuzz targets of the Python readers (tests/fuzz/atheris_readers.py)
fi
# oneDNN 3.2 (libdnnl.so.3 built against GNU OpenMP, headers): not importable, so checked by file
# (tools/buildcfg.py finds them under the venv's prefix)
if [ ! -e .venv/lib/libdnnl.so.3 ] || [ ! -e .venv/include/oneapi/dnnl/dnnl.h ]; then
  echo "[deps] installing oneDNN 3.2 into .venv"
  "$VPY" -m pip install -q "onednn-cpu-gomp==2023.2.0" "onednn-devel-cpu-gomp==2023.2.0"
fi

# generated code must match the op table (regenerate in development, check in CI)
if [ "${CI:-}" = "true" ]; then
  "$VPY" tools/opgen/gen.py --check
  "$VPY" tools/protogen.py --check
else
  "$VPY" tools/opgen/gen.py >/dev/null
fi

echo "[deps] building paddle._C"
"$VPY" setup.py build_ext --inplace -q -j 2 2>&1 | grep -E "error:|warning:" || true
test -n "$(ls python/paddle/_C*.so 2>/dev/null)" || { echo "build failed"; exit 1; }
# in-tree (editable) use: put python/ on the venv's path
SITE="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$ROOT/python" > "$SITE/paddle_c_inplace.pth"
export PADDLE_C_VPY="$VPY"
