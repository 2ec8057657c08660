#pragma once
// Order statistics of timings, one definition for the engine's rolling statistics, the preview
// and the benchmark.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace vf {

// The p-th quantile (0 < p <= 1) of ascending `sorted`, by nearest rank; 0 when empty.
inline double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

// The median of ascending `sorted`: the middle value, or the mean of the two middle ones; 0 when
// empty.
inline double median(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

}  // namespace vf
