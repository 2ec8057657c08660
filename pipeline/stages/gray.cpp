// gray: BGR or BGRA -> 8-bit gray, as cv::cvtColor(COLOR_BGR2GRAY). A gray input passes through.
#include <cstdlib>
#include <string>

#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// Pixels per work-item on GPUs: 4 (three 32-bit loads, one 32-bit store) took 14-15 us at
// 3840x2160 BGR on the H200, 80% of the copy kernel; 1 pixel (byte loads) took 27 us and 16
// pixels 15 us (docs/PERFORMANCE.md).
constexpr int kGpuPx = 4;

class GrayStage : public Stage {
 public:
  GrayStage() : Stage(grayStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    if (in.format == PixelFormat::Gray8) return in;
    // 16 pixels per work-item on CPUs, kGpuPx on GPUs (see kernels/gray.cl);
    // VIDFILTER_GRAY_SCHEDULE=cpu|gpu overrides the device type (tests run both on PoCL), and
    // VIDFILTER_GRAY_PX=1|4|16 the pixels per work-item (for benchmarking).
    const char* force = std::getenv("VIDFILTER_GRAY_SCHEDULE");
    const bool cpu = force && *force
                         ? std::string(force) == "cpu"
                         : (ctx.cl.device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
    px_ = cpu ? 16 : kGpuPx;
    wg_ = cpu ? 16 : 256;
    if (const char* px = std::getenv("VIDFILTER_GRAY_PX"); px && *px) {
      const std::string v(px);
      if (v != "1" && v != "4" && v != "16")
        throw UserError("VIDFILTER_GRAY_PX must be 1, 4 or 16, got '" + v + "'");
      px_ = std::stoi(v);
    }
    const std::string opts =
        "-DCHANNELS=" + std::to_string(in.channels()) + " -DPX=" + std::to_string(px_);
    kernel_ = clCall("clCreateKernel(bgr_to_gray)", [&] {
      return cl::Kernel(ctx.cl.programs().build("gray.cl", opts), "bgr_to_gray");
    });
    return {in.width, in.height, PixelFormat::Gray8};
  }

  bool passthrough() const override { return in_.format == PixelFormat::Gray8; }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (passthrough()) return {};
    const int pixels = in_.width * in_.height;
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, pixels);
    const std::size_t items = (std::size_t(pixels) + px_ - 1) / px_;
    cl::Event e =
        launchKernel(q, kernel_, cl::NDRange(roundUp(items, wg_)), cl::NDRange(wg_), wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  int px_ = 1;    // pixels per work-item
  int wg_ = 256;  // work-items per group
  cl::Kernel kernel_;
};

}  // namespace

const StageInfo& grayStageInfo() {
  static const StageInfo info{"gray",
                              "BGR/BGRA to 8-bit gray (as cv::cvtColor COLOR_BGR2GRAY)",
                              "bgr, bgra -> gray; gray passes through",
                              {},
                              [] { return std::make_unique<GrayStage>(); }};
  return info;
}

}  // namespace vf
