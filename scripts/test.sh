#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs the whole test suite:
# C unit tests (plain and ASan/UBSan), the generated op sweep, the Python tests and the seed
# programs. CI (.ci/run) runs exactly this.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" "$PADDLE_C_VPY" -m pytest -q -p no:cacheprovider tests/ops tests/python tests/conformance "$@"
