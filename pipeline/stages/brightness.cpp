// brightness: dst = saturate(gain*src + bias) (cv::Mat::convertTo). gain and bias are kernel
// arguments, so moving them live never rebuilds the program.
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// Bytes per work-item: 16 lets the compiler use full-width vector loads/stores on GPUs and
// AVX registers on PoCL.
constexpr int kVec = 16;
constexpr int kLocal = 256;

class BrightnessStage : public Stage {
 public:
  BrightnessStage() : Stage(brightnessStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    if (params().text("mode") == "auto")
      throw UserError("brightness: mode=auto is not implemented yet; use gain and bias");
    kernel_ = clCall("clCreateKernel(brightness_linear)", [&] {
      return cl::Kernel(
          ctx.cl.programs().build("brightness.cl", "-DVEC=" + std::to_string(kVec)),
          "brightness_linear");
    });
    return in;
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    const int n = static_cast<int>(in_.bytes());
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, n);
    kernel_.setArg(3, static_cast<float>(params().number("gain")));
    kernel_.setArg(4, static_cast<float>(params().number("bias")));
    const std::size_t items = (std::size_t(n) + kVec - 1) / kVec;
    cl::Event e = launchKernel(q, kernel_, cl::NDRange(roundUp(items, kLocal)), cl::NDRange(kLocal), wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  cl::Kernel kernel_;
};

}  // namespace

const StageInfo& brightnessStageInfo() {
  static const StageInfo info{
      "brightness",
      "dst = saturate(gain*src + bias) (as Mat::convertTo), or auto contrast stretch",
      "gray, bgr, bgra -> same",
      {
          {"mode", ParamType::Enum, "manual", 0, 0, false, false, {"manual", "auto"},
           "manual: gain and bias; auto: stretch the clip% percentiles of this frame's histogram "
           "to 0 and 255",
           false},
          {"gain", ParamType::Float, "1", -16, 16, false, false, {}, "multiplier", true},
          {"bias", ParamType::Float, "0", -255, 255, false, false, {}, "added after the gain", true},
          {"clip", ParamType::Float, "1", 0, 50, false, true, {},
           "auto mode: percent of pixels clipped at each end", true},
      },
      [] { return std::make_unique<BrightnessStage>(); }};
  return info;
}

}  // namespace vf
