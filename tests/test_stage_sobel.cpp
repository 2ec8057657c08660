// sobel against OpenCV: gx/gy = cv::Sobel(src, CV_16S, ...), then convertScaleAbs (x, y),
// addWeighted(|gx|, 0.5, |gy|, 0.5, 0) (mag) or round(sqrt(gx^2 + gy^2)) saturated (l2).
//
// Every distinct (mode, ksize, border, channels, schedule) is a separate OpenCL program, and on
// PoCL a build costs about half a second of CPU, so the tests share programs: the
// full border x mode matrix runs at ksize 3 on gray frames, the other apertures under a subset
// of modes and borders, and the other tests reuse those configurations wherever they can.
#include <opencv2/imgproc.hpp>

#include "pipeline/stages/sobel_params.hpp"
#include "tests/support/sobel_check.hpp"

using namespace vf;
using namespace vf::test;

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
  EXPECT_EQ(chain.stage(0).schedule(), "kernel=direct wg=8x4 vec=16 rows=4 ahead=1 half=off");
}

// A schedule value the plan for this device runs without is named (configure warns with these
// lines); the defaults and values that take effect give none.
TEST(SobelStage, ScheduleValuesWithoutEffectAreNamed) {
  const auto unused = [](const std::string& given, Facts facts, PixelFormat format) {
    const Chain chain = Chain::parse("sobel=" + given);
    const Params& p = chain.stage(0).params();
    const FrameDesc in{640, 480, format};
    const DeviceFacts& f = context(facts).facts();
    return sobelParamsWithoutEffect(p, planSobel(p, f, in, p.size("wg")));
  };
  const auto names = [](const std::vector<std::string>& notes, const std::string& what) {
    return notes.size() == 1 && notes[0].rfind(what + ":", 0) == 0;
  };
  const DeviceFacts& cpu = context(Facts::Device).facts();
  ASSERT_TRUE(cpu.cpu) << "the test device is PoCL's CPU device";
  // Every default takes effect, on either device's plan.
  for (const Facts f : {Facts::Device, Facts::Gpu})
    for (const PixelFormat fmt : {PixelFormat::Gray8, PixelFormat::BGR8, PixelFormat::BGRA8})
      for (const char* k : {"ksize=1", "ksize=3", "ksize=5", "ksize=7"})
        EXPECT_TRUE(unused(k, f, fmt).empty()) << k;
  // The tile kernel (the CPU's default) takes neither local rows nor the direct kernel's options.
  EXPECT_TRUE(names(unused("load=local", Facts::Device, PixelFormat::Gray8), "load=local"));
  EXPECT_TRUE(names(unused("slide=taps", Facts::Device, PixelFormat::Gray8), "slide=taps"));
  EXPECT_TRUE(names(unused("ahead=2", Facts::Device, PixelFormat::BGR8), "ahead=2"));
  EXPECT_TRUE(names(unused("half=on", Facts::Device, PixelFormat::Gray8), "half=on"));
  EXPECT_TRUE(unused("load=rows", Facts::Device, PixelFormat::Gray8).empty());
  EXPECT_TRUE(unused("load=items", Facts::Device, PixelFormat::Gray8).empty());
  // The direct kernel: rows order the tile kernel's loads; pixels slide for ksize 1 and 3 only;
  // the f16x2 lanes only where their path applies.
  EXPECT_TRUE(
      names(unused("kernel=direct:load=rows", Facts::Device, PixelFormat::Gray8), "load=rows"));
  EXPECT_TRUE(names(unused("ksize=7:slide=pixels", Facts::Gpu, PixelFormat::BGR8), "slide=pixels"));
  EXPECT_TRUE(unused("ksize=3:slide=pixels", Facts::Gpu, PixelFormat::BGR8).empty());
  EXPECT_TRUE(names(unused("ksize=5:half=on", Facts::Gpu, PixelFormat::Gray8), "half=on"));
  EXPECT_TRUE(unused("half=on", Facts::Gpu, PixelFormat::BGR8).empty());
  EXPECT_TRUE(names(unused("half=on:load=local", Facts::Gpu, PixelFormat::Gray8), "half=on"));
  EXPECT_TRUE(unused("half=on", Facts::Gpu, PixelFormat::Gray8).empty());
  EXPECT_TRUE(unused("kernel=direct:half=on:ahead=0", Facts::Device, PixelFormat::Gray8).empty());
  EXPECT_TRUE(unused("ksize=7:load=items", Facts::Gpu, PixelFormat::BGRA8).empty());
}
