#!/usr/bin/env bash
# A live source shrunk before the chain, then two kernels of your own (samples/kernels/):
#   resize=960x-1:interp=area        4K in, 960x540 through the rest of the chain
#   kernel=.../unsharp.cl:p0=0.8      sharpen (a neighbourhood kernel)
#   kernel=.../vignette.cl:p0=0.5     darken the corners (a point kernel)
# In the preview, select a kernel stage (its number key) and move its p0 with + and -; the
# change applies on the next frame, with no rebuild.
#   samples/demo_live_kernel.sh          # a camera when there is one (cam0), else a 4K test
#                                        # pattern paced like a camera (GStreamer)
#   samples/demo_live_kernel.sh gst      # the 4K test pattern even with a camera
# Without a display it records 150 frames to out/live_kernel.mkv instead.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$ROOT"
INPUT='videotestsrc is-live=true pattern=ball ! video/x-raw,width=3840,height=2160,framerate=30/1 ! videoconvert ! appsink'
if [[ ${1:-} != gst && -e /dev/video0 ]]; then INPUT=cam0; fi
CHAIN="resize=960x-1:interp=area,kernel=samples/kernels/unsharp.cl:p0=0.8:border=replicate,kernel=samples/kernels/vignette.cl:p0=0.5"
if have_display; then
  run "$VIDFILTER" -i "$INPUT" --chain "$CHAIN" --compare
else
  mkdir -p out
  echo "demo: no display (DISPLAY unset): recording 150 frames to out/live_kernel.mkv" >&2
  run "$VIDFILTER" -y -i "$INPUT" --chain "$CHAIN" -o out/live_kernel.mkv --frames 150
fi
