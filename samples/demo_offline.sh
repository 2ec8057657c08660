#!/usr/bin/env bash
# Offline: filter the sample video (vtest.avi from opencv-doc, 768x576, 10 fps, 795 frames)
# into out/, with a progress line and the per-stage device times at the end. No camera and no
# display needed.
#   samples/demo_offline.sh            # the README's main job
#   samples/demo_offline.sh frames     # also: the first 50 frames as lossless PNGs
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$ROOT"
[[ -f $SAMPLE ]] || { echo "demo: $SAMPLE missing: apt-get install opencv-doc" >&2; exit 2; }
mkdir -p out

run "$VIDFILTER" -y -i "$SAMPLE" --chain blur,sobel,hist,brightness -o out/vtest_edges.mp4 --no-preview

if [[ ${1:-} == frames ]]; then
  mkdir -p out/frames
  run "$VIDFILTER" -y -i "$SAMPLE" --chain "gray,brightness=gain=1.5:bias=-20" \
    -o 'out/frames/vtest_%05d.png' --frames 50 --no-preview
fi
# Same job from a config file (commented, to copy): config/offline.toml
#   "$VIDFILTER" --config config/offline.toml
