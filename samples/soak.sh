#!/usr/bin/env bash
# Soak test, on demand (not in CI): a live source through the whole chain for a long time,
# logging memory, file descriptors, threads and live OpenCL objects, to show that nothing grows.
#
#   samples/soak.sh                      # 10 minutes, 640x480 @ 30 fps, gray,blur,sobel,hist,brightness
#   DURATION=3600 FPS=60 samples/soak.sh # an hour at 60 fps
#   VIDFILTER=build-rel/app/vidfilter samples/soak.sh
#
# Source: GStreamer's videotestsrc is-live=true (paced like a camera; ball pattern, so frames
# differ). Every INTERVAL seconds one line goes to $LOG (default out/soak.log):
#   t_s rss_kib fds threads frames_out dropped cl: mem=.. event=.. kernel=.. program=.. queue=.. context=..
# frames_out/dropped come from the --stats file (one JSON line per frame handed to the sink) and
# the progress line. Live CL objects are counted by an LD_PRELOAD shim over the ICD loader
# (samples/soak_clcount.c, built here with cc); without a C compiler that column is left out.
# After DURATION seconds the run gets SIGINT (a clean stop: exit status 130, summary printed).
# The script ends with RSS at the first sample and at the end, the growth, frames and drops,
# and exits 1 when RSS grew by more than MAX_GROWTH_KIB or a CL object count grew.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$ROOT"

DURATION=${DURATION:-600}
INTERVAL=${INTERVAL:-10}
WIDTH=${WIDTH:-640}
HEIGHT=${HEIGHT:-480}
FPS=${FPS:-30}
CHAIN=${CHAIN:-gray,blur,sobel,hist,brightness}
MAX_GROWTH_KIB=${MAX_GROWTH_KIB:-8192}
OUTDIR=${OUTDIR:-out}
LOG=${LOG:-$OUTDIR/soak.log}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
case $LOG in /*) ;; *) LOG=$PWD/$LOG ;; esac
STATS=$OUTDIR/soak_stats.jsonl
ERR=$OUTDIR/soak_stderr.log
SUMMARY=$OUTDIR/soak_summary.txt
CLFILE=$OUTDIR/soak_clcount.txt
SAMPLES=$OUTDIR/soak_samples.txt
rm -f "$STATS" "$CLFILE" "$SAMPLES"

PRELOAD=()
if command -v cc >/dev/null; then
  SHIM=$OUTDIR/soak_clcount.so
  cc -O2 -shared -fPIC -o "$SHIM" samples/soak_clcount.c -ldl -lpthread
  PRELOAD=(env "LD_PRELOAD=$SHIM" "VIDFILTER_CLCOUNT_FILE=$CLFILE")
else
  echo "soak: no C compiler: live CL object counts are not logged" >&2
fi

SRC="videotestsrc is-live=true pattern=ball ! video/x-raw,width=$WIDTH,height=$HEIGHT,framerate=$FPS/1 ! videoconvert ! appsink"
echo "soak: $DURATION s of $WIDTH x $HEIGHT @ $FPS fps through $CHAIN; log $LOG" >&2
"${PRELOAD[@]}" "$VIDFILTER" -y -i "$SRC" --chain "$CHAIN" --no-preview --stats "$STATS" \
  --progress 2>"$ERR" &
PID=$!
trap 'kill -INT $PID 2>/dev/null || true' EXIT

sample() {  # t -> one log line
  local rss fds thr out drop cl
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)
  thr=$(awk '/^Threads:/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)
  fds=$(ls "/proc/$PID/fd" 2>/dev/null | wc -l)
  out=$(wc -l <"$STATS" 2>/dev/null || echo 0)
  drop=$(tr '\r' '\n' <"$ERR" | grep -o "drop=[0-9]*" | tail -1 | cut -d= -f2 || true)
  cl=$(cat "$CLFILE" 2>/dev/null || echo "")
  printf '%6d %9s %4s %4s %8s %7s %s\n' "$1" "$rss" "$fds" "$thr" "$out" "${drop:-0}" \
    "${cl:+cl: $cl}"
}

printf '%6s %9s %4s %4s %8s %7s %s\n' t_s rss_kib fds thr frames dropped "live CL objects" >"$LOG"
start=$SECONDS
while kill -0 $PID 2>/dev/null; do
  sleep "$INTERVAL"
  t=$((SECONDS - start))
  kill -0 $PID 2>/dev/null || break
  sample "$t" | tee -a "$LOG" "$SAMPLES"
  ((t >= DURATION)) && break
done
kill -INT $PID 2>/dev/null || true
trap - EXIT
status=0
wait $PID || status=$?
echo "soak: vidfilter exited with status $status (130 = stopped by SIGINT, as asked)" | tee -a "$LOG"
tr '\r' '\n' <"$ERR" | sed -n '/^device time/,$p' >"$SUMMARY"  # the summary ends stderr
cat "$SUMMARY" | tee -a "$LOG"
grep -E 'warn|error' "$ERR" | tee -a "$LOG" || true

# Figures: first sample (after warm-up) against the last.
rss0=$(awk 'NR==1 {print $2}' "$SAMPLES")
rss1=$(awk 'END {print $2}' "$SAMPLES")
cl0=$(awk 'NR==1 && /cl: / {sub(/.*cl: /, ""); print}' "$SAMPLES")
cl1=$(awk '{l=$0} END {if (l ~ /cl: /) {sub(/.*cl: /, "", l); print l}}' "$SAMPLES")
frames=$(grep -o 'frames: [0-9]* in, [0-9]* out, [0-9]* dropped' "$SUMMARY" || echo "?")
growth=$((rss1 - rss0))
{
  echo "soak figures: RSS ${rss0} KiB at the first sample, ${rss1} KiB at the end: growth ${growth} KiB"
  echo "soak figures: live CL objects first: ${cl0:-n/a}; last: ${cl1:-n/a}"
  echo "soak figures: $frames"
} | tee -a "$LOG"
fail=0
if ((growth > MAX_GROWTH_KIB)); then
  echo "soak: FAIL: RSS grew by $growth KiB (limit $MAX_GROWTH_KIB)" | tee -a "$LOG"
  fail=1
fi
if [[ -n $cl0 && -n $cl1 ]]; then
  for kind in mem event kernel program queue context; do
    a=$(grep -o "$kind=[0-9]*" <<<"$cl0" | cut -d= -f2)
    b=$(grep -o "$kind=[0-9]*" <<<"$cl1" | cut -d= -f2)
    # Events in flight vary by a few (slots x commands per frame); more is a leak.
    slack=0
    [[ $kind == event ]] && slack=64
    if ((b > a + slack)); then
      echo "soak: FAIL: live CL $kind objects grew from $a to $b" | tee -a "$LOG"
      fail=1
    fi
  done
fi
[[ $status == 130 ]] || { echo "soak: FAIL: exit status $status" | tee -a "$LOG"; fail=1; }
exit $fail
