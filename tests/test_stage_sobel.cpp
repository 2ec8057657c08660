// sobel against OpenCV: gx/gy = cv::Sobel(src, CV_16S, ...), then convertScaleAbs (x, y),
// addWeighted(|gx|, 0.5, |gy|, 0.5, 0) (mag) or round(sqrt(gx^2 + gy^2)) saturated (l2).
//
// Every distinct (mode, ksize, border, channels, schedule) is a separate OpenCL program, and on
// PoCL a build costs about half a second of CPU, so the tests share programs (33 in all): the
// full border x mode matrix runs at ksize 3 on gray frames, the other apertures under a subset
// of modes and borders, and the other tests reuse those configurations wherever they can.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <opencv2/imgproc.hpp>

#include "pipeline/border.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

const std::vector<std::string> kModes = {"mag", "l2", "x", "y"};

struct Config {
  std::string mode = "mag";
  int ksize = 3;
  double scale = 1;
  std::string border = "reflect101";
  int value = 0;
  std::string schedule;  // e.g. "wg=7x3:vec=4:rows=2:load=items"; empty: the defaults

  std::string chain() const {
    char s[64];
    std::snprintf(s, sizeof s, "%.17g", scale);
    std::string c = "sobel=mode=" + mode + ":ksize=" + std::to_string(ksize) + ":scale=" + s +
                    ":border=" + border + ":value=" + std::to_string(value);
    if (!schedule.empty()) c += ":" + schedule;
    return c;
  }
};

Config make(const std::string& mode, int ksize = 3, const std::string& border = "reflect101",
            double scale = 1, int value = 0) {
  Config c;
  c.mode = mode;
  c.ksize = ksize;
  c.border = border;
  c.scale = scale;
  c.value = value;
  return c;
}

// cv::Sobel into CV_16S. OpenCV's filters reject BORDER_WRAP and pad only with zeros under
// BORDER_CONSTANT, so those two are built by padding first (copyMakeBorder takes both) and
// cropping the centre; 3 pixels of padding cover the largest aperture.
cv::Mat gradient(const cv::Mat& src, int dx, int dy, const Config& c) {
  const int cvBorder = cvBorderType(parseBorder(c.border));
  cv::Mat g;
  if (c.border == "wrap" || (c.border == "constant" && c.value != 0)) {
    constexpr int p = 3;
    cv::Mat padded, full;
    cv::copyMakeBorder(src, padded, p, p, p, p, cvBorder, cv::Scalar::all(c.value));
    cv::Sobel(padded, full, CV_16S, dx, dy, c.ksize, c.scale, 0, cv::BORDER_REPLICATE);
    g = full(cv::Rect(p, p, src.cols, src.rows)).clone();
  } else {
    cv::Sobel(src, g, CV_16S, dx, dy, c.ksize, c.scale, 0, cvBorder);
  }
  return g;
}

cv::Mat reference(const cv::Mat& src, const Config& c) {
  const cv::Mat gx = gradient(src, 1, 0, c), gy = gradient(src, 0, 1, c);
  cv::Mat ax, ay, out;
  if (c.mode == "x") {
    cv::convertScaleAbs(gx, out);
  } else if (c.mode == "y") {
    cv::convertScaleAbs(gy, out);
  } else if (c.mode == "mag") {
    cv::convertScaleAbs(gx, ax);
    cv::convertScaleAbs(gy, ay);
    cv::addWeighted(ax, 0.5, ay, 0.5, 0, out);
  } else {  // l2, from the int16 gradients, rounded to nearest
    out.create(src.size(), src.type());
    const cv::Mat fx = gx.reshape(1), fy = gy.reshape(1);
    cv::Mat fo = out.reshape(1);
    for (int y = 0; y < fx.rows; ++y)
      for (int x = 0; x < fx.cols; ++x) {
        const double a = fx.at<short>(y, x), b = fy.at<short>(y, x);
        fo.at<uchar>(y, x) = cv::saturate_cast<uchar>(std::lround(std::sqrt(a * a + b * b)));
      }
  }
  return out;
}

// Largest difference seen per mode in this process, printed when the program ends: how close a
// device came, beyond the limit each comparison asserts.
struct Observed {
  std::map<std::string, int> maxDiff;
  ~Observed() {
    for (const auto& [mode, d] : maxDiff)
      std::printf("sobel: max difference to OpenCV, mode=%s: %d\n", mode.c_str(), d);
  }
} observed;

// Runs the stage (outputs poisoned, two runs compared) and returns the max difference to OpenCV.
int diffToOpenCV(const cv::Mat& in, const Config& c, Facts facts = Facts::Device) {
  const cv::Mat out = runChain(c.chain(), in, facts);
  EXPECT_EQ(out.type(), in.type());
  const int d = maxAbsDiff(out, reference(in, c));
  int& seen = observed.maxDiff[c.mode];
  seen = std::max(seen, d);
  return d;
}

// x and y are exact (integer taps; with a scale the kernel runs OpenCV's float operations in
// OpenCV's order); mag and l2 within one level (exact on PoCL; a GPU's float arithmetic may
// round a few pixels the other way).
int allowed(const Config& c) { return c.mode == "x" || c.mode == "y" ? 0 : 1; }

std::string where(const cv::Mat& in, const Config& c) {
  return c.chain() + " on " + std::to_string(in.cols) + "x" + std::to_string(in.rows) + "x" +
         std::to_string(in.channels());
}

#define EXPECT_MATCHES(in, cfg)                                      \
  do {                                                               \
    const cv::Mat& in_ = (in);                                       \
    const Config& c_ = (cfg);                                        \
    EXPECT_LE(diffToOpenCV(in_, c_), allowed(c_)) << where(in_, c_); \
  } while (0)

const std::vector<cv::Size> kSmallSizes = {{1, 1}, {2, 2}, {17, 13}};

}  // namespace

// The full border x mode matrix (constant at two values) at ksize 3, at the small sizes where
// every pixel is near an edge, on random gray frames and a small real frame.
TEST(SobelStage, MatchesOpenCVForEveryBorderAndModeAtSmallSizes) {
  unsigned seed = 1;
  for (const auto& border : borderNames())
    for (const auto& mode : kModes)
      for (int value : {0, 77}) {
        if (border != "constant" && value != 0) continue;
        const Config c = make(mode, 3, border, 1, value);
        for (const cv::Size& sz : kSmallSizes)
          EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC1, seed++), c);
        EXPECT_MATCHES(realFrame(7, CV_8UC1, 33, 21), c);
      }
}

// Every aperture on real video frames. l2 checks both gradients at once; x and y check each on
// its own (at ksize 3 and 7). At ksize 5 and 7 a real frame's gradients mostly saturate 8 bits
// at scale 1, so those also run at a scale that keeps them in range (a power of two: the float
// products stay exact). BGR frames: every channel on its own, as OpenCV does.
TEST(SobelStage, MatchesOpenCVOnRealFramesAtEveryKsize) {
  const cv::Mat gray = realFrame(100, CV_8UC1);
  for (const auto& mode : kModes) EXPECT_MATCHES(gray, make(mode));
  for (int k : {1, 5, 7}) EXPECT_MATCHES(gray, make("l2", k));
  EXPECT_MATCHES(gray, make("l2", 5, "reflect101", 0.125));
  for (const char* mode : {"x", "y", "l2"}) {
    EXPECT_MATCHES(gray, make(mode, 7));
    EXPECT_MATCHES(gray, make(mode, 7, "reflect101", 0.0078125));
  }
  const cv::Mat bgr = realFrame(100, CV_8UC3);
  for (const char* mode : {"mag", "l2"}) EXPECT_MATCHES(bgr, make(mode));
}

// The wider halos (2 and 3 pixels, folded more than once at the small sizes) under the border
// modes that fold differently, and ksize 1 (no smoothing) at the small sizes.
TEST(SobelStage, MatchesOpenCVWithWideAperturesUnderFoldingBorders) {
  unsigned seed = 100;
  for (const char* border : {"constant", "wrap", "reflect101"}) {
    const Config c = make("l2", 7, border, 0.03125, 200);
    for (const cv::Size& sz : kSmallSizes)
      EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC1, seed++), c);
    EXPECT_MATCHES(realFrame(3, CV_8UC1, 61, 37), c);
    EXPECT_MATCHES(realFrame(3, CV_8UC1, 640, 480), c);
  }
  for (int k : {1, 5})
    for (const cv::Size& sz : kSmallSizes)
      EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC1, seed++), make("l2", k));
}

// The odd sizes (1x1 ... 1921x1081) on random frames with 1, 3 and 4 channels.
TEST(SobelStage, MatchesOpenCVAtOddSizesForEveryChannelCount) {
  unsigned seed = 200;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3})
      for (const char* mode : {"mag", "l2"})
        EXPECT_MATCHES(randomFrame(sz.width, sz.height, type, seed++), make(mode));
    EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC4, seed++), make("l2"));
  }
}

// The big odd frame under every border (partial tiles at the right and bottom edges).
TEST(SobelStage, MatchesOpenCVOnALargeOddFrameUnderEveryBorder) {
  const cv::Mat gray = realFrame(20, CV_8UC1, 1921, 1081);
  for (const auto& border : borderNames())
    EXPECT_MATCHES(gray, make("l2", 3, border, 1, border == "constant" ? 255 : 0));
  EXPECT_MATCHES(gray, make("l2", 7, "wrap", 0.03125));
}

// The schedule (work-group shape, bytes and rows per work-item, tile load order) never changes
// a pixel. Besides the default on CPUs (8x4 items of 16 bytes x 16 rows, loads by row): the
// GPU default (16 bytes x 4 rows, loads by item) in a square group, 4 bytes x 2 rows in a group
// width that is not a multiple of 3 channels, and 8 bytes x 3 rows in 32 x 2 items.
TEST(SobelStage, TileKernelSchedulesDoNotChangeTheResult) {
  unsigned seed = 300;
  struct Case {
    std::string schedule;
    Config config;
    int type;
  };
  const std::vector<Case> cases = {
      {"wg=16x16:vec=16:rows=4:load=items", make("l2"), CV_8UC1},
      {"wg=7x3:vec=4:rows=2:load=items", make("l2"), CV_8UC3},
      {"wg=32x2:vec=8:rows=3:load=items", make("y", 7, "wrap", 0.0078125), CV_8UC1},
  };
  for (Case t : cases) {
    t.config.schedule = t.schedule;
    for (const cv::Size& sz : kSmallSizes)
      EXPECT_MATCHES(randomFrame(sz.width, sz.height, t.type, seed++), t.config);
    EXPECT_MATCHES(realFrame(30, t.type, 640, 480), t.config);
    EXPECT_MATCHES(randomFrame(1921, 1081, t.type, seed++), t.config);
  }
}

// scale != 1: exact binary fractions and integers, and scales whose products round in float
// (OpenCV scales the float smoothing taps; the kernel does the same operations in the same
// order). Large scales drive the int16 saturation before the absolute value.
TEST(SobelStage, MatchesOpenCVAtScalesOtherThanOne) {
  const cv::Mat gray = realFrame(60, CV_8UC1, 640, 480);
  const cv::Mat bgr = realFrame(60, CV_8UC3, 67, 43);
  for (double scale : {0.5, 2.0, 0.3, 3.7, 100.0, 1e-3, 0.77}) {
    for (const auto& mode : kModes) EXPECT_MATCHES(gray, make(mode, 3, "reflect101", scale));
    for (const char* mode : {"mag", "l2"}) EXPECT_MATCHES(bgr, make(mode, 3, "reflect101", scale));
    EXPECT_MATCHES(gray, make("l2", 5, "reflect101", scale));
    for (const char* mode : {"x", "y"}) EXPECT_MATCHES(gray, make(mode, 7, "reflect101", scale));
  }
}

// int16 saturation at scale 1: a 7x7 gradient of a checkerboard exceeds 32767.
TEST(SobelStage, SaturatesToInt16AsOpenCVDoesAtKsize7) {
  cv::Mat in(32, 32, CV_8UC1);
  for (int y = 0; y < in.rows; ++y)
    for (int x = 0; x < in.cols; ++x) in.at<uchar>(y, x) = ((x / 4 + y / 4) % 2) ? 255 : 0;
  for (const char* mode : {"x", "y", "l2"})
    for (double scale : {1.0, 0.25, 0.01}) EXPECT_MATCHES(in, make(mode, 7, "reflect101", scale));
}

// scale is live: changing it needs no reconfigure (no program rebuild).
TEST(SobelStage, LiveScaleChangeNeedsNoReconfigure) {
  const cv::Mat in = realFrame(10, CV_8UC1, 320, 240);
  Chain chain = Chain::parse("sobel=mode=x");
  const cv::Mat a = runChecked(chain, in);
  chain.stage(0).params().set("scale", "0.3");
  chain.stage(0).update();
  ASSERT_TRUE(chain.configured());
  const cv::Mat b = runChecked(chain, in);
  EXPECT_EQ(maxAbsDiff(a, reference(in, make("x"))), 0);
  EXPECT_EQ(maxAbsDiff(b, reference(in, make("x", 3, "reflect101", 0.3))), 0);
  EXPECT_GT(maxAbsDiff(a, b), 0);
}

namespace {
// A ramp of one level per pixel along x (or y), starting at 40.
cv::Mat ramp(int w, int h, bool horizontal) {
  cv::Mat m(h, w, CV_8UC1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      m.at<uchar>(y, x) = cv::saturate_cast<uchar>(40 + (horizontal ? x : y));
  return m;
}
// The pixels at least `r` from every edge.
cv::Mat inside(const cv::Mat& m, int r) {
  return m(cv::Rect(r, r, m.cols - 2 * r, m.rows - 2 * r));
}
// Number of samples that differ from v.
int countNot(const cv::Mat& m, int v) {
  cv::Mat d;
  cv::absdiff(m, cv::Scalar::all(v), d);
  return cv::countNonZero(d.reshape(1));
}
// The gradient of a unit ramp along it: sum over the taps of offset * derivative tap, times the
// sum of the smoothing taps. ksize 1: [-1 0 1] -> 2; 3: 2 * 4; 5: (2+2+2+2) * 16;
// 7: (3+8+5+5+8+3) * 64 = 2048.
int unitRampGradient(int ksize) {
  switch (ksize) {
    case 1:
      return 2;
    case 3:
      return 8;
    case 5:
      return 128;
    default:
      return 2048;
  }
}
}  // namespace

// A horizontal ramp gives a constant |gx| and zero gy inside; a vertical ramp the opposite. The
// modes output absolute values, so a ramp rising to the right and one falling give the same
// |gx|: both are checked against the analytic value (the sign itself is invisible in 8 bits).
TEST(SobelStage, RampGivesGradientAlongItsDirectionOnly) {
  for (int k : {1, 3, 5, 7}) {
    const int along = std::min(unitRampGradient(k), 255);
    const int r = k == 1 ? 1 : k / 2;
    for (bool horizontal : {true, false}) {
      const cv::Mat up = ramp(64, 48, horizontal);
      cv::Mat down;
      cv::flip(up, down, horizontal ? 1 : 0);  // falling to the right (or downwards)
      for (const cv::Mat& in : {up, down}) {
        const std::string base = "sobel=ksize=" + std::to_string(k) + ":mode=";
        const std::string what = base + " horizontal=" + std::to_string(horizontal);
        // l2 at every aperture (the gradient across is 0, so l2 is the one along) ...
        EXPECT_EQ(countNot(inside(runChain(base + "l2", in), r), along), 0) << what;
        if (k == 1 || k == 5) continue;
        // ... and at 3 and 7 each derivative on its own: x sees a horizontal ramp only.
        const cv::Mat x = runChain(base + "x", in), y = runChain(base + "y", in);
        EXPECT_EQ(countNot(inside(horizontal ? x : y, r), along), 0) << what;
        EXPECT_EQ(countNot(inside(horizontal ? y : x, r), 0), 0) << what;
        if (k == 3) {  // 0.5 * 8 + 0.5 * 0
          EXPECT_EQ(countNot(inside(runChain(base + "mag", in), r), along / 2), 0) << what;
        }
      }
    }
  }
}

// A constant image has no gradient: zero everywhere, except at the edge under border=constant
// when the border value differs from the image (and there only).
TEST(SobelStage, ConstantImageHasNoGradientExceptUnderConstantBorder) {
  const cv::Mat in(37, 29, CV_8UC1, cv::Scalar(100));
  for (const auto& border : borderNames())
    for (const auto& mode : kModes) {
      const std::string chain = "sobel=mode=" + mode + ":border=" + border;
      if (border != "constant") {
        EXPECT_EQ(countNot(runChain(chain, in), 0), 0) << chain;
        continue;
      }
      EXPECT_EQ(countNot(runChain(chain + ":value=100", in), 0), 0) << chain;
      const cv::Mat edge = runChain(chain + ":value=0", in);
      EXPECT_EQ(countNot(inside(edge, 1), 0), 0) << chain;
      // Only the rim: the columns for x (gx), the rows for y, the whole rim for mag and l2.
      const int rim = mode == "x"   ? 2 * in.rows
                      : mode == "y" ? 2 * in.cols
                                    : 2 * (in.cols + in.rows) - 4;
      EXPECT_EQ(countNot(edge, 0), rim) << chain;
      EXPECT_LE(maxAbsDiff(edge, reference(in, make(mode, 3, border))), allowed(make(mode)));
    }
  // The 7x7 aperture reaches 3 pixels in.
  const cv::Mat edge7 =
      runChain("sobel=mode=l2:ksize=7:border=constant:value=200:scale=0.03125", in);
  EXPECT_EQ(countNot(inside(edge7, 3), 0), 0);
  EXPECT_GT(countNot(edge7, 0), 0);
}

TEST(SobelStage, ErrorsNameTheParameter) {
  auto message = [](const std::string& chain) {
    try {
      Chain::parse(chain);
    } catch (const ChainError& e) {
      return e.message();
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message("sobel=ksize=4").find("sobel: ksize"), std::string::npos);
  EXPECT_NE(message("sobel=ksize=4").find("1, 3, 5 or 7"), std::string::npos);
  EXPECT_NE(message("sobel=ksize=9").find("sobel: ksize"), std::string::npos);
  const std::string mode = message("sobel=mode=sideways");
  EXPECT_NE(mode.find("sobel: mode"), std::string::npos) << mode;
  for (const char* m : {"mag", "l2", "x", "y"}) EXPECT_NE(mode.find(m), std::string::npos) << mode;
  EXPECT_NE(message("sobel=border=mirror").find("reflect101"), std::string::npos);
  EXPECT_NE(message("sobel=scale=0").find("sobel: scale"), std::string::npos);
  EXPECT_NE(message("sobel=value=256").find("sobel: value"), std::string::npos);
  EXPECT_NE(message("sobel=wg=64x64").find("sobel: wg"), std::string::npos);
  EXPECT_NE(message("sobel=vec=5").find("sobel: vec"), std::string::npos);
  EXPECT_NE(message("sobel=size=3").find("ksize"), std::string::npos);  // lists the names
  EXPECT_EQ(message("sobel=l2:5:0.5:wrap"), "(no error)");  // positional, in declared order
}

// A GPU's default schedule on the test device: the direct kernel, 8 bytes x 2 rows per
// work-item (the float path: the f16x2 one needs NVIDIA's instructions), every border and mode.
TEST(SobelStage, GpuDefaultScheduleMatchesOpenCV) {
  unsigned seed = 900;
  for (const auto& border : borderNames())
    for (const auto& mode : kModes) {
      const Config c = make(mode, 3, border, 1, border == "constant" ? 77 : 0);
      const cv::Mat in = randomFrame(17, 13, CV_8UC1, seed++);
      EXPECT_LE(diffToOpenCV(in, c, Facts::Gpu), allowed(c)) << where(in, c);
    }
  const cv::Mat bgr = realFrame(5, CV_8UC3, 640, 480);
  EXPECT_LE(diffToOpenCV(bgr, make("mag"), Facts::Gpu), 1) << where(bgr, make("mag"));
  Chain chain = Chain::parse("sobel");
  runChecked(chain, realFrame(5, CV_8UC1, 64, 48), nullptr, Facts::Gpu);
  EXPECT_EQ(chain.stage(0).schedule(), "kernel=direct wg=8x4 vec=16 rows=4 half=off");
}

// --- kernel=direct (kernels/sobel_gpu.cl, the GPU default) ------------------------------------
// The same comparisons against OpenCV, with the direct kernel forced (PoCL picks the tile
// kernel by itself). Its schedules: `vec` bytes (4, 8, 16: the vector loads) x `rows` rows, the
// work-group shape, and what slides down the rows (`slide`: pixels, the default, or taps; each
// has a scale-1 path and a path for other scales); the GPU default is vec=16:rows=4 in 8x4
// groups with slide=pixels for ksize 1 and 3, vec=4:rows=8 for 5 and 7.

namespace {
const std::string kDirectGpuDefault = "kernel=direct:vec=16:rows=8";
const std::string kDirectTaps = "kernel=direct:vec=16:rows=8:slide=taps";

Config direct(const std::string& mode, int ksize = 3, const std::string& border = "reflect101",
              double scale = 1, int value = 0, const std::string& schedule = kDirectGpuDefault) {
  Config c = make(mode, ksize, border, scale, value);
  c.schedule = schedule;
  return c;
}
}  // namespace

// Every border (constant at two values) x every mode at ksize 3 on the small sizes (every pixel
// near an edge: the byte-by-byte path), a small real frame and a 640x480 one (the vector path),
// under rotating schedules: 4, 8 and 16 bytes, 1, 3, 5 and 8 rows, groups 8x4, 5x3, 32x1 and
// 16x2, both slides.
TEST(SobelStage, DirectKernelMatchesOpenCVForEveryBorderAndMode) {
  const std::vector<std::string> schedules = {kDirectGpuDefault,
                                              "kernel=direct:vec=4:rows=3:wg=5x3:slide=taps",
                                              "kernel=direct:vec=8:rows=1:wg=32x1", kDirectTaps,
                                              "kernel=direct:vec=8:rows=5:wg=16x2:slide=pixels"};
  unsigned seed = 1000;
  std::size_t n = 0;
  for (const auto& border : borderNames())
    for (const auto& mode : kModes)
      for (int value : {0, 77}) {
        if (border != "constant" && value != 0) continue;
        const Config c = direct(mode, 3, border, 1, value, schedules[n++ % schedules.size()]);
        for (const cv::Size& sz : kSmallSizes)
          EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC1, seed++), c);
        EXPECT_MATCHES(realFrame(7, CV_8UC1, 33, 21), c);
        EXPECT_MATCHES(realFrame(8, CV_8UC1, 640, 480), c);
      }
}

// ksize 1 (no smoothing) in every mode, on small random frames and a real frame, gray and BGR;
// both slides (taps under mag and l2, which read both gradients).
TEST(SobelStage, DirectKernelMatchesOpenCVAtKsize1) {
  unsigned seed = 1100;
  for (const auto& [mode, schedule] :
       std::vector<std::pair<std::string, std::string>>{{"mag", kDirectGpuDefault},
                                                        {"l2", kDirectGpuDefault},
                                                        {"x", kDirectGpuDefault},
                                                        {"y", kDirectGpuDefault},
                                                        {"mag", kDirectTaps},
                                                        {"l2", kDirectTaps}}) {
    const Config c = direct(mode, 1, "reflect101", 1, 0, schedule);
    for (const cv::Size& sz : kSmallSizes)
      EXPECT_MATCHES(randomFrame(sz.width, sz.height, CV_8UC1, seed++), c);
    EXPECT_MATCHES(realFrame(100, CV_8UC1), c);
    EXPECT_MATCHES(realFrame(100, CV_8UC3, 641, 479), c);
  }
}

// Real video frames, gray and BGR, every mode, at the GPU default schedule; and the odd sizes
// with 1, 3 and 4 channels (1921x1081: rows that do not start 16-byte aligned).
TEST(SobelStage, DirectKernelMatchesOpenCVOnRealFramesAndOddSizes) {
  for (const auto& mode : kModes) EXPECT_MATCHES(realFrame(100, CV_8UC1), direct(mode));
  for (const char* mode : {"mag", "l2"}) EXPECT_MATCHES(realFrame(100, CV_8UC3), direct(mode));
  unsigned seed = 1200;
  for (const auto& sz : oddSizes())
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4})
      for (const char* mode : {"mag", "l2"})
        EXPECT_MATCHES(randomFrame(sz.width, sz.height, type, seed++), direct(mode));
  EXPECT_MATCHES(realFrame(20, CV_8UC1, 1921, 1081), direct("mag", 3, "wrap"));
  EXPECT_MATCHES(realFrame(20, CV_8UC3, 1920, 1080), direct("l2", 3, "constant", 1, 255));
}

// Scales other than 1 take the kernel's unbiased path (OpenCV's roundings in OpenCV's order),
// scale 1 its exact-integer path; both in the same program. Power-of-two scales, scales whose
// products round, and large ones (int16 saturation is invisible after the 8-bit clamp).
TEST(SobelStage, DirectKernelMatchesOpenCVAtScalesOtherThanOne) {
  const cv::Mat gray = realFrame(60, CV_8UC1, 640, 480);
  const cv::Mat bgr = realFrame(60, CV_8UC3, 67, 43);
  for (double scale : {0.5, 2.0, 0.3, 3.7, 100.0, 1e-3, 0.77}) {
    for (const auto& mode : kModes) EXPECT_MATCHES(gray, direct(mode, 3, "reflect101", scale));
    for (const char* mode : {"mag", "l2"}) {
      EXPECT_MATCHES(bgr, direct(mode, 3, "reflect101", scale));
      // slide=taps (its own path for scales other than 1), ksize 3 and 1.
      EXPECT_MATCHES(gray, direct(mode, 3, "reflect101", scale, 0, kDirectTaps));
      EXPECT_MATCHES(gray, direct(mode, 1, "reflect101", scale, 0, kDirectTaps));
    }
    EXPECT_MATCHES(gray, direct("l2", 1, "reflect101", scale));
  }
}

// scale stays live with the direct kernel: 1 (exact path; with half=on the f16x2 one) -> 0.3
// (unbiased path) -> 1 again, without a reconfigure: the stage swaps its two programs.
TEST(SobelStage, DirectKernelLiveScaleSwitchesBetweenItsPrograms) {
  const cv::Mat in = realFrame(10, CV_8UC1, 320, 240);
  for (const auto& [mode, schedule] : std::vector<std::pair<const char*, std::string>>{
           {"mag", kDirectGpuDefault}, {"y", kDirectTaps}, {"mag", "kernel=direct:half=on"}}) {
    Chain chain = Chain::parse(direct(mode, 3, "reflect101", 1, 0, schedule).chain());
    const cv::Mat a = runChecked(chain, in);
    chain.stage(0).params().set("scale", "0.3");
    chain.stage(0).update();
    ASSERT_TRUE(chain.configured());
    const cv::Mat b = runChecked(chain, in);
    chain.stage(0).params().set("scale", "1");
    chain.stage(0).update();
    const cv::Mat c = runChecked(chain, in);
    EXPECT_EQ(maxAbsDiff(a, reference(in, make(mode))), 0) << mode << " " << schedule;
    EXPECT_LE(maxAbsDiff(b, reference(in, make(mode, 3, "reflect101", 0.3))), allowed(make(mode)))
        << mode << " " << schedule;
    EXPECT_EQ(maxAbsDiff(c, a), 0) << mode << " " << schedule;
    EXPECT_GT(maxAbsDiff(a, b), 0) << mode << " " << schedule;
  }
}

// The f16x2 path (half=on; by default on NVIDIA GPUs of compute capability 8+, where the tests
// above run it; elsewhere emulated in float): ksize 3, one channel, mag/x/y at scale 1. Every
// border (constant at two values) x mode on the small sizes (every pixel near an edge) and real
// 33x21 and 640x480 frames; under a third of the combinations also an unaligned real 1921x1081
// (the byte path at the row's end) and a random 1920x1080 frame. 8 and 16 bytes, 1 to 8 rows,
// several group shapes; against OpenCV and byte for byte against half=off (the float path).
TEST(SobelStage, DirectKernelHalfPathMatchesOpenCV) {
  const std::vector<std::string> schedules = {
      "kernel=direct:half=on", "kernel=direct:half=on:vec=16:rows=8",
      "kernel=direct:half=on:vec=8:rows=3:wg=5x3", "kernel=direct:half=on:vec=16:rows=1:wg=32x4",
      "kernel=direct:half=on:vec=8:rows=4:wg=16x8"};
  unsigned seed = 1300;
  std::size_t n = 0;
  for (const auto& border : borderNames())
    for (const char* mode : {"mag", "x", "y"})
      for (int value : {0, 77}) {
        if (border != "constant" && value != 0) continue;
        const std::string schedule = schedules[n++ % schedules.size()];
        const Config on = direct(mode, 3, border, 1, value, schedule);
        Config off = on;
        off.schedule.replace(off.schedule.find("half=on"), 7, "half=off");
        std::vector<cv::Mat> frames = {realFrame(7, CV_8UC1, 33, 21),
                                       realFrame(8, CV_8UC1, 640, 480)};
        // The large frames (slow with the emulated halves) under a third of the combinations.
        if (n % 3 == 1) {
          frames.push_back(realFrame(9, CV_8UC1, 1921, 1081));
          frames.push_back(randomFrame(1920, 1080, CV_8UC1, seed++));
        }
        for (const cv::Size& sz : kSmallSizes)
          frames.push_back(randomFrame(sz.width, sz.height, CV_8UC1, seed++));
        for (const cv::Mat& in : frames) {
          EXPECT_MATCHES(in, on);
          EXPECT_EQ(maxAbsDiff(runChain(on.chain(), in), runChain(off.chain(), in)), 0)
              << where(in, on);
        }
      }
}

// The direct kernel gives the tile kernel's bytes (both follow OpenCV; this catches a
// difference even where OpenCV's reference would allow one level).
TEST(SobelStage, DirectKernelEqualsTileKernelByteForByte) {
  const cv::Mat in = realFrame(40, CV_8UC3, 1920, 1080);
  for (const char* mode : {"mag", "l2"})
    for (double scale : {1.0, 0.3}) {
      Config t = make(mode, 3, "reflect101", scale);
      t.schedule = "kernel=tile";
      const cv::Mat tile = runChain(t.chain(), in);
      for (const std::string& schedule : {kDirectGpuDefault, kDirectTaps})
        EXPECT_EQ(
            maxAbsDiff(tile,
                       runChain(direct(mode, 3, "reflect101", scale, 0, schedule).chain(), in)),
            0)
            << mode << " scale " << scale << " " << schedule;
    }
}

// ksize 5 and 7 on the direct kernel (the GPU default: 2R rows of taps slide down), against
// OpenCV and byte for byte against the tile kernel: every border and mode in turn, scale 1 (the
// exact biased path) and scales whose products round, gray, BGR and BGRA, the small sizes (the
// border path), odd widths whose rows start at every byte of a word (the aligned words and
// permutes), and 4, 8 and 16 bytes per work-item.
TEST(SobelStage, DirectKsize5And7) {
  const std::vector<std::string> schedules = {"kernel=direct", "kernel=direct:vec=8:rows=3",
                                              "kernel=direct:vec=16:rows=2:wg=4x8"};
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  unsigned seed = 1400;
  std::size_t n = 0;
  for (int ksize : {5, 7})
    for (const auto& border : borderNames()) {
      const std::string mode = kModes[n % kModes.size()];
      const double scale = n % 3 == 2 ? 0.3 : 1;
      const int type = types[n % 3];
      Config c = direct(mode, ksize, border, scale, border == "constant" ? 200 : 0,
                        schedules[n % schedules.size()]);
      ++n;
      for (const cv::Size& sz : kSmallSizes)
        EXPECT_MATCHES(randomFrame(sz.width, sz.height, type, seed++), c);
      const cv::Mat odd = realFrame(int(seed++), type, 643, 97);
      EXPECT_MATCHES(odd, c);
      Config t = c;
      t.schedule = "kernel=tile";
      EXPECT_EQ(maxAbsDiff(runChain(t.chain(), odd), runChain(c.chain(), odd)), 0) << where(odd, c);
    }
}

// The direct kernel takes every ksize; the GPU default picks it for 5 and 7 too.
TEST(SobelStage, DirectTakesEveryKsize) {
  EXPECT_NO_THROW(Chain::parse("sobel=kernel=direct:ksize=7"));
  Chain chain = Chain::parse("sobel=ksize=5");
  const cv::Mat in = randomFrame(64, 16, CV_8UC1, 3);
  runChecked(chain, in, nullptr, Facts::Gpu);
  EXPECT_EQ(chain.stage(0).schedule().rfind("kernel=direct wg=8x4 vec=4 rows=8", 0), 0u)
      << chain.stage(0).schedule();
}
