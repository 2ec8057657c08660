// The pixel format an encoder outside the consumer codecs writes (FFV1, HuffYUV, Ut Video,
// ProRes, DNxHD, MJPEG, Theora, JPEG 2000) and a JPEG image: the one ffmpeg picks for the same
// input and encoder (the reference, run in the test), from the input's chroma layout, not from
// the chain's BGR frames.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

std::string pixFmtOf(const std::string& path) {
  return probeValue(path, "-select_streams v:0", "stream=pix_fmt");
}

struct Case {
  const char* codec;
  const char* ext;
  const char* size;   // the input's (DNxHD takes its profiles' sizes only)
  const char* extra;  // for both programs: a bit rate where the encoder needs one
};

}  // namespace

TEST(EncoderFormats, OtherEncodersWriteTheFormatFfmpegPicksForTheInput) {
  TempDir dir("encoder_formats");
  const std::vector<Case> cases = {
      {"ffv1", "mkv", "160x120", ""},      {"huffyuv", "mkv", "160x120", ""},
      {"utvideo", "mkv", "160x120", ""},   {"prores_ks", "mov", "160x120", ""},
      {"mjpeg", "mkv", "160x120", ""},     {"libtheora", "ogv", "160x120", ""},
      {"dnxhd", "mov", "1920x1080", "36M"}};
  for (const std::string inFmt : {"yuv420p", "yuv422p", "yuv444p"})
    for (const Case& c : cases) {
      // DNxHD's 4:4:4 is a profile of its own (10-bit RGB or YUV), not a default.
      if (inFmt == "yuv444p" && std::string(c.codec) == "dnxhd") continue;
      SCOPED_TRACE(inFmt + " -> " + c.codec);
      const std::string in = dir / (inFmt + "_" + c.size + ".mkv");
      ffmpeg("-f lavfi -i testsrc2=size=" + std::string(c.size) + ":rate=25 -frames:v 3 -pix_fmt " +
             inFmt + " -c:v ffv1 " + q(in));
      const std::string rate = c.extra[0] ? std::string(" -b:v ") + c.extra : "";
      const std::string ref = dir / (std::string("ref_") + c.codec + "." + c.ext);
      ffmpeg("-i " + q(in) + " -c:v " + c.codec + rate + " " + q(ref));
      const std::string out = dir / (std::string("out_") + c.codec + "." + c.ext);
      std::vector<std::string> args = {"-y",      "-i",    in,   "--chain", "brightness",
                                       "--codec", c.codec, "-o", out};
      if (c.extra[0]) args.insert(args.end(), {"--bitrate", c.extra});
      const ProcResult r = runVidfilter(args);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(pixFmtOf(out), pixFmtOf(ref));
      EXPECT_EQ(countFrames(out), 3);
    }
}

// A JPEG image keeps a video's 4:2:0 as ffmpeg writes it; an RGB input's stays 4:4:4.
TEST(EncoderFormats, JpegImagesTakeTheInputsChromaAsFfmpeg) {
  TempDir dir("encoder_formats_jpeg");
  const std::string video = dir / "in.mp4", png = dir / "in.png";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 1 -pix_fmt yuv420p " + q(video));
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 1 " + q(png));
  for (const std::string& in : {video, png}) {
    SCOPED_TRACE(in);
    const std::string ref = dir / "ref.jpg", out = dir / "out.jpg";
    ffmpeg("-i " + q(in) + " -frames:v 1 " + q(ref));
    const ProcResult r =
        runVidfilter({"-y", "-i", in, "--chain", "brightness", "--frames", "1", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(pixFmtOf(out), pixFmtOf(ref));
  }
}
