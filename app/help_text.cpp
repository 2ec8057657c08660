// The help's footer: examples, sources, outputs, exit statuses.
#include "app/options.hpp"

namespace vf::app {

std::string helpFooter() {
  return R"(
Sources (-i):
  cam0, cam1, ...          a camera by index (live): /dev/video0, /dev/video1, ...
  cam0:1280x720@60         a camera in a mode (size, @rate, :mjpeg or :yuyv; or give
                           --camera-size, --camera-fps, --camera-format); the camera may
                           give a near mode instead (one warning says so);
                           vidfilter --list-cameras shows what each camera offers
  FILE                     any file FFmpeg reads (an existing path is always a file)
  -                        stdin: y4m (ffmpeg ... -f yuv4mpegpipe -), or raw video with
                           --size WxH [--input-pix-fmt FMT] [--rate FPS]
  'in/img_%04d.png'        an image sequence (numbers from 0-4 on, as ffmpeg), or a glob
                           'in/*.png'; presented at --rate (default 25)
  rtsp://, udp://, srt://  a network stream (live)
  '... ! appsink'          a GStreamer pipeline ending in appsink (live)

Outputs (-o):
  out.mp4 | .mkv | .mov    H.264 (libx264, crf 23) by default, as ffmpeg
  out.webm                 VP9 by default; out.avi: MPEG-4 part 2
  'out/frame_%05d.png'     one image per frame (png, bmp, tiff, ppm/pgm lossless; jpg, webp)
  -                        stdout: y4m by default, any container with -f
  udp://, srt://, rtmp://  a network stream (-f mpegts by default; rtmp: flv)
  (none)                   the preview window when a display is available, else no output
  Audio, subtitle and data streams are copied (audio re-encoded where the container cannot
  take it; -an drops it); timestamps, metadata, chapters and rotation are kept.
  An existing output is replaced only with -y (-n: never; without a terminal, neither: refused).

ffmpeg's spellings work too: -vf (the chain), -ss, -to, -an, -crf, -preset, -b:v, -c:v, -c:a,
  -pix_fmt, -hwaccel, -frames:v, -hide_banner, -v/-loglevel; -s, -r and -pix_fmt before -i
  describe raw input, -f before -i names the input's format (--input-format), after it the
  output's. Other words of one dash are errors, never one-letter options run together.

Chains: stages separated by commas, parameters after '=' separated by ':'
  (vidfilter --list-stages shows every stage and parameter).

Examples:
  vidfilter -i cam0 --chain blur,sobel
  vidfilter -i cam0:1280x720@60:mjpeg --chain gray,sobel
  vidfilter -y -i in.mp4 -vf "blur=sigma=2,sobel,hist,brightness" --crf 20 -o out/edges.mp4
  vidfilter -i in.mp4 --ss 1:00 -t 10 --chain gray,sobel -o clip.mkv
  vidfilter -i in.avi --chain gray,brightness=gain=1.5:bias=-20 -o 'out/frame_%05d.png'
  ffmpeg -i in.mp4 -f yuv4mpegpipe - | vidfilter -i - -vf blur,sobel -o - | ffmpeg -i - out.mkv
  vidfilter -i cam0 --chain sobel -o udp://239.0.0.1:1234 -f mpegts
  vidfilter -i a.mp4 -i b.mp4 --chain gray,sobel -o 'out/{name}_edges.mp4'   (several inputs)
  vidfilter --inputs list.txt --device all --chain sobel -o 'out/{index}.mkv' --json run.json
  vidfilter batch --inputs list.txt --shard 0/4 --chain sobel -o 'out/{name}.mp4'
  vidfilter --config config/offline.toml --frames 100
  vidfilter bench --chain blur,sobel,hist,brightness --size 3840x2160   (vidfilter bench --help)
  vidfilter bench --input in.mp4 --chain gray,blur,sobel                (decode/chain/encode)

Exit status: 0 done; 1 the run failed (device, decode, encode, disk: the OS's reason; with
  several inputs, one of them failed);
  2 bad options, config, chain or path; 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (the
  output file is finalised and plays).
)";
}

std::string batchHelpHeader() {
  return R"(vidfilter batch: a share of a list of videos, each filtered into a file of its own
Usage: vidfilter batch --inputs LIST --chain CHAIN -o 'DIR/{name}.mp4' [--shard I/N] [OPTIONS]

  Takes share I of N of the list (from 0; or SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT,
  or --shards N with JOB_COMPLETION_INDEX, when --shard is not given), writes each output
  under a temporary name renamed when complete, and skips outputs that are complete already
  (a file that does not open, was never closed or ends short is made again), so a re-run or
  a requeued task redoes only what is missing. No window; --json FILE writes
  a summary per input. The options are vidfilter's:

)";
}

}  // namespace vf::app
