#!/bin/sh
# Builds tests/cuda/amp_attn_check (the launchers of check_finite_and_unscale_ / update_loss_scaling_
# and attention_core(_grad) vs host references; see its header) into $1 (default
# build/amp_attn_check). Needs nvcc; the binary needs the NVIDIA driver and libcublas.so.13 at run
# time (dlopen'd: LD_LIBRARY_PATH or PADDLE_C_CUBLAS_LIB).
set -e
cd "$(dirname "$0")/../.."
B=${1:-build/amp_attn_check}
mkdir -p "$B"
nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Werror -Werror all-warnings -Icsrc/cuda -Icsrc \
  -o "$B/amp_attn_check" tests/cuda/amp_attn_check.cu csrc/cuda/amp_unscale.cu csrc/cuda/attn_core.cu \
  csrc/cuda/nn_cublas.cu -cudart static -ldl
echo "built $B/amp_attn_check"
