#pragma once
// The blur stage's tests against cv::GaussianBlur, byte for byte: a case (sigma, ksize, border,
// value, schedule) as a chain, OpenCV's result for it (padded with cv::copyMakeBorder, which
// takes every border, then blurred, the centre kept), and the check of the stage's output.
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/chain.hpp"
#include "tests/support/test_support.hpp"

namespace vf::test {

struct BlurCase {
  double sigma = 1.5;
  int ksize = 0;
  BorderMode border = BorderMode::Reflect101;
  int value = 0;
  std::string schedule;  // schedule parameters, e.g. "kernel=slab:strip=1x32"
};

inline int effectiveKsize(const BlurCase& c) {
  return c.ksize > 0 ? c.ksize : (cvRound(c.sigma * 3 * 2 + 1) | 1);
}

inline std::string chainText(const BlurCase& c) {
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.17g", c.sigma);
  return std::string("blur=sigma=") + sigma + ":ksize=" + std::to_string(c.ksize) +
         ":border=" + borderName(c.border) + ":value=" + std::to_string(c.value) +
         (c.schedule.empty() ? "" : ":" + c.schedule);
}

inline std::string describe(const BlurCase& c, const cv::Mat& in) {
  return chainText(c) + " on " + std::to_string(in.cols) + "x" + std::to_string(in.rows) + "x" +
         std::to_string(in.channels());
}

inline cv::Mat reference(const cv::Mat& src, const BlurCase& c) {
  const int k = effectiveKsize(c), r = k / 2;
  cv::Mat padded, blurred;
  cv::copyMakeBorder(src, padded, r, r, r, r, cvBorderType(c.border), cv::Scalar::all(c.value));
  cv::GaussianBlur(padded, blurred, cv::Size(k, k), c.sigma, c.sigma, cv::BORDER_REPLICATE);
  return blurred(cv::Rect(r, r, src.cols, src.rows)).clone();
}

// Runs case c on `in` with the schedules `facts` chooses: the output equals OpenCV's exactly,
// and the kernel that ran is `kernel` ("" for any). Returns the stage's schedule.
inline std::string expectExact(const cv::Mat& in, const BlurCase& c, Facts facts = Facts::Device,
                               const std::string& kernel = "") {
  Chain chain = Chain::parse(chainText(c));
  const cv::Mat out = runChecked(chain, in, nullptr, facts);
  const std::string schedule = chain.stage(0).schedule();
  EXPECT_EQ(maxAbsDiff(out, reference(in, c)), 0) << describe(c, in) << " [" << schedule << "]";
  if (!kernel.empty()) {
    EXPECT_EQ(schedule.rfind("kernel=" + kernel + " ", 0), 0u)
        << describe(c, in) << ": " << schedule;
  }
  return schedule;
}

inline const std::vector<BorderMode>& allBorders() {
  static const std::vector<BorderMode> b = {BorderMode::Constant, BorderMode::Replicate,
                                            BorderMode::Reflect, BorderMode::Wrap,
                                            BorderMode::Reflect101};
  return b;
}

inline const int kTypes[] = {CV_8UC1, CV_8UC3, CV_8UC4};

// Every (border, channels) pair is built once (each distinct radius, channel count, border and
// schedule is a program: about a second of PoCL compile time, so the matrix is chosen to reuse
// them) with one of these kernels, rotating so each kernel meets several borders and every
// channel count: derived from sigma (11 taps), explicit 3, 5 and 7.
inline BlurCase matrixCase(BorderMode border, int channelIndex) {
  static const std::pair<double, int> kernels[] = {{1.5, 0}, {0.8, 3}, {1.1, 5}, {2.0, 7}};
  const auto [sigma, ksize] = kernels[(static_cast<int>(border) + channelIndex) % 4];
  BlurCase c;
  c.sigma = sigma;
  c.ksize = ksize;
  c.border = border;
  c.value = border == BorderMode::Constant ? 200 : 0;
  return c;
}

// The largest radius the slab kernel takes: 17x17 (radius 8), sigma 3, BORDER_REFLECT.
inline BlurCase radius8Case(const std::string& schedule) {
  BlurCase c;
  c.ksize = 17;
  c.sigma = 3;
  c.border = BorderMode::Reflect;
  c.schedule = schedule;
  return c;
}

}  // namespace vf::test
