#!/usr/bin/env bash
# Live camera: preview with the timing overlay (q quits, h lists the keys).
#   samples/demo_camera.sh            # cam0, blur,sobel, original and filtered side by side
#   samples/demo_camera.sh cam1       # another camera
# Without a display it records 10 seconds (300 frames) to out/camera.mkv instead.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$ROOT"
CAM=${1:-cam0}
DEV=/dev/video${CAM#cam}
if [[ ! -e $DEV ]]; then
  echo "demo: no camera at $DEV; plug one in (ls /dev/video*), or try samples/demo_stream.sh" >&2
  exit 2
fi
if have_display; then
  run "$VIDFILTER" -i "$CAM" --chain blur=sigma=2,sobel,hist --compare
else
  mkdir -p out
  echo "demo: no display (DISPLAY unset): recording 300 frames to out/camera.mkv" >&2
  run "$VIDFILTER" -y -i "$CAM" --chain blur=sigma=2,sobel,hist -o out/camera.mkv --frames 300
fi
