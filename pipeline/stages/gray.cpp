// gray: BGR or BGRA -> 8-bit gray, as cv::cvtColor(COLOR_BGR2GRAY). A gray input passes through.
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// Pixels per work-item (see kernels/gray.cl): 16 on CPUs, whose SIMD lanes take a 16-byte
// vector's pixels at once. On GPUs 16 from BGR (three 16-byte loads, one 16-byte store) and 4
// from BGRA (one 16-byte load, one 32-bit store). H100, 2026-12-06, us, px=16 / px=4: BGR
// 1920x1080 6.2 / 6.9, 3840x2160 14.4 / 14.9, 7680x4320 48.0 / 50.1; BGRA 7.1 / 6.9, 18.0 /
// 17.7, 58.3 / 58.4 (docs/PERFORMANCE.md, "gray").
constexpr int kCpuPx = 16, kGpuBgrPx = 16, kGpuBgraPx = 4;

class GrayStage : public Stage {
 public:
  GrayStage() : Stage(grayStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    pitchPixels_ = ctx.rowPixels(in);
    if (in.format == PixelFormat::Gray8) return in;
    const bool cpu = ctx.cl.facts().cpu;
    const std::string px = params().text("px");
    px_ = px != "auto" ? std::stoi(px) : cpu ? kCpuPx : in.channels() == 3 ? kGpuBgrPx : kGpuBgraPx;
    wg_ = cpu ? 16 : 256;
    const std::string opts = BuildOptions()
                                 .define("CHANNELS", in.channels())
                                 .define("PX", px_)
                                 .define("WORDS", !cpu)
                                 .str();
    kernel_ = clCall("clCreateKernel(bgr_to_gray)", [&] {
      return cl::Kernel(ctx.cl.programs().build("gray.cl", opts), "bgr_to_gray");
    });
    fn_.inChannels = in.channels();
    return {in.width, in.height, PixelFormat::Gray8};
  }

  std::string schedule() const override {
    return passthrough() ? "" : "px=" + std::to_string(px_) + " wg=" + std::to_string(wg_);
  }

  bool passthrough() const override { return in_.format == PixelFormat::Gray8; }

  // Pixel by pixel: padded rows are converted whole (what lies past a row's end is no pixel's).
  bool takesRowPitch() const override { return true; }

  // kernels/gray.cl's gray1, one pixel.
  const PointFn* pointFn() const override { return passthrough() ? nullptr : &fn_; }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (passthrough()) return {};
    const int pixels = pitchPixels_ * in_.height;
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
  int pitchPixels_ = 0;
  int px_ = 1;    // pixels per work-item
  int wg_ = 256;  // work-items per group
  cl::Kernel kernel_;
  PointFn fn_{
      "void POINT_FN(const VF_PX* in, VF_PX* out) {\n"
      "  out[0] = VF_PX_BYTE((VF_PX_U32(in[0]) * 3735u + VF_PX_U32(in[1]) * 19235u + "
      "VF_PX_U32(in[2]) * "
      "9798u + (1u << 14)) >> 15);\n}\n",
      3,
      1,
      {},
      false};
};

}  // namespace

const StageInfo& grayStageInfo() {
  static const StageInfo info{
      "gray",
      "BGR/BGRA to 8-bit gray (as cv::cvtColor COLOR_BGR2GRAY)",
      "bgr, bgra -> gray; gray passes through",
      {enumParam("px", "auto", {"auto", "1", "4", "16"},
                 "pixels per work-item (auto: 16 on CPUs; on GPUs 16 from BGR, 4 from BGRA)")
           .asSchedule()},
      [] { return std::make_unique<GrayStage>(); }};
  return info;
}

}  // namespace vf
