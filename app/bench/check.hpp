#pragma once
// `vidfilter bench --check`: each stage alone against its OpenCV equivalent on the benchmark's
// frames (the stage's input is the OpenCV chain's output before it, so differences do not
// compound), and the whole chain against the whole OpenCV chain as information.
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

CheckResult runCheck(ClContext& cl, const std::string& chainText,
                     const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames);

}  // namespace vf::bench
