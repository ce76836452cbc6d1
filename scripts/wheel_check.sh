#!/usr/bin/env bash
# One build for every x86-64 CPU with AVX2 (issue 21; docs/arch/core.md): builds the wheel with
# `pip wheel .`, installs it with numpy in a fresh venv, checks the installed library with
# tools/check_isa.py, and runs tests against the installed package from outside the source tree,
# once with PADDLE_C_ISA=avx2 (the forced lowest path) and once with the detected level.
#   scripts/wheel_check.sh                 # the default test selection below
#   scripts/wheel_check.sh tests/python/test_nn_rnn.py ...   # other tests (paths from the repo root)
# Environment: PADDLE_C_VPY (python that builds; default .venv/bin/python), WHEEL_OUT (default
# /tmp/paddle_c_wheel), WHEEL_VENV (default /tmp/whl_venv), WHEEL_SKIP_BUILD=1 (reuse WHEEL_OUT's wheel).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VPY="${PADDLE_C_VPY:-$ROOT/.venv/bin/python}"
OUT="${WHEEL_OUT:-/tmp/paddle_c_wheel}"
VENV="${WHEEL_VENV:-/tmp/whl_venv}"
if [ "$#" -gt 0 ]; then TESTS=("$@"); else
  TESTS=(tests/python/test_isa_dispatch.py tests/python/test_tensor_core.py tests/python/test_elementwise_api.py
         tests/python/test_reduce_api.py tests/python/test_manip_api.py tests/python/test_autograd.py
         tests/python/test_autograd_elementwise.py tests/python/test_autograd_reduce.py tests/python/test_nn_activation.py
         tests/python/test_nn_common.py tests/python/test_nn_conv.py tests/python/test_nn_loss.py tests/python/test_nn_rnn.py
         tests/python/test_nn_transformer.py tests/python/test_transformer_fastpaths.py tests/python/test_optimizer.py
         tests/python/test_amp.py tests/python/test_linalg.py tests/python/test_fft.py tests/python/test_seeds.py
         tests/python/test_static_core.py tests/python/test_inference.py tests/python/test_custom_op.py
         tests/python/test_utils_check.py tests/conformance)
fi

if [ "${WHEEL_SKIP_BUILD:-0}" != 1 ]; then
  rm -rf "$OUT"
  (cd "$ROOT" && "$VPY" tools/opgen/gen.py >/dev/null && \
     "$VPY" -m pip wheel . --no-deps --no-build-isolation -q -w "$OUT" 2>&1 | grep -E "error:|warning:|ERROR" || true)
fi
WHL="$(ls "$OUT"/paddle_c-*.whl)"
echo "[wheel] $WHL ($(du -h "$WHL" | cut -f1))"
# where the build found nvcc, the CUDA backend (paddle/libs/libpaddle_c_cuda.so) must be in the wheel too
CUDA_BUILT="$(cd "$ROOT" && "$VPY" -c 'import sys; sys.path.insert(0, "tools"); import buildcfg; print(1 if buildcfg.nvcc_path()[0] else 0)')"
"$VPY" - "$WHL" "$CUDA_BUILT" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["paddle/__init__.py", "paddle/_isa_check.py", "paddle/libs/libpaddle_inference_c.so", "paddle/libs/libdnnl.so.3",
        "paddle/include/pd_inference_api.h"] + (["paddle/libs/libpaddle_c_cuda.so"] if sys.argv[2] == "1" else [])
miss = [n for n in need if n not in names] + ([] if any(n.startswith("paddle/_C.") and n.endswith(".so") for n in names) else ["paddle/_C*.so"])
if miss:
    sys.exit(f"[wheel] missing from the wheel: {miss}")
print(f"[wheel] {len(names)} files, paddle/_C*.so, the inference library and oneDNN (libdnnl.so.3) included")
PY

BASE="$("$VPY" -c 'import sys; print(sys._base_executable)')"
rm -rf "$VENV"
"$BASE" -m venv "$VENV"
"$VENV/bin/pip" install -q "$WHL" numpy pytest pyyaml pillow
RUN="$(mktemp -d)"
cd "$RUN"   # outside the source tree: `import paddle` must find the installed package
unset PYTHONPATH
"$VENV/bin/python" - "$VENV" <<'PY'
import sys, paddle
assert paddle.__file__.startswith(sys.argv[1]), f"paddle comes from {paddle.__file__}, not the wheel"
print("[wheel] paddle from", paddle.__file__)
paddle.utils.run_check()
PY
SO="$("$VENV/bin/python" -c 'import paddle._C as c; print(c.__file__)')"
"$VENV/bin/python" "$ROOT/tools/check_isa.py" "$SO" "$(dirname "$SO")/libs/libpaddle_inference_c.so"

ABS=()
for t in "${TESTS[@]}"; do ABS+=("$ROOT/$t"); done
rc=0
for isa in avx2 auto; do
  echo "[wheel] PADDLE_C_ISA=$isa: $(PADDLE_C_ISA=$isa "$VENV/bin/python" -c 'import paddle; i = paddle._C.isa_info(); print("active", i["active"], "detected", i["detected"])')"
  if ! PADDLE_C_ISA=$isa "$VENV/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$RUN" "${ABS[@]}" 2>&1 | tail -4; then
    rc=1
  fi
done
exit $rc
