// threshold: cv::threshold on 8-bit frames, every channel alike (a bgra frame's alpha passes).
// mode=otsu is THRESH_BINARY | THRESH_OTSU: the value is Otsu's, computed per frame on the
// device from the frame's histogram (gray frames only, as OpenCV). The table of the 256 results
// is built on the device each frame (kernels/lut.cl: threshold_lut, from the live value or
// Otsu's) and applied; nothing returns to the host.
#include "pipeline/error.hpp"
#include "pipeline/stages/lut_kernel.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// The kernel's mode numbers, in the enum's order (otsu is binary).
int modeNumber(const std::string& m) {
  if (m == "binary_inv") return 1;
  if (m == "trunc") return 2;
  if (m == "tozero") return 3;
  if (m == "tozero_inv") return 4;
  return 0;
}

class ThresholdStage : public Stage {
 public:
  ThresholdStage() : Stage(thresholdStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    otsu_ = params().text("mode") == "otsu";
    if (otsu_ && in.format != PixelFormat::Gray8)
      throw UserError("threshold: mode=otsu needs gray input, got " +
                      std::string(formatName(in.format)) + "; put gray before it");
    in_ = in;
    tables_ = in.format == PixelFormat::BGRA8 ? 3 : in.channels();
    apply_.configure(ctx.cl, in, tables_);
    build_ = clCall("clCreateKernel(threshold_lut)",
                    [&] { return cl::Kernel(apply_.program(), "threshold_lut"); });
    lut_ = clCall("clCreateBuffer(threshold table)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_WRITE, std::size_t(tables_) * 256);
    });
    value_ = clCall("clCreateBuffer(threshold value)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_WRITE, sizeof(cl_float));
    });
    if (otsu_) {
      hist_.configure(ctx, in);
      otsuKernel_ = clCall("clCreateKernel(otsu_value)",
                           [&] { return cl::Kernel(apply_.program(), "otsu_value"); });
    }
    update();
    return in;
  }

  void update() override {
    if (!build_()) return;
    build_.setArg(0, value_);
    build_.setArg(1, static_cast<float>(params().number("value")));
    build_.setArg(2, otsu_ ? 1 : 0);
    build_.setArg(3, static_cast<float>(params().number("maxval")));
    build_.setArg(4, modeNumber(params().text("mode")));
    build_.setArg(5, lut_);
  }

  std::string schedule() const override {
    return (otsu_ ? std::string("histogram=") + (hist_.own() ? "own " : "upstream ") : "") +
           apply_.schedule();
  }

  // Otsu's value of the frame enqueued last, as a side output (the preview can show it).
  std::vector<SideOutput> sideOutputs() const override {
    if (!otsu_) return {};
    return {{0, "otsu", value_, sizeof(cl_float)}};
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    StageEvents ev;
    std::vector<cl::Event> deps = liveEvents(wait);
    if (otsu_) {
      const StageEvents h = hist_.enqueue(q, in, deps);
      if (h.last()) deps.assign(1, h.last);
      ev.first = h.first;
      otsuKernel_.setArg(0, hist_.buffer());
      otsuKernel_.setArg(1, value_);
      otsuKernel_.setArg(2, cl_uint(std::size_t(in_.width) * in_.height));
      cl::Event v = launchKernel(q, otsuKernel_, cl::NDRange(1), cl::NDRange(1), deps);
      if (!ev.first()) ev.first = v;
      deps = v() ? std::vector<cl::Event>{v} : std::vector<cl::Event>{};
    }
    apply_.buildAndApply(q, build_, tables_, in, out, lut_, deps, ev);
    return ev;
  }

 private:
  FrameDesc in_;
  bool otsu_ = false;
  int tables_ = 1;
  FrameHistogram hist_;
  LutApply apply_;
  cl::Kernel build_, otsuKernel_;
  cl::Buffer lut_, value_;
};

}  // namespace

const StageInfo& thresholdStageInfo() {
  static const StageInfo info{
      "threshold",
      "fixed-level threshold (as cv::threshold 8-bit), or Otsu's level of each frame",
      "gray, bgr, bgra -> same (bgra: alpha unchanged); mode=otsu: gray",
      {floatParam("value", "128", 0, 255, "threshold: a pixel above floor(value) is 'above'")
           .asLive(),
       enumParam("mode", "binary",
                 {"binary", "binary_inv", "trunc", "tozero", "tozero_inv", "otsu"},
                 "binary: above -> maxval, else 0; binary_inv the reverse; trunc: above -> value; "
                 "tozero: below -> 0; tozero_inv: above -> 0; otsu: binary at Otsu's level"),
       floatParam("maxval", "255", 0, 255, "the value binary modes write").asLive()},
      [] { return std::make_unique<ThresholdStage>(); }};
  return info;
}

}  // namespace vf
