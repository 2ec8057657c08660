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
  const ScopedEnv px("VIDFILTER_GRAY_PX", "3");
  try {
    runChain("gray", randomFrame(8, 8, CV_8UC3, 1));
    ADD_FAILURE() << "no error for VIDFILTER_GRAY_PX=3";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("VIDFILTER_GRAY_PX"), std::string::npos) << e.what();
  }
}

TEST(GrayStage, GrayInputPassesThrough) {
  const cv::Mat in = randomFrame(17, 13, CV_8UC1, 5);
  EXPECT_EQ(maxAbsDiff(runChain("gray", in), in), 0);
}

// Every schedule on whatever device runs the tests (CI: PoCL): the CPU one (16 pixels per
// work-item, groups of 16) and the GPU one (groups of 256) at its default 4 pixels and at 1 and
// 16 (VIDFILTER_GRAY_PX), on sizes whose pixel count is and is not a multiple of 4 and 16 (the
// last partial group goes pixel by pixel), real and random frames.
TEST(GrayStage, EverySchedule) {
  unsigned seed = 100;
  const std::pair<const char*, const char*> schedules[] = {
      {"cpu", ""}, {"gpu", ""}, {"gpu", "1"}, {"gpu", "16"}};
  for (const auto& [schedule, pixels] : schedules) {
    const ScopedEnv env("VIDFILTER_GRAY_SCHEDULE", schedule);
    const ScopedEnv px("VIDFILTER_GRAY_PX", pixels);
    for (const cv::Size sz :
         {cv::Size(1, 1), cv::Size(3, 1), cv::Size(15, 1), cv::Size(16, 1), cv::Size(6, 3),
          cv::Size(17, 13), cv::Size(64, 48), cv::Size(1921, 1081)}) {
      for (int type : {CV_8UC3, CV_8UC4}) {
        const cv::Mat in = sz.area() > 100000 ? realFrame(300, type, sz.width, sz.height)
                                              : randomFrame(sz.width, sz.height, type, seed++);
        cv::Mat ref;
        cv::cvtColor(in, ref, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        EXPECT_EQ(maxAbsDiff(runChain("gray", in), ref), 0)
            << schedule << " px " << pixels << " " << sz << " type " << type;
      }
    }
  }
}
