#pragma once
// The --hwdec values, checked alike on the command line, in config files and by the bench
// (no FFmpeg needed: the config loader's fuzz target links this alone).
#include <string>

namespace vf::media {

// "" when `mode` is a --hwdec value (auto, none, cuvid, cuda, vaapi), else what is wrong.
std::string checkHwdecMode(const std::string& mode);

}  // namespace vf::media
