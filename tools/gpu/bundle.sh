#!/bin/bash
# tools/gpu/bundle.sh TREE OUT.tar.xz
# Packs what a GPU host without this project's toolchain needs to run the GPU checks
# (tools/gpu/device_check.sh) into one archive: paddle._C built in TREE for the host's CPython
# (stripped), paddle/libs (oneDNN, libpaddle_c_cuda.so), the shared libraries _C needs beyond
# glibc and libstdc++ (OpenBLAS, FFTW, protobuf-c, libgomp, gfortran), and build/cuda/rt_check.
# TREE is a checkout built with that CPython's setup.py build_ext --inplace.
set -euo pipefail
TREE=$1
OUT=$2
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S/libs" "$S/sys"
for f in "$TREE"/python/paddle/_C.cpython-*.so; do
  strip --strip-unneeded -o "$S/$(basename "$f")" "$f"
done
cp "$TREE"/python/paddle/libs/libdnnl.so.3 "$S/libs/"
if [ -f "$TREE"/python/paddle/libs/libpaddle_c_cuda.so ]; then cp "$TREE"/python/paddle/libs/libpaddle_c_cuda.so "$S/libs/"; fi
ldd "$TREE"/python/paddle/_C.cpython-*.so | awk '/=> \// {print $3}' | while read -r l; do
  case "$(basename "$l")" in
    libc.so*|libm.so*|libmvec.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*|libdnnl.so*) ;;
    *) cp -L "$l" "$S/sys/" ;;
  esac
done
if [ -x "$TREE"/build/cuda/rt_check ]; then cp "$TREE"/build/cuda/rt_check "$S/"; fi
mkdir -p "$(dirname "$OUT")"
tar cJf "$OUT" -C "$S" .
ls -la "$OUT"
