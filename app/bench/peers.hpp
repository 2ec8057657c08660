#pragma once
// OpenCV's side of `vidfilter bench`: the same chain on the CPU (cv::Mat, host clock per call)
// and through the T-API (cv::UMat, data resident on the device OpenCV's OpenCL uses), on the
// benchmark's frames.
#include <string>
#include <vector>

#include "app/bench/cv_peer.hpp"
#include "app/bench/timing.hpp"
#include "pipeline/cl/device.hpp"

namespace vf::bench {

struct PeerTimes {
  std::vector<std::vector<double>> stageMs;  // [stage][run]
  std::vector<double> chainMs;               // whole chain per frame
};

PeerTimes timeCpu(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                  const Runs& runs);

// Two passes: per stage, each stage between two cv::ocl::finish() (so its own time is seen);
// whole chain, all stages queued back to back and one finish() at the end of the frame (what a
// T-API user's loop costs). Data uploaded once, as for vidfilter.
PeerTimes timeTapi(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                   const Runs& runs);

// Whether the T-API peer runs, on which device, and the method line that says so.
struct TapiSetup {
  bool on = false;
  std::string device;  // "name (version)[, OPENCV_OPENCL_DEVICE=...]" when on
  std::string note;    // the device, or why the T-API columns are left out
};

// OpenCV's OpenCL on the same device as vidfilter's `dev`: OpenCV picks a GPU by default and
// ignores CPU devices (PoCL), so the device is named for it through OPENCV_OPENCL_DEVICE, unless
// the user set that variable. `skip`: --no-tapi.
TapiSetup setUpTapi(const DeviceInfo& dev, bool skip);

}  // namespace vf::bench
