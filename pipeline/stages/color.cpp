// color: conversions as cv::cvtColor on 8-bit frames: to=hsv (H in [0, 180)), lab, yuv from
// bgr or bgra (alpha dropped); to=gray (the gray stage's kernel, COLOR_BGR2GRAY); to=bgr from
// gray or bgra. hsv, lab and yuv frames travel as 3-channel frames ("bgr" in the format list):
// later stages see their three channels as they see B, G, R. The tables OpenCV computes once
// (HSV's divisions, Lab's gamma and cube root) are computed here at configure, as OpenCV does,
// and read by the kernel from constant memory. All exact but lab, within one level for about 1
// value in 10^5 (OpenCV computes those tables in soft float, this stage in double).
#include <cmath>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

int roundEven(double v) { return static_cast<int>(std::lrint(v)); }

// RGB2HSV_b's tables (hsv_shift 12, hue range 180).
void hsvTables(std::vector<int>& sdiv, std::vector<int>& hdiv) {
  sdiv.assign(256, 0);
  hdiv.assign(256, 0);
  for (int i = 1; i < 256; ++i) {
    sdiv[i] = roundEven((255 << 12) / (1. * i));
    hdiv[i] = roundEven((180 << 12) / (6. * i));
  }
}

// initLabTabs' 8-bit tables: the sRGB gamma x 8 (256), the cube root x 2^15 (3072, the
// linear part below 0.008856), and RGB2Lab_b's coefficients (sRGB -> XYZ over D65's white,
// x 2^12), ordered for B, G, R input.
void labTables(std::vector<int>& gamma, std::vector<int>& cbrt, std::vector<int>& coeffs) {
  gamma.resize(256);
  for (int i = 0; i < 256; ++i) {
    const double x = double(float(i) / 255.f);
    const double g = x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
    gamma[i] = roundEven(255. * 8 * g);
  }
  cbrt.resize(3072);
  const float step = 1.f / (255.f * 8);
  for (int i = 0; i < 3072; ++i) {
    const double x = double(step * float(i));
    cbrt[i] =
        std::min(65535, roundEven(32768. * (x < 0.008856 ? x * 7.787 + 16. / 116 : std::cbrt(x))));
  }
  static const double xyz[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160,
                                0.072169, 0.019334, 0.119193, 0.950227};
  static const double white[3] = {0.950456, 1., 1.088754};
  coeffs.resize(9);
  for (int i = 0; i < 3; ++i) {
    // Input is B, G, R: the R coefficient goes last.
    coeffs[i * 3 + 2] = roundEven(4096. * xyz[i * 3 + 0] / white[i]);
    coeffs[i * 3 + 1] = roundEven(4096. * xyz[i * 3 + 1] / white[i]);
    coeffs[i * 3 + 0] = roundEven(4096. * xyz[i * 3 + 2] / white[i]);
  }
}

cl::Buffer constants(ClContext& cl, std::vector<int> v) {
  if (v.empty()) v.push_back(0);
  return clCall("clCreateBuffer(color tables)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(int),
                      v.data());
  });
}

class ColorStage : public Stage {
 public:
  ColorStage() : Stage(colorStageInfo()) {}

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    const std::string to = params().text("to");
    in_ = in;
    if (to == "gray") {
      // The gray stage's kernel (COLOR_BGR2GRAY), gray passing through.
      passthrough_ = in.format == PixelFormat::Gray8;
      if (passthrough_) return in;
      gray_ = grayStageInfo().create();
      return gray_->configure(ctx, in);
    }
    gray_.reset();
    passthrough_ = to == "bgr" && in.format == PixelFormat::BGR8;
    if (passthrough_) return in;
    if (to != "bgr" && in.format == PixelFormat::Gray8)
      throw UserError("color: to=" + to + " needs bgr or bgra input, got gray");
    std::vector<int> a, b, c;
    if (to == "hsv") hsvTables(a, b);
    if (to == "lab") labTables(a, b, c);
    tabA_ = constants(ctx.cl, a);
    tabB_ = constants(ctx.cl, b);
    coeffs_ = constants(ctx.cl, c);
    const std::string define = to == "bgr" ? "TO_BGR" : "TO_" + upper(to);
    kernel_ = clCall("clCreateKernel(color)", [&] {
      return cl::Kernel(
          ctx.cl.programs().build(
              "color.cl", BuildOptions().define("CN_IN", in.channels()).define(define).str()),
          "color");
    });
    wg_ = ctx.cl.facts().cpu ? 64 : 256;
    return {in.width, in.height, PixelFormat::BGR8};
  }

  bool passthrough() const override { return passthrough_; }
  std::string schedule() const override { return gray_ ? gray_->schedule() : ""; }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (passthrough_) return {};
    if (gray_) return gray_->enqueue(q, in, out, wait);
    const int pixels = in_.width * in_.height;
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, pixels);
    kernel_.setArg(3, tabA_);
    kernel_.setArg(4, tabB_);
    kernel_.setArg(5, coeffs_);
    cl::Event e = launchKernel(q, kernel_, cl::NDRange(roundUp(std::size_t(pixels), wg_)),
                               cl::NDRange(wg_), wait);
    return {e, e};
  }

 private:
  static std::string upper(std::string s) {
    for (char& ch : s) ch = static_cast<char>(ch - 'a' + 'A');
    return s;
  }

  FrameDesc in_;
  bool passthrough_ = false;
  std::unique_ptr<Stage> gray_;
  cl::Kernel kernel_;
  cl::Buffer tabA_, tabB_, coeffs_;
  std::size_t wg_ = 256;
};

}  // namespace

const StageInfo& colorStageInfo() {
  static const StageInfo info{
      "color",
      "colour conversion (as cv::cvtColor 8-bit): hsv, lab, yuv, gray, bgr",
      "bgr, bgra -> hsv|lab|yuv|bgr (3 channels), gray; gray -> bgr; bgr to=bgr passes "
      "through; hsv, lab and yuv frames convert no further (a later gray or color is refused)",
      {enumParam("to", "gray", {"hsv", "lab", "yuv", "gray", "bgr"},
                 "target: hsv (H 0-179, S, V), lab (L*255/100, a+128, b+128), yuv (Y, U, V), gray, "
                 "bgr")},
      [] { return std::make_unique<ColorStage>(); }};
  return info;
}

}  // namespace vf
