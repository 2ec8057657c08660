#!/usr/bin/env bash
# FFmpeg's OpenCL filters against vidfilter on the same clip, the same device, in the same run.
#   tools/perf/ffmpeg_peer.sh [ffmpeg's OpenCL device P.D (default 0.0)] [vidfilter --device]
# Chain: gray, 5x5 Gaussian, 3x3 Sobel. FFmpeg has no Gaussian OpenCL filter, so its Gaussian is
# convolution_opencl with the 5x5 binomial mask (OpenCV's 5x5 Gaussian for sigma 0 is the same
# [1 4 6 4 1]/16 kernel; vidfilter runs blur=ksize=5:sigma=1.1). Both decode the same MJPEG clip;
# the decode-only rate of each is printed too, so the filters' cost can be read off.
# Environment: VIDFILTER (default build/app/vidfilter), OUT (default out), QUICK=1 (a 320x240
# clip of 10 frames: checks the script on any device). Exits non-zero when a run failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
ffdev=${1:-0.0}
vfdev=${2:-}
vf=${VIDFILTER:-build/app/vidfilter}
out=${OUT:-out}
size=1920x1080 frames=150
[[ -n ${QUICK:-} ]] && size=320x240 frames=10
clip=$out/perf_$size.avi
mkdir -p "$out"
[[ -f $clip ]] || ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=$size:rate=30" \
  -frames:v $frames -c:v mjpeg -q:v 3 "$clip"
# Frames per wall-clock second of one run of the command; the run must succeed.
rate() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2> "$out/ffmpeg_peer_last.log" ||
    { echo "failed: $* (see $out/ffmpeg_peer_last.log)" >&2; return 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v n=$frames 'BEGIN { printf "%.1f", n / (b - a) }'
}
mask='1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1'
vfdevice=()
[[ -n $vfdev ]] && vfdevice=(--device "$vfdev")
r1=$(rate ffmpeg -y -i "$clip" -vf format=gray -f null -)
r2=$(rate ffmpeg -y -init_hw_device "opencl=ocl:$ffdev" -filter_hw_device ocl -i "$clip" \
  -vf "format=gray,hwupload,convolution_opencl=0m='$mask':0rdiv=0.00390625,sobel_opencl,hwdownload,format=gray" \
  -f null -)
r3=$(rate "$vf" -i "$clip" --chain gray --no-preview "${vfdevice[@]}")
r4=$(rate "$vf" -i "$clip" --chain gray,blur=ksize=5:sigma=1.1,sobel --no-preview "${vfdevice[@]}")
echo "clip: $clip ($size MJPEG, $frames frames); fps = frames / wall time, one run each"
echo "ffmpeg decode only:      $r1 fps"
echo "ffmpeg OpenCL chain:     $r2 fps"
echo "vidfilter decode only:   $r3 fps (gray alone)"
echo "vidfilter chain:         $r4 fps"
