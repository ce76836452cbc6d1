#!/usr/bin/env bash
# Long fuzzing runs of every reader of untrusted bytes: the libFuzzer targets of Paddle's model
# files (C: .pdmodel, .pdiparams) and the Atheris targets of the Python readers
# (tests/fuzz/atheris_readers.py: pickle, matfile, idx, cifar, text, dlpack).
#   tests/fuzz/run_long.sh [seconds per target, default 3600] [jobs, default 1] [targets...]
# Builds the targets (make -C tests/fuzz), then runs each with the committed seed corpus plus the
# real files of ../shared/fixtures/paddle_models when present. New corpus entries go to
# build/fuzz/corpus/<target> (kept between runs), crashes to build/fuzz/artifacts/. Exits non-zero
# if a target found a crash, a leak, a timeout or an out-of-memory input.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECS="${1:-3600}"
JOBS="${2:-1}"
shift $(( $# < 2 ? $# : 2 ))
WANT="${*:-pdmodel pdiparams pickle matfile idx cifar text dlpack}"
VPY="${PADDLE_C_VPY:-$ROOT/.venv/bin/python}"
want() { [[ " $WANT " == *" $1 "* ]]; }
command -v clang >/dev/null || { echo "clang is not installed (scripts/deps.sh installs it)"; exit 2; }
make -s -C "$ROOT/tests/fuzz" -j2
FIX=""
for d in "$ROOT/../shared/fixtures/paddle_models" "$ROOT/../../shared/fixtures/paddle_models"; do
  if [ -d "$d" ]; then FIX="$(cd "$d" && pwd)"; break; fi
done
status=0
for t in pdmodel pdiparams; do
  want "$t" || continue
  work="$ROOT/build/fuzz/corpus/$t"
  extra="$ROOT/build/fuzz/seeds_real/$t"
  mkdir -p "$work" "$extra" "$ROOT/build/fuzz/artifacts"
  if [ -n "$FIX" ]; then
    find "$FIX" -name "*.$t" -size -4M | while read -r f; do
      cp -f "$f" "$extra/$(basename "$(dirname "$f")")_$(basename "$f")"
    done
  fi
  maxlen=$([ "$t" = pdmodel ] && echo 262144 || echo 65536)
  echo "== fuzz_$t for ${SECS}s ($JOBS jobs)"
  if ! "$ROOT/build/fuzz/fuzz_$t" -max_total_time="$SECS" -max_len="$maxlen" -rss_limit_mb=4096 -timeout=30 \
      -jobs="$JOBS" -workers="$JOBS" -print_final_stats=1 \
      -artifact_prefix="$ROOT/build/fuzz/artifacts/$t-" "$work" "$ROOT/tests/fuzz/corpus/$t" "$extra"; then
    echo "fuzz_$t: FAILED (see build/fuzz/artifacts/)"
    status=1
  fi
done
declare -A ACORPUS=([pickle]=pdparams [matfile]=matfile [idx]=idx [cifar]=cifar [text]=text [dlpack]=dlpack)
for t in pickle matfile idx cifar text dlpack; do
  want "$t" || continue
  work="$ROOT/build/fuzz/corpus/atheris_$t"
  mkdir -p "$work" "$ROOT/build/fuzz/artifacts"
  echo "== atheris $t for ${SECS}s ($JOBS jobs)"
  par=()  # libFuzzer's -jobs re-runs argv[0]: the script, executable, with the venv's python3 on PATH
  if [ "$JOBS" -gt 1 ]; then par=(-jobs="$JOBS" -workers="$JOBS"); fi
  if ! PATH="$(dirname "$VPY"):$PATH" PYTHONPATH="$ROOT/python" "$VPY" "$ROOT/tests/fuzz/atheris_readers.py" "$t" \
      -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=3072 -timeout=60 "${par[@]}" -print_final_stats=1 \
      -artifact_prefix="$ROOT/build/fuzz/artifacts/atheris-$t-" "$work" "$ROOT/tests/fuzz/corpus/${ACORPUS[$t]}" \
      2> >(grep -v "^INFO: Instrumenting" >&2); then
    echo "atheris $t: FAILED (see build/fuzz/artifacts/)"
    status=1
  fi
done
exit $status
