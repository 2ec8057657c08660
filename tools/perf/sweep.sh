#!/usr/bin/env bash
# Schedule candidates side by side: each chain text (schedule parameters included, e.g.
# "blur=kernel=tiled" or "sobel=vec=8:rows=4") timed by one vidfilter-bench run at one frame size
# and format, with the copy of that frame measured in the same run; one table line per stage.
#
# On the GPU host (bundled as for gpu_host.sh):
#   CHAINS="blur blur=kernel=tiled blur=kernel=slab:strip=4x64" tools/perf/sweep.sh
#   CHAINS="sobel sobel=half=off" SIZE=1920x1080 FORMAT=bgr tools/perf/sweep.sh
# Environment: CHAINS (space-separated chain texts; default "blur"), SIZE (3840x2160), FORMAT
# (gray), FRAMES (200); BIN, BENCH, RUN, DEVICE as gpu_host.sh; OUT (default out/sweep);
# QUICK=1 (tiny frames and few runs: checks the script on any device). Each run's output is kept
# in $OUT; the kernels' binaries stay in the program cache ($VIDFILTER_CACHE_DIR), which
# tools/perf/ptxas_report.py reads for their registers and spills. Exits 1 when a run failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/perf/bench_env.sh
out=${OUT:-out/sweep}
size=${SIZE:-3840x2160} format=${FORMAT:-gray} frames=${FRAMES:-200}
[[ -n ${QUICK:-} ]] && size=64x48 frames=3
mkdir -p "$out"
table=$out/table.txt
: > "$table"
failed=0
for chain in ${CHAINS:-blur}; do
  log=$out/$(echo "$chain" | tr -c 'A-Za-z0-9=._-' '_').txt
  if ! $run "$bench" "${devices[@]}" --no-engine --no-tapi --chain "$chain" \
    --size "$size" --format "$format" --frames "$frames" --warmup $((frames / 10 + 1)) \
    > "$log" 2>&1; then
    echo "$chain | failed: $(grep -m1 -iE 'error|vidfilter' "$log")" >> "$table"
    failed=1
    continue
  fi
  # The bandwidth block's rows: stage, ms, GB/s, share of the copy; the copy's own row once.
  copy=$(awk '/^  copy /{print $2" ms "$4" GB/s"}' "$log")
  awk -v c="$chain" -v copy="$copy" '/^bandwidth/{on=1; next}
    on && /^  [0-9]/{printf "%s | %s | copy %s\n", c, $0, copy} on && /^$/{on=0}' "$log" >> "$table"
  grep -h "schedule:" "$log" | awk -v c="$chain" '{sub(/^ */, ""); print c " | " $0}' >> "$table"
done
cat "$table"
exit $failed
