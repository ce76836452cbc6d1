#!/usr/bin/env bash
# The whole Python test suite against a paddle._C (and the C inference library, paddle._dist)
# built with AddressSanitizer + UndefinedBehaviorSanitizer (issue 24; not in the 15-minute CI path:
# it takes ~3x the plain suite's time).
#   scripts/asan_suite.sh [pytest arguments...]   default: tests/ops tests/python tests/conformance
# How: the repository is copied to build/asan_suite/repo (sources only; its own build, so the plain
# build is untouched and every test that starts a subprocess with <repo>/python on PYTHONPATH gets
# the sanitized module too), built there in place with -fsanitize=address,undefined
# -fno-sanitize-recover=undefined (any UB report aborts the test process), then pytest runs there
# with libasan preloaded into the (uninstrumented) Python interpreter. Leak detection is off:
# CPython itself never frees its interned objects at exit. Exit status: pytest's.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# deps.sh installs what is missing and builds the plain tree (skipped when PADDLE_C_VPY names a
# ready interpreter, e.g. in a second worktree sharing one venv)
if [ -z "${PADDLE_C_VPY:-}" ]; then source "$ROOT/scripts/deps.sh" >/dev/null; fi
cd "$ROOT"
WORK="$ROOT/build/asan_suite"
COPY="$WORK/repo"
mkdir -p "$COPY"
# the copy's ../shared is the real one (fixtures, seeds, datasets)
SHARED="$(cd "$ROOT/.." && pwd)/shared"
[ -d "$SHARED" ] && ln -sfn "$SHARED" "$WORK/shared"
echo "[asan] copying sources to $COPY"
tar -C "$ROOT" --exclude=./build --exclude=./.venv --exclude=./.git --exclude='*.so' \
    --exclude=__pycache__ --exclude=./python/paddle/libs --exclude=./python/paddle/include -cf - . \
  | tar -C "$COPY" -xf -
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
echo "[asan] building paddle._C with $SAN (incremental; first build ~10 min on 2 cores)"
(cd "$COPY" && CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" \
   "$PADDLE_C_VPY" setup.py build_ext --inplace -q -j 2 > "$WORK/build.log" 2>&1) \
  || { grep -E "error" "$WORK/build.log" | head -20; echo "[asan] build failed ($WORK/build.log)"; exit 1; }
nm -D "$COPY"/python/paddle/_C*.so | grep -c __asan_report >/dev/null || { echo "[asan] the module is not instrumented"; exit 1; }
LIBASAN="$(gcc -print-file-name=libasan.so)"
export LD_PRELOAD="$LIBASAN"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:detect_odr_violation=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export PYTHONMALLOC=malloc   # every Python allocation through ASan's malloc too
export PADDLE_C_ALLOC_PASSTHROUGH=1   # our caching allocator hands blocks straight to malloc/free
export PYTHONPATH="$COPY/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
cd "$COPY"
echo "[asan] pytest under ASan/UBSan (LD_PRELOAD=$LIBASAN)"
if [ "$#" = 0 ]; then set -- tests/ops tests/python tests/conformance; fi
exec "$PADDLE_C_VPY" -m pytest -q -p no:cacheprovider "$@"
