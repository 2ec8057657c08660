// sobel: gradient magnitude or one derivative, per channel, as cv::Sobel(CV_16S) followed by
// convertScaleAbs / addWeighted (mode=mag, the OpenCV tutorial recipe) or sqrt(gx^2 + gy^2)
// (mode=l2). One kernel reads each tile once and writes the chosen mode; see kernels/sobel.cl.
#include <string>

#include "pipeline/border.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// Output rows per work-item (the "PY" of the kernel). Each work-item re-reads R rows above and
// below its strip, so taller strips waste less; 8 keeps the sliding window in registers.
constexpr int kRowsPerItem = 8;

class SobelStage : public Stage {
 public:
  SobelStage() : Stage(sobelStageInfo()) {}

  void validate() const override {
    const int k = params().integer("ksize");
    if (k != 1 && k != 3 && k != 5 && k != 7)
      throw ParamError("ksize", "ksize must be 1, 3, 5 or 7, got " + params().text("ksize"));
    const Size2 wg = params().size("wg");
    if (wg.w * wg.h > 1024)
      throw ParamError("wg", "wg must have at most 1024 work-items, got " + params().text("wg"));
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    validate();
    in_ = in;
    wg_ = params().size("wg");
    const std::size_t maxWg = ctx.cl.device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    if (std::size_t(wg_.w) * std::size_t(wg_.h) > maxWg)
      throw UserError("sobel: wg=" + params().text("wg") + " exceeds this device's " +
                      std::to_string(maxWg) + " work-items per group");
    const std::string mode = params().text("mode");
    std::string modeDefine = "MODE_MAG";
    if (mode == "l2") modeDefine = "MODE_L2";
    if (mode == "x") modeDefine = "MODE_X";
    if (mode == "y") modeDefine = "MODE_Y";
    const std::string opts = "-DKSIZE=" + std::to_string(params().integer("ksize")) +
                             " -DCH=" + std::to_string(in.channels()) +
                             " -DWGX=" + std::to_string(wg_.w) + " -DWGY=" + std::to_string(wg_.h) +
                             " -DPY=" + std::to_string(kRowsPerItem) + " -D" + modeDefine + " -D" +
                             borderDefine(parseBorder(params().text("border")));
    kernel_ = clCall("clCreateKernel(sobel)", [&] {
      return cl::Kernel(ctx.cl.programs().build("sobel.cl", opts), "sobel");
    });
    return in;
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, in_.width);
    kernel_.setArg(3, in_.height);
    kernel_.setArg(4, static_cast<float>(params().number("scale")));
    kernel_.setArg(5, params().integer("value"));
    const std::size_t rows = (std::size_t(in_.height) + kRowsPerItem - 1) / kRowsPerItem;
    const cl::NDRange global(roundUp(in_.rowBytes(), wg_.w), roundUp(rows, wg_.h));
    cl::Event e = launchKernel(q, kernel_, global, cl::NDRange(wg_.w, wg_.h), wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  Size2 wg_;
  cl::Kernel kernel_;
};

}  // namespace

const StageInfo& sobelStageInfo() {
  static const StageInfo info{
      "sobel",
      "Sobel gradient per channel: |gx|/2 + |gy|/2 (mag), sqrt(gx^2 + gy^2) (l2), |gx| (x) or "
      "|gy| (y), as cv::Sobel(CV_16S) + convertScaleAbs/addWeighted",
      "gray, bgr, bgra -> same",
      {
          {"mode",
           ParamType::Enum,
           "mag",
           0,
           0,
           false,
           false,
           {"mag", "l2", "x", "y"},
           "mag: 0.5*|gx| + 0.5*|gy| (OpenCV tutorial); l2: sqrt(gx^2 + gy^2); x: |gx|; y: |gy|",
           false},
          {"ksize",
           ParamType::Int,
           "3",
           1,
           7,
           false,
           false,
           {},
           "aperture 1, 3, 5 or 7 (1: [-1 0 1] without smoothing, as cv::Sobel)",
           false},
          {"scale",
           ParamType::Float,
           "1",
           0,
           100,
           true,
           false,
           {},
           "multiplies the gradients before they are saturated to int16",
           true},
          {"border", ParamType::Enum, "reflect101", 0, 0, false, false, borderNames(),
           "how pixels outside the frame are read", false},
          {"value",
           ParamType::Int,
           "0",
           0,
           255,
           false,
           false,
           {},
           "border=constant: the value",
           true},
          {"wg",
           ParamType::Size,
           "64x4",
           1,
           1024,
           false,
           false,
           {},
           "work-group shape: x in bytes (channel samples), y in strips of 8 rows",
           false},
      },
      [] { return std::make_unique<SobelStage>(); }};
  return info;
}

}  // namespace vf
