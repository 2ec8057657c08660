// Chains that change the frame's size, end to end through the real binary: the file written has
// the chain's output size (ffprobe) and every frame (frame count), and its pixels are OpenCV's
// resize or window of the input as ffmpeg decodes it.
#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "app/sinks.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using vf::test::runVidfilter;
using vf::test::TempDir;
namespace mt = vf::test;

using vf::test::haveFfprobe;
using vf::test::kVideo;

TEST(AppResize, ResizeBlurSobelWritesTheNewSize) {
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("resize_mp4");
  const std::string out = dir / "out.mp4";
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "resize=960x540,blur,sobel", "-o", out, "--frames", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* row : {"1 resize", "2 blur", "3 sobel"})
    EXPECT_NE(r.err.find(row), std::string::npos) << row << "\n" << r.err;
  EXPECT_NE(r.err.find("frames: 20 in, 20 out, 0 dropped"), std::string::npos) << r.err;
  EXPECT_EQ(mt::probeValue(out, "-select_streams v:0", "stream=width"), "960");
  EXPECT_EQ(mt::probeValue(out, "-select_streams v:0", "stream=height"), "540");
  EXPECT_EQ(mt::countFrames(out), 20);
}

// Frame by frame against OpenCV: the input's gray (ffmpeg's decode), cv::resize INTER_AREA,
// then convertTo; within 2 levels (the resize's one, times the gain).
TEST(AppResize, ImageSequenceIsTheResizedInput) {
  TempDir dir("resize_png");
  const std::string pattern = dir / "f_%03d.png";
  const int frames = 8;
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray,resize=331x217:interp=area,brightness=gain=1.5",
                    "-o", pattern, "--frames", std::to_string(frames)});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto gray = mt::ffmpegFrames(kVideo, "gray", "", "-frames:v " + std::to_string(frames));
  ASSERT_EQ(gray.size(), std::size_t(frames));
  for (int i = 0; i < frames; ++i) {
    const cv::Mat out = cv::imread(vf::app::sequenceFileName(pattern, i), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(out.size(), cv::Size(331, 217)) << "frame " << i;
    cv::Mat small, ref;
    cv::resize(gray[std::size_t(i)], small, cv::Size(331, 217), 0, 0, cv::INTER_AREA);
    small.convertTo(ref, CV_8U, 1.5);
    EXPECT_LE(vf::test::maxAbsDiff(out, ref), 2) << "frame " << i;
  }
}

TEST(AppResize, CropWritesTheWindow) {
  TempDir dir("crop_png");
  const std::string pattern = dir / "f_%03d.png";
  const int frames = 4;
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray,crop=101:57:321:203", "-o", pattern,
                               "--frames", std::to_string(frames)});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto gray = mt::ffmpegFrames(kVideo, "gray", "", "-frames:v " + std::to_string(frames));
  ASSERT_EQ(gray.size(), std::size_t(frames));
  for (int i = 0; i < frames; ++i) {
    const cv::Mat out = cv::imread(vf::app::sequenceFileName(pattern, i), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(out.size(), cv::Size(321, 203)) << "frame " << i;
    EXPECT_EQ(vf::test::maxAbsDiff(out, gray[std::size_t(i)](cv::Rect(101, 57, 321, 203))), 0)
        << "frame " << i;
  }
}

TEST(AppResize, AWindowOutsideTheFrameIsOneClearError) {
  TempDir dir("crop_bad");
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "crop=700:500:100:100", "-o", dir / "out.mp4", "--frames", "2"});
  EXPECT_EQ(r.status, 2) << r.err;  // a usage error, as a chain that does not fit the input
  EXPECT_NE(r.err.find("crop: the window 100x100 at (700,500) does not fit in the 768x576 frame"),
            std::string::npos)
      << r.err;
}
