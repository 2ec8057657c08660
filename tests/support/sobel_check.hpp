#pragma once
// The sobel stage's tests against OpenCV: a configuration (mode, ksize, scale, border, value,
// schedule) as a chain, OpenCV's result for it (cv::Sobel to CV_16S, then convertScaleAbs /
// addWeighted / the rounded L2 norm), and the comparison with the stage's output.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "pipeline/border.hpp"
#include "tests/support/test_support.hpp"

namespace vf::test {

inline const std::vector<std::string> kModes = {"mag", "l2", "x", "y"};

struct Config {
  std::string mode = "mag";
  int ksize = 3;
  double scale = 1;
  std::string border = "reflect101";
  int value = 0;
  std::string schedule;  // e.g. "wg=7x3:vec=4:rows=2:load=items"; empty: the defaults

  std::string chain() const {
    char s[64];
    std::snprintf(s, sizeof s, "%.17g", scale);
    std::string c = "sobel=mode=" + mode + ":ksize=" + std::to_string(ksize) + ":scale=" + s +
                    ":border=" + border + ":value=" + std::to_string(value);
    if (!schedule.empty()) c += ":" + schedule;
    return c;
  }
};

inline Config make(const std::string& mode, int ksize = 3, const std::string& border = "reflect101",
                   double scale = 1, int value = 0) {
  Config c;
  c.mode = mode;
  c.ksize = ksize;
  c.border = border;
  c.scale = scale;
  c.value = value;
  return c;
}

// cv::Sobel into CV_16S. OpenCV's filters reject BORDER_WRAP and pad only with zeros under
// BORDER_CONSTANT, so those two are built by padding first (copyMakeBorder takes both) and
// cropping the centre; 3 pixels of padding cover the largest aperture.
inline cv::Mat gradient(const cv::Mat& src, int dx, int dy, const Config& c) {
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

inline cv::Mat reference(const cv::Mat& src, const Config& c) {
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

// Largest difference seen per mode in this process, printed when the program ends: how close a
// device came, beyond the limit each comparison asserts.
struct Observed {
  std::map<std::string, int> maxDiff;
  ~Observed() {
    for (const auto& [mode, d] : maxDiff)
      std::printf("sobel: max difference to OpenCV, mode=%s: %d\n", mode.c_str(), d);
  }
};
inline Observed observed;

// Runs the stage (outputs poisoned, two runs compared) and returns the max difference to OpenCV.
inline int diffToOpenCV(const cv::Mat& in, const Config& c, Facts facts = Facts::Device) {
  const cv::Mat out = runChain(c.chain(), in, facts);
  EXPECT_EQ(out.type(), in.type());
  const int d = maxAbsDiff(out, reference(in, c));
  int& seen = observed.maxDiff[c.mode];
  seen = std::max(seen, d);
  return d;
}

// x and y are exact (integer taps; with a scale the kernel runs OpenCV's float operations in
// OpenCV's order); mag and l2 within one level (exact on PoCL; a GPU's float arithmetic may
// round a few pixels the other way).
inline int allowed(const Config& c) { return c.mode == "x" || c.mode == "y" ? 0 : 1; }

inline std::string where(const cv::Mat& in, const Config& c) {
  return c.chain() + " on " + std::to_string(in.cols) + "x" + std::to_string(in.rows) + "x" +
         std::to_string(in.channels());
}

#define EXPECT_MATCHES(in, cfg)                                      \
  do {                                                               \
    const cv::Mat& in_ = (in);                                       \
    const Config& c_ = (cfg);                                        \
    EXPECT_LE(diffToOpenCV(in_, c_), allowed(c_)) << where(in_, c_); \
  } while (0)

inline const std::vector<cv::Size> kSmallSizes = {{1, 1}, {2, 2}, {17, 13}};

}  // namespace vf::test
