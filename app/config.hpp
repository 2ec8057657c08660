#pragma once
// TOML config files (toml++). A file holds the same settings as the command line:
//
//   input  = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
//   output = "out/vtest_edges.mp4"
//   device = "gpu"
//   chain  = "blur=sigma=1.5,sobel,hist,brightness"   # or [[stage]] tables, below
//   frames = 200
//   codec  = "libx264"
//   log_level = "info"
//   progress = true
//   overwrite = true           # -y (false: -n)
//   start = "1:30"  duration = 10  to = "2:00"     # --ss, -t, --to (times or seconds)
//   codec = "libx264"  crf = 20  preset = "fast"  bitrate = "4M"  pix_fmt = "yuv420p"
//   format = "matroska"  audio = false  audio_codec = "aac"
//   rate = 30  size = "640x480"  input_pix_fmt = "gray"   # image sequences, raw stdin
//   hwdec = "auto"  drop = "never"  quiet = true
//   [preview]  enabled, compare, overlay, snapshot_dir, title
//   [engine]   slots, stats, fuse (true: --fuse, false: --no-fuse)
//   [[stage]]  name = "blur"   sigma = 2   border = "reflect101"
//
// Every error names the file, the line and the key, e.g.
//   "config/offline.toml:12:9: engine.slots: must be in [2, 8] ..., got 10".
#include <string>

#include "app/options.hpp"

namespace vf::app {

// Reads and validates `path`. Throws UsageError (one message; a chain error keeps its caret
// lines) when the file is missing, malformed, or holds an unknown key or a bad value.
Settings loadConfigFile(const std::string& path);

// Same, from text (`name` stands for the file in messages). For tests and fuzzing.
Settings parseConfig(const std::string& text, const std::string& name);

}  // namespace vf::app
