#!/usr/bin/env bash
# The README's first command: installs what is missing, builds Paddle-C, and runs the main job:
# seed E1's program training an MLP on Fashion-MNIST with paddle.Model (Debian's real data),
# saving and reloading it, and serving the saved inference model from a C program (the C inference
# API, no Python) that must print the same test accuracy; then the seed programs e16/e17/e18 verbatim and a short tour.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/deps.sh"
cd "$ROOT"
echo "[main] train seed E1's MLP on Fashion-MNIST with paddle.Model, export with paddle.jit.save, save, reload, evaluate"
"$PADDLE_C_VPY" examples/train_fashion_mnist.py --epochs 1 --out build/fashion_mnist
echo "[main] serve the saved model from C: examples/infer_fashion_mnist.c through libpaddle_inference_c"
PC_DIR="$("$PADDLE_C_VPY" -c 'import paddle.sysconfig as s, os; print(os.path.join(s.get_lib(), "pkgconfig"))')"
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Werror examples/infer_fashion_mnist.c -o build/infer_fashion_mnist \
  $(PKG_CONFIG_PATH="$PC_DIR" pkg-config --cflags --libs paddle_inference_c) -lz
FM=/usr/share/datasets/fashion-mnist
C_OUT="$(build/infer_fashion_mnist build/fashion_mnist/inference.pdmodel build/fashion_mnist/inference.pdiparams \
  "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz")"
echo "$C_OUT"
PY_ACC="$(cat build/fashion_mnist/eval_acc.txt)"
C_ACC="$(echo "$C_OUT" | sed -n 's/.*accuracy \([0-9.]*\).*/\1/p')"
if [ "$C_ACC" != "$PY_ACC" ]; then
  echo "[main] the C program's accuracy $C_ACC differs from Python's evaluate $PY_ACC"; exit 1
fi
echo "[main] C and Python agree: accuracy $C_ACC"
echo "[main] seed program e16 (tensor printing)"
"$PADDLE_C_VPY" examples/run_seed.py e16_tensor_print
echo "[main] seed program e17 (Python control flow)"
"$PADDLE_C_VPY" examples/run_seed.py e17_control_flow
echo "[main] seed program e18 (weight sharing)"
"$PADDLE_C_VPY" examples/run_seed.py e18_weight_sharing
echo "[main] tour"
"$PADDLE_C_VPY" examples/tour.py
