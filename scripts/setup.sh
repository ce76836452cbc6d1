#!/usr/bin/env bash
# The README's first command: installs what is missing, builds Paddle-C, and runs the main job:
# seed E1's program training an MLP on Fashion-MNIST with paddle.Model (Debian's real data),
# saving and reloading it; then the seed programs e16/e17/e18 verbatim and a short tour.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/deps.sh"
cd "$ROOT"
echo "[main] train seed E1's MLP on Fashion-MNIST with paddle.Model, export with paddle.jit.save, save, reload, evaluate"
"$PADDLE_C_VPY" examples/train_fashion_mnist.py --epochs 1 --out build/fashion_mnist
echo "[main] seed program e16 (tensor printing)"
"$PADDLE_C_VPY" examples/run_seed.py e16_tensor_print
echo "[main] seed program e17 (Python control flow)"
"$PADDLE_C_VPY" examples/run_seed.py e17_control_flow
echo "[main] seed program e18 (weight sharing)"
"$PADDLE_C_VPY" examples/run_seed.py e18_weight_sharing
echo "[main] tour"
"$PADDLE_C_VPY" examples/tour.py
