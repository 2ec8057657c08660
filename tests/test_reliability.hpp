#pragma once
// Shared by the reliability tests (tests/test_reliability_*.cpp): clips made with ffmpeg,
// ffprobe's frame count, and the error-message checks. docs/RELIABILITY.md lists what each
// test covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "tests/test_app_process.hpp"

namespace vf::reltest {

using test::errorLines;
using test::shellOutput;

inline const std::string kVideo = "/usr/share/doc/opencv-doc/examples/data/vtest.avi";

struct Probe {
  long frames = -1;  // decoded by ffprobe (-count_frames): a file that stops decoding counts less
  int width = 0, height = 0;
};

inline Probe probe(const std::string& path) {
  const std::string out = shellOutput(
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
      "stream=nb_read_frames,width,height -of default=noprint_wrappers=1 '" +
      path + "' 2>&1");
  Probe p;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("nb_read_frames=([0-9]+)"))) p.frames = std::stol(m[1]);
  if (std::regex_search(out, m, std::regex("width=([0-9]+)"))) p.width = std::stoi(m[1]);
  if (std::regex_search(out, m, std::regex("height=([0-9]+)"))) p.height = std::stoi(m[1]);
  return p;
}

// ffmpeg decodes the whole file and says nothing: "" (else its complaints).
inline std::string decodeErrors(const std::string& path) {
  return shellOutput("ffmpeg -v error -i '" + path + "' -f null - 2>&1");
}

// A test clip from one of ffmpeg's lavfi sources, e.g. "testsrc=size=17x13:rate=10" with "-t 1".
inline void makeClip(const std::string& path, const std::string& lavfi, const std::string& extra) {
  const std::string r = shellOutput("ffmpeg -v error -y -f lavfi -i '" + lavfi + "' " + extra +
                                    " '" + path + "' 2>&1 && echo ok");
  ASSERT_EQ(r, "ok\n") << "ffmpeg could not make " << path << ": " << r;
}

inline long count(const std::string& s, char c) { return std::count(s.begin(), s.end(), c); }

// A run that fails before any frame: exactly one line on stderr besides the info logs,
// "vidfilter: <message>", with the exit status given; nothing on stdout.
inline void expectOneError(const test::ProcResult& r, int status, const std::string& needle) {
  EXPECT_EQ(r.status, status) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter: ", 0), 0u) << e;
  EXPECT_NE(e.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << e;
  EXPECT_EQ(count(e, '\n'), 1) << e;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// The last line of stderr (a failed run's error comes last, after the warnings and progress).
inline std::string lastLine(const std::string& err) {
  std::string s = err;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.find_last_of("\r\n");
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// "wrote N frames to" / "wrote N images to" from the log, or -1.
inline long framesWritten(const std::string& err) {
  std::smatch m;
  if (std::regex_search(err, m, std::regex("wrote ([0-9]+) (frames|images) to")))
    return std::stol(m[1]);
  return -1;
}

}  // namespace vf::reltest
