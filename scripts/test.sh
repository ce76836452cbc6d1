#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs the whole test suite:
# C unit tests (plain and ASan/UBSan), the generated op sweep, the Python tests and the seed
# programs. CI (.ci/run) runs exactly this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# CI has no GPU: the suite builds and tests the CPU-only build, as before the CUDA backend (its
# library takes minutes of nvcc on two cores; scripts/setup.sh builds it where nvcc is found, and
# tests/python/test_cuda_mock.py checks the backend's plumbing on a fake GPU without it).
# PADDLE_C_CUDA=1 bash scripts/test.sh compiles it here too.
export PADDLE_C_CUDA="${PADDLE_C_CUDA:-0}"
source "$ROOT/scripts/deps.sh"
cd "$ROOT"
echo "[test] C unit tests"
# the plain C tests link the library objects setup.py built (tools/buildcfg.py reuse-objects)
TEMP=$(ls -d build/temp.*-cpython-* 2>/dev/null | head -1 || true)
if [ -n "$TEMP" ]; then "$PADDLE_C_VPY" tools/buildcfg.py reuse-objects "$TEMP"; fi
make -s test-c PY="$PADDLE_C_VPY" -j2 2>&1 | grep -vE "^(gcc|cc) "
if [ -d ../shared/fixtures/paddle_models ]; then
  echo "[test] the C inference API under ASan/UBSan (bad input, bounded fuzz)"
  make -s test-infer-asan PY="$PADDLE_C_VPY" 2>&1 | grep -vE "^(gcc|cc) "
fi
echo "[test] pytest: op sweep, Python API, seed programs, conformance with real Paddle"
# two workers (pytest-xdist), one test file per worker at a time (--dist loadfile: a file's module
# fixtures run once); the longest files are named first so that no worker starts them last
# (the seed programs alone take about a fifth of the serial time). PADDLE_C_TEST_WORKERS=0 runs
# the suite in one process.
WORKERS="${PADDLE_C_TEST_WORKERS:-2}"
XDIST=()
if [ "$WORKERS" != "0" ]; then XDIST=(-n "$WORKERS" --dist loadfile); fi
OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" "$PADDLE_C_VPY" -m pytest -q -p no:cacheprovider "${XDIST[@]}" \
  tests/python/test_seeds.py tests/python/test_jit_save_load.py tests/python/test_main_job.py \
  tests/ops tests/python tests/conformance "$@"
