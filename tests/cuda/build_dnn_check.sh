#!/bin/sh
# Builds tests/cuda/dnn_check (the CUDA 'dnn' family: cuDNN convolutions and the pooling kernels vs
# direct loops; see dnn_check.c) into $1 (default build/dnn_check). Needs nvcc; the binary needs
# the NVIDIA driver and, for the convolutions, cuDNN 9 at run time (dlopen'd: pip install
# nvidia-cudnn-cu13, then PADDLE_C_CUDNN_LIB=<site-packages>/nvidia/cudnn/lib/libcudnn.so.9 or that
# directory on LD_LIBRARY_PATH). Run: $B/dnn_check (checks) and $B/dnn_check bench (timings).
# Also builds and runs dnn_pool_host_check (the pooling element functions vs pool.c, on the host).
set -e
cd "$(dirname "$0")/../.."
B=${1:-build/dnn_check}
mkdir -p "$B"
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
NV="nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_90,code=compute_90 -Xcompiler -fPIC,-Wall,-Werror -Werror all-warnings -Icsrc/cuda -Icsrc"
for f in runtime dnn dnn_pool; do
  $NV -c csrc/cuda/$f.cu -o "$B/$f.o"
done
gcc -std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -I"$CUDA_INC" \
  -c tests/cuda/dnn_check.c -o "$B/dnn_check_main.o"
nvcc -cudart static -o "$B/dnn_check" "$B/dnn_check_main.o" "$B/runtime.o" "$B/dnn.o" "$B/dnn_pool.o" \
  -lpthread -lm -ldl
echo "built $B/dnn_check"
# the pooling element functions on the host (no GPU needed): built and run here
nvcc -std=c++17 -O2 -Xcompiler -Wall,-Werror -Werror all-warnings -Icsrc/cuda -Icsrc \
  tests/cuda/dnn_pool_host_check.cu -o "$B/dnn_pool_host_check"
"$B/dnn_pool_host_check"
