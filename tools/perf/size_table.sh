#!/usr/bin/env bash
# The size x radius x format table of docs/PERFORMANCE.md in one command: each chain's device
# time on each frame size and format, the copy of the same frame (the bandwidth ceiling) and,
# for widths not a multiple of 64, an aligned peer of about the same area, from one run of
# `vidfilter-bench --table` (app/bench/size_table.cpp).
#   tools/perf/size_table.sh                        # build/app/vidfilter-bench on the first GPU
#   BENCH=".gpu/run .gpu/bin/vidfilter-bench" DEVICE=nvidia tools/perf/size_table.sh  # GPU host
# Environment: BENCH (the command), DEVICE, CHAINS (';'-separated), SIZES, FORMATS
# (','-separated), FRAMES, WARMUP, OUT (default out/size_table: table.txt, table.jsonl: a JSON object per row).
set -euo pipefail
bench=${BENCH:-build/app/vidfilter-bench}
out=${OUT:-out/size_table}
mkdir -p "$out"
chains=${CHAINS:-"blur=ksize=3;blur;blur=ksize=17:sigma=3;blur=sigma=6;blur=sigma=20;sobel;sobel=ksize=5;sobel=ksize=7"}
sizes=${SIZES:-1280x720,1366x768,1920x1080,3840x2160,4001x2003,7680x4320}
formats=${FORMATS:-gray,bgr,bgra}
# shellcheck disable=SC2086  # BENCH may be a wrapper and a program
$bench --device "${DEVICE:-gpu}" --table --chains "$chains" --sizes "$sizes" \
  --formats "$formats" --frames "${FRAMES:-50}" --warmup "${WARMUP:-5}" --distinct 2 \
  --json "$out/table.jsonl" -y | tee "$out/table.txt"
