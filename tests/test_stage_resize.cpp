// resize against cv::resize: the same output size, and every pixel within one level (OpenCV's
// vector paths round some fixed-point sums differently from its scalar path, which the stage
// follows); nearest exactly. Real and random frames, gray/bgr/bgra, shrinking, enlarging, both
// at once, odd sizes, a factor (scale=) and the aspect-keeping -1, each interpolation, with the
// device's schedule and a GPU's.
#include <opencv2/imgproc.hpp>

#include <string>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

const char* const kInterps[] = {"nearest", "linear", "area", "cubic"};

int cvInterp(const std::string& name) {
  if (name == "nearest") return cv::INTER_NEAREST;
  if (name == "area") return cv::INTER_AREA;
  if (name == "cubic") return cv::INTER_CUBIC;
  return cv::INTER_LINEAR;
}

int tolerance(const std::string& interp) { return interp == "nearest" ? 0 : 1; }

void expectResize(const cv::Mat& in, cv::Size to, const std::string& interp,
                  Facts facts = Facts::Device) {
  const std::string chain =
      "resize=" + std::to_string(to.width) + "x" + std::to_string(to.height) + ":interp=" + interp;
  cv::Mat ref;
  cv::resize(in, ref, to, 0, 0, cvInterp(interp));
  const cv::Mat out = runChain(chain, in, facts);
  ASSERT_EQ(out.size(), ref.size()) << chain;
  ASSERT_EQ(out.type(), in.type()) << chain;
  EXPECT_LE(maxAbsDiff(out, ref), tolerance(interp))
      << chain << " from " << in.size() << "x" << in.channels();
}

}  // namespace

TEST(ResizeStage, EqualsOpenCVOnRealFrames) {
  const cv::Size targets[] = {{960, 540},   {384, 288},  {256, 192}, {331, 217},
                              {1920, 1080}, {1000, 300}, {97, 801}};
  for (const char* interp : kInterps)
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4})
      for (const cv::Size to : targets) expectResize(realFrame(100, type), to, interp);
}

TEST(ResizeStage, EqualsOpenCVOnRandomOddSizes) {
  unsigned seed = 1;
  for (const char* interp : kInterps) {
    for (const auto& from : oddSizes()) {
      for (const cv::Size to : {cv::Size(1, 1), cv::Size(3, 2), cv::Size(19, 11),
                                cv::Size(from.width * 2 + 1, from.height / 3 + 1)}) {
        for (int type : {CV_8UC1, CV_8UC3, CV_8UC4})
          expectResize(randomFrame(from.width, from.height, type, seed++), to, interp);
      }
    }
  }
}

TEST(ResizeStage, GpuScheduleEqualsOpenCV) {
  for (const char* interp : kInterps)
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      expectResize(realFrame(300, type), {960, 540}, interp, Facts::Gpu);
      expectResize(randomFrame(641, 479, type, 9), {203, 1001}, interp, Facts::Gpu);
    }
}

// A factor: the same output size and sampling as cv::resize(src, dst, Size(), f, f), which maps
// coordinates by the factor itself rather than by the rounded sizes' ratio.
TEST(ResizeStage, ScaleEqualsOpenCVWithAFactor) {
  for (const char* interp : kInterps)
    for (double f : {0.5, 0.3, 0.25, 1.7, 3.0}) {
      const cv::Mat in = realFrame(200, CV_8UC3, 767, 575);
      cv::Mat ref;
      cv::resize(in, ref, cv::Size(), f, f, cvInterp(interp));
      const cv::Mat out = runChain("resize=scale=" + std::to_string(f) + ":interp=" + interp, in);
      ASSERT_EQ(out.size(), ref.size()) << interp << " scale " << f;
      EXPECT_LE(maxAbsDiff(out, ref), tolerance(interp)) << interp << " scale " << f;
    }
}

TEST(ResizeStage, MinusOneKeepsTheAspectRatio) {
  const cv::Mat in = realFrame(0, CV_8UC3);  // 768x576, 4:3
  EXPECT_EQ(runChain("resize=640x-1", in).size(), cv::Size(640, 480));
  EXPECT_EQ(runChain("resize=-1x120", in).size(), cv::Size(160, 120));
  EXPECT_EQ(runChain("resize=-1x101", in).size(), cv::Size(135, 101));  // 134.67 rounded
}

// The frame's new size reaches the stages after it: blur and sobel on the resized frame equal
// OpenCV's on the stage's own resized output, for every border.
TEST(ResizeStage, LaterStagesTakeTheNewSize) {
  const cv::Mat in = realFrame(400, CV_8UC3);
  const cv::Mat resized = runChain("resize=960x540", in);
  for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
    const std::string b = std::string("border=") + border;
    Chain whole = Chain::parse("resize=960x540,gray,blur=sigma=1.5:" + b + ",sobel=" + b);
    const cv::Mat out = runChecked(whole, in);
    Chain rest = Chain::parse("gray,blur=sigma=1.5:" + b + ",sobel=" + b);
    ASSERT_EQ(out.size(), cv::Size(960, 540)) << border;
    EXPECT_EQ(maxAbsDiff(out, runChecked(rest, resized)), 0) << border;
    EXPECT_EQ(whole.stageOutputs()[0].width, 960);
    EXPECT_EQ(whole.output().height, 540);
  }
}

TEST(ResizeStage, SameSizeIsACopy) {
  for (const char* interp : kInterps) {
    const cv::Mat in = randomFrame(33, 17, CV_8UC3, 4);
    EXPECT_EQ(maxAbsDiff(runChain(std::string("resize=33x17:interp=") + interp, in), in), 0)
        << interp;
  }
}

TEST(ResizeStage, NeitherSizeNorScaleKeepsTheSize) {
  const cv::Mat in = randomFrame(45, 31, CV_8UC4, 8);
  EXPECT_EQ(maxAbsDiff(runChain("resize", in), in), 0);
}

TEST(ResizeStage, ScheduleSaysWhatRan) {
  const cv::Mat in = randomFrame(64, 48, CV_8UC1, 3);
  Chain c = Chain::parse("resize=16x12:interp=area");  // 4x smaller: cells of 4x4
  runChecked(c, in);
  EXPECT_EQ(c.stage(0).schedule().rfind("mode=area taps=4x4 ", 0), 0u) << c.stage(0).schedule();
  Chain g = Chain::parse("resize=128x96:interp=cubic");
  runChecked(g, in, nullptr, Facts::Gpu);
  EXPECT_EQ(g.stage(0).schedule(), "mode=fixed taps=4x4 wg=32x8");
  Chain a = Chain::parse("resize=18x12:interp=area");  // 3.56x narrower: cells span 4 or 5
  runChecked(a, in);
  EXPECT_EQ(a.stage(0).schedule().rfind("mode=area taps=5x4 ", 0), 0u) << a.stage(0).schedule();
}

TEST(ResizeStage, ErrorsNameTheParameter) {
  auto message = [](const std::string& chain) {
    try {
      Chain::parse(chain);
    } catch (const ChainError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("resize=960x540:scale=2"), "resize: give size or scale, not both");
  EXPECT_EQ(message("resize=960x0"),
            "resize: size 960x0: give both sides, or -1 for one to keep the aspect ratio");
  EXPECT_EQ(message("resize=-1x-1"), "resize: size -1x-1: give at least one side");
  EXPECT_EQ(message("resize=960"), "resize: size must be WxH (e.g. 16x8), got '960'");
  EXPECT_EQ(message("resize=scale=0"), "resize: scale must be in (0, 16], got 0");
  EXPECT_EQ(message("resize=10x10:interp=lanczos"),
            "resize: interp must be one of nearest, linear, area, cubic, got 'lanczos'");
}
