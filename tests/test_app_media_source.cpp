// The FFmpeg frame source in process: frame-exact seeking (the preview's seek keys call
// requestSeek from another thread), timestamps on the output's timeline, and the pixels it
// converts into the slot against ffmpeg's own decode.
#include <gtest/gtest.h>

#include <thread>

#include "app/media/media_source.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

struct Got {
  cv::Mat frame;
  FrameTime time;
};

// The next frame from `src` into a fresh host buffer.
std::optional<Got> next(media::MediaSource& src) {
  Got g;
  FrameTime t;
  const bool ok = src.next(
      [&](const FrameDesc& d) {
        g.frame = test::makeMat(d);
        return test::viewOf(g.frame);
      },
      t);
  if (!ok) return std::nullopt;
  g.time = t;
  return g;
}

app::SourceSpec fileSpec(const std::string& path) {
  app::SourceSpec s;
  s.kind = app::SourceKind::File;
  s.text = path;
  return s;
}

}  // namespace

TEST(MediaSource, SeeksFrameExactlyBothWays) {
  TempDir dir("msrc_seek");
  const std::string in = dir / "in.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 4 -c:v libx264 -g 50 " + q(in));
  const auto want = ffmpegFrames(in, "gray");
  ASSERT_EQ(want.size(), 100u);
  app::InputOptions o;
  o.grayLuma = true;
  media::MediaSource src(fileSpec(in), o);
  ASSERT_TRUE(src.seekable());
  EXPECT_EQ(src.firstFrameDesc(), (FrameDesc{160, 120, PixelFormat::Gray8}));
  for (const double at : {1.0, 2.52, 0.4, 3.96}) {
    SCOPED_TRACE(at);
    std::thread([&] { src.requestSeek(at); }).join();  // from another thread, as the preview
    const auto g = next(src);
    ASSERT_TRUE(g);
    const long index = std::lround(at * 25);
    EXPECT_NEAR(g->time.seconds(), at, 1e-6);
    EXPECT_EQ(test::maxAbsDiff(g->frame, want[index]), 0);  // not a keyframe's neighbour
    if (index + 1 < 100) {
      const auto after = next(src);
      ASSERT_TRUE(after);
      EXPECT_EQ(test::maxAbsDiff(after->frame, want[index + 1]), 0);
    }
  }
  std::thread([&] { src.requestSeek(10); }).join();  // past the end: the stream ends
  EXPECT_FALSE(next(src));
}

TEST(MediaSource, TimestampsCountFromTheStartAndTheTrim) {
  TempDir dir("msrc_time");
  const std::string in = dir / "in.ts";
  // MPEG-TS starts at 1.4 s, not 0: the output's timeline counts from the input's start.
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 2 -c:v mpeg2video " + q(in));
  app::InputOptions o;
  media::MediaSource whole(fileSpec(in), o);
  auto g = next(whole);
  ASSERT_TRUE(g);
  EXPECT_NEAR(g->time.seconds(), 0.0, 1e-6);
  o.start = 0.4;
  o.end = 1.2;
  media::MediaSource cut(fileSpec(in), o);
  std::vector<double> t;
  while (auto f = next(cut)) t.push_back(f->time.seconds());
  ASSERT_EQ(t.size(), 20u);  // [0.4, 1.2) at 25 fps
  for (std::size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], 0.04 * double(i), 1e-6) << i;
}

TEST(MediaSource, ColourFramesMatchFfmpegsConversion) {
  TempDir dir("msrc_bgr");
  const std::string in = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc=size=161x97:rate=25 -frames:v 5 -c:v ffv1 -pix_fmt yuv444p " + q(in));
  const auto want = ffmpegFrames(in, "bgr24");
  app::InputOptions o;
  media::MediaSource src(fileSpec(in), o);
  EXPECT_EQ(src.firstFrameDesc(), (FrameDesc{161, 97, PixelFormat::BGR8}));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto g = next(src);
    ASSERT_TRUE(g) << i;
    EXPECT_LE(test::maxAbsDiff(g->frame, want[i]), 2) << i;
  }
  EXPECT_FALSE(next(src));
}

TEST(MediaSource, SemiPlanarFramesGiveThePlanarFramesPixels) {
  // NV12 is what hardware decoders hand back: its frames must come out as the same picture in
  // planar 4:2:0 does (from a software decoder), byte for byte, and as ffmpeg converts the
  // planar picture, to the last column (162: not a multiple of 8).
  TempDir dir("msrc_nv12");
  const std::string planar = dir / "i420.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=162x98:rate=25 -frames:v 6 -c:v ffv1 -pix_fmt yuv420p " +
         q(planar));
  const auto want = ffmpegFrames(planar, "bgr24");
  ASSERT_EQ(want.size(), 6u);
  for (const char* packed : {"nv12", "nv21"}) {
    SCOPED_TRACE(packed);
    const std::string semi = dir / (std::string(packed) + ".nut");
    ffmpeg("-i " + q(planar) + " -c:v rawvideo -pix_fmt " + packed + " " + q(semi));
    app::InputOptions o;
    media::MediaSource a(fileSpec(planar), o);
    media::MediaSource b(fileSpec(semi), o);
    EXPECT_EQ(b.firstFrameDesc(), (FrameDesc{162, 98, PixelFormat::BGR8}));
    for (std::size_t i = 0; i < want.size(); ++i) {
      const auto fa = next(a);
      const auto fb = next(b);
      ASSERT_TRUE(fa && fb) << i;
      EXPECT_EQ(test::maxAbsDiff(fb->frame, fa->frame), 0) << i;
      EXPECT_LE(test::maxAbsDiff(fb->frame, want[i]), 2) << i;
    }
    EXPECT_FALSE(next(b));
  }
}
