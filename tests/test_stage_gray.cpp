// gray against cv::cvtColor(COLOR_BGR2GRAY / COLOR_BGRA2GRAY).
#include <opencv2/imgproc.hpp>

#include <string>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

TEST(GrayStage, MatchesOpenCVOnRealFrames) {
  for (int idx : {0, 100, 400}) {
    for (int type : {CV_8UC3, CV_8UC4}) {
      const cv::Mat in = realFrame(idx, type);
      cv::Mat ref;
      cv::cvtColor(in, ref, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
      const cv::Mat out = runChain("gray", in);
      ASSERT_EQ(out.type(), CV_8UC1);
      EXPECT_EQ(maxAbsDiff(out, ref), 0) << "frame " << idx << " channels " << in.channels();
    }
  }
}

TEST(GrayStage, MatchesOpenCVOnRandomOddSizes) {
  unsigned seed = 1;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC3, CV_8UC4}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      cv::Mat ref;
      cv::cvtColor(in, ref, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
      EXPECT_EQ(maxAbsDiff(runChain("gray", in), ref), 0) << sz << " type " << type;
    }
  }
}

TEST(GrayStage, BadPixelsPerWorkItemIsAClearError) {
  try {
    Chain::parse("gray=px=3");
    ADD_FAILURE() << "no error for px=3";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(), "gray: px must be one of auto, 1, 4, 16, got '3'");
  }
}

TEST(GrayStage, GrayInputPassesThrough) {
  const cv::Mat in = randomFrame(17, 13, CV_8UC1, 5);
  EXPECT_EQ(maxAbsDiff(runChain("gray", in), in), 0);
}

// Every schedule on whatever device runs the tests (CI: PoCL): the CPU one (16 pixels per
// work-item, groups of 16) and a GPU's (groups of 256: 16 pixels from whole words, BGR's default)
// at its default and at 1, 4 and 16 pixels, on sizes whose pixel count is and is not a multiple of
// 4 and 16 (the last partial group goes pixel by pixel), real and random frames.
TEST(GrayStage, EveryScheduleEqualsOpenCV) {
  unsigned seed = 100;
  const std::pair<Facts, const char*> schedules[] = {{Facts::Device, "gray"},
                                                     {Facts::Gpu, "gray"},
                                                     {Facts::Gpu, "gray=px=1"},
                                                     {Facts::Gpu, "gray=px=4"},
                                                     {Facts::Gpu, "gray=px=16"}};
  for (const auto& [facts, chain] : schedules) {
    for (const cv::Size sz :
         {cv::Size(1, 1), cv::Size(3, 1), cv::Size(15, 1), cv::Size(16, 1), cv::Size(6, 3),
          cv::Size(17, 13), cv::Size(64, 48), cv::Size(1921, 1081)}) {
      for (int type : {CV_8UC3, CV_8UC4}) {
        const cv::Mat in = sz.area() > 100000 ? realFrame(300, type, sz.width, sz.height)
                                              : randomFrame(sz.width, sz.height, type, seed++);
        cv::Mat ref;
        cv::cvtColor(in, ref, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        EXPECT_EQ(maxAbsDiff(runChain(chain, in, facts), ref), 0)
            << chain << (facts == Facts::Gpu ? " (GPU schedule) " : " ") << sz << " type " << type;
      }
    }
  }
}

// The schedule each device class gets by default.
TEST(GrayStage, DefaultScheduleFollowsTheDevice) {
  const cv::Mat in = randomFrame(64, 48, CV_8UC3, 7);
  Chain cpu = Chain::parse("gray"), gpu = Chain::parse("gray");
  runChecked(cpu, in, nullptr, Facts::Device);
  runChecked(gpu, in, nullptr, Facts::Gpu);
  if (context().facts().cpu) {
    EXPECT_EQ(cpu.stage(0).schedule(), "px=16 wg=16");
  }
  EXPECT_EQ(gpu.stage(0).schedule(), "px=16 wg=256");
  Chain bgra = Chain::parse("gray");
  runChecked(bgra, randomFrame(64, 48, CV_8UC4, 8), nullptr, Facts::Gpu);
  EXPECT_EQ(bgra.stage(0).schedule(), "px=4 wg=256");
}
