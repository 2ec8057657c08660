#pragma once
// ffmpeg's spellings of the options vidfilter shares with it, rewritten to vidfilter's own
// before the command line is parsed, so an ffmpeg user's habits work: -vf (the chain), -ss,
// -to, -an, -crf, -preset, -b:v, -c:v/-vcodec, -c:a/-acodec, -hwaccel, -frames:v/-vframes,
// -hide_banner (there is no banner to hide);
// and, placed before -i as ffmpeg takes them for raw input, -s, -r and -pix_fmt (after -i,
// -pix_fmt is the output's).
#include <functional>
#include <string>
#include <vector>

namespace vf::app {

// argv[1..] with ffmpeg's spellings replaced. Throws UsageError for a bare -c (ffmpeg's codec
// option for every stream: the chain is --chain or -vf here).
std::vector<std::string> translateFfmpegSpellings(const std::vector<std::string>& args);

// Throws UsageError for a word of one dash and several letters that is not an option's value
// (ffmpeg's -nostdin, -threads after the input, a long option typed with one dash), which the
// parser would otherwise read as a bundle of one-letter options (-nostdin as -n -o stdin).
// takesValue(name): the option `name` (-x or --long) exists and takes a value, the next word;
// exists(name): the option exists.
void rejectSingleDashWords(const std::vector<std::string>& args,
                           const std::function<bool(const std::string&)>& takesValue,
                           const std::function<bool(const std::string&)>& exists);

}  // namespace vf::app
