// equalize against cv::equalizeHist, byte for byte: gray, and each of B, G, R of colour frames
// (bgra: alpha unchanged), real and random frames, odd sizes, low-contrast frames (the table
// stretches them), a frame of one value; with its own histogram and an upstream hist stage's,
// the device's schedule and a GPU's.
#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

cv::Mat reference(const cv::Mat& in) {
  if (in.channels() == 1) {
    cv::Mat out;
    cv::equalizeHist(in, out);
    return out;
  }
  std::vector<cv::Mat> planes;
  cv::split(in, planes);
  for (int c = 0; c < std::min(3, in.channels()); ++c) cv::equalizeHist(planes[c], planes[c]);
  cv::Mat out;
  cv::merge(planes, out);
  return out;
}

// A dim, low-contrast version of a frame: values squeezed into [60, 100).
cv::Mat lowContrast(const cv::Mat& m) {
  cv::Mat out;
  m.convertTo(out, -1, 40.0 / 255.0, 60);
  return out;
}

}  // namespace

TEST(EqualizeStage, EqualsOpenCVOnRealFrames) {
  for (int idx : {0, 300, 700})
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Mat in = realFrame(idx, type);
      EXPECT_EQ(maxAbsDiff(runChain("equalize", in), reference(in)), 0) << idx << " " << type;
      const cv::Mat dim = lowContrast(in);
      EXPECT_EQ(maxAbsDiff(runChain("equalize", dim), reference(dim)), 0) << "dim " << type;
    }
}

TEST(EqualizeStage, EqualsOpenCVOnRandomOddSizes) {
  unsigned seed = 11;
  for (Facts facts : {Facts::Device, Facts::Gpu})
    for (const auto& sz : oddSizes())
      for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
        const cv::Mat in = lowContrast(randomFrame(sz.width, sz.height, type, seed++));
        EXPECT_EQ(maxAbsDiff(runChain("equalize", in, facts), reference(in)), 0)
            << sz << " type " << type;
      }
}

TEST(EqualizeStage, UsesAnUpstreamHistogramAlike) {
  const cv::Mat in = lowContrast(realFrame(500, CV_8UC3, 641, 479));
  Chain c = Chain::parse("hist,equalize");
  EXPECT_EQ(maxAbsDiff(runChecked(c, in), reference(in)), 0);
  EXPECT_EQ(c.stage(1).schedule().rfind("histogram=upstream", 0), 0u) << c.stage(1).schedule();
  Chain own = Chain::parse("equalize");
  runChecked(own, in);
  EXPECT_EQ(own.stage(0).schedule().rfind("histogram=own", 0), 0u);
}

TEST(EqualizeStage, OneValueStaysAsItIs) {
  const cv::Mat in(13, 17, CV_8UC1, cv::Scalar(77));
  EXPECT_EQ(maxAbsDiff(runChain("equalize", in), reference(in)), 0);
  EXPECT_EQ(runChain("equalize", in).at<std::uint8_t>(5, 5), 77);
}

// Each frame is equalised by its own histogram: a bright frame after a dark one.
TEST(EqualizeStage, EachFrameItsOwnHistogram) {
  Chain c = Chain::parse("equalize");
  const cv::Mat dark = lowContrast(realFrame(100, CV_8UC1));
  cv::Mat bright;
  realFrame(600, CV_8UC1).convertTo(bright, -1, 0.3, 170);
  EXPECT_EQ(maxAbsDiff(runChecked(c, dark), reference(dark)), 0);
  EXPECT_EQ(maxAbsDiff(runChecked(c, bright), reference(bright)), 0);
}
