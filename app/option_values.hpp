#pragma once
// Values of the media options, parsed and checked the same way from the command line and from
// config files. Each returns the value, or fills `why` with the complaint (without the
// option's name) and returns nothing.
#include <cstdint>
#include <optional>
#include <string>

namespace vf::app {

// The longest time --ss, -t and --to take, seconds.
constexpr double kMaxTimeSeconds = 1e9;

// A time as ffmpeg writes one: "[HH:]MM:SS[.m...]" or "S[.m...][s|ms|us]" ("90", "1:30",
// "0:01:30.5", "1500ms"). Negative times and times past kMaxTimeSeconds are refused.
std::optional<double> parseTime(const std::string& text, std::string* why);

// Bits per second: "2M", "800k", "1500000" (k and M are 1000 and 1000000, as ffmpeg's).
std::optional<std::int64_t> parseBitrate(const std::string& text, std::string* why);

// A frame rate: "25", "29.97", "30000/1001".
std::optional<double> parseRate(const std::string& text, std::string* why);

// "1920x1080" (each side 1..16384).
bool checkSize(const std::string& text, std::string* why);

// "" when fine: crf in [0, 63] (here, for vidfilter bench too); drop never or oldest; a name
// (encoder, preset, muxer, pixel format) of letters, digits, '_', '-', '.'. (--hwdec:
// media::checkHwdecMode.)
inline std::string checkCrf(double crf) {
  if (!(crf >= 0 && crf <= 63))
    return "must be in [0, 63] (lower is better quality; x264 and x265 take up to 51)";
  return "";
}
// A pixel format of raw frames that FFmpeg knows (not a hardware surface, not a bitstream).
std::string checkInputPixFmt(const std::string& v);
std::string checkDrop(const std::string& v);
std::string checkName(const std::string& v);

}  // namespace vf::app
