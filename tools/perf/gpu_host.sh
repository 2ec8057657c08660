#!/usr/bin/env bash
# The figures of docs/PERFORMANCE.md on one device: the stage tests on it first, then
# vidfilter-bench on the whole chain (1080p and 4K BGR frames, with the engine), each stage at
# 4K gray, the 5x5 blur, and the bandwidth rows at 8K BGRA; a summary at the end.
#
# On the GPU host, in a checkout, after bundling the programs on the development machine
# (docs/PERFORMANCE.md, "Reproduce"):
#   tools/perf/gpu_host.sh          # writes $OUT (default out/gpu) and prints the summary
# Environment:
#   BIN      the directory of vidfilter-bench, test_stage_* and test-frames.raw (default .gpu/bin)
#   BENCH    vidfilter-bench itself (default $BIN/vidfilter-bench)
#   RUN      a wrapper the programs run through (default .gpu/run when it exists)
#   DEVICE   vidfilter's --device selector (default nvidia; empty: the default device)
#   OUT      the output directory
#   QUICK=1  tiny frames, a few runs, no stage tests and no T-API: checks the script on any
#            device (the test suite runs it so on PoCL)
# Exits 1 when a stage test or a benchmark run failed (after the summary).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/perf/bench_env.sh
out=${OUT:-out/gpu}
mkdir -p "$out"
export VIDFILTER_TEST_FRAMES=$bin/test-frames.raw
failed=0

if [[ -n ${QUICK:-} ]]; then
  s1080=64x36 s2160=128x72 s4320=128x72 long=(--frames 3 --warmup 1) short=(--frames 2 --warmup 1)
  extra=(--no-tapi)
else
  s1080=1920x1080 s2160=3840x2160 s4320=7680x4320 long=(--frames 300 --warmup 30)
  short=(--frames 60 --warmup 6) extra=()
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv \
    > "$out/gpu.txt" 2>&1 || true
  # 1. The stage tests on the device (VIDFILTER_TEST_DEVICE), correctness first.
  : > "$out/tests.txt"
  for t in "$bin"/test_stage_*; do
    VIDFILTER_TEST_DEVICE=${DEVICE-nvidia} $run "$t" --gtest_brief=1 >> "$out/tests.txt" 2>&1
    rc=$?
    echo "$(basename "$t") rc=$rc" >> "$out/tests.txt"
    ((rc == 0)) || failed=1
  done
fi

# One benchmark run: NAME, then vidfilter-bench's arguments; its output goes to $out/NAME.txt.
measure() {
  local name=$1
  shift
  if ! $run "$bench" "${devices[@]}" "${extra[@]}" -y "$@" \
    > "$out/$name.txt" 2>&1; then
    echo "vidfilter-bench $* failed: see $out/$name.txt" >&2
    failed=1
  fi
}

chain=gray,blur,sobel,hist,brightness
# 2. The whole chain on BGR frames (stages, peers, engine), 1080p with --check, and 4K.
measure chain_1080p --chain $chain --size $s1080 --format bgr "${long[@]}" --slots 4 --check \
  --json "$out/chain_1080p.json"
measure chain_2160p --chain $chain --size $s2160 --format bgr "${long[@]}" --slots 4 \
  --json "$out/chain_2160p.json"
# 3. Each stage at 4K gray, data resident; the 5x5 Gaussian alone.
measure stages_2160p_gray --chain blur,sobel,hist,brightness=gain=1.2:bias=-10 --size $s2160 \
  --format gray "${long[@]}" --no-engine --json "$out/stages_2160p_gray.json"
measure blur5_2160p_gray --chain blur=ksize=5 --size $s2160 --format gray "${long[@]}" \
  --no-engine --json "$out/blur5_2160p_gray.json"
# 4. Bandwidth at 8K BGRA (larger than the L2): the blur and brightness against the copy.
measure bw_4320p_bgra --chain blur,brightness=gain=1.2:bias=-10 --size $s4320 --format bgra \
  "${short[@]}" --distinct 2 --no-engine --no-tapi --json "$out/bw_4320p_bgra.json"
# 5. Two more engine runs at 1080p (the engine's rate varies between runs on a shared host).
for i in 2 3; do
  measure engine_1080p_$i --chain $chain --size $s1080 --format bgr "${short[@]}" --slots 4 \
    --no-tapi
done

if [[ -f $out/tests.txt ]]; then
  echo "== tests"
  grep -E "rc=|FAILED" "$out/tests.txt" | head -20
fi
for f in chain_1080p chain_2160p stages_2160p_gray blur5_2160p_gray bw_4320p_bgra; do
  echo "== $f"
  grep -E "^  stage [0-9]|^ +schedule: " "$out/$f.txt"
  sed -n '/^stage /,$p' "$out/$f.txt" | grep -vE "^\(ms|^  whole|^$" | head -40
done
echo "== engine 1080p, three runs"
grep -h "^  engine " "$out/chain_1080p.txt" "$out"/engine_1080p_*.txt
exit $failed
