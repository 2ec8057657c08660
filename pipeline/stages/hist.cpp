// hist: 256-bin histogram of every channel of the frame (as cv::calcHist per channel), which
// passes through unchanged. The histogram stays on the device: it is published to later stages
// as "histogram" (brightness=auto uses it) and offered as a side output the chain reads back.
// One kernel per frame: the histogram is double-buffered, each launch zeroes the buffer the
// next frame counts into (pipeline/stages/histogram_kernel.hpp), so sideOutputs() and the
// published buffer name the buffer of the frame enqueued last.
//
// Layout: channels x 256 uint, channel-major (hist[c * 256 + v]); gray 256, bgr 3 x 256 (B, G,
// R), bgra 4 x 256 (alpha counted too, so every channel equals cv::calcHist of that channel).
#include <string>

#include "pipeline/error.hpp"
#include "pipeline/stages/histogram_kernel.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class HistStage : public Stage {
 public:
  HistStage() : Stage(histStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    kernel_.configure(
        ctx.cl, in,
        {params().integer("groups"), params().integer("local"), params().integer("copies"),
         params().text("spread"), params().integer("unroll")},
        ctx.pitchPixels);
    // Double-buffered (see histogram_kernel.hpp): later stages ask for this frame's buffer.
    if (ctx.publishedPerFrame)
      (*ctx.publishedPerFrame)["histogram"] = [this] { return kernel_.buffer(); };
    return in;
  }

  bool passthrough() const override { return true; }
  bool takesRowPitch() const override { return true; }

  std::string schedule() const override {
    return "groups=" + std::to_string(kernel_.groups()) +
           " local=" + std::to_string(kernel_.local()) +
           " copies=" + std::to_string(kernel_.copies()) + " spread=" + kernel_.spread() +
           " unroll=" + std::to_string(kernel_.unroll());
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer&,
                      const std::vector<cl::Event>& wait) override {
    return kernel_.enqueue(q, in, wait);
  }

  HistogramKernel* histogramCounter() override { return &kernel_; }

  std::vector<SideOutput> sideOutputs() const override {
    return {{0, "histogram", kernel_.buffer(), kernel_.bytes()}};
  }

 private:
  HistogramKernel kernel_;
};

}  // namespace

const StageInfo& histStageInfo() {
  static const StageInfo info{
      "hist",
      "256-bin histogram per channel (as cv::calcHist), kept on the device; frame unchanged",
      "gray, bgr, bgra -> same (histogram: channels x 256, alpha included)",
      {
          intParam("groups", "0", 0, 65536,
                   "work-groups, each with its own sub-histogram (0 = 1 per compute unit)")
              .asSchedule(),
          intParam("local", "0", 0, 1024, "work-items per work-group (0 = 1 on CPUs, 256 on GPUs)")
              .asSchedule(),
          intParam("copies", "0", 0, 64,
                   "sub-histograms per work-group, fewer if local memory is short (0 = 4 with "
                   "local=1, else 1; counted in a sobel's epilogue: 4, or the most any hist "
                   "there asks for)")
              .asSchedule(),
          enumParam("spread", "lane", {"lane", "warp"},
                    "local > 1 and copies > 1: work-item i counts into copy i % copies (lane, "
                    "interleaved bins) or (i / 32) % copies (warp)")
              .asSchedule(),
          intParam("unroll", "0", 0, 16,
                   "16-byte chunks a work-item loads before counting them (0 = 1 on CPUs, 4 on "
                   "GPUs)")
              .asSchedule(),
      },
      [] { return std::make_unique<HistStage>(); }};
  return info;
}

}  // namespace vf
