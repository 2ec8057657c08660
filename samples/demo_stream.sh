#!/usr/bin/env bash
# A live stream without a camera.
#   samples/demo_stream.sh           # GStreamer's test pattern, paced like a camera
#   samples/demo_stream.sh udp       # an MPEG-TS stream over loopback UDP that ffmpeg sends
# With a display: the preview window (q quits). Without one: 300 frames to out/stream.mkv.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$ROOT"
MODE=${1:-gst}
CHAIN=gray,blur=sigma=1,sobel,hist,brightness
if have_display; then
  OUT=(--preview --compare)
else
  mkdir -p out
  OUT=(-y -o out/stream.mkv --frames 300)
  echo "demo: no display (DISPLAY unset): 300 frames to out/stream.mkv" >&2
fi

case $MODE in
  gst)
    # Needs OpenCV built with GStreamer (Debian's is) and gstreamer1.0-plugins-base.
    run "$VIDFILTER" -i "videotestsrc is-live=true pattern=ball ! \
video/x-raw,width=640,height=480,framerate=30/1 ! videoconvert ! appsink" --chain "$CHAIN" "${OUT[@]}"
    ;;
  udp)
    PORT=${PORT:-5004}
    # ffmpeg sends a 640x480 30 fps test pattern in real time (-re) for a minute.
    ffmpeg -v error -re -f lavfi -i testsrc2=size=640x480:rate=30 -t 60 -c:v mpeg4 -q:v 5 \
      -f mpegts "udp://127.0.0.1:$PORT?pkt_size=1316" &
    SENDER=$!
    trap 'kill $SENDER 2>/dev/null || true' EXIT
    sleep 0.5
    run "$VIDFILTER" -i "udp://127.0.0.1:$PORT?overrun_nonfatal=1&fifo_size=50000000" \
      --chain "$CHAIN" "${OUT[@]}"
    ;;
  *)
    echo "demo: unknown mode '$MODE'; use gst or udp" >&2
    exit 2
    ;;
esac
