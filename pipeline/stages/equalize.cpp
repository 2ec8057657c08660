// equalize: histogram equalisation as cv::equalizeHist, on gray, and on each of B, G and R of a
// colour frame (a bgra frame's alpha passes). Three commands per frame, all on the device: the
// frame's histogram (or an upstream hist stage's, published by the chain), the table built
// from it (kernels/lut.cl: equalize_lut), the table applied.
#include "pipeline/error.hpp"
#include "pipeline/stages/lut_kernel.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class EqualizeStage : public Stage {
 public:
  EqualizeStage() : Stage(equalizeStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    tables_ = in.format == PixelFormat::BGRA8 ? 3 : in.channels();
    hist_.configure(ctx, in);
    apply_.configure(ctx.cl, in, tables_);
    build_ = clCall("clCreateKernel(equalize_lut)",
                    [&] { return cl::Kernel(apply_.program(), "equalize_lut"); });
    lut_ = clCall("clCreateBuffer(equalize table)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_WRITE, std::size_t(tables_) * 256);
    });
    return in;
  }

  std::string schedule() const override {
    return std::string("histogram=") + (hist_.own() ? "own " : "upstream ") + apply_.schedule();
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    StageEvents ev = hist_.enqueue(q, in, wait);
    std::vector<cl::Event> deps = ev.last() ? std::vector<cl::Event>{ev.last} : liveEvents(wait);
    build_.setArg(0, hist_.buffer());
    build_.setArg(1, lut_);
    build_.setArg(2, cl_uint(std::size_t(in_.width) * in_.height));
    apply_.buildAndApply(q, build_, tables_, in, out, lut_, deps, ev);
    return ev;
  }

 private:
  FrameDesc in_;
  int tables_ = 1;
  FrameHistogram hist_;
  LutApply apply_;
  cl::Kernel build_;
  cl::Buffer lut_;
};

}  // namespace

const StageInfo& equalizeStageInfo() {
  static const StageInfo info{
      "equalize",
      "histogram equalisation (as cv::equalizeHist; colour: each of B, G, R)",
      "gray, bgr, bgra -> same (bgra: alpha unchanged)",
      {},
      [] { return std::make_unique<EqualizeStage>(); }};
  return info;
}

}  // namespace vf
