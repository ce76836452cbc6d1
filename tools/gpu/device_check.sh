#!/bin/bash
# tools/gpu/device_check.sh [BUNDLE]
# The GPU checks of issue 22 in one short run on a machine with an NVIDIA GPU, python3 with numpy,
# pytest and pytest-xdist, and PyTorch (the benchmark peer): unpacks BUNDLE (tools/gpu/bundle.sh,
# default .gpu/bundle.tar.xz), then runs the runtime check (rt_check), the GPU tests
# (tests/python/test_cuda.py and the GPU op sweep tests/ops/test_gpu_sweep.py, every GPU kernel
# against the CPU) and bench/bench_cuda.py. Logs go to $OUT (default /tmp/gpu_out).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
cd "$R"
BUNDLE=${1:-.gpu/bundle.tar.xz}
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
B=/tmp/pd_bundle
rm -rf "$B" && mkdir -p "$B" && tar xJf "$BUNDLE" -C "$B" || { echo "cannot unpack $BUNDLE"; exit 2; }
cp "$B"/_C.cpython-*.so python/paddle/
mkdir -p python/paddle/libs && cp "$B"/libs/* python/paddle/libs/
export LD_LIBRARY_PATH="$B/sys${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$R/python"
export PYTHONUNBUFFERED=1
echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
python3 -c "import sys, numpy, torch; print(sys.version.split()[0], 'numpy', numpy.__version__, 'torch', torch.__version__)"
echo "== backend"
python3 -c "
import paddle
from paddle import _C
print('gpus', _C.cuda_device_count(), repr(_C.cuda_unavailable_reason()))
k = _C.gpu_kernels()
print('gpu kernels:', sum(len(v) for v in k.values()), 'op x dtype over', len(k), 'ops')
print('device', paddle.device.cuda.get_device_properties())
" 2>&1 | tee "$OUT/backend.log"
if [ -x "$B/rt_check" ]; then
  echo "== rt_check"
  timeout 120 "$B/rt_check" "$R/python/paddle/libs/libpaddle_c_cuda.so" > "$OUT/rt_check.log" 2>&1
  echo "rt_check exit $?"; grep -v PASS "$OUT/rt_check.log" | tail -15; grep -c PASS "$OUT/rt_check.log"
fi
echo "== tests"
PADDLE_C_CUDA_SYNC=${SYNC:-1} timeout "${T_TESTS:-240}" python3 -m pytest -q -n "${WORKERS:-8}" -p no:cacheprovider \
  --max-worker-restart 64 -o addopts="" tests/python/test_cuda.py tests/python/test_cuda_build.py tests/python/test_gpu_misc.py tests/python/test_gpu_dnn.py tests/python/test_gpu_static.py tests/ops/test_gpu_sweep.py > "$OUT/pytest.log" 2>&1
echo "pytest exit $?"
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | sed 's/ - .*//' | awk -F'[-:]' '{print $0}' | head -60
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | sed -E 's/.*::test_gpu_matches_cpu\[([a-z0-9_]+)-.*/\1/' | sort | uniq -c | sort -rn | head -40
tail -3 "$OUT/pytest.log"
if [ "${BENCH:-1}" = 1 ]; then
  echo "== bench"
  timeout "${T_BENCH:-200}" python3 bench/bench_cuda.py --rounds "${ROUNDS:-3}" 2>&1 | tee "$OUT/bench.log" | tail -12
fi
