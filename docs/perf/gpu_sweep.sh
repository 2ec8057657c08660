#!/usr/bin/env bash
# Schedule sweep on the GPU host: the candidate GPU schedules of blur (VIDFILTER_BLUR_GPU), sobel
# and hist (stage parameters), each timed by vidfilter-bench in one run so they compare with
# each other and with the copy kernel measured in the same run. Bundle as for gpu_host.sh, then:
#   docs/perf/gpu_sweep.sh            # writes $OUT (default out/sweep) and prints one table
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
VIDFILTER_TEST_DEVICE=nvidia $run .gpu/bin/test_stage_blur --gtest_brief=1 > "$out/test_blur.txt" 2>&1
echo "test_stage_blur rc=$?" >> "$table"

g4k=(--size 3840x2160 --format gray --frames 200 --warmup 20)
for s in "" "hv=16" "hv=4" "th=32" "tw=256,th=32" "tw=64,th=64,py=4" "hv=16,tw=256,th=32,py=8" \
         "passes=2" "passes=2,hv=16" "passes=2,vv=4,py=16" "passes=2,py=16" "wg=128,tw=64"; do
  VIDFILTER_BLUR_GPU=$s row "blur 4K gray [$s]" bench --chain blur "${g4k[@]}"
done
b8k=(--size 7680x4320 --format bgra --frames 40 --warmup 4 --distinct 2)
for s in "" "hv=16" "passes=2" "passes=2,hv=16" "passes=2,py=16,vv=4"; do
  VIDFILTER_BLUR_GPU=$s row "blur 8K bgra [$s]" bench --chain blur "${b8k[@]}"
done
for s in "" "passes=2"; do
  VIDFILTER_BLUR_GPU=$s row "blur 1080p bgr [$s]" bench --chain blur --size 1920x1080 --format bgr
done

# Sobel and hist candidates (stage parameters).
for c in ${SOBEL_CHAINS:-sobel}; do row "$c 4K gray" bench --chain "$c" "${g4k[@]}"; done
for c in ${HIST_CHAINS:-hist}; do row "$c 4K gray" bench --chain "$c" "${g4k[@]}"; done

# Host cost per OpenCL call (what bounds the engine), then the engine at 1080p BGR.
$run .gpu/bin/vidfilter-bench --device nvidia --enqueue-cost > "$out/enqueue_cost.txt" 2>&1
for s in "" "passes=2"; do
  VIDFILTER_BLUR_GPU=$s $run .gpu/bin/vidfilter-bench --device nvidia --no-tapi \
    --chain gray,blur,sobel,hist,brightness --size 1920x1080 --format bgr --frames 50 --slots 4 \
    > "$out/engine_1080p_$s.txt" 2>&1
  echo "engine 1080p [$s] | $(grep -E '^  (engine|serial|latency) ' "$out/engine_1080p_$s.txt" | tr -s ' ' | tr '\n' ';')" >> "$table"
done

tar czf "$out/cache.tgz" -C /tmp vidfilter-cache 2>/dev/null
cat "$table"
echo; cat "$out/enqueue_cost.txt" | tail -13
