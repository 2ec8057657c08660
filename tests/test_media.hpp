#pragma once
// Shared by the media tests: clips made with the ffmpeg command at test time, frames and
// timestamps read back with ffmpeg and ffprobe (the independent reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <opencv2/core.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/test_app_process.hpp"

namespace vf::mediatest {

using test::shellOutput;

// A string as one shell word.
inline std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs ffmpeg; fails the test with its complaint when it does not succeed.
inline void ffmpeg(const std::string& args) {
  const std::string r = shellOutput("ffmpeg -nostdin -v error -y " + args + " 2>&1 && echo ok");
  ASSERT_EQ(r.substr(r.size() >= 3 ? r.size() - 3 : 0), "ok\n") << "ffmpeg " << args << ":\n" << r;
}

inline std::string probeValue(const std::string& path, const std::string& select,
                              const std::string& entry) {
  std::string v =
      shellOutput("ffprobe -v error " + select + " -show_entries " + entry +
                  " -of default=noprint_wrappers=1:nokey=1 " + q(path) + " 2>/dev/null");
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  return v;
}

// Frames ffprobe decodes from the first video stream (-count_frames).
inline long countFrames(const std::string& path) {
  const std::string v =
      probeValue(path, "-count_frames -select_streams v:0", "stream=nb_read_frames");
  return v.empty() || !std::isdigit(static_cast<unsigned char>(v[0])) ? -1 : std::stol(v);
}

// Presentation times (seconds) of the decoded video frames, in order.
inline std::vector<double> frameTimes(const std::string& path) {
  std::vector<double> t;
  const std::string out =
      probeValue(path, "-select_streams v:0", "frame=best_effort_timestamp_time");
  std::size_t a = 0;
  while (a < out.size()) {
    std::size_t b = out.find('\n', a);
    if (b == std::string::npos) b = out.size();
    const std::string line = out.substr(a, b - a);
    if (!line.empty() && line != "N/A") t.push_back(std::stod(line));
    a = b + 1;
  }
  return t;
}

inline double durationOf(const std::string& path) {
  const std::string v = probeValue(path, "", "format=duration");
  return v.empty() || v == "N/A" ? -1 : std::stod(v);
}

// Every frame of `path` decoded by ffmpeg as `pixFmt` (gray, bgr24), `extra` before the
// output (e.g. "-ss 1 -t 2" after -i as an output option, or "-vf ...").
inline std::vector<cv::Mat> ffmpegFrames(const std::string& path, const std::string& pixFmt,
                                         const std::string& before = "",
                                         const std::string& extra = "") {
  const std::string size = probeValue(path, "-select_streams v:0", "stream=width,height");
  const auto nl = size.find('\n');
  const int w = std::stoi(size.substr(0, nl)), h = std::stoi(size.substr(nl + 1));
  const int type = pixFmt == "gray" ? CV_8UC1 : CV_8UC3;
  std::vector<cv::Mat> frames;
  std::unique_ptr<FILE, int (*)(FILE*)> p(
      popen(("ffmpeg -nostdin -v error " + before + " -i " + q(path) + " " + extra +
             " -f rawvideo -pix_fmt " + pixFmt + " - 2>/dev/null")
                .c_str(),
            "r"),
      pclose);
  for (;;) {
    cv::Mat m(h, w, type);
    const std::size_t n = m.total() * m.elemSize();
    if (std::fread(m.data, 1, n, p.get()) != n) break;
    frames.push_back(m);
  }
  return frames;
}

// md5 of each decoded frame (ffmpeg's framemd5), in order: equal lists, equal pictures.
inline std::vector<std::string> frameHashes(const std::string& path,
                                            const std::string& extra = "") {
  const std::string out = shellOutput("ffmpeg -nostdin -v error -i " + q(path) + " " + extra +
                                      " -f framemd5 - 2>/dev/null");
  std::vector<std::string> h;
  std::size_t a = 0;
  while (a < out.size()) {
    std::size_t b = out.find('\n', a);
    if (b == std::string::npos) b = out.size();
    const std::string line = out.substr(a, b - a);
    if (!line.empty() && line[0] != '#') h.push_back(line.substr(line.rfind(',') + 1));
    a = b + 1;
  }
  return h;
}

}  // namespace vf::mediatest
