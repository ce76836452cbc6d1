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
echo "[asan] syncing sources to $COPY"
# a file whose content changed is rewritten (so it is newer than its object and recompiles); the
# others keep their times (the incremental build skips them)
"$PADDLE_C_VPY" - "$ROOT" "$COPY" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
skip_dirs = {".git", ".venv", "build", "__pycache__", "libs", "include"}
seen = set()
for d, dirs, files in os.walk(src):
    rel = os.path.relpath(d, src)
    dirs[:] = [x for x in dirs if x not in skip_dirs or (x in ("libs", "include") and rel != os.path.join("python", "paddle"))]
    os.makedirs(os.path.join(dst, rel), exist_ok=True)
    for f in files:
        if f.endswith(".so"):
            continue
        s, t = os.path.join(d, f), os.path.join(dst, rel, f)
        seen.add(os.path.normpath(t))
        with open(s, "rb") as fh:
            data = fh.read()
        if os.path.exists(t):
            with open(t, "rb") as fh:
                if fh.read() == data:
                    continue
        with open(t, "wb") as fh:
            fh.write(data)
        shutil.copymode(s, t)
for d, dirs, files in os.walk(dst):  # sources deleted since the last sync
    rel = os.path.relpath(d, dst)
    if rel.split(os.sep)[0] in ("build",) or "__pycache__" in rel or rel.startswith(os.path.join("python", "paddle", "libs")) \
            or rel.startswith(os.path.join("python", "paddle", "include")):
        continue
    for f in files:
        t = os.path.normpath(os.path.join(d, f))
        if t not in seen and not f.endswith((".so", ".pyc")):
            os.remove(t)
PY
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
echo "[asan] building paddle._C with $SAN (incremental; first build ~10 min on 2 cores)"
(cd "$COPY" && CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" \
   "$PADDLE_C_VPY" setup.py build_ext --inplace -q -j 2 > "$WORK/build.log" 2>&1) \
  || { grep -E "error" "$WORK/build.log" | head -20; echo "[asan] build failed ($WORK/build.log)"; exit 1; }
nm -D "$COPY"/python/paddle/_C*.so | grep -c __asan_report >/dev/null || { echo "[asan] the module is not instrumented"; exit 1; }
LIBASAN="$(gcc -print-file-name=libasan.so)"
# libstdc++ preloaded too: C++ libraries loaded later (oneDNN, onnxruntime, matplotlib) throw
# exceptions through ASan's __cxa_throw interceptor, which must find the real one at start-up
LIBSTDCXX="$(gcc -print-file-name=libstdc++.so.6)"
export LD_PRELOAD="$LIBASAN $LIBSTDCXX"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:detect_odr_violation=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export PYTHONMALLOC=malloc   # every Python allocation through ASan's malloc too
export PADDLE_C_ALLOC_PASSTHROUGH=1   # our caching allocator hands blocks straight to malloc/free
export PADDLE_C_SANITIZED=1           # tests that compare two code paths bit for bit allow FMA-contraction noise
export PADDLE_C_FUZZ_RSS_MB=8192      # ASan's quarantine and shadow memory count in the Atheris targets' RSS
export PYTHONPATH="$COPY/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
cd "$COPY"
echo "[asan] pytest under ASan/UBSan (LD_PRELOAD=$LIBASAN)"
if [ "$#" = 0 ]; then set -- tests/ops tests/python tests/conformance; fi
# no faulthandler: its SIGSEGV handler would replace ASan's, which prints the report
exec "$PADDLE_C_VPY" -m pytest -q -p no:cacheprovider -p no:faulthandler "$@"
