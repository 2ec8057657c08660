#include "pipeline/stages/blur_taps.hpp"

#include <cmath>

namespace vf {

// cvRound rounds half to even, as lrint does in the default rounding mode.
int derivedKsize(double sigma) { return static_cast<int>(std::lrint(sigma * 3 * 2 + 1)) | 1; }

// First the Gaussian of cv::getGaussianKernel (getGaussianKernelBitExact: symmetric, normalised
// to sum 1, in double precision), then quantised by error diffusion from the outside in, the
// centre taking what is left so the taps sum to exactly 256 (getGaussianKernelFixedPoint_ED).
std::vector<int> fixedPointTaps(int ksize, double sigma) {
  const int n = ksize, half = (n - 1) / 2;
  const double scale2X = -0.125 / (sigma * sigma);  // -0.5 / sigma^2, x counted in halves
  std::vector<double> values(half);
  double sum = 0;
  for (int i = 0, x = 1 - n; i < half; ++i, x += 2) {
    values[i] = std::exp(double(x) * double(x) * scale2X);
    sum += values[i];
  }
  sum = sum * 2 + 1;  // the centre's value is exp(0) = 1
  const double mul = 1 / sum;
  std::vector<int> full(n);
  double err = 0;
  int outer = 0;
  for (int i = 0; i < half; ++i) {
    const double adj = values[i] * mul * 256 + err;
    const int v = static_cast<int>(std::nearbyint(adj));  // cvRound: half to even
    err = adj - v;
    full[i] = full[n - 1 - i] = v;
    outer += v;
  }
  full[half] = 256 - 2 * outer;
  return std::vector<int>(full.begin() + half, full.end());
}

TapsBlock tapsBlock(const std::vector<int>& taps) {
  TapsBlock b;
  for (std::size_t k = 0; k < taps.size() && k < kTapsUshortOffset; ++k) {
    b.f[k] = static_cast<float>(taps[k]);
    b.u[k] = static_cast<cl_ushort>(taps[k]);
  }
  return b;
}

}  // namespace vf
