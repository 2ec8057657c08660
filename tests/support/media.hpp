#pragma once
// Media for the tests: the test video, clips made with the ffmpeg command at test time, and
// what ffprobe and ffmpeg (the independent reference) read back: frame counts, sizes, rates,
// codecs, timestamps, frames and their hashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <opencv2/core.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace vf::test {

// The test video (vtest.avi of opencv-doc, 768x576, 10 fps, 795 frames): CMake's
// VIDFILTER_TEST_VIDEO.
inline const std::string kVideo = VIDFILTER_TEST_VIDEO;

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

// A test clip from one of ffmpeg's lavfi sources, e.g. "testsrc=size=17x13:rate=10" with "-t 1".
inline void makeClip(const std::string& path, const std::string& lavfi, const std::string& extra) {
  ffmpeg("-f lavfi -i " + q(lavfi) + " " + extra + " " + q(path));
}

inline bool haveFfprobe() { return have("ffprobe"); }

// The first video stream as ffprobe sees it; frames counted by decoding them (-count_frames),
// so a file that stops decoding counts less.
struct Probe {
  long frames = -1;
  int width = 0, height = 0;
  std::string rate;   // r_frame_rate, "10/1"
  std::string codec;  // "h264"
};

inline Probe probe(const std::string& path) {
  const std::string out = shellOutput(
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
      "stream=nb_read_frames,width,height,r_frame_rate,codec_name -of default=noprint_wrappers=1 " +
      q(path) + " 2>&1");
  Probe p;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("nb_read_frames=([0-9]+)"))) p.frames = std::stol(m[1]);
  if (std::regex_search(out, m, std::regex("width=([0-9]+)"))) p.width = std::stoi(m[1]);
  if (std::regex_search(out, m, std::regex("height=([0-9]+)"))) p.height = std::stoi(m[1]);
  if (std::regex_search(out, m, std::regex("r_frame_rate=([0-9/]+)"))) p.rate = m[1];
  if (std::regex_search(out, m, std::regex("codec_name=(\\S+)"))) p.codec = m[1];
  return p;
}

// ffmpeg decodes the whole file and says nothing: "" (else its complaints).
inline std::string decodeErrors(const std::string& path) {
  return shellOutput("ffmpeg -nostdin -v error -i " + q(path) + " -f null - 2>&1");
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

// The RMS level (0..1) of the first audio stream of `path` over [from, from + length) s: of
// channel `channel`, or of all of them mixed to mono (-1).
inline double audioLevel(const std::string& path, double from, double length, int channel = -1) {
  const std::string mix =
      channel < 0 ? "-ac 1" : "-af " + q("pan=mono|c0=c" + std::to_string(channel));
  std::unique_ptr<FILE, int (*)(FILE*)> p(
      popen(("ffmpeg -nostdin -v error -i " + q(path) + " -ss " + std::to_string(from) + " -t " +
             std::to_string(length) + " -map 0:a:0 " + mix + " -ar 48000 -f f32le - 2>/dev/null")
                .c_str(),
            "r"),
      pclose);
  double sum = 0;
  long n = 0;
  float v = 0;
  while (std::fread(&v, sizeof v, 1, p.get()) == 1) {
    sum += double(v) * v;
    ++n;
  }
  return n > 0 ? std::sqrt(sum / double(n)) : -1;
}

}  // namespace vf::test
