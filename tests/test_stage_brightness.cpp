// brightness (manual) against cv::Mat::convertTo(dst, -1, gain, bias).
#include <cmath>
#include <cstring>
#include <limits>
#include <opencv2/imgproc.hpp>

#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;

namespace {
std::string chainFor(double gain, double bias) {
  return "brightness=gain=" + std::to_string(gain) + ":bias=" + std::to_string(bias);
}
}  // namespace

TEST(BrightnessStage, MatchesConvertToOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(50, type);
    for (auto [g, b] : {std::pair{1.2, -10.0}, {0.5, 20.0}, {2.7, -100.0}, {-1.0, 255.0}}) {
      cv::Mat ref;
      in.convertTo(ref, -1, g, b);
      EXPECT_LE(maxAbsDiff(runChain(chainFor(g, b), in), ref), 1)
          << "gain " << g << " bias " << b << " channels " << in.channels();
    }
  }
}

TEST(BrightnessStage, MatchesConvertToOnRandomOddSizes) {
  unsigned seed = 11;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      cv::Mat ref;
      in.convertTo(ref, -1, 1.37, -17.5);
      EXPECT_LE(maxAbsDiff(runChain(chainFor(1.37, -17.5), in), ref), 1) << sz;
    }
  }
}

TEST(BrightnessStage, IdentityIsExact) {
  const cv::Mat in = realFrame(10, CV_8UC3);
  EXPECT_EQ(maxAbsDiff(runChain("brightness", in), in), 0);
}

TEST(BrightnessStage, LiveGainChangesWithoutReconfigure) {
  const cv::Mat in = realFrame(10, CV_8UC1);
  Chain chain = Chain::parse("brightness=gain=1");
  const cv::Mat a = runChecked(chain, in);
  chain.stage(0).params().set("gain", "0.5");
  chain.stage(0).update();
  ASSERT_TRUE(chain.configured());
  const cv::Mat b = runChecked(chain, in);
  cv::Mat ref;
  in.convertTo(ref, -1, 0.5, 0);
  EXPECT_EQ(maxAbsDiff(a, in), 0);
  EXPECT_LE(maxAbsDiff(b, ref), 1);
}

TEST(BrightnessStage, RoundsHalfToEvenAndSaturatesExactly) {
  // Every value 0..255 (and in three channels, rotated), with gains and biases that land on
  // exact halves: convertTo rounds half to even (cvRound) and saturates; so must the kernel.
  cv::Mat ramp(3, 256, CV_8UC3);
  for (int y = 0; y < ramp.rows; ++y)
    for (int x = 0; x < 256; ++x)
      ramp.at<cv::Vec3b>(y, x) = cv::Vec3b(x, (x + 85) % 256, (x + 170) % 256);
  for (auto [g, b] : {std::pair{0.5, 0.0}, {1.5, 0.5}, {-0.5, 127.5}, {2.5, -255.0}, {0.25, 0.5}}) {
    cv::Mat ref;
    ramp.convertTo(ref, -1, g, b);
    EXPECT_EQ(maxAbsDiff(runChain(chainFor(g, b), ramp), ref), 0) << "gain " << g << " bias " << b;
  }
}
