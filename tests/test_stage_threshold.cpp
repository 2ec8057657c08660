// threshold against cv::threshold, byte for byte: every mode at several values and maxvals,
// gray/bgr/bgra (bgra: alpha unchanged), real and random frames, odd sizes; Otsu's level
// against THRESH_OTSU's on real, random and two-level frames, from its own histogram and an
// upstream one; live value changes; the errors.
#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

const std::pair<const char*, int> kModes[] = {{"binary", cv::THRESH_BINARY},
                                              {"binary_inv", cv::THRESH_BINARY_INV},
                                              {"trunc", cv::THRESH_TRUNC},
                                              {"tozero", cv::THRESH_TOZERO},
                                              {"tozero_inv", cv::THRESH_TOZERO_INV}};

cv::Mat reference(const cv::Mat& in, double value, double maxval, int type) {
  cv::Mat out;
  if (in.channels() == 4) {  // alpha passes
    std::vector<cv::Mat> planes;
    cv::split(in, planes);
    for (int c = 0; c < 3; ++c) cv::threshold(planes[c], planes[c], value, maxval, type);
    cv::merge(planes, out);
  } else {
    cv::threshold(in, out, value, maxval, type);
  }
  return out;
}

std::string chainOf(const char* mode, double value, double maxval) {
  return std::string("threshold=value=") + std::to_string(value) + ":mode=" + mode +
         ":maxval=" + std::to_string(maxval);
}

}  // namespace

TEST(ThresholdStage, EveryModeEqualsOpenCVOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(200, type);
    for (const auto& [mode, cvType] : kModes)
      for (double value : {0.0, 99.5, 128.0, 254.0, 255.0})
        for (double maxval : {255.0, 200.4}) {
          const cv::Mat out = runChain(chainOf(mode, value, maxval), in);
          EXPECT_EQ(maxAbsDiff(out, reference(in, value, maxval, cvType)), 0)
              << mode << " " << value << " " << maxval << " type " << type;
        }
  }
}

TEST(ThresholdStage, EqualsOpenCVOnRandomOddSizes) {
  unsigned seed = 21;
  for (Facts facts : {Facts::Device, Facts::Gpu})
    for (const auto& sz : oddSizes())
      for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
        const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
        for (const auto& [mode, cvType] : kModes)
          EXPECT_EQ(maxAbsDiff(runChain(chainOf(mode, 77, 255), in, facts),
                               reference(in, 77, 255, cvType)),
                    0)
              << mode << " " << sz << " type " << type;
      }
}

TEST(ThresholdStage, OtsuEqualsOpenCV) {
  std::vector<cv::Mat> frames;
  for (int idx : {0, 100, 400, 700}) frames.push_back(realFrame(idx, CV_8UC1));
  for (const auto& sz : oddSizes()) frames.push_back(randomFrame(sz.width, sz.height, CV_8UC1, 5));
  cv::Mat twoLevels(61, 47, CV_8UC1, cv::Scalar(40));
  twoLevels(cv::Rect(10, 10, 30, 20)).setTo(200);
  frames.push_back(twoLevels);
  for (Facts facts : {Facts::Device, Facts::Gpu})
    for (const cv::Mat& in : frames) {
      cv::Mat ref;
      const double level = cv::threshold(in, ref, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
      std::vector<std::vector<std::uint8_t>> side;
      Chain c = Chain::parse("threshold=mode=otsu");
      const cv::Mat out = runChecked(c, in, &side, facts);
      EXPECT_EQ(maxAbsDiff(out, ref), 0) << in.size() << " Otsu's level " << level;
      ASSERT_EQ(side.size(), 1u);
      float got = -1;
      std::memcpy(&got, side[0].data(), sizeof got);
      EXPECT_EQ(got, float(level)) << in.size();
    }
}

TEST(ThresholdStage, OtsuUsesAnUpstreamHistogramAlike) {
  const cv::Mat in = realFrame(300, CV_8UC3);
  cv::Mat gray, ref;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  cv::threshold(gray, ref, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  Chain c = Chain::parse("gray,hist,threshold=mode=otsu");
  EXPECT_EQ(maxAbsDiff(runChecked(c, in), ref), 0);
  EXPECT_EQ(c.stage(2).schedule().rfind("histogram=upstream", 0), 0u) << c.stage(2).schedule();
}

TEST(ThresholdStage, LiveValueChangeTakesEffectNextFrame) {
  const cv::Mat in = realFrame(400, CV_8UC1);
  Chain c = Chain::parse("threshold=value=50");
  EXPECT_EQ(maxAbsDiff(runChecked(c, in), reference(in, 50, 255, cv::THRESH_BINARY)), 0);
  c.stage(0).params().set("value", "180");
  c.stage(0).update();
  EXPECT_EQ(maxAbsDiff(runChecked(c, in), reference(in, 180, 255, cv::THRESH_BINARY)), 0);
}

TEST(ThresholdStage, OtsuOnColourIsAClearError) {
  Chain c = Chain::parse("threshold=mode=otsu");
  try {
    c.configure(context(), FrameDesc{64, 48, PixelFormat::BGR8});
    ADD_FAILURE() << "no error";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(), "threshold: mode=otsu needs gray input, got bgr; put gray before it");
  }
}
