#include "app/bench/peers.hpp"

#include <cstdlib>
#include <opencv2/core/ocl.hpp>

namespace vf::bench {

PeerTimes timeCpu(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                  const Runs& runs) {
  PeerTimes t;
  t.stageMs.resize(specs.size());
  std::vector<CvScratch<cv::Mat>> scratch(specs.size());
  std::vector<cv::Mat> outs(specs.size());
  for (int r = 0; r < runs.warmup + runs.frames; ++r) {
    const cv::Mat* cur = &frames[r % frames.size()];
    const auto c0 = Clock::now();
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto s0 = Clock::now();
      cvApply(specs[i], *cur, outs[i], scratch[i]);
      if (r >= runs.warmup) t.stageMs[i].push_back(msSince(s0));
      cur = &outs[i];
    }
    if (r >= runs.warmup) t.chainMs.push_back(msSince(c0));
  }
  return t;
}

PeerTimes timeTapi(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                   const Runs& runs) {
  PeerTimes t;
  t.stageMs.resize(specs.size());
  std::vector<cv::UMat> uframes(frames.size());
  for (std::size_t k = 0; k < frames.size(); ++k) frames[k].copyTo(uframes[k]);
  cv::ocl::finish();
  std::vector<CvScratch<cv::UMat>> scratch(specs.size());
  std::vector<cv::UMat> outs(specs.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (int r = 0; r < runs.warmup + runs.frames; ++r) {
      const cv::UMat* cur = &uframes[r % uframes.size()];
      const auto c0 = Clock::now();
      for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto s0 = Clock::now();
        cvApply(specs[i], *cur, outs[i], scratch[i]);
        if (pass == 0) {
          cv::ocl::finish();
          if (r >= runs.warmup) t.stageMs[i].push_back(msSince(s0));
        }
        cur = &outs[i];
      }
      if (pass == 1) {
        cv::ocl::finish();
        if (r >= runs.warmup) t.chainMs.push_back(msSince(c0));
      }
    }
  }
  return t;
}

TapiSetup setUpTapi(const DeviceInfo& dev, bool skip) {
  TapiSetup t;
  if (skip) {
    t.note = "skipped (--no-tapi)";
    return t;
  }
  std::string selector;
  if (const char* env = std::getenv("OPENCV_OPENCL_DEVICE")) {
    selector = std::string(env) + " (from the environment)";
  } else if (dev.platform.find(':') == std::string::npos &&
             dev.name.find(':') == std::string::npos) {
    selector = dev.platform + ":" + dev.typeName() + ":" + dev.name;
    ::setenv("OPENCV_OPENCL_DEVICE", selector.c_str(), 1);
  }
  if (cv::ocl::haveOpenCL()) {
    cv::ocl::setUseOpenCL(true);
    if (cv::ocl::useOpenCL()) {
      const cv::ocl::Device& d = cv::ocl::Device::getDefault();
      t.device = d.name() + " (" + d.version() + ")" +
                 (selector.empty() ? "" : ", OPENCV_OPENCL_DEVICE=" + selector);
      t.on = !d.name().empty();
    }
  }
  t.note = t.on ? t.device
                : "no OpenCL device available to OpenCV (cv::ocl::useOpenCL() is false); T-API "
                  "columns left out";
  return t;
}

}  // namespace vf::bench
