#!/bin/sh
# Builds tests/cuda/misc_check (the CUDA misc launchers vs the CPU kernels; see misc_check.c) into
# $1 (default build/misc_check). Needs nvcc; the binary needs only the NVIDIA driver (static
# cudart, static libgomp).
set -e
cd "$(dirname "$0")/../.."
B=${1:-build/misc_check}
mkdir -p "$B"
CF="-std=c11 -O3 -march=x86-64-v3 -fopenmp -Wall -Wextra -Werror -Wno-unused-parameter -fno-strict-aliasing -fno-math-errno -fno-trapping-math -D_GNU_SOURCE"
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
for f in csrc/kernels/cpu/optim.c csrc/kernels/cpu/common.c csrc/core/pd_random.c; do
  gcc $CF -c "$f" -o "$B/$(basename "$f" .c).o"
done
gcc $CF -I"$CUDA_INC" -Wno-unused-function -c tests/cuda/misc_check.c -o "$B/misc_check_main.o"
nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_90,code=compute_90 -Xcompiler -fPIC,-Wall,-Werror -Werror all-warnings \
  -c csrc/cuda/misc.cu -o "$B/misc.o"
GOMP=$(gcc -print-file-name=libgomp.a)
nvcc -cudart static -o "$B/misc_check" "$B/misc_check_main.o" "$B/misc.o" "$B/optim.o" "$B/common.o" \
  "$B/pd_random.o" "$GOMP" -lpthread -lm -ldl
echo "built $B/misc_check"
