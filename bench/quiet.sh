#!/usr/bin/env bash
# bench/quiet.sh MAXWAIT CMD...: wait (at most MAXWAIT seconds) until the cores were at
# least 90% idle over 2 seconds (from /proc/stat), then run CMD. On these shared 2-core machines a
# 2-thread benchmark started beside other work is noise (an LSTM step measured 7.2 vs 3.4 ms for the
# same build); this waits for a quiet window and prints how idle it was, so a result says what it
# was measured on. It does not keep the window quiet: alternate rounds (bench/harness.py) for that.
max=$1; shift; start=$(date +%s)
idle() { awk '/^cpu /{print $5+$6, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
while :; do
  read -r i1 t1 < <(idle); sleep 2; read -r i2 t2 < <(idle)
  pct=$(( 100 * (i2 - i1) / (t2 - t1 + 1) ))
  [ "$pct" -ge 90 ] && break
  [ $(( $(date +%s) - start )) -ge "$max" ] && { echo "(not quiet: idle $pct%)"; break; }
done
echo "(idle ${pct}% before run, waited $(( $(date +%s) - start )) s)"
"$@"
