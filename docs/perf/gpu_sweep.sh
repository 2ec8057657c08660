#!/usr/bin/env bash
# Schedule sweep on the GPU host: the candidate GPU schedules of blur (VIDFILTER_BLUR_GPU), sobel
# and hist (stage parameters), each timed by vidfilter-bench in one run so they compare with
# each other and with the copy kernel measured in the same run. Bundle as for gpu_host.sh, then:
#   docs/perf/gpu_sweep.sh            # writes $OUT (default out/sweep) and prints one table
# The candidates come from the environment (space-separated; "-" is the default schedule):
#   BLUR_4K BLUR_8K BLUR_1080 (VIDFILTER_BLUR_GPU values), SOBEL_CHAINS HIST_CHAINS (chain
#   texts), ENGINE (VIDFILTER_BLUR_GPU values for the 1080p engine run), GRAY_PX
#   (VIDFILTER_GRAY_PX values for the gray stage on 4K BGR frames), TESTS
#   (test_stage_* programs to run first on the device; "skip": none), ENQUEUE_COST=1
#   (bench --enqueue-cost), BLUR_CHAIN (the chain the BLUR_* runs time; default "blur").
# docs/perf/ptxas_report.py reads the program cache it brings back (registers, spills).
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-out/sweep}
mkdir -p "$out"
run=".gpu/run"
export VIDFILTER_CACHE_DIR=/tmp/vidfilter-cache VIDFILTER_TEST_FRAMES=.gpu/bin/test-frames.raw
bench() { $run .gpu/bin/vidfilter-bench --device nvidia --no-engine --no-tapi "$@"; }
table="$out/table.txt"
: > "$table"

# One bench run; appends "label | stage ms | GB/s | % of copy" for each bandwidth row.
row() {
  local label=$1; shift
  local log="$out/$(echo "$label" | tr -c 'A-Za-z0-9=._-' '_').txt"
  "$@" > "$log" 2>&1
  local rc=$?
  if [[ $rc -ne 0 ]]; then echo "$label | rc=$rc $(grep -m1 -iE 'error|fail' "$log")" >> "$table"; return; fi
  local copy; copy=$(awk '/^  copy /{print $2" ms "$4" GB/s"}' "$log")
  awk -v l="$label" -v c="$copy" '/^bandwidth/{on=1; next} on && /^  [0-9]/{printf "%s | %s | copy %s\n", l, $0, c} on && /^$/{on=0}' "$log" >> "$table"
}

# Correctness of the GPU kernels on NVIDIA's compiler first.
for t in ${TESTS:-blur}; do
  [[ $t == skip ]] && continue
  VIDFILTER_TEST_DEVICE=nvidia $run .gpu/bin/test_stage_$t --gtest_brief=1 > "$out/test_$t.txt" 2>&1
  echo "test_stage_$t rc=$? $(grep -m3 -E 'FAILED|Failure' "$out/test_$t.txt" | tr '\n' ' ')" >> "$table"
done

g4k=(--size 3840x2160 --format gray --frames 200 --warmup 20)
for s in ${BLUR_4K:-- passes=2}; do
  [[ $s == skip ]] && continue; [[ $s == - ]] && s=""
  VIDFILTER_BLUR_GPU=$s row "blur 4K gray [$s]" bench --chain "${BLUR_CHAIN:-blur}" "${g4k[@]}"
done
b8k=(--size 7680x4320 --format bgra --frames 40 --warmup 4 --distinct 2)
for s in ${BLUR_8K:-- passes=2}; do
  [[ $s == skip ]] && continue; [[ $s == - ]] && s=""
  VIDFILTER_BLUR_GPU=$s row "blur 8K bgra [$s]" bench --chain "${BLUR_CHAIN:-blur}" "${b8k[@]}"
done
for s in ${BLUR_1080:-- passes=2}; do
  [[ $s == skip ]] && continue; [[ $s == - ]] && s=""
  VIDFILTER_BLUR_GPU=$s row "blur 1080p bgr [$s]" bench --chain "${BLUR_CHAIN:-blur}" --size 1920x1080 --format bgr
done

for p in ${GRAY_PX:-}; do
  VIDFILTER_GRAY_PX=$p row "gray 4K bgr [px=$p]" bench --chain gray --size 3840x2160 --format bgr --frames 200 --warmup 20
done

# Sobel and hist candidates (stage parameters).
for c in ${SOBEL_CHAINS:-sobel}; do [[ $c == skip ]] && continue; row "$c 4K gray" bench --chain "$c" "${g4k[@]}"; done
for c in ${HIST_CHAINS:-hist}; do [[ $c == skip ]] && continue; row "$c 4K gray" bench --chain "$c" "${g4k[@]}"; done

# Host cost per OpenCL call (what bounds the engine), then the engine at 1080p BGR.
[[ -n ${ENQUEUE_COST:-} ]] && $run .gpu/bin/vidfilter-bench --device nvidia --enqueue-cost > "$out/enqueue_cost.txt" 2>&1
for s in ${ENGINE:-- passes=2}; do
  [[ $s == skip ]] && continue; [[ $s == - ]] && s=""
  VIDFILTER_BLUR_GPU=$s $run .gpu/bin/vidfilter-bench --device nvidia --no-tapi \
    --chain gray,blur,sobel,hist,brightness --size 1920x1080 --format bgr --frames 50 --slots 4 \
    > "$out/engine_1080p_$s.txt" 2>&1
  echo "engine 1080p [$s] | $(grep -E '^  (engine|serial|latency) ' "$out/engine_1080p_$s.txt" | tr -s ' ' | tr '\n' ';')" >> "$table"
done

tar czf "$out/cache.tgz" -C /tmp vidfilter-cache 2>/dev/null
cat "$table"
[[ -f $out/enqueue_cost.txt ]] && tail -13 "$out/enqueue_cost.txt"
