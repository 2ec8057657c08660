#pragma once
// The chain fused and unfused in the same run (pipeline/fusion.hpp): per frame, its device time
// (first command's START to last END, with every kernel timed, and as the engine's untimed
// frames run; and per frame when frames run back to back) and host wall time, and the kernels it
// launches.
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"

namespace vf::bench {

struct FusionSide {
  std::vector<std::string> passes;  // "gray+hist+brightness", "blur", ...
  double launches = 0;              // kernels per frame (side-output reads not counted)
  double spanMs = 0, wallMs = 0;    // medians over the timed runs
  // The device span of the chain enqueued as the engine enqueues the frames it does not time
  // (Chain::enqueue's stageEvents false: events on the first and the last pass only), without
  // the per-kernel events of the timed runs, whose profiling widens the gaps between launches
  // on some drivers.
  double untimedSpanMs = 0;
  // The runs enqueued back to back, untimed, as the engine streams frames: the device span of all
  // of them over their count (0 if unavailable).
  double streamedMs = 0;
};

struct FusionComparison {
  FusionSide fused, unfused;
};

// Times `chainText` on `frames` (resident on the device, rotated) fused, then unfused, on one
// profiling queue: `warmup` runs left out, then `runs` timed.
FusionComparison compareFusion(ClContext& cl, const std::string& chainText, const FrameDesc& desc,
                               const std::vector<cv::Mat>& frames, int warmup, int runs);

}  // namespace vf::bench
