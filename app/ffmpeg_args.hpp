#pragma once
// ffmpeg's spellings of the options vidfilter shares with it, rewritten to vidfilter's own
// before the command line is parsed, so an ffmpeg user's habits work: -vf (the chain), -ss,
// -to, -an, -crf, -preset, -b:v, -c:v/-vcodec, -c:a/-acodec, -hwaccel, -frames:v/-vframes;
// and, placed before -i as ffmpeg takes them for raw input, -s, -r and -pix_fmt (after -i,
// -pix_fmt is the output's).
#include <string>
#include <vector>

namespace vf::app {

// argv[1..] with ffmpeg's spellings replaced. Throws UsageError for a bare -c (ffmpeg's codec
// option for every stream: the chain is --chain or -vf here).
std::vector<std::string> translateFfmpegSpellings(const std::vector<std::string>& args);

}  // namespace vf::app
