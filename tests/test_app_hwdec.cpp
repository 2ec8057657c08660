// Hardware decoding (--hwdec): every mode gives the frames software decoding gives, byte for
// byte (ffmpeg's framemd5 of lossless outputs), whether the machine has the device or not; on
// the device, MPEG-2 and MPEG-4 Part 2 (whose standards allow IDCT rounding to differ) come
// within a bound of them instead. A
// decoder that cannot run says so once, names itself and decodes in software (a warning when
// named, an info line under auto); the run succeeds either way.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <opencv2/core.hpp>

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
  const char* nv;     // NVIDIA's decoder for it, named in the line either way
  bool exact;         // bit-exact by its standard (H.264, HEVC)
};

}  // namespace

TEST(Hwdec, EveryModeGivesTheSoftwareDecodersFrames) {
  TempDir dir("hwdec");
  const std::vector<Case> cases = {
      {"h264.mp4", "-c:v libx264 -bf 2 -g 12 -pix_fmt yuv420p", "h264_cuvid", true},
      {"hevc.mkv", "-c:v libx265 -x265-params log-level=error -pix_fmt yuv420p", "hevc_cuvid",
       true},
      {"mpeg4.avi", "-c:v mpeg4 -q:v 4", "mpeg4_cuvid", false},
      {"mpeg2.ts", "-c:v mpeg2video -q:v 4", "mpeg2_cuvid", false},
  };
  void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  const bool nvidiaDriver = cuda != nullptr;
  if (cuda) ::dlclose(cuda);
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
      // Either the device decoded (one line naming it) or software did (one line saying why).
      const int onDevice = occurrences(r.err, ": decoding on ");
      const int fellBack = occurrences(r.err, "decoding in software");
      EXPECT_EQ(onDevice + fellBack, 1) << r.err;
      if (c.exact || fellBack == 1) {
        EXPECT_EQ(hashes, reference);
      } else {  // measured on an H200: at most 9 levels apart, 0.3 on average
        const auto got = ffmpegFrames(out, "gray"),
                   want = ffmpegFrames(dir / ("none_" + std::string(c.name) + ".mkv"), "gray");
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_LE(vf::test::maxAbsDiff(got[i], want[i]), 16) << i;
          cv::Mat d;
          cv::absdiff(got[i], want[i], d);
          EXPECT_LT(cv::mean(d)[0], 1.0) << i;
        }
      }
      if (mode == "cuvid") {
        EXPECT_NE(r.err.find(c.nv), std::string::npos) << r.err;
      }
      // Where the machine visibly lacks NVIDIA's driver, the line says so (FFmpeg's own code
      // for it reads "Operation not permitted").
      if (fellBack == 1 && !nvidiaDriver) {
        EXPECT_NE(r.err.find("no NVIDIA driver (libcuda.so.1 is not installed)"), std::string::npos)
            << r.err;
      }
      if (fellBack == 1 && mode != "auto") {
        EXPECT_NE(r.err.find("warning: " + in + ": --hwdec " + mode + " is not available ("),
                  std::string::npos)
            << r.err;
      }
    }
  }
}

TEST(Hwdec, BenchSaysWhatDecodedAndChecksTheMode) {
  // bench --input labelled a row "(cuvid)" when software decoded it, and its ffmpeg peer then
  // failed on NVIDIA's decoder; an unknown mode ran as software.
  TempDir dir("hwdec_bench");
  const std::string in = dir / "in.mp4";
  makeClip(in, "testsrc2=size=160x120:rate=25:duration=1", "-c:v libx264 -pix_fmt yuv420p");
  const auto r = runVidfilter(
      {"bench", "--input", in, "--hwdec", "cuvid", "--frames", "10", "--preset", "ultrafast"});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const bool fellBack = r.err.find("decoding in software") != std::string::npos;
  EXPECT_NE(
      r.out.find(fellBack ? "decode only (cuvid unavailable: software)" : "decode only (cuvid)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ffmpeg -vf format=gray"), std::string::npos) << r.out;
  const auto bad = runVidfilter({"bench", "--input", in, "--hwdec", "nvdec"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("must be auto, none, cuvid, cuda or vaapi; got 'nvdec'"),
            std::string::npos)
      << bad.err;
}
