#pragma once
// `vidfilter bench --check`: each stage alone against its OpenCV equivalent on the benchmark's
// frames (the stage's input is the OpenCV chain's output before it, so differences do not
// compound), and the whole chain against the whole OpenCV chain as information.
#include <cstdint>
#include <string>
#include <vector>

#include "app/bench/cv_peer.hpp"
#include "pipeline/cl/context.hpp"

namespace vf::bench {

struct CheckRow {
  std::string stage;
  int maxDiff = 0;
  int limit = 0;  // the largest difference the stage is held to
  int frames = 0;
  std::string what;  // "frame" or "histogram"
  bool passed() const { return maxDiff <= limit; }
};

struct CheckResult {
  std::vector<CheckRow> rows;
  int chainDiff = 0;  // whole chain vs the whole OpenCV chain (differences may compound)
  bool passed() const;
};

// The largest difference between the device's histogram (side[0]: 32-bit counts) and OpenCV's
// counts `want`. calcHist gives floats, exact up to 2^24 and past that (one bin of a 7680x4320
// frame can hold more) rounded to the nearest float, so each count is compared as that float.
// 2^30 when the side output is not a histogram of want's bins.
int maxCountDiff(const std::vector<std::vector<std::uint8_t>>& side,
                 const std::vector<std::uint32_t>& want);

CheckResult runCheck(ClContext& cl, const std::string& chainText,
                     const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames);

}  // namespace vf::bench
