// Hardware decoding (--hwdec): every mode gives the frames software decoding gives, byte for
// byte (ffmpeg's framemd5 of lossless outputs), whether the machine has the device or not. A
// decoder that cannot run says so once, names itself and decodes in software (a warning when
// named, an info line under auto); the run succeeds either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Case {
  const char* name;
  const char* codec;  // ffmpeg encoder options
};

}  // namespace

TEST(Hwdec, EveryModeGivesTheSoftwareDecodersFrames) {
  TempDir dir("hwdec");
  const std::vector<Case> cases = {
      {"h264.mp4", "-c:v libx264 -bf 2 -g 12 -pix_fmt yuv420p"},
      {"hevc.mkv", "-c:v libx265 -x265-params log-level=error -pix_fmt yuv420p"},
      {"mpeg4.avi", "-c:v mpeg4 -q:v 4"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string in = dir / c.name;
    makeClip(in, "testsrc2=size=322x242:rate=25:duration=2", c.codec);
    std::vector<std::string> reference;
    for (const std::string mode : {"none", "cuvid", "cuda", "auto"}) {
      SCOPED_TRACE(mode);
      const std::string out = dir / (mode + "_" + c.name + ".mkv");
      const auto r =
          runVidfilter({"-i", in, "--hwdec", mode, "--chain", "blur", "-c:v", "ffv1", "-o", out});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(countFrames(out), 50);
      const auto hashes = frameHashes(out);
      ASSERT_EQ(hashes.size(), 50u);
      if (mode == "none") {
        reference = hashes;
        EXPECT_EQ(occurrences(r.err, ": decoding on ") + occurrences(r.err, "in software"), 0)
            << r.err;
        continue;
      }
      EXPECT_EQ(hashes, reference);
      // Either the device decoded (one line naming it) or software did (one line saying why).
      const int onDevice = occurrences(r.err, ": decoding on ");
      const int fellBack = occurrences(r.err, "decoding in software");
      EXPECT_EQ(onDevice + fellBack, 1) << r.err;
      if (fellBack == 1 && mode != "auto") {
        EXPECT_NE(r.err.find("warning: " + in + ": --hwdec " + mode + " is not available ("),
                  std::string::npos)
            << r.err;
      }
    }
  }
}
