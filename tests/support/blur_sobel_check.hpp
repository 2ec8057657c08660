#pragma once
// The blur computed in the sobel's pass (pipeline/stages/blur_sobel.hpp) against OpenCV:
// GaussianBlur under any border rule, then the sobel's reference (sobel_check.hpp), and the
// chain's passes told apart by their schedules.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "pipeline/border.hpp"
#include "tests/support/sobel_check.hpp"
#include "tests/support/test_support.hpp"

namespace vf::test {

// cv::GaussianBlur under any border rule and outside value: the frame padded by the radius as
// the rule reads it (copyMakeBorder takes wrap and a constant value, GaussianBlur neither),
// blurred, the centre kept.
inline cv::Mat cvBlur(const cv::Mat& in, double sigma, int ksize, const std::string& border,
                      int value) {
  const int r = ksize / 2, cvBorder = cvBorderType(parseBorder(border));
  cv::Mat padded, out;
  cv::copyMakeBorder(in, padded, r, r, r, r, cvBorder, cv::Scalar::all(value));
  cv::GaussianBlur(padded, out, cv::Size(ksize, ksize), sigma, sigma, cv::BORDER_REPLICATE);
  return out(cv::Rect(r, r, in.cols, in.rows)).clone();
}

struct BlurCase {
  double sigma;
  int ksize;  // what cv::GaussianBlur is given (derivedKsize for the stage's ksize=0)
  std::string border;
  int value;
  std::string text() const {
    return "blur=sigma=" + std::to_string(sigma) + ":ksize=" + std::to_string(ksize) +
           ":border=" + border + ":value=" + std::to_string(value);
  }
};

// Whether a pass computes the blur in the sobel's (`kernel`: and with that kernel).
inline bool computesTheBlur(const std::vector<Chain::Pass>& passes, const std::string& kernel = "") {
  for (const auto& p : passes)
    if (p.schedule.find("filter=blur") != std::string::npos &&
        (kernel.empty() || p.schedule.find("kernel=" + kernel + " ") != std::string::npos))
      return true;
  return false;
}

// `b` then `c` (with filter=on or filter=slab in its schedule) on `in`: one pass, named
// blur+sobel, by `kernel` where one is named, and the pixels of GaussianBlur then Sobel.
inline void expectOnePassIsOpenCvs(const BlurCase& b, const Config& c, const cv::Mat& in,
                                   const std::string& kernel = "") {
  const std::string text = b.text() + "," + c.chain();
  SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
  Chain chain = Chain::parse(text);
  chain.setFusion(Chain::Fusion::On);
  const cv::Mat out = runChecked(chain, in);
  ASSERT_EQ(chain.passes().size(), 1u);
  EXPECT_TRUE(computesTheBlur(chain.passes(), kernel)) << chain.passes()[0].schedule;
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"blur+sobel", ""}));
  EXPECT_EQ(maxAbsDiff(out, reference(cvBlur(in, b.sigma, b.ksize, b.border, b.value), c)), 0);
}

}  // namespace vf::test
