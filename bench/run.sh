#!/usr/bin/env bash
# Runs every benchmark side by side with PyTorch (the CPU build, torch==2.13.0) in one process
# each and prints Paddle-C time, PyTorch time and their ratio per workload. PyTorch goes into
# .venv for benchmarking only; the library never imports it. The environment is the "tuned"
# peer setting (memory kept by malloc) from ../shared/perf_baselines.md. OMP_WAIT_POLICY stays at
# libgomp's default (spin briefly, then sleep): torch's wheel bundles its own OpenMP runtime, so
# this process holds two pools, and with ACTIVE each pool's idle threads spin forever and starve
# the other's (measured: LSTM 21x slower than with the default, everything ~16 ms under load).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/deps.sh"
"$PADDLE_C_VPY" -c "import torch" 2>/dev/null || "$PADDLE_C_VPY" -m pip install -q torch==2.13.0
export MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=268435456
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
# which instruction-set paths these numbers come from (Paddle-C's dispatched kernels, oneDNN, OpenBLAS)
"$PADDLE_C_VPY" -c "from paddle.utils.install_check import isa_summary; print(isa_summary())"
for b in "$ROOT"/bench/bench_*.py; do
  "$PADDLE_C_VPY" "$b"
done
