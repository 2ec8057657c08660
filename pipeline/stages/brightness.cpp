// brightness: dst = saturate(gain*src + bias) (cv::Mat::convertTo). gain and bias are kernel
// arguments, so moving them live never rebuilds the program.
//
// mode=auto: a contrast stretch computed on the device, with no host round trip. Per channel,
// the clip% darkest and clip% brightest pixels of this frame's histogram decide low and high
// (see brightness_auto_levels in kernels/brightness.cl), and gain = 255/(high-low),
// bias = -low*gain. The histogram comes from an upstream hist stage on the same frame when the
// chain has one ("hist,brightness=auto": the chain publishes it), else this stage runs the same
// histogram kernel itself. On bgra frames alpha is left unchanged. clip is live (a kernel
// argument); switching mode needs configure().
//
// In auto mode the gain and bias each frame got are a side output, "levels": channels floats
// of gain, then channels floats of bias (the preview shows them as applied).
#include <cmath>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/histogram_kernel.hpp"
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

  // Each mode's own parameters: given to the other mode they would do nothing.
  void validate() const override {
    const bool autoMode = params().text("mode") == "auto";
    if (autoMode && (params().number("gain") != 1 || params().number("bias") != 0))
      throw ParamError(params().number("gain") != 1 ? "gain" : "bias",
                       "gain and bias are mode=manual's; mode=auto computes them from each "
                       "frame's histogram (its clip sets how much); give one or the other");
    if (!autoMode && params().number("clip") != 1)
      throw ParamError("clip",
                       "clip is mode=auto's (the share of pixels it clips at each end); give "
                       "brightness=auto:clip=..., or gain and bias for mode=manual");
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    in_ = in;
    pitchPixels_ = ctx.rowPixels(in);
    autoMode_ = params().text("mode") == "auto";
    fn_ = pointFunction(in.channels(), autoMode_);
    if (autoMode_) {
      configureAuto(ctx, in);
      return in;
    }
    kernel_ = clCall("clCreateKernel(brightness_linear)", [&] {
      return cl::Kernel(
          ctx.cl.programs().build("brightness.cl", BuildOptions().define("VEC", kVec).str()),
          "brightness_linear");
    });
    return in;
  }

  bool takesRowPitch() const override { return true; }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (autoMode_) return enqueueAuto(q, in, out, wait);
    const int n = paddedBytes();
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, n);
    kernel_.setArg(3, static_cast<float>(params().number("gain")));
    kernel_.setArg(4, static_cast<float>(params().number("bias")));
    const std::size_t items = (std::size_t(n) + kVec - 1) / kVec;
    cl::Event e =
        launchKernel(q, kernel_, cl::NDRange(roundUp(items, kLocal)), cl::NDRange(kLocal), wait);
    return {e, e};
  }

 private:
  // Byte by byte: padded rows are adjusted whole (what lies past a row's end is no pixel's).
  int paddedBytes() const {
    return static_cast<int>(std::size_t(pitchPixels_) * in_.channels() * std::size_t(in_.height));
  }

  void configureAuto(StageContext& ctx, const FrameDesc& in) {
    const int c = in.channels();
    const int stretch = in.format == PixelFormat::BGRA8 ? 3 : c;
    const cl::Program program = ctx.cl.programs().build(
        "brightness.cl",
        BuildOptions().define("VEC", kVec).define("CHANNELS", c).define("STRETCH", stretch).str());
    levels_ = clCall("clCreateKernel(brightness_auto_levels)",
                     [&] { return cl::Kernel(program, "brightness_auto_levels"); });
    apply_ = clCall("clCreateKernel(brightness_auto_apply)",
                    [&] { return cl::Kernel(program, "brightness_auto_apply"); });
    gainBias_ = clCall("clCreateBuffer(brightness gain/bias)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_WRITE, 2 * c * sizeof(cl_float));
    });
    // The histogram of this very frame, if an upstream hist stage made one; else our own. Both
    // are double-buffered (histogram_kernel.hpp): the buffer is taken per frame, in enqueue.
    upstream_ = nullptr;
    if (ctx.publishedPerFrame) {
      const auto it = ctx.publishedPerFrame->find("histogram");
      if (it != ctx.publishedPerFrame->end()) upstream_ = it->second;
    }
    ownHistogram_ = !upstream_;
    if (ownHistogram_)
      hist_.configure(ctx.cl, in, {}, pitchPixels_);
    else
      hist_ = HistogramKernel();
    const int n = paddedBytes();
    levels_.setArg(1, cl_uint(std::size_t(in.width) * in.height));
    levels_.setArg(3, gainBias_);
    apply_.setArg(2, n);
    apply_.setArg(3, gainBias_);
    applyItems_ = (std::size_t(n) + applyChunk(c) - 1) / applyChunk(c);
  }

  // The histogram (our own, counted here, or the upstream hist stage's) and the levels kernel:
  // everything of auto mode before the apply.
  StageEvents enqueuePrelude(cl::CommandQueue& q, const cl::Buffer& in,
                             const std::vector<cl::Event>& wait) override {
    if (!autoMode_) return {};
    StageEvents ev;
    std::vector<cl::Event> deps = wait;
    if (ownHistogram_) {
      const StageEvents h = hist_.enqueue(q, in, deps);
      ev.first = h.first;
      deps.assign(1, h.last);
    }
    // Threshold in pixels, floor(clip% of N): the kernel compares integer counts with it.
    levels_.setArg(0, ownHistogram_ ? hist_.buffer() : upstream_());
    const double pixels = double(in_.width) * in_.height;
    levels_.setArg(2, cl_uint(std::floor(params().number("clip") / 100.0 * pixels)));
    ev.last = launchKernel(q, levels_, cl::NDRange(std::size_t(256) * in_.channels()),
                           cl::NDRange(256), deps);
    if (!ev.first()) ev.first = ev.last;
    return ev;
  }

  StageEvents enqueueAuto(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                          const std::vector<cl::Event>& wait) {
    StageEvents ev = enqueuePrelude(q, in, wait);
    const cl::Event levels = ev.last;
    apply_.setArg(0, in);
    apply_.setArg(1, out);
    ev.last = launchKernel(q, apply_, cl::NDRange(roundUp(applyItems_, kLocal)),
                           cl::NDRange(kLocal), {levels});
    return ev;
  }

  // brightness_linear's or brightness_auto_apply's arithmetic on one pixel (the same
  // expression, so the same rounding): manual takes gain and bias, auto the levels buffer.
  const PointFn* pointFn() const override { return &fn_; }

  void setPointArgs(cl::Kernel& k, cl_uint first) override {
    if (autoMode_) {
      k.setArg(first, gainBias_);
      return;
    }
    k.setArg(first, static_cast<float>(params().number("gain")));
    k.setArg(first + 1, static_cast<float>(params().number("bias")));
  }

  std::vector<SideOutput> sideOutputs() const override {
    if (!autoMode_) return {};
    return {{0, "levels", gainBias_, 2 * std::size_t(in_.channels()) * sizeof(cl_float)}};
  }

  static PointFn pointFunction(int channels, bool autoMode) {
    const std::string round =
        "VF_PX_BYTE(VF_PX_BITS(clamp(x, 0.0f, 255.0f) + 12582912.0f) - 0x4B400000)";  // TO_UCHAR
    const std::string c = std::to_string(channels);
    PointFn f;
    f.inChannels = f.outChannels = channels;
    f.startsPass = autoMode;
    if (autoMode) {
      f.params = {"__global const float* gain_bias"};
      f.source =
          "void POINT_FN(const VF_PX* in, VF_PX* out, __global const float* gain_bias) {\n"
          "  for (int c = 0; c < " +
          c +
          "; ++c) {\n"
          "    const VF_PX_FLOAT x = VF_PX_F32(in[c]) * gain_bias[c] + gain_bias[" +
          c +
          " + c];\n"
          "    out[c] = " +
          round + ";\n  }\n}\n";
    } else {
      f.params = {"float gain", "float bias"};
      f.source =
          "void POINT_FN(const VF_PX* in, VF_PX* out, float gain, float bias) {\n"
          "  for (int c = 0; c < " +
          c +
          "; ++c) {\n"
          "    const VF_PX_FLOAT x = VF_PX_F32(in[c]) * gain + bias;\n"
          "    out[c] = " +
          round + ";\n  }\n}\n";
    }
    return f;
  }

  // Bytes per work-item of brightness_auto_apply: 16, or 48 for bgr (whole pixels).
  static int applyChunk(int channels) { return channels == 3 ? 48 : 16; }

  FrameDesc in_;
  int pitchPixels_ = 0;
  cl::Kernel kernel_;  // manual
  bool autoMode_ = false;
  cl::Kernel levels_, apply_;  // auto
  cl::Buffer gainBias_;        // auto: channels gains, then channels biases
  bool ownHistogram_ = true;
  HistogramKernel hist_;      // auto without an upstream hist stage
  PublishedBuffer upstream_;  // auto with one: this frame's histogram
  std::size_t applyItems_ = 0;
  PointFn fn_;
};

}  // namespace

const StageInfo& brightnessStageInfo() {
  static const StageInfo info{
      "brightness",
      "dst = saturate(gain*src + bias) (as Mat::convertTo), or auto contrast stretch",
      "gray, bgr, bgra -> same",
      {
          enumParam("mode", "manual", {"manual", "auto"},
                    "manual: gain and bias; auto: stretch the clip% percentiles of this frame's "
                    "histogram to 0 and 255"),
          floatParam("gain", "1", -16, 16, "multiplier").asLive(),
          floatParam("bias", "0", -255, 255, "added after the gain").asLive(),
          floatParam("clip", "1", 0, 50, "auto mode: percent of pixels clipped at each end")
              .withOpenMax()
              .asLive(),
      },
      [] { return std::make_unique<BrightnessStage>(); }};
  return info;
}

}  // namespace vf
