// The pixel format an encoder outside the consumer codecs writes, and a JPEG image's: a lossy
// one (ProRes, DNxHD, MJPEG, Theora, JPEG 2000) the format ffmpeg picks for the same input and
// encoder (the reference, run in the test), from the input's chroma layout; a lossless one
// (FFV1, HuffYUV, Ut Video, MagicYUV) holds the chain's frames exactly, as raw video does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

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

TEST(EncoderFormats, LossyEncodersWriteTheFormatFfmpegPicksForTheInput) {
  TempDir dir("encoder_formats");
  const std::vector<Case> cases = {{"prores_ks", "mov", "160x120", ""},
                                   {"mjpeg", "mkv", "160x120", ""},
                                   {"libtheora", "ogv", "160x120", ""},
                                   {"jpeg2000", "mkv", "161x121", ""},
                                   {"dnxhd", "mov", "1920x1080", "36M"}};
  for (const std::string inFmt : {"yuv420p", "yuv422p", "yuv444p"})
    for (const Case& c : cases) {
      // DNxHD's 4:4:4 is a profile of its own (10-bit RGB or YUV), not a default.
      if (inFmt == "yuv444p" && std::string(c.codec) == "dnxhd") continue;
      SCOPED_TRACE(inFmt + " -> " + c.codec);
      const std::string in = dir / (inFmt + "_" + c.size + ".mkv");
      // Scaled to its size, so an odd one is odd in every plane (testsrc2 makes even sizes).
      ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 3 -vf scale=" +
             std::string(c.size).replace(std::string(c.size).find('x'), 1, ":") + " -pix_fmt " +
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
      EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=width,height"),
                probeValue(ref, "-select_streams v:0", "stream=width,height"));
      EXPECT_EQ(countFrames(out), 3);
    }
}

// Lossless encoders hold the chain's frames (BGR) exactly, at any size: every pixel of each is
// the raw video's of the same run (.avi with --codec rawvideo keeps the frames as BGR).
TEST(EncoderFormats, LosslessEncodersHoldTheChainsFramesExactly) {
  TempDir dir("encoder_formats_lossless");
  const std::string in = dir / "in.mkv", raw = dir / "raw.avi";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 3 -vf scale=161:121 -pix_fmt yuv420p "
      "-c:v ffv1 " +
      q(in));
  const std::vector<std::string> chain = {"--chain", "blur,brightness=gain=1.2"};
  std::vector<std::string> args = {"-y", "-i", in};
  args.insert(args.end(), chain.begin(), chain.end());
  std::vector<std::string> rawArgs = args;
  rawArgs.insert(rawArgs.end(), {"--codec", "rawvideo", "-o", raw});
  ASSERT_EQ(runVidfilter(rawArgs).status, 0);
  const auto want = ffmpegFrames(raw, "bgr24");
  ASSERT_EQ(want.size(), 3u);
  for (const char* codec : {"ffv1", "huffyuv", "utvideo", "magicyuv"}) {
    SCOPED_TRACE(codec);
    const std::string out = dir / (std::string(codec) + ".mkv");
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--codec", codec, "-o", out});
    const ProcResult r = runVidfilter(a);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto got = ffmpegFrames(out, "bgr24");
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(maxAbsDiff(got[i], want[i]), 0) << "frame " << i;
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
