#include "app/bench/cv_peer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "pipeline/border.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/resize_tables.hpp"

namespace vf::bench {

namespace {

// OpenCV's own choice for ksize = 0 on 8-bit images (createGaussianKernels).
int gaussianKsize(double sigma, int ksize) {
  return ksize > 0 ? ksize : (cvRound(sigma * 3 * 2 + 1) | 1);
}

const char* cvBorderName(int b) {
  switch (b) {
    case cv::BORDER_CONSTANT:
      return "constant";
    case cv::BORDER_REPLICATE:
      return "replicate";
    case cv::BORDER_REFLECT:
      return "reflect";
    case cv::BORDER_WRAP:
      return "wrap";
    default:
      return "reflect101";
  }
}

// OpenCV's filters pad with 0 for BORDER_CONSTANT and refuse BORDER_WRAP; a stage's border may
// be either (constant with any `value`). Then pad explicitly by the filter's radius
// (copyMakeBorder supports both), filter, and take the centre: the centre only reads pixels
// inside the padded image, so the result is exact.
bool needsPadding(const CvStageSpec& spec) {
  return spec.border == cv::BORDER_WRAP || (spec.border == cv::BORDER_CONSTANT && spec.value != 0);
}

template <class M, class F>
void withBorder(const CvStageSpec& spec, int radius, const M& in, M& out, CvScratch<M>& s,
                F&& filter) {
  if (!needsPadding(spec)) {
    filter(in, out, spec.border);
    return;
  }
  cv::copyMakeBorder(in, s.pad, radius, radius, radius, radius, spec.border,
                     cv::Scalar::all(spec.value));
  filter(s.pad, s.tmp, cv::BORDER_REPLICATE);
  out = s.tmp(cv::Rect(radius, radius, in.cols, in.rows));
}

cv::Mat hostView(const cv::Mat& m) { return m; }
cv::Mat hostView(const cv::UMat& u) { return u.getMat(cv::ACCESS_READ); }

template <class M>
void histogram(const M& in, CvScratch<M>& s) {
  cv::split(in, s.planes);
  s.hist.resize(s.planes.size());
  for (std::size_t c = 0; c < s.planes.size(); ++c)
    cv::calcHist(std::vector<M>{s.planes[c]}, {0}, cv::noArray(), s.hist[c], {256}, {0, 256});
}

}  // namespace

std::string CvStageSpec::describe() const {
  char buf[200];
  if (name == "gray") return "cvtColor BGR2GRAY";
  if (name == "blur") {
    const int k = gaussianKsize(sigma, ksize);
    std::snprintf(buf, sizeof buf, "GaussianBlur %dx%d sigma %g %s%s", k, k, sigma,
                  cvBorderName(border), needsPadding(*this) ? " (copyMakeBorder first)" : "");
    return buf;
  }
  if (name == "sobel") {
    std::snprintf(buf, sizeof buf, "Sobel %dx%d CV_16S scale %g %s%s + %s", ksize, ksize, scale,
                  cvBorderName(border), needsPadding(*this) ? " (copyMakeBorder first)" : "",
                  mode == "mag"  ? "convertScaleAbs x2 + addWeighted 0.5/0.5"
                  : mode == "l2" ? "magnitude (float) + convertTo 8U"
                                 : "convertScaleAbs");
    return buf;
  }
  if (name == "hist") return "split + calcHist 256 bins per channel";
  if (name == "resize") {
    static const char* const interps[] = {"nearest", "linear", "cubic", "area"};
    if (size.w == 0)
      std::snprintf(buf, sizeof buf, "resize by %g %s", factor, interps[interp & 3]);
    else
      std::snprintf(buf, sizeof buf, "resize to %dx%d %s", size.w, size.h, interps[interp & 3]);
    return buf;
  }
  if (name == "color") return "cvtColor to " + to;
  if (name == "equalize") return "equalizeHist per channel (split/merge for colour)";
  if (name == "threshold") {
    std::snprintf(buf, sizeof buf, "threshold %g max %g type %d", thresh, maxval, threshType);
    return buf;
  }
  if (name == "crop") {
    std::snprintf(buf, sizeof buf, "Rect view %d,%d %dx%d", x, y, w, h);
    return buf;
  }
  if (autoMode) {
    std::snprintf(buf, sizeof buf, "calcHist + stretch clip %g%% (convertTo per channel)", clip);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "convertTo gain %g bias %g", gain, bias);
  return buf;
}

void checkPeerTakes(const CvStageSpec& spec, const FrameDesc& in) {
  if (spec.name != "resize" || spec.size.w != 0 || spec.size.h != 0) return;
  if (std::lrint(in.width * spec.factor) >= 1 && std::lrint(in.height * spec.factor) >= 1) return;
  const ResizeTarget t = resizeTarget(in.width, in.height, spec.size, spec.factor);
  throw UserError(fmt::format(
      "resize by {:g} makes a {}x{} frame {}x{} (a side of 0 pixels raised to 1), which OpenCV's "
      "resize refuses: there is no peer to time or check it against; bench a larger frame",
      spec.factor, in.width, in.height, t.width, t.height));
}

CvStageSpec cvSpecOf(const Stage& st) {
  CvStageSpec s;
  s.name = st.name();
  const Params& p = st.params();
  const std::string ps = p.str();
  s.text = s.name + (ps.empty() ? "" : "=" + ps);
  auto num = [&](const char* k, double d) { return p.has(k) ? p.number(k) : d; };
  auto text = [&](const char* k, const std::string& d) { return p.has(k) ? p.text(k) : d; };
  if (p.has("border")) s.border = cvBorderType(parseBorder(p.text("border")));
  s.value = static_cast<int>(num("value", 0));
  if (s.name == "gray") {
  } else if (s.name == "blur") {
    s.sigma = num("sigma", 1.5);
    s.ksize = static_cast<int>(num("ksize", 0));
  } else if (s.name == "sobel") {
    s.mode = text("mode", "mag");
    s.ksize = static_cast<int>(num("ksize", 3));
    s.scale = num("scale", 1);
  } else if (s.name == "hist") {
  } else if (s.name == "resize") {
    s.size = p.size("size");
    s.factor = p.number("scale");
    const Interp i = parseInterp(p.text("interp"));
    s.interp = i == Interp::Nearest ? cv::INTER_NEAREST
               : i == Interp::Area  ? cv::INTER_AREA
               : i == Interp::Cubic ? cv::INTER_CUBIC
                                    : cv::INTER_LINEAR;
  } else if (s.name == "crop") {
    s.x = p.integer("x");
    s.y = p.integer("y");
    s.w = p.integer("w");
    s.h = p.integer("h");
  } else if (s.name == "equalize") {
  } else if (s.name == "color") {
    s.to = p.text("to");
  } else if (s.name == "threshold") {
    static const char* const modes[] = {"binary", "binary_inv", "trunc", "tozero", "tozero_inv"};
    const std::string m = p.text("mode");
    s.thresh = p.number("value");
    s.maxval = p.number("maxval");
    s.threshType = m == "otsu" ? cv::THRESH_BINARY | cv::THRESH_OTSU : 0;
    for (int i = 0; i < 5; ++i)
      if (m == modes[i]) s.threshType = i;  // THRESH_BINARY .. THRESH_TOZERO_INV are 0..4
  } else if (s.name == "brightness") {
    s.autoMode = text("mode", "manual") == "auto";
    s.gain = num("gain", 1);
    s.bias = num("bias", 0);
    s.clip = num("clip", 1);
  } else {
    throw UserError("no OpenCV equivalent for stage '" + s.name +
                    "' to time it against; time the chain on the device alone with "
                    "vidfilter bench --table --chains CHAIN");
  }
  return s;
}

template <class M>
void cvApply(const CvStageSpec& spec, const M& in, M& out, CvScratch<M>& s) {
  if (spec.name == "gray") {
    if (in.channels() == 1)
      out = in;
    else
      cv::cvtColor(in, out, in.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
  } else if (spec.name == "blur") {
    const int k = gaussianKsize(spec.sigma, spec.ksize);
    withBorder(spec, k / 2, in, out, s, [&](const M& src, M& dst, int border) {
      cv::GaussianBlur(src, dst, cv::Size(k, k), spec.sigma, spec.sigma, border);
    });
  } else if (spec.name == "sobel") {
    withBorder(spec, std::max(1, spec.ksize / 2), in, out, s, [&](const M& src, M& dst, int b) {
      const bool wantX = spec.mode != "y", wantY = spec.mode != "x";
      if (wantX) cv::Sobel(src, s.gx, CV_16S, 1, 0, spec.ksize, spec.scale, 0, b);
      if (wantY) cv::Sobel(src, s.gy, CV_16S, 0, 1, spec.ksize, spec.scale, 0, b);
      if (spec.mode == "x") {
        cv::convertScaleAbs(s.gx, dst);
      } else if (spec.mode == "y") {
        cv::convertScaleAbs(s.gy, dst);
      } else if (spec.mode == "l2") {
        s.gx.convertTo(s.fx, CV_32F);
        s.gy.convertTo(s.fy, CV_32F);
        cv::magnitude(s.fx, s.fy, s.tmp);
        s.tmp.convertTo(dst, CV_8U);
      } else {  // mag: the OpenCV tutorial's recipe
        cv::convertScaleAbs(s.gx, s.ax);
        cv::convertScaleAbs(s.gy, s.ay);
        cv::addWeighted(s.ax, 0.5, s.ay, 0.5, 0, dst);
      }
    });
  } else if (spec.name == "hist") {
    histogram(in, s);
    out = in;
  } else if (spec.name == "resize") {
    // As the stage: a factor maps coordinates by the factor itself, a size by the sizes' ratio.
    if (spec.size.w == 0 && spec.size.h == 0) {
      cv::resize(in, out, cv::Size(), spec.factor, spec.factor, spec.interp);
    } else {
      const ResizeTarget t = resizeTarget(in.cols, in.rows, spec.size, spec.factor);
      cv::resize(in, out, cv::Size(t.width, t.height), 0, 0, spec.interp);
    }
  } else if (spec.name == "color") {
    const int cn = in.channels();
    if (spec.to == "gray") {
      if (cn == 1)
        out = in;
      else
        cv::cvtColor(in, out, cn == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    } else if (spec.to == "bgr") {
      if (cn == 3)
        out = in;
      else
        cv::cvtColor(in, out, cn == 4 ? cv::COLOR_BGRA2BGR : cv::COLOR_GRAY2BGR);
    } else {
      const M* src = &in;
      if (cn == 4) {  // alpha dropped first, as the stage
        cv::cvtColor(in, s.tmp, cv::COLOR_BGRA2BGR);
        src = &s.tmp;
      }
      cv::cvtColor(*src, out,
                   spec.to == "hsv"   ? cv::COLOR_BGR2HSV
                   : spec.to == "lab" ? cv::COLOR_BGR2Lab
                                      : cv::COLOR_BGR2YUV);
    }
  } else if (spec.name == "equalize" || spec.name == "threshold") {
    // Gray directly; colour per channel, a bgra frame's alpha unchanged (as the stages).
    auto one = [&](const M& src, M& dst) {
      if (spec.name == "equalize")
        cv::equalizeHist(src, dst);
      else
        cv::threshold(src, dst, spec.thresh, spec.maxval, spec.threshType);
    };
    if (in.channels() == 1) {
      one(in, out);
    } else {
      cv::split(in, s.planes);
      for (int c = 0; c < std::min(3, in.channels()); ++c) one(s.planes[c], s.planes[c]);
      cv::merge(s.planes, out);
    }
  } else if (spec.name == "crop") {
    const int w = spec.w ? spec.w : in.cols - spec.x, h = spec.h ? spec.h : in.rows - spec.y;
    out = in(cv::Rect(spec.x, spec.y, w, h));
  } else if (spec.name == "brightness") {
    if (!spec.autoMode) {
      in.convertTo(out, -1, spec.gain, spec.bias);
      return;
    }
    // Per channel (alpha of bgra excepted), N pixels, t = clip% of N: low = the smallest v with
    // cum[v] > t, high = the largest v with more than t pixels >= v; the channel becomes
    // convertTo(255/(high-low), -low*255/(high-low)), or stays when high <= low.
    histogram(in, s);
    const int stretch = in.channels() == 4 ? 3 : in.channels();
    const double n = double(in.total());
    const double t = spec.clip / 100.0 * n;
    for (int c = 0; c < stretch; ++c) {
      const cv::Mat h = hostView(s.hist[c]);
      double cum[256];
      double run = 0;
      for (int v = 0; v < 256; ++v) cum[v] = run += h.at<float>(v);
      int low = 0;
      while (low < 255 && !(cum[low] > t)) ++low;
      int high = 255;
      while (high > 0 && !(n - (high > 0 ? cum[high - 1] : 0) > t)) --high;
      if (high > low) {
        const double gain = 255.0 / (high - low);
        s.planes[c].convertTo(s.planes[c], -1, gain, -low * gain);
      }
    }
    cv::merge(s.planes, out);
  } else {
    throw UserError("no OpenCV equivalent for stage '" + spec.name + "'");
  }
}

template <class M>
std::vector<std::uint32_t> histCounts(const CvScratch<M>& s) {
  std::vector<std::uint32_t> out;
  for (const M& h : s.hist) {
    const cv::Mat m = hostView(h);
    for (int v = 0; v < 256; ++v)
      out.push_back(static_cast<std::uint32_t>(std::lround(m.at<float>(v))));
  }
  return out;
}

template void cvApply<cv::Mat>(const CvStageSpec&, const cv::Mat&, cv::Mat&, CvScratch<cv::Mat>&);
template void cvApply<cv::UMat>(const CvStageSpec&, const cv::UMat&, cv::UMat&,
                                CvScratch<cv::UMat>&);
template std::vector<std::uint32_t> histCounts<cv::Mat>(const CvScratch<cv::Mat>&);
template std::vector<std::uint32_t> histCounts<cv::UMat>(const CvScratch<cv::UMat>&);

}  // namespace vf::bench
