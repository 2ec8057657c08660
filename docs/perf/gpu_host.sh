#!/usr/bin/env bash
# The GPU-host half of docs/PERFORMANCE.md. Build here, bundle, then run on the GPU host:
#   ../shared/gpu-host/bundle .gpu build/app/vidfilter-bench build/tests/test_stage_{gray,blur,sobel,hist,brightness} build/test-frames.raw
#   (on the host)  docs/perf/gpu_host.sh            # writes $OUT (default out/gpu) and prints a summary
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-out/gpu}
mkdir -p "$out"
run=".gpu/run"
bench="$run .gpu/bin/vidfilter-bench --device nvidia"
export VIDFILTER_CACHE_DIR=/tmp/vidfilter-cache VIDFILTER_TEST_FRAMES=.gpu/bin/test-frames.raw
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1

# 1. The stage tests on the NVIDIA device (VIDFILTER_TEST_DEVICE), correctness first.
: > "$out/tests.txt"
for t in .gpu/bin/test_stage_*; do
  [[ $t == *.cmake ]] && continue
  VIDFILTER_TEST_DEVICE=nvidia $run "$t" --gtest_brief=1 >> "$out/tests.txt" 2>&1
  echo "$(basename "$t") rc=$?" >> "$out/tests.txt"
done

# 2. The whole chain on BGR frames (stages, peers, engine), 1080p and 4K, with --check.
$bench --chain gray,blur,sobel,hist,brightness --size 1920x1080 --format bgr --frames 300 --warmup 30 \
  --slots 4 --check --json "$out/chain_1080p.json" > "$out/chain_1080p.txt" 2>&1
$bench --chain gray,blur,sobel,hist,brightness --size 3840x2160 --format bgr --frames 200 --warmup 20 \
  --slots 4 --json "$out/chain_2160p.json" > "$out/chain_2160p.txt" 2>&1
# 3. Per stage at 3840x2160 gray, data resident.
$bench --chain blur,sobel,hist,brightness=gain=1.2:bias=-10 --size 3840x2160 --format gray \
  --frames 300 --warmup 30 --no-engine --json "$out/stages_2160p_gray.json" > "$out/stages_2160p_gray.txt" 2>&1
# 3b. The 5x5 Gaussian of issue 6's T-API peer figure (the stage's default is sigma 1.5: 11x11).
$bench --chain blur=ksize=5 --size 3840x2160 --format gray --frames 300 --warmup 30 --no-engine \
  --json "$out/blur5_2160p_gray.json" > "$out/blur5_2160p_gray.txt" 2>&1
# 4. Bandwidth at 7680x4320 BGRA (larger than the L2): blur passes and brightness vs the copy.
$bench --chain blur,brightness=gain=1.2:bias=-10 --size 7680x4320 --format bgra --frames 60 --warmup 6 \
  --distinct 2 --no-engine --no-tapi --json "$out/bw_4320p_bgra.json" > "$out/bw_4320p_bgra.txt" 2>&1

# 5. The same with the blur in two passes (columns, then rows through a 16-bit scratch): the
#    bandwidth of each Gaussian pass on its own.
VIDFILTER_BLUR_GPU=passes=2${VIDFILTER_BLUR_GPU:+,$VIDFILTER_BLUR_GPU} \
  $bench --chain blur --size 7680x4320 --format bgra --frames 60 --warmup 6 --distinct 2 \
  --no-engine --no-tapi --json "$out/bw_4320p_bgra_2pass.json" > "$out/bw_4320p_bgra_2pass.txt" 2>&1

# 6. Two more engine runs at 1080p (the engine's fps varies between runs on a shared host).
for i in 2 3; do
  $bench --chain gray,blur,sobel,hist,brightness --size 1920x1080 --format bgr --frames 30 \
    --warmup 5 --slots 4 --no-tapi > "$out/engine_1080p_$i.txt" 2>&1
done

echo "== tests"; grep -E "rc=|FAILED" "$out/tests.txt" | head -20
for f in chain_1080p chain_2160p stages_2160p_gray blur5_2160p_gray bw_4320p_bgra bw_4320p_bgra_2pass; do
  echo "== $f"; sed -n '/^stage /,$p' "$out/$f.txt" | grep -vE "^\(ms|^  whole|^$" | head -40
done
echo "== engine 1080p, three runs"
grep -h "^  engine " "$out/chain_1080p.txt" "$out"/engine_1080p_*.txt
