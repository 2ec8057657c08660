// gray: BGR or BGRA -> 8-bit gray, as cv::cvtColor(COLOR_BGR2GRAY). A gray input passes through.
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class GrayStage : public Stage {
 public:
  GrayStage() : Stage(grayStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    if (in.format == PixelFormat::Gray8) return in;
    const std::string opts = "-DCHANNELS=" + std::to_string(in.channels());
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
    cl::Event e = launchKernel(q, kernel_, cl::NDRange(roundUp(pixels, 256)), cl::NDRange(256), wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  cl::Kernel kernel_;
};

}  // namespace

const StageInfo& grayStageInfo() {
  static const StageInfo info{"gray", "BGR/BGRA to 8-bit gray (as cv::cvtColor COLOR_BGR2GRAY)",
                              "bgr, bgra -> gray; gray passes through", {},
                              [] { return std::make_unique<GrayStage>(); }};
  return info;
}

}  // namespace vf
