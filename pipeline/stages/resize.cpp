// resize: the frame scaled to a new size as cv::resize (8-bit, within one level; nearest and
// area-enlarging exactly), every later stage and the sinks taking the new size. The sampling
// (which source pixels, which weights) is OpenCV's, computed on the host per size
// (resize_tables.hpp) and uploaded once; the kernel gathers and sums.
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/resize_tables.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

template <class T>
cl::Buffer upload(ClContext& cl, const std::vector<T>& v, const char* what) {
  return clCall(std::string("clCreateBuffer(") + what + ")", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T),
                      const_cast<T*>(v.data()));
  });
}

class ResizeStage : public Stage {
 public:
  ResizeStage() : Stage(resizeStageInfo()) {}

  void validate() const override {
    const Size2 s = params().size("size");
    if ((s.w == 0) != (s.h == 0))
      throw ParamError("size", "size " + params().text("size") +
                                   ": give both sides, or -1 for one to keep the aspect ratio");
    if (s.w == -1 && s.h == -1) throw ParamError("size", "size -1x-1: give at least one side");
    if (s.w != 0 && !params().isDefault("scale"))
      throw ParamError("scale", "give size or scale, not both");
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    const ResizeTarget t =
        resizeTarget(in.width, in.height, params().size("size"), params().number("scale"));
    in_ = in;
    out_ = {t.width, t.height, in.format};
    const Interp interp = parseInterp(params().text("interp"));
    const ResizeTables tab =
        resizeTables(interp, in.width, in.height, t.width, t.height, t.invScaleX, t.invScaleY);
    mode_ = interp == Interp::Nearest ? "nearest" : tab.fixedPoint ? "fixed" : "area";
    taps_ = std::to_string(tab.x.taps) + "x" + std::to_string(tab.y.taps);
    const bool cpu = ctx.cl.facts().cpu;
    // A row of 32 (a warp) by 8 on GPUs; on CPUs a strip of 64 along a row that one core walks.
    wg_ = cpu ? cl::NDRange(64, 1) : cl::NDRange(32, 8);
    wgText_ = cpu ? "64x1" : "32x8";
    const std::string opts = BuildOptions()
                                 .define("CN", in.channels())
                                 .define("KX", tab.x.taps)
                                 .define("KY", tab.y.taps)
                                 .define(interp == Interp::Nearest ? "MODE_NEAREST"
                                         : tab.fixedPoint          ? "MODE_FIXED"
                                                                   : "MODE_AREA")
                                 .str();
    kernel_ = clCall("clCreateKernel(resize)", [&] {
      return cl::Kernel(ctx.cl.programs().build("resize.cl", opts), "resize");
    });
    xi_ = upload(ctx.cl, tab.x.idx, "resize columns");
    xw_ = upload(ctx.cl, tab.x.w, "resize column weights");
    yi_ = upload(ctx.cl, tab.y.idx, "resize rows");
    yw_ = upload(ctx.cl, tab.y.w, "resize row weights");
    return out_;
  }

  std::string schedule() const override {
    return "mode=" + mode_ + " taps=" + taps_ + " wg=" + wgText_;
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    int a = 0;
    kernel_.setArg(a++, in);
    kernel_.setArg(a++, out);
    kernel_.setArg(a++, in_.width);
    kernel_.setArg(a++, out_.width);
    kernel_.setArg(a++, out_.height);
    kernel_.setArg(a++, xi_);
    kernel_.setArg(a++, xw_);
    kernel_.setArg(a++, yi_);
    kernel_.setArg(a++, yw_);
    const cl::NDRange global(roundUp(out_.width, wg_[0]), roundUp(out_.height, wg_[1]));
    cl::Event e = launchKernel(q, kernel_, global, wg_, wait);
    return {e, e};
  }

 private:
  FrameDesc in_, out_;
  std::string mode_, taps_, wgText_;
  cl::NDRange wg_;
  cl::Kernel kernel_;
  cl::Buffer xi_, xw_, yi_, yw_;
};

}  // namespace

const StageInfo& resizeStageInfo() {
  static const StageInfo info{
      "resize",
      "scale the frame to a new size (as cv::resize); later stages and outputs take that size",
      "gray, bgr, bgra -> same, new size",
      {sizeParam("size", "0x0", -1, 32768,
                 "output WxH; -1 for one side keeps the aspect ratio (960x-1); 0x0: by scale"),
       floatParam("scale", "1", 0, 16, "factor for both sides when no size is given (0.5 halves)")
           .withOpenMin(),
       enumParam("interp", "linear", {"nearest", "linear", "area", "cubic"},
                 "interpolation, as cv::INTER_NEAREST, INTER_LINEAR, INTER_AREA, INTER_CUBIC")},
      [] { return std::make_unique<ResizeStage>(); }};
  return info;
}

}  // namespace vf
