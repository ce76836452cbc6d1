#!/usr/bin/env bash
# The README's first command: installs what is missing, builds Paddle-C, and runs the main job
# (for now: the seed programs e16 and e17 verbatim, and a short tour of the tensor API).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/deps.sh"
cd "$ROOT"
echo "[main] seed program e16 (tensor printing)"
"$PADDLE_C_VPY" examples/run_seed.py e16_tensor_print
echo "[main] seed program e17 (Python control flow)"
"$PADDLE_C_VPY" examples/run_seed.py e17_control_flow
echo "[main] tour"
"$PADDLE_C_VPY" examples/tour.py
