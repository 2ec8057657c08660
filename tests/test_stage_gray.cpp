// gray against cv::cvtColor(COLOR_BGR2GRAY / COLOR_BGRA2GRAY).
#include <opencv2/imgproc.hpp>

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

TEST(GrayStage, GrayInputPassesThrough) {
  const cv::Mat in = randomFrame(17, 13, CV_8UC1, 5);
  EXPECT_EQ(maxAbsDiff(runChain("gray", in), in), 0);
}
