#!/usr/bin/env bash
# FFmpeg's OpenCL filters vs vidfilter on the same clip, same device, same run.
#   docs/perf/ffmpeg_peer.sh [DEVICE_INDEX P.D for ffmpeg (default 0.0)] [vidfilter --device (default first)]
# Chain: gray, 5x5 Gaussian, 3x3 Sobel. FFmpeg has no Gaussian OpenCL filter, so its Gaussian is
# convolution_opencl with the 5x5 binomial mask (OpenCV's 5x5 Gaussian for sigma 0 is the same
# [1 4 6 4 1]/16 kernel; vidfilter runs blur=ksize=5:sigma=1.1). Both decode the same MJPEG clip;
# the decode-only rate of each is printed too so the filter cost can be read off.
set -euo pipefail
cd "$(dirname "$0")/../.."
ffdev=${1:-0.0}
vfdev=${2:-}
vf=${VIDFILTER:-build/app/vidfilter}
clip=out/perf_1080p.avi
mkdir -p out
[[ -f $clip ]] || ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v 150 \
  -c:v mjpeg -q:v 3 "$clip"
fps() { grep -oE 'fps=[ ]*[0-9.]+' | tail -1 | tr -dc '0-9.'; }
rate() {  # frames / wall seconds
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 150 / (b - a) }'
}
mask='1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1'
echo "clip: $clip (1920x1080 MJPEG, 150 frames); fps = frames / wall time, one run each"
echo "ffmpeg decode only:      $(rate ffmpeg -y -i $clip -vf format=gray -f null -) fps"
echo "ffmpeg OpenCL chain:     $(rate ffmpeg -y -init_hw_device opencl=ocl:$ffdev -filter_hw_device ocl -i $clip \
  -vf "format=gray,hwupload,convolution_opencl=0m='$mask':0rdiv=0.00390625,sobel_opencl,hwdownload,format=gray" -f null -) fps"
echo "vidfilter decode only:   $(rate $vf -i $clip --chain gray --no-preview ${vfdev:+--device $vfdev}) fps (gray alone)"
echo "vidfilter chain:         $(rate $vf -i $clip --chain gray,blur=ksize=5:sigma=1.1,sobel --no-preview ${vfdev:+--device $vfdev}) fps"
