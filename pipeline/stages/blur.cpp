// blur: separable Gaussian, as cv::GaussianBlur(src, dst, Size(k, k), sigma, sigma, border) on
// 8-bit gray, BGR and BGRA (per channel), bit for bit.
//
// Exactness: OpenCV 4.x computes 8-bit Gaussian blur in fixed point (taps with 8 fractional
// bits, 16-bit row sums, rounding shift by 16 at the end). The taps are quantised the same way
// on the host (blur_taps.hpp) and every kernel keeps the sums exact, so the output equals
// OpenCV's rather than "within 1" (with unquantised float taps, each tap off by up to 1/512,
// the worst case exceeds 1 level).
//
// The stage: parameters, the taps buffer, and the kernels of the plan blur_schedule.hpp makes
// for the device and frame. Live parameters: sigma (taps rewritten, no rebuild unless the
// derived radius changes) and value (a kernel argument). ksize, border and the schedule
// parameters are -D options: changing them reconfigures.
//
// Prologue (Stage::setPrologue, planned by pipeline/fusion.hpp): where its plan says so
// (BlurPlan::prologue), the slab kernel reads its source through point-wise functions
// ("gray,blur": BGR pixels converted to gray as they are loaded, no gray frame written). Should
// a new sigma move the plan to one that does not, the functions run first as a fused pass of
// their own into a scratch frame, so a live change never needs the chain planned again.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/error.hpp"
#include "pipeline/fused_pass.hpp"
#include "pipeline/point_source.hpp"
#include "pipeline/stages/blur_fragments.hpp"
#include "pipeline/stages/blur_schedule.hpp"
#include "pipeline/stages/blur_taps.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class BlurStage : public Stage, public SeparableFilter {
 public:
  BlurStage() : Stage(blurStageInfo()) {}

  void validate() const override {
    const int k = params().integer("ksize");
    if (k != 0 && k % 2 == 0)
      throw ParamError("ksize",
                       "ksize must be odd, or 0 to derive it from sigma; got " + std::to_string(k));
    const Size2 strip = params().size("strip");
    if (strip.w > 16 || strip.h % 16 != 0)
      throw ParamError("strip",
                       "strip must be WxH with W up to 16 sets and H a multiple of 16 "
                       "rows (0 for either: chosen per frame), got " +
                           params().text("strip"));
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    validate();
    if (cl_ != &ctx.cl) built_.clear();  // programs belong to a context
    cl_ = &ctx.cl;
    in_ = in;
    pitchPixels_ = ctx.rowPixels(in);
    pitch_ = std::size_t(pitchPixels_) * std::size_t(in.channels());
    pro_ = {};
    proPass_.reset();
    rebuildIfChanged();
    ensureScratch();
    // Created with its initial contents: configure() has no queue to write on.
    TapsBlock init = hostTaps_;
    taps_ = clCall("clCreateBuffer(blur taps)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        sizeof(TapsBlock), &init);
    });
    tapsDirty_ = false;
    lastDone_ = cl::Event();
    return in;
  }

  // Called by the host between frames (Engine::post runs it on the submit thread). A new sigma
  // only rewrites the taps; a new derived radius rebuilds (a program-cache hit when that radius
  // was built before). The taps reach the device in enqueue(), see there.
  void update() override {
    if (!cl_) return;  // not configured yet: configure() reads the parameters
    rebuildIfChanged();
    ensureScratch();
    tapsDirty_ = true;
  }

  std::string schedule() const override {
    return plan_.text + (proPass_ ? " prologue=own-pass" : "");
  }

  bool takesRowPitch() const override { return true; }

  bool takesPrologue(const FrameDesc& source) const override {
    return plan_.prologue && (plan_.anySource || prologueSourceFits(source));
  }

  void setPrologue(const std::vector<Stage*>& fns, const FrameDesc& in) override {
    if (fns.empty() && pro_.empty()) return;
    pro_ = makePrologue(fns, in, in_);
    rebuildIfChanged();
  }

  // Offered to the stage after it where the schedule is the blur's own choice.
  SeparableFilter* filter() override { return params().text("kernel") == "auto" ? this : nullptr; }
  int radius() const override { return radius_; }
  BorderMode border() const override { return parseBorder(params().text("border")); }
  int borderValue() const override { return params().integer("value"); }
  const cl::Buffer& taps(cl::CommandQueue& q, std::vector<cl::Event>& deps) override {
    if (tapsDirty_) deps.push_back(writeTaps(q));
    return taps_;
  }
  void tapsReadBy(const cl::Event& done) override { lastDone_ = done; }
  StageEvents enqueueAlone(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                           const std::vector<cl::Event>& wait) override {
    return enqueue(q, in, out, wait);
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    std::vector<cl::Event> deps = wait;
    if (tapsDirty_) deps.push_back(writeTaps(q));
    StageEvents pre;
    const cl::Buffer* src = &in;
    if (proPass_) {  // the functions as their own pass (the plan cannot read through them)
      pre = proPass_->enqueue(q, in, proFrame_, deps);
      deps.assign(1, pre.last);
      src = &proFrame_;
    } else {
      pre = pro_.enqueuePrelude(q, in, deps);
    }
    const std::vector<BlurLaunch>& launches = plan_.launches;
    StageEvents ev;
    if (launches.size() == 1) {
      setArgs(kernels_[0], *src, out);
      ev.first = ev.last =
          launchKernel(q, kernels_[0], launches[0].global, launches[0].local, deps);
    } else {
      // Two passes through the 16-bit scratch.
      setArgs(kernels_[0], *src, mid_);
      ev.first = launchKernel(q, kernels_[0], launches[0].global, launches[0].local, deps);
      setArgs(kernels_[1], mid_, out);
      ev.last = launchKernel(q, kernels_[1], launches[1].global, launches[1].local, {ev.first});
    }
    if (pre.first()) ev.first = pre.first;
    lastDone_ = ev.last;
    return ev;
  }

 private:
  // New taps must not reach frames already in flight. The write goes on this frame's queue (in
  // order: the chain requires it) before its first pass and after the previous frame's last
  // (also by an explicit dependency when that frame's kernels had events), so earlier frames
  // read the old taps and this one the new. It is non-blocking (a blocking write would stall
  // the submit thread until every frame in flight is done), so its host memory must live until
  // the write completes: two staging blocks, each reused only after its last write ended.
  cl::Event writeTaps(cl::CommandQueue& q) {
    const int slot = nextStaging_;
    nextStaging_ ^= 1;
    if (stagingWrite_[slot]()) stagingWrite_[slot].wait();
    staging_[slot] = hostTaps_;
    std::vector<cl::Event> after;
    if (lastDone_()) after.push_back(lastDone_);
    cl::Event written;
    clCall("clEnqueueWriteBuffer(blur taps)", [&] {
      q.enqueueWriteBuffer(taps_, CL_FALSE, 0, sizeof(TapsBlock), &staging_[slot],
                           after.empty() ? nullptr : &after, &written);
    });
    stagingWrite_[slot] = written;
    tapsDirty_ = false;
    return written;
  }

  // Every blur kernel takes (source, destination, width, height, pitch, taps, value), the pitch
  // the bytes from a row of the frames to the next (a 16-bit scratch between two passes is
  // packed).
  void setArgs(cl::Kernel& k, const cl::Buffer& src, const cl::Buffer& dst) {
    k.setArg(0, src);
    k.setArg(1, dst);
    k.setArg(2, in_.width);
    k.setArg(3, in_.height);
    k.setArg(4, static_cast<cl_int>(pitch_));
    k.setArg(5, taps_);
    k.setArg(6, params().integer("value"));
    if (!proPass_) pro_.setArgs(k, 7);  // the prologue's parameters follow
  }

  int ksize() const {
    const int k = params().integer("ksize");
    return k > 0 ? k : derivedKsize(params().number("sigma"));
  }

  BlurRequest request(const std::vector<int>& taps) const {
    BlurRequest q;
    q.frame = in_;
    q.pitch = pitch_;
    q.taps = taps;
    q.border = borderDefine(parseBorder(params().text("border")));
    q.kernel = params().text("kernel");
    q.wg = params().size("wg");
    q.strip = params().size("strip");
    q.warps = params().integer("warps");
    q.operands = params().text("operands");
    q.prefetch = params().text("prefetch");
    q.share = params().text("share");
    q.prologue = params().text("prologue");
    return q;
  }

  // Plans for the current parameters and frame, builds the plan's kernels unless the ones in
  // use were built with the same options (a sigma that keeps the radius changes only the taps),
  // and computes the taps. Changes nothing when it throws.
  void rebuildIfChanged() {
    const std::vector<int> taps = fixedPointTaps(ksize(), params().number("sigma"));
    const BlurRequest q = request(taps);
    BlurPlan plan = planBlur(q, cl_->facts());
    if (buildKey(plan) != built_) {
      std::unique_ptr<FusedPass> pass = prologuePass(plan);
      Built b = build(plan);
      if (b.most < plan.groupItems && plan.groupShrinks) {
        // A device may run fewer work-items for a kernel than it reports in general: an
        // automatic group size shrinks to what the built kernel takes, once.
        plan = planBlur(q, cl_->facts(), b.most);
        b = build(plan);
      }
      if (b.most < plan.groupItems)
        throw UserError(std::string("blur: the ") + blurKernelName(plan.kernel) + " kernel's " +
                        std::to_string(plan.groupItems) +
                        " work-items per group exceed what this device runs for it (" +
                        std::to_string(b.most) + ")" + (plan.hint.empty() ? "" : "; " + plan.hint));
      kernels_ = std::move(b.kernels);
      proPass_ = std::move(pass);
      built_ = buildKey(plan);
    }
    plan_ = plan;
    radius_ = static_cast<int>(taps.size()) - 1;
    hostTaps_ = tapsBlock(taps);
    if (plan_.kernel == BlurKernel::Slab) slabFragments(taps, in_.channels(), hostTaps_.frag);
  }

  struct Built {
    std::vector<cl::Kernel> kernels;  // one per launch of the plan
    std::size_t most = 0;             // the fewest work-items per group they run
  };
  // What kernels_ were built from: the plan's file and options, and the prologue.
  std::string buildKey(const BlurPlan& plan) const {
    std::string key = plan.file + " " + plan.options;
    if (!pro_.empty()) key += (plan.prologue ? " reading through " : " after ") + pro_.fn.source;
    return key;
  }

  // With a prologue: a plan that reads through it needs no own pass; any other gets the
  // functions' own pass (returned) and its scratch frame (allocated here).
  std::unique_ptr<FusedPass> prologuePass(const BlurPlan& plan) {
    if (pro_.empty() || plan.prologue) return nullptr;
    auto pass = std::make_unique<FusedPass>();
    pass->configure(*cl_, pro_.fns, pro_.in, pitchPixels_);
    const std::size_t bytes = pitch_ * std::size_t(in_.height);
    if (proFrameBytes_ < bytes) {
      proFrame_ = clCall("clCreateBuffer(blur prologue frame)",
                         [&] { return cl::Buffer(cl_->context(), CL_MEM_READ_WRITE, bytes); });
      proFrameBytes_ = bytes;
    }
    return pass;
  }

  Built build(const BlurPlan& plan) const {
    // A plan that does not read through the prologue runs its functions' own pass first.
    const cl::Program program = plan.prologue ? pro_.build(cl_->programs(), plan.file, plan.options)
                                              : cl_->programs().build(plan.file, plan.options);
    Built b;
    b.most = cl_->facts().maxWorkGroupSize;
    for (const BlurLaunch& l : plan.launches) {
      b.kernels.push_back(clCall(std::string("clCreateKernel(") + l.kernel + ")",
                                 [&] { return cl::Kernel(program, l.kernel); }));
      b.most = std::min(
          b.most, clCall("clGetKernelWorkGroupInfo(blur)", [&] {
            return b.kernels.back().getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device());
          }));
    }
    return b;
  }

  // The 16-bit scratch of a two-pass plan: allocated at configure time, or when a live change
  // needs a larger one, never per frame.
  void ensureScratch() {
    if (plan_.launches.size() < 2) return;
    const std::size_t bytes = std::max<std::size_t>(in_.bytes() * sizeof(cl_ushort), 1);
    if (bytes <= midBytes_) return;
    mid_ = clCall("clCreateBuffer(blur scratch)",
                  [&] { return cl::Buffer(cl_->context(), CL_MEM_READ_WRITE, bytes); });
    midBytes_ = bytes;
  }

  ClContext* cl_ = nullptr;
  FrameDesc in_;
  int pitchPixels_ = 0;    // the frames' row pitch: in pixels,
  std::size_t pitch_ = 0;  // and in bytes
  // The functions this stage reads through (setPrologue), with their own pass and its frame
  // when the plan cannot read through them.
  Prologue pro_;
  std::unique_ptr<FusedPass> proPass_;
  cl::Buffer proFrame_;
  std::size_t proFrameBytes_ = 0;
  BlurPlan plan_;
  int radius_ = 0;                   // of hostTaps_
  std::string built_;                // buildKey of kernels_
  std::vector<cl::Kernel> kernels_;  // one per plan_.launches entry
  cl::Buffer mid_, taps_;
  std::size_t midBytes_ = 0;
  TapsBlock hostTaps_;
  bool tapsDirty_ = false;
  std::array<TapsBlock, 2> staging_;
  std::array<cl::Event, 2> stagingWrite_;
  int nextStaging_ = 0;
  cl::Event lastDone_;
};

}  // namespace

const StageInfo& blurStageInfo() {
  static const StageInfo info{
      "blur",
      "separable Gaussian blur, as cv::GaussianBlur (bit-exact with OpenCV's 8-bit path)",
      "gray, bgr, bgra -> same",
      {
          floatParam("sigma", "1.5", 0, 50,
                     "standard deviation of the Gaussian, in pixels (both directions)")
              .withOpenMin()
              .asLive(),
          intParam(
              "ksize", "0", 0, kBlurMaxKsize,
              "kernel size, odd; 0 derives it from sigma as OpenCV does: round(6*sigma + 1) | 1"),
          enumParam("border", "reflect101", borderNames(),
                    "how pixels outside the frame are read (see pipeline/border.hpp)"),
          intParam("value", "0", 0, 255, "the outside pixel value for border=constant").asLive(),
          enumParam("kernel", "auto", {"auto", "cpu", "ring", "tiled", "slab"},
                    "cpu: rows, then columns through a 16-bit scratch, any radius (auto past the "
                    "others' reach); ring: one pass, the rows of a column strip in registers, "
                    "radius <= 8 (auto on CPUs); tiled: one pass through a tile in local "
                    "memory, radius <= 16 and radius x channels <= 40 (auto on GPUs); slab: 8-bit "
                    "matrix products, a strip per warp, radius <= 72 (auto on NVIDIA GPUs of "
                    "compute capability 8+, mma.sync; emulated elsewhere: slow, for tests)")
              .asSchedule(),
          sizeParam("wg", "16x4", 1, 1024, "kernel=cpu: work-group shape in work-items")
              .asSchedule(),
          sizeParam("strip", "0x0", 0, 1024,
                    "kernel=slab: a warp's strip, W sets of 16 outputs (up to 16) x H rows (a "
                    "multiple of 16); 0: chosen per frame")
              .asSchedule(),
          intParam("warps", "0", 0, 32,
                   "kernel=slab: warps per work-group (0: 8 with share, else 2 in strips of 64 "
                   "rows at radius <= 8, else 4)")
              .asSchedule(),
          enumParam("operands", "auto", {"auto", "registers", "local"},
                    "kernel=slab: where the row products' constant operands live (auto: "
                    "registers up to 17 operands in all (8 on rows that are not a multiple of 4 "
                    "bytes), past that local memory)")
              .asSchedule(),
          enumParam(
              "share", "auto", {"auto", "on", "off"},
              "kernel=slab: a work-group's warps side by side load each source row once "
              "into local memory and share it (auto: where a warp alone would load at least 4.5 "
              "words of a row per word of its output: sigma 20, sigma 6 and 10 in colour)")
              .asSchedule(),
          enumParam("prefetch", "auto", {"auto", "on", "off"},
                    "kernel=slab: load each band's rows during the band before (with share: "
                    "its vectors into registers, on rows of whole 16-byte vectors; auto: with "
                    "share there, without share where the row halo is at most 16 elements and a "
                    "strip has several bands)")
              .asSchedule(),
          enumParam("prologue", "auto", {"auto", "on", "off"},
                    "kernel=slab on gray frames, fused chains: read the point-wise stages just "
                    "before it (gray, brightness) in its loads, one pass (auto: radius <= 8 and "
                    "their source within 2560x1440 BGR's bytes, where that is faster; "
                    "off: they run as their own pass)")
              .asSchedule(),
      },
      [] { return std::make_unique<BlurStage>(); }};
  return info;
}

}  // namespace vf
