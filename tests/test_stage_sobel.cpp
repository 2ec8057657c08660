// sobel against OpenCV: gx/gy = cv::Sobel(src, CV_16S, ...), then convertScaleAbs (x, y),
// addWeighted(|gx|, 0.5, |gy|, 0.5, 0) (mag) or round(sqrt(gx^2 + gy^2)) saturated (l2).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>

#include "pipeline/border.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

const std::vector<std::string> kModes = {"mag", "l2", "x", "y"};
const std::vector<int> kKsizes = {1, 3, 5, 7};

struct Config {
  std::string mode = "mag";
  int ksize = 3;
  double scale = 1;
  std::string border = "reflect101";
  int value = 0;
  std::string wg;  // empty: the stage's default

  std::string chain() const {
    char s[64];
    std::snprintf(s, sizeof s, "%.17g", scale);
    std::string c = "sobel=mode=" + mode + ":ksize=" + std::to_string(ksize) + ":scale=" + s +
                     ":border=" + border + ":value=" + std::to_string(value);
    if (!wg.empty()) c += ":wg=" + wg;
    return c;
  }
};

// cv::Sobel into CV_16S. OpenCV's filters reject BORDER_WRAP and only pad with zeros under
// BORDER_CONSTANT, so those two are built by padding first (copyMakeBorder takes both) and
// cropping the centre; 3 pixels of padding cover the largest aperture.
cv::Mat gradient(const cv::Mat& src, int dx, int dy, const Config& c) {
  const int cvBorder = cvBorderType(parseBorder(c.border));
  cv::Mat g;
  if (c.border == "wrap" || (c.border == "constant" && c.value != 0)) {
    constexpr int p = 3;
    cv::Mat padded, full;
    cv::copyMakeBorder(src, padded, p, p, p, p, cvBorder, cv::Scalar::all(c.value));
    cv::Sobel(padded, full, CV_16S, dx, dy, c.ksize, c.scale, 0, cv::BORDER_REPLICATE);
    g = full(cv::Rect(p, p, src.cols, src.rows)).clone();
  } else {
    cv::Sobel(src, g, CV_16S, dx, dy, c.ksize, c.scale, 0, cvBorder);
  }
  return g;
}

cv::Mat reference(const cv::Mat& src, const Config& c) {
  const cv::Mat gx = gradient(src, 1, 0, c), gy = gradient(src, 0, 1, c);
  cv::Mat ax, ay, out;
  if (c.mode == "x") {
    cv::convertScaleAbs(gx, out);
  } else if (c.mode == "y") {
    cv::convertScaleAbs(gy, out);
  } else if (c.mode == "mag") {
    cv::convertScaleAbs(gx, ax);
    cv::convertScaleAbs(gy, ay);
    cv::addWeighted(ax, 0.5, ay, 0.5, 0, out);
  } else {  // l2, from the int16 gradients, rounded to nearest
    out.create(src.size(), src.type());
    const cv::Mat fx = gx.reshape(1), fy = gy.reshape(1);
    cv::Mat fo = out.reshape(1);
    for (int y = 0; y < fx.rows; ++y)
      for (int x = 0; x < fx.cols; ++x) {
        const double a = fx.at<short>(y, x), b = fy.at<short>(y, x);
        fo.at<uchar>(y, x) = cv::saturate_cast<uchar>(std::lround(std::sqrt(a * a + b * b)));
      }
  }
  return out;
}

// Runs the stage (outputs poisoned, two runs compared) and returns the max difference to OpenCV.
int diffToOpenCV(const cv::Mat& in, const Config& c) {
  const cv::Mat out = runChain(c.chain(), in);
  EXPECT_EQ(out.type(), in.type());
  return maxAbsDiff(out, reference(in, c));
}

// x and y are exact integer work (at scales whose products are exact in float); mag rounds a
// float addWeighted in OpenCV and l2 a sqrt, both reproduced exactly, but the brief allows 1.
int allowed(const Config& c) {
  const bool exactScale = c.scale == std::ldexp(std::round(std::ldexp(c.scale, 8)), -8);
  return (c.mode == "x" || c.mode == "y") && exactScale ? 0 : 1;
}

std::string where(const cv::Mat& in, const Config& c) {
  return c.chain() + " on " + std::to_string(in.cols) + "x" + std::to_string(in.rows) + "x" +
         std::to_string(in.channels());
}

#define EXPECT_MATCHES(in, cfg)                                          \
  do {                                                                   \
    const int d_ = diffToOpenCV(in, cfg);                                \
    EXPECT_LE(d_, allowed(cfg)) << where(in, cfg);                       \
  } while (0)

}  // namespace

TEST(SobelStage, DefaultMatchesOpenCVOnRealGrayFrame) {
  const cv::Mat in = realFrame(100, CV_8UC1);
  EXPECT_MATCHES(in, Config{});
}
