// sobel: gradient magnitude or one derivative, per channel, as cv::Sobel(CV_16S) followed by
// convertScaleAbs / addWeighted (mode=mag, the OpenCV tutorial recipe) or sqrt(gx^2 + gy^2)
// (mode=l2). One kernel reads each source row once per strip and writes the chosen mode.
//
// Two kernels (`kernel`): "tile" (kernels/sobel.cl: a tile with halo in local memory, float
// arithmetic in OpenCV's order) and "direct" (kernels/sobel_gpu.cl: the horizontal taps or the
// pixels slide down the rows in registers, each work-item's rows loaded by itself or, for
// ksize 5 and 7, read from the work-group's rows in local memory; no int<->float conversion
// instructions, which are 8x slower than an FMA on NVIDIA GPUs, rows of any length loaded and
// stored by whole aligned words; for ksize 3 at scale 1 in modes mag, x and y, pairs of
// 16-bit floats, two samples per instruction, `half`). Both take every ksize and give
// the same bytes for every mode, scale and border. A third, "slab" (kernels/sobel_slab.cl,
// pipeline/stages/sobel_slab.hpp: the gradients as 8-bit matrix products on NVIDIA's tensor
// cores), runs the stage's own pass at scale 1 in modes mag, x and y; by default ksize 5 and 7 on
// NVIDIA GPUs of compute capability 8+.
//
// Schedule (Halide's split: the algorithm lives in the kernel, the shape here): a work-item
// computes `vec` bytes x `rows` rows, a work-group `wg` work-items, and the tile kernel loads
// its tile by rows or by vectors (`load`). On a CPU (PoCL) tall strips amortise the halo rows
// and loading whole rows per work-item does the border arithmetic once per row; on a GPU the
// direct kernel needs about a quarter of the tile kernel's issue slots per byte.
//
// Prologue (Stage::setPrologue, pipeline/fusion.hpp): where its plan says so (SobelPlan::
// prologue), the direct kernel reads its gray source through the point-wise functions before
// it ("gray,sobel": BGR pixels converted as they are loaded, no gray frame written).
// Epilogue (Stage::setEpilogue): on gray frames the direct kernel puts each byte it stores
// through the histograms and point-wise functions after it ("sobel,hist,brightness": counted
// and adjusted as stored, no gradient frame read again).
// Filter (Stage::setFilter): where the chain fuses them, the blur before it runs in its own
// tiled kernel (pipeline/stages/blur_sobel.hpp), with the prologue and the epilogue; should a
// live sigma move the blur past that kernel's reach, the functions, the blur's own kernels and
// this stage's (storing through the epilogue; the tile kernel too) run one after the other.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "pipeline/border.hpp"
#include "pipeline/cl/build_options.hpp"
#include "pipeline/epilogue.hpp"
#include "pipeline/error.hpp"
#include "pipeline/fused_pass.hpp"
#include "pipeline/point_source.hpp"
#include "pipeline/stages/blur_sobel.hpp"
#include "pipeline/stages/histogram_kernel.hpp"
#include "pipeline/stages/sobel_params.hpp"
#include "pipeline/stages/sobel_plan.hpp"
#include "pipeline/stages/sobel_slab.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class SobelStage : public Stage {
 public:
  SobelStage() : Stage(sobelStageInfo()) {}

  void validate() const override { checkSobelParams(params()); }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    validate();
    in_ = in;
    pitchPixels_ = ctx.rowPixels(in);
    pitch_ = std::size_t(pitchPixels_) * std::size_t(in.channels());
    cl_ = &ctx.cl;
    pro_ = {};
    epi_ = {};
    blurred_.reset();
    proPass_.reset();
    proFrame_ = blurFrame_ = cl::Buffer();
    ksize_ = params().integer("ksize");
    wgAuto_ = params().size("wg").w == 0;
    const DeviceFacts& facts = ctx.cl.facts();
    plan_ = planSobel(params(), facts, in, params().size("wg"));
    wg_ = plan_.wg;
    SobelSlabPlan slab = planSobelSlab(params(), facts, in, pitch_);
    for (const std::string& note : sobelParamsWithoutEffect(params(), plan_, slab.use))
      if (warned_.insert(note).second) spdlog::warn("sobel: {}", note);
    const std::size_t items = std::size_t(wg_.w) * std::size_t(wg_.h);
    if (items > facts.maxWorkGroupSize)
      throw UserError("sobel: wg=" + wgText() + " exceeds this device's " +
                      std::to_string(facts.maxWorkGroupSize) + " work-items per group");
    const std::size_t tileBytes = plan_.tileBytes;
    if (tileBytes > facts.localMemBytes)
      throw UserError("sobel: wg=" + wgText() + " with vec=" + std::to_string(plan_.vec) +
                      " and rows=" + std::to_string(plan_.rows) + " needs a " +
                      std::to_string(tileBytes) + "-byte tile; this device has " +
                      std::to_string(facts.localMemBytes) + " bytes of local memory");
    build();
    // The register-heavy direct kernel may run fewer work-items per group than the device; the
    // local rows' group, when not given, then gives way to each work-item loading its own.
    if (items > fits() && wgAuto_ && plan_.local()) {
      if (params().text("load") == "local")
        spdlog::warn(
            "sobel: load=local: this device runs the kernel with {} work-items per group, "
            "fewer than its {} tile; each work-item loads its own rows (give a smaller "
            "wg to keep local rows)",
            fits(), wgText());
      Params own = params();
      own.set("load", "items");
      plan_ = planSobel(own, facts, in, params().size("wg"));
      wg_ = plan_.wg;
      build();
    }
    // An automatic group larger than the kernel runs on this device (colour frames' 32x4): 8x4.
    if (wgAuto_ && !plan_.local() && std::size_t(wg_.w) * std::size_t(wg_.h) > fits() &&
        (wg_.w != kWg.w || wg_.h != kWg.h)) {
      plan_ = planSobel(params(), facts, in, kWg);
      wg_ = plan_.wg;
      build();
    }
    if (std::size_t(wg_.w) * std::size_t(wg_.h) > fits())
      throw UserError("sobel: wg=" + wgText() + " exceeds the " + std::to_string(fits()) +
                      " work-items per group this device runs the kernel with");
    slab_ = slab.use
                ? std::make_unique<SobelSlabPass>(ctx.cl, params(), in, pitch_, std::move(slab))
                : nullptr;
    return in;
  }

  bool takesRowPitch() const override { return true; }

  // The work-group shape in use, "8x4".
  std::string wgText() const { return std::to_string(wg_.w) + "x" + std::to_string(wg_.h); }

  // The work-items per group both kernels run with on this device.
  std::size_t fits() const {
    return clCall("clGetKernelWorkGroupInfo(sobel)", [&] {
      std::size_t f = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device());
      if (plan_.direct)
        f = std::min(f, kernelScaled_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device()));
      return f;
    });
  }

  bool takesFilter(const SeparableFilter& filter, const FrameDesc& in) const override {
    return BlurSobelShape::fits(params(), cl_->facts(), filter, in, pitch_);
  }

  void setFilter(SeparableFilter* filter) override {
    blurred_.reset();
    if (!filter) return;
    blurred_ = std::make_unique<BlurSobelPass>(*cl_, params(), in_, pitch_, *filter);
    blurred_->build(pro_, epi_);
    ownReady_ = epi_.empty();  // this stage's own kernels, as configure() built them
  }

  // With the blur in its pass, on gray frames: any source (the blur's loads convert it).
  bool takesPrologue(const FrameDesc& source) const override {
    if (blurred_) return in_.channels() == 1 && params().text("prologue") != "off";
    return plan_.prologue && (plan_.anySource || prologueSourceFits(source));
  }

  void setPrologue(const std::vector<Stage*>& fns, const FrameDesc& in) override {
    if (fns.empty() && pro_.empty()) return;
    pro_ = makePrologue(fns, in, in_);
    if (blurred_)
      blurred_->build(pro_, epi_);
    else
      build();
  }

  bool takesEpilogue() const override {
    if (blurred_) return in_.channels() == 1 && params().text("epilogue") != "off";
    const bool own = slabAtThisScale() && slabDeclinesEpilogue(slab_->plan(), params(), in_);
    return plan_.epilogue && !own;
  }

  void setEpilogue(const std::vector<Stage*>& stages) override {
    if (stages.empty() && epi_.empty()) return;
    // The most copies any counter's schedule asks for, else ours; as many as local memory holds.
    const std::size_t local =
        cl_->facts().localMemBytes -
        std::max(blurred_ ? blurred_->localBytes() : std::size_t(0), plan_.tileBytes);
    const int copies = epilogueCopies(stages, kEpilogueCopies, local);
    if (copies == 0)
      throw UserError("sobel: the histograms after it do not fit in this device's " +
                      std::to_string(cl_->facts().localMemBytes) +
                      " bytes of local memory as one pass; give sobel epilogue=off");
    epi_ = makeEpilogue(stages, in_, copies);
    // The plan for a kernel that counts (its work per work-item), when the schedule is ours.
    plan_ = planSobel(params(), cl_->facts(), in_, params().size("wg"), !epi_.counters.empty());
    wg_ = plan_.wg;
    if (blurred_) {
      blurred_->build(pro_, epi_);
      ownReady_ = false;  // built with the epilogue when first needed (enqueueApart)
      return;
    }
    build();
    const std::size_t most = std::min(fits(), cl_->facts().maxWorkGroupSize);
    const std::size_t wide = std::size_t(kWgCounting.w) * std::size_t(kWgCounting.h);
    if (wgAuto_ && !plan_.local() && !epi_.counters.empty() && wide <= most) wg_ = kWgCounting;
    if (std::size_t(wg_.w) * std::size_t(wg_.h) > most) {
      throw UserError("sobel: wg=" + wgText() + " exceeds the " + std::to_string(most) +
                      " work-items per group this device runs the kernel with when it stores "
                      "through the stages after it; give a smaller wg or epilogue=off");
    }
  }

  std::string schedule() const override {
    if (slabRuns()) return slab_->plan().text;
    if (blurred_)
      return blurred_->schedule() +
             (epi_.counters.empty() ? "" : " copies=" + std::to_string(epi_.copies));
    return std::string("kernel=") + (plan_.direct ? "direct" : "tile") + " wg=" + wgText() +
           " vec=" + std::to_string(plan_.vec) + " rows=" + std::to_string(plan_.rows) +
           (plan_.direct ? " ahead=" + std::to_string(plan_.ahead) + " half=" +
                               (plan_.half ? "on" : "off") + (plan_.local() ? " load=local" : "")
                         : std::string(" load=") + plan_.load) +
           (epi_.counters.empty() ? "" : " copies=" + std::to_string(epi_.copies));
  }

  // scale and value are kernel arguments: a new scale only recomputes the four scaled taps (and,
  // with the direct kernel, picks the program for scale 1 or the other one).
  void update() override {
    if (!kernel_()) return;
    // OpenCV scales the smoothing kernel with Mat::convertTo, i.e. float tap * (float)scale.
    const float scale = static_cast<float>(params().number("scale"));
    const auto half = smoothingHalf(ksize_);
    taps_ = {};
    for (std::size_t j = 0; j < half.size(); ++j) taps_.s[j] = static_cast<float>(half[j]) * scale;
    if (blurred_ && !ownReady_) return;  // the pass sets its arguments per frame
    scaled_ = scale != 1.0f && kernelScaled_();
    cl::Kernel& k = scaled_ ? kernelScaled_ : kernel_;  // the one enqueue launches
    k.setArg(5, taps_);
    k.setArg(6, params().integer("value"));
    ownPro().setArgs(k, 7);  // the prologue's parameters follow, then the epilogue's
    epi_.setArgs(k, 7 + ownPro().args());
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    update();  // live parameters, read per frame like the other stages
    if (blurred_ && blurred_->takesRadius(pro_, epi_))
      return blurred_->enqueue(q, in, out, taps_, params().integer("value"), pro_, epi_, wait);
    if (blurred_) return enqueueApart(q, in, out, wait);
    if (slabRuns()) {
      cl::Event e = slab_->enqueue(q, in, out, params().integer("value"), wait);
      return {e, e};
    }
    return launchOwn(q, in, out, wait);
  }

 private:
  // The slab kernel where it is planned, the pass is this stage's alone and the scale is 1.
  bool slabRuns() const { return slabAtThisScale() && !blurred_ && pro_.empty() && epi_.empty(); }
  // The slab kernel is planned and takes the current scale (1; the scale is live).
  bool slabAtThisScale() const {
    return slab_ && static_cast<float>(params().number("scale")) == 1.0f;
  }

  // This stage's own kernels on `in`, storing through the epilogue.
  StageEvents launchOwn(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                        const std::vector<cl::Event>& wait) {
    cl::Kernel& kernel = scaled_ ? kernelScaled_ : kernel_;
    kernel.setArg(0, in);
    kernel.setArg(1, out);
    kernel.setArg(2, in_.width);
    kernel.setArg(3, in_.height);
    kernel.setArg(4, static_cast<cl_int>(pitch_));
    const std::size_t items = (in_.rowBytes() + plan_.vec - 1) / plan_.vec;
    const std::size_t strips = (std::size_t(in_.height) + plan_.rows - 1) / plan_.rows;
    const cl::NDRange global(roundUp(items, wg_.w), roundUp(strips, wg_.h));
    epi_.advance(kernel, 7 + ownPro().args());  // the counters' buffers for this frame
    std::vector<cl::Event> deps = wait;
    const StageEvents pre = ownPro().enqueuePrelude(q, in, deps);
    cl::Event e = launchKernel(q, kernel, global, cl::NDRange(wg_.w, wg_.h), deps);
    return {pre.first() ? pre.first : e, e};
  }

  // A live sigma past what the pass with the blur takes (its radius, its local memory): the
  // prologue's functions as their own pass, the blur's own kernels, then this stage's own,
  // through scratch frames allocated on first use, so the chain is not planned again.
  StageEvents enqueueApart(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                           const std::vector<cl::Event>& wait) {
    if (!ownReady_) {
      build();
      ownReady_ = true;
      update();
    }
    const auto scratch = [&](cl::Buffer& b) {
      if (!b())
        b = clCall("clCreateBuffer(sobel scratch)", [&] {
          return cl::Buffer(cl_->context(), CL_MEM_READ_WRITE,
                            std::max<std::size_t>(pitch_ * std::size_t(in_.height), 1));
        });
      return b;
    };
    std::vector<cl::Event> deps = wait;
    StageEvents first;
    const cl::Buffer* src = &in;
    const auto after = [&](const StageEvents& ev) {
      if (!first.first()) first.first = ev.first;
      if (ev.last()) deps.assign(1, ev.last);  // else the in-order queue orders them
    };
    if (!pro_.empty()) {
      if (!proPass_) {
        proPass_ = std::make_unique<FusedPass>();
        proPass_->configure(*cl_, pro_.fns, pro_.in, pitchPixels_);
      }
      after(proPass_->enqueue(q, in, scratch(proFrame_), deps));
      src = &proFrame_;
    }
    after(blurred_->filter().enqueueAlone(q, *src, scratch(blurFrame_), deps));
    const StageEvents own = launchOwn(q, blurFrame_, out, deps);
    return {first.first() ? first.first : own.first, own.last};
  }

  // The prologue this stage's own kernels read through: none with the blur in its pass (the
  // pass reads through it, or its own pass runs the functions first).
  const Prologue& ownPro() const {
    static const Prologue none;
    return blurred_ ? none : pro_;
  }

  // The direct kernel comes in two programs, scale 1 (EXACT=1: integer-exact paths) and any
  // other scale, both built now so a live scale change swaps kernels without a build; each gets
  // the registers of its own path. With a prologue, both read through it; with an epilogue,
  // both store through it.
  void build() {
    const char* file = plan_.direct ? "sobel_gpu.cl" : "sobel.cl";
    const auto make = [&](const BuildOptions& o) {
      return clCall("clCreateKernel(sobel)", [&] {
        return cl::Kernel(buildThrough(cl_->programs(), file, o.str(), ownPro(), epi_), "sobel");
      });
    };
    kernel_ = make(plan_.direct ? BuildOptions(plan_.options).define("EXACT", 1) : plan_.options);
    kernelScaled_ =
        plan_.direct ? make(BuildOptions(plan_.options).define("EXACT", 0)) : cl::Kernel();
  }

  ClContext* cl_ = nullptr;
  Prologue pro_;  // the functions this stage reads through (setPrologue)
  Epilogue epi_;  // the functions and counters it stores through (setEpilogue)
  std::unique_ptr<BlurSobelPass> blurred_;  // the blur before it in its pass (setFilter)
  std::unique_ptr<SobelSlabPass> slab_;     // kernel=slab on its own pass (sobel_slab.hpp)
  bool ownReady_ = true;  // with the blur in its pass: its own kernels store through the epilogue
  std::unique_ptr<FusedPass> proPass_;  // enqueueApart: the prologue's functions, their frame
  cl::Buffer proFrame_, blurFrame_;     // ... and the blur's
  cl_float4 taps_{};                    // the smoothing taps times scale
  FrameDesc in_;
  int pitchPixels_ = 0;    // the frames' row pitch: in pixels,
  std::size_t pitch_ = 0;  // and in bytes
  SobelPlan plan_;
  int ksize_ = 3;
  bool scaled_ = false;
  Size2 wg_;
  bool wgAuto_ = true;            // wg=0x0
  std::set<std::string> warned_;  // schedule values without effect, each said once
  cl::Kernel kernel_;             // the tile kernel, or the direct kernel at scale 1
  cl::Kernel kernelScaled_;       // the direct kernel at other scales
};

}  // namespace

const StageInfo& sobelStageInfo() {
  static const StageInfo info{
      "sobel",
      "Sobel gradient per channel: |gx|/2 + |gy|/2 (mag), sqrt(gx^2 + gy^2) (l2), |gx| (x) or "
      "|gy| (y), as cv::Sobel(CV_16S) + convertScaleAbs/addWeighted",
      "gray, bgr, bgra -> same", sobelParams(), [] { return std::make_unique<SobelStage>(); }};
  return info;
}

}  // namespace vf
