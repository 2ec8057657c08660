// sobel: gradient magnitude or one derivative, per channel, as cv::Sobel(CV_16S) followed by
// convertScaleAbs / addWeighted (mode=mag, the OpenCV tutorial recipe) or sqrt(gx^2 + gy^2)
// (mode=l2). One kernel reads each source row once per strip and writes the chosen mode.
//
// Two kernels (`kernel`): "tile" (kernels/sobel.cl: a tile with halo in local memory, float
// arithmetic in OpenCV's order, every ksize) and "direct" (kernels/sobel_gpu.cl: ksize 1 and 3,
// no local memory, the horizontal taps slide down the rows in registers, no int<->float
// conversion instructions, which are 8x slower than an FMA on NVIDIA GPUs; for ksize 3 on one
// channel at scale 1 in modes mag, x and y, pairs of 16-bit floats, two pixels per instruction,
// `half`). Both give the same bytes for every mode, scale and border.
//
// Schedule (Halide's split: the algorithm lives in the kernel, the shape here): a work-item
// computes `vec` bytes x `rows` rows, a work-group `wg` work-items, and the tile kernel loads
// its tile by rows or by vectors (`load`). On a CPU (PoCL) tall strips amortise the halo rows
// and loading whole rows per work-item does the border arithmetic once per row; on a GPU the
// direct kernel needs about a quarter of the tile kernel's issue slots per byte.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/cl/device.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

struct Schedule {
  int vec, rows;
  const char* load;
  const char* kernel;
};
// Defaults measured at 1920x1080 gray with the default wg=8x4, kernel time from the event.
// PoCL (2-core Xeon, AVX-512; a loaded shared machine, so +-20%): 16 bytes x 16 rows loaded by
// rows ~1.1-1.2 ms, 8 rows ~1.2, loaded by items ~1.5. Wider groups (16x4, 32x2, 16x16) were
// no faster. NVIDIA H200 (OpenCL): 16 bytes x 4 rows loaded by items 11.6 us (22.5 us at
// 3840x2160), 4 bytes x 2 rows 14 us (34 us); per-device tuning is issue 6's.
// The direct kernel on GPUs (kernels/sobel_gpu.cl), swept on the H200 at 3840x2160 gray (mag,
// ksize 3; docs/PERFORMANCE.md): 8 bytes x 2 rows per work-item 19 us, as 8x8 and 8x4 and
// wg 32x4; 16x8 22 us, 16x16 37 us, 4x2 26 us, 8x1 26 us; the tile kernel 27 us.
constexpr Schedule kCpuSchedule{16, 16, "rows", "tile"};
constexpr Schedule kGpuSchedule{16, 4, "items", "direct"};
// With the f16x2 path (H200, same sweep): 16 bytes x 4 rows 12 us (8x4 groups; 13 in 16x8),
// 16 x 2 13-15 us, 8 x 4 13-15 us, 16 x 8 17 us; the float path there 17-18 us.
constexpr Schedule kGpuDirect{8, 2, "items", "direct"};
constexpr Schedule kGpuDirectHalf{16, 4, "items", "direct"};

// Centre-first halves of the smoothing taps (ksize 1: the 1-tap [1]).
std::vector<int> smoothingHalf(int ksize) {
  switch (ksize) {
    case 1:
      return {1};
    case 3:
      return {2, 1};
    case 5:
      return {6, 4, 1};
    default:
      return {20, 15, 6, 1};
  }
}

ParamSpec enumParam(const char* name, const char* def, std::vector<std::string> choices,
                    const char* help) {
  return {name, ParamType::Enum, def, 0, 0, false, false, std::move(choices), help, false};
}
ParamSpec numParam(const char* name, ParamType type, const char* def, double min, double max,
                   bool minOpen, const char* help, bool live) {
  return {name, type, def, min, max, minOpen, false, {}, help, live};
}

class SobelStage : public Stage {
 public:
  SobelStage() : Stage(sobelStageInfo()) {}

  void validate() const override {
    const int k = params().integer("ksize");
    if (k != 1 && k != 3 && k != 5 && k != 7)
      throw ParamError("ksize", "ksize must be 1, 3, 5 or 7, got " + params().text("ksize"));
    const int v = params().integer("vec");
    if (v != 0 && v != 4 && v != 8 && v != 16)
      throw ParamError("vec", "vec must be 0 (auto), 4, 8 or 16, got " + params().text("vec"));
    if (params().text("kernel") == "direct" && k != 1 && k != 3)
      throw ParamError("kernel", "kernel=direct takes ksize 1 or 3, got ksize " +
                                     params().text("ksize") + " (use kernel=tile)");
    const Size2 wg = params().size("wg");
    if (wg.w * wg.h > 1024)
      throw ParamError("wg", "wg must have at most 1024 work-items, got " + params().text("wg"));
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    validate();
    in_ = in;
    ksize_ = params().integer("ksize");
    wg_ = params().size("wg");
    const bool cpu = ctx.cl.device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU;
    const Schedule def = cpu ? kCpuSchedule : kGpuSchedule;
    const std::string kernelChoice = params().text("kernel");
    direct_ = kernelChoice == "direct" ||
              (kernelChoice == "auto" && std::string(def.kernel) == "direct" && ksize_ <= 3);
    // Pairs of halves (ksize 3, one channel, mag/x/y at scale 1): on NVIDIA by default, where
    // they are instructions; half=on elsewhere runs the same lanes emulated in float.
    const std::string mode = params().text("mode");
    // The f16x2 instructions are inline PTX; min.f16x2 needs compute capability 8.0 or later.
    const bool nvHalf = direct_ && nvidiaComputeCapability(ctx.cl.device()) >= 8;
    const std::string half = params().text("half");
    const bool h2 = direct_ && (half == "on" || (half == "auto" && nvHalf));
    const bool h2Path = h2 && ksize_ == 3 && in.channels() == 1 && mode != "l2";
    const Schedule gpuDirect = h2Path ? kGpuDirectHalf : kGpuDirect;
    vec_ = params().integer("vec") ? params().integer("vec")
           : direct_ && !cpu       ? gpuDirect.vec
                                   : def.vec;
    rows_ = params().integer("rows") ? params().integer("rows")
            : direct_ && !cpu        ? gpuDirect.rows
                                     : def.rows;
    const std::string load = params().text("load") == "auto" ? def.load : params().text("load");

    const std::size_t maxWg = ctx.cl.device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    if (std::size_t(wg_.w) * std::size_t(wg_.h) > maxWg)
      throw UserError("sobel: wg=" + params().text("wg") + " exceeds this device's " +
                      std::to_string(maxWg) + " work-items per group");
    // The local tile, as the kernel lays it out (16 bytes of room on each side for the halo).
    const int r = ksize_ == 1 ? 1 : ksize_ / 2;
    const std::size_t tileBytes =
        direct_ ? 0 : std::size_t(wg_.w * vec_ + 32) * std::size_t(wg_.h * rows_ + 2 * r);
    const std::size_t localMem = ctx.cl.device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    if (tileBytes > localMem)
      throw UserError("sobel: wg=" + params().text("wg") + " with vec=" + std::to_string(vec_) +
                      " and rows=" + std::to_string(rows_) + " needs a " +
                      std::to_string(tileBytes) + "-byte tile; this device has " +
                      std::to_string(localMem) + " bytes of local memory");

    const std::string modeDefine = mode == "l2"  ? "MODE_L2"
                                   : mode == "x" ? "MODE_X"
                                   : mode == "y" ? "MODE_Y"
                                                 : "MODE_MAG";
    const std::string opts =
        "-DKSIZE=" + std::to_string(ksize_) + " -DCH=" + std::to_string(in.channels()) +
        " -DVX=" + std::to_string(vec_) + " -DPY=" + std::to_string(rows_) +
        " -DWGX=" + std::to_string(wg_.w) + " -DWGY=" + std::to_string(wg_.h) + " -D" + modeDefine +
        " -D" + borderDefine(parseBorder(params().text("border"))) +
        (load == "rows" && !direct_ ? " -DLOAD_BY_ROWS" : "") +
        (direct_ && params().text("slide") != "taps" ? " -DSLIDE_PIXELS" : "") +
        (h2 ? " -DH2" : "") + (h2 && nvHalf ? " -DH2_PTX" : "");
    // The direct kernel comes in two programs, scale 1 (EXACT=1: integer-exact paths) and any
    // other scale, both built now so a live scale change swaps kernels without a build; each
    // gets the registers of its own path.
    const char* file = direct_ ? "sobel_gpu.cl" : "sobel.cl";
    const auto build = [&](const std::string& o) {
      return clCall("clCreateKernel(sobel)",
                    [&] { return cl::Kernel(ctx.cl.programs().build(file, o), "sobel"); });
    };
    kernel_ = build(direct_ ? opts + " -DEXACT=1" : opts);
    kernelScaled_ = direct_ ? build(opts + " -DEXACT=0") : cl::Kernel();
    std::size_t fits = kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(ctx.cl.device());
    if (direct_)
      fits = std::min(fits,
                      kernelScaled_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(ctx.cl.device()));
    // The register-heavy direct kernel may run fewer work-items per group than the device.
    if (std::size_t(wg_.w) * std::size_t(wg_.h) > fits)
      throw UserError("sobel: wg=" + params().text("wg") + " exceeds the " + std::to_string(fits) +
                      " work-items per group this device runs the kernel with");
    return in;
  }

  // scale and value are kernel arguments: a new scale only recomputes the four scaled taps (and,
  // with the direct kernel, picks the program for scale 1 or the other one).
  void update() override {
    if (!kernel_()) return;
    // OpenCV scales the smoothing kernel with Mat::convertTo, i.e. float tap * (float)scale.
    const float scale = static_cast<float>(params().number("scale"));
    cl_float4 taps{};
    const auto half = smoothingHalf(ksize_);
    for (std::size_t j = 0; j < half.size(); ++j) taps.s[j] = static_cast<float>(half[j]) * scale;
    scaled_ = scale != 1.0f && kernelScaled_();
    cl::Kernel& k = scaled_ ? kernelScaled_ : kernel_;  // the one enqueue launches
    k.setArg(4, taps);
    k.setArg(5, params().integer("value"));
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    update();  // live parameters, read per frame like the other stages
    cl::Kernel& kernel = scaled_ ? kernelScaled_ : kernel_;
    kernel.setArg(0, in);
    kernel.setArg(1, out);
    kernel.setArg(2, in_.width);
    kernel.setArg(3, in_.height);
    const std::size_t items = (in_.rowBytes() + vec_ - 1) / vec_;
    const std::size_t strips = (std::size_t(in_.height) + rows_ - 1) / rows_;
    const cl::NDRange global(roundUp(items, wg_.w), roundUp(strips, wg_.h));
    cl::Event e = launchKernel(q, kernel, global, cl::NDRange(wg_.w, wg_.h), wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  int ksize_ = 3, vec_ = 16, rows_ = 16;
  bool direct_ = false, scaled_ = false;
  Size2 wg_;
  cl::Kernel kernel_;        // the tile kernel, or the direct kernel at scale 1
  cl::Kernel kernelScaled_;  // the direct kernel at other scales
};

}  // namespace

const StageInfo& sobelStageInfo() {
  static const StageInfo info{
      "sobel",
      "Sobel gradient per channel: |gx|/2 + |gy|/2 (mag), sqrt(gx^2 + gy^2) (l2), |gx| (x) or "
      "|gy| (y), as cv::Sobel(CV_16S) + convertScaleAbs/addWeighted",
      "gray, bgr, bgra -> same",
      {
          enumParam("mode", "mag", {"mag", "l2", "x", "y"},
                    "mag: 0.5*|gx| + 0.5*|gy| (OpenCV tutorial); l2: sqrt(gx^2 + gy^2); "
                    "x: |gx|; y: |gy|"),
          numParam("ksize", ParamType::Int, "3", 1, 7, false,
                   "aperture 1, 3, 5 or 7 (1: [-1 0 1] without smoothing, as cv::Sobel)", false),
          numParam("scale", ParamType::Float, "1", 0, 100, true,
                   "multiplies the gradients before they are saturated to int16", true),
          enumParam("border", "reflect101", borderNames(), "how pixels outside the frame are read"),
          numParam("value", ParamType::Int, "0", 0, 255, false, "border=constant: the value", true),
          numParam("wg", ParamType::Size, "8x4", 1, 1024, false,
                   "schedule: work-group shape in work-items (each vec bytes x rows rows)", false),
          numParam("vec", ParamType::Int, "0", 0, 16, false,
                   "schedule: bytes per work-item, 4, 8 or 16 (0: auto, 16; 8 on GPUs with "
                   "kernel=direct, 16 there with half)",
                   false),
          numParam("rows", ParamType::Int, "0", 0, 16, false,
                   "schedule: rows per work-item (0: auto, 16 on CPUs, 4 on GPUs, 2 on GPUs "
                   "with kernel=direct, 4 there with half)",
                   false),
          enumParam("load", "auto", {"auto", "rows", "items"},
                    "schedule: tile load order, a work-item per tile row (auto on CPUs) or per "
                    "vector (auto on GPUs: coalesced); kernel=tile only"),
          enumParam("kernel", "auto", {"auto", "tile", "direct"},
                    "schedule: tile: local-memory tile, every ksize (auto on CPUs and for ksize "
                    "5, 7); direct: no local memory, rows slide through registers, ksize 1 and 3 "
                    "(auto on GPUs)"),
          enumParam("slide", "auto", {"auto", "pixels", "taps"},
                    "schedule, kernel=direct: what slides down the rows in registers, the source "
                    "pixels (auto) or their horizontal taps"),
          enumParam("half", "auto", {"auto", "on", "off"},
                    "schedule, kernel=direct, ksize 3, one channel, modes mag/x/y at scale 1, "
                    "vec 8 or 16: two pixels per instruction in pairs of 16-bit floats (exact); "
                    "auto: on NVIDIA GPUs of compute capability 8+ (f16x2 instructions); on: "
                    "also elsewhere, emulated in float (slow; for tests); off: never"),
      },
      [] { return std::make_unique<SobelStage>(); }};
  return info;
}

}  // namespace vf
