// sobel's "direct" kernel (kernels/sobel_gpu.cl, the GPU default) against OpenCV, on PoCL as on
// GPUs: every border and mode, ksize 1 to 7, scales, the f16x2 path, and byte for byte against
// the tile kernel. The configurations and the reference are tests/support/sobel_check.hpp's.
#include <array>

#include <opencv2/imgproc.hpp>

#include "tests/support/sobel_check.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

// The same comparisons against OpenCV, with the direct kernel forced (PoCL picks the tile
// kernel by itself). Its schedules: `vec` bytes (4, 8, 16: the vector loads) x `rows` rows, the
// work-group shape, and what slides down the rows (`slide`: pixels, the default, or taps; each
// has a scale-1 path and a path for other scales); the GPU default is vec=16:rows=4 in 8x4
// groups with slide=pixels for ksize 1 and 3, vec=4:rows=8 in 64x4 groups reading their rows
// from local memory (load=local) for 5 and 7.

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
// above run it; elsewhere emulated in float): ksize 3, mag/x/y at scale 1. Every border
// (constant at two values) x mode on the small sizes (every pixel near an edge) and real 33x21
// and 640x480 frames, gray, BGR and BGRA in turn (the neighbours 1, 3 or 4 bytes away); under a
// third of the combinations also an unaligned real 1921x1081 (the byte path at the row's end)
// and a random 1920x1080 frame. 8 and 16 bytes, 1 to 8 rows, several group shapes; against
// OpenCV and byte for byte against half=off (the float path).
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
        const std::string& schedule = schedules[n++ % schedules.size()];
        const int type = std::array<int, 3>{CV_8UC1, CV_8UC3, CV_8UC4}[(n / 3) % 3];
        const Config on = direct(mode, 3, border, 1, value, schedule);
        Config off = on;
        off.schedule.replace(off.schedule.find("half=on"), 7, "half=off");
        std::vector<cv::Mat> frames = {realFrame(7, type, 33, 21), realFrame(8, type, 640, 480)};
        // The large frames (slow with the emulated halves) under a third of the combinations.
        if (n % 3 == 1) {
          frames.push_back(realFrame(9, type, 1921, 1081));
          frames.push_back(randomFrame(1920, 1080, type, seed++));
        }
        for (const cv::Size& sz : kSmallSizes)
          frames.push_back(randomFrame(sz.width, sz.height, type, seed++));
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
// permutes), and 4, 8 and 16 bytes per work-item, 2 to 16 rows.
TEST(SobelStage, DirectKsize5And7) {
  const std::vector<std::string> schedules = {"kernel=direct", "kernel=direct:vec=8:rows=3",
                                              "kernel=direct:vec=16:rows=2:wg=4x8",
                                              "kernel=direct:vec=16:rows=16"};
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  unsigned seed = 1400;
  std::size_t n = 0;
  for (int ksize : {5, 7})
    for (const auto& border : borderNames()) {
      const std::string& mode = kModes[n % kModes.size()];
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
  EXPECT_EQ(chain.stage(0).schedule().rfind("kernel=direct wg=64x4 vec=4 rows=8", 0), 0u)
      << chain.stage(0).schedule();
}

// Rows loaded ahead of the arithmetic (ahead=0, 1, 2: a ring of loaded rows) change no byte:
// every ksize and format, slide=taps and slide=pixels, against OpenCV on small random frames (the
// frame's last rows end a work-item's strip early, inside its ring) and an odd real frame, one
// border per case in rotation.
TEST(SobelStage, DirectRowsLoadedAheadChangeNothing) {
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  const auto& borders = borderNames();
  unsigned seed = 1700;
  std::size_t n = 0;
  for (int ksize : {1, 3, 5, 7})
    for (const char* ahead : {"0", "1", "2"})
      for (const char* slide : {"pixels", "taps"}) {
        if (ksize > 3 && std::string(slide) == "pixels") continue;  // 5 and 7 slide taps
        const std::string& border = borders[n % borders.size()];
        const int type = types[n % 3];
        const std::string schedule = std::string("kernel=direct:vec=") + (n % 2 ? "16" : "4") +
                                     ":rows=5:slide=" + slide + ":ahead=" + ahead;
        const Config c = direct(kModes[n % kModes.size()], ksize, border, n % 4 == 3 ? 0.7 : 1,
                                border == "constant" ? 31 : 0, schedule);
        ++n;
        for (const cv::Size& sz : kSmallSizes)
          EXPECT_MATCHES(randomFrame(sz.width, sz.height, type, seed++), c);
        EXPECT_MATCHES(realFrame(int(seed++), type, 211, 37), c);
      }
}

// On a GPU ksize 5 and 7 read their rows from a local tile, 4 bytes x 8 rows per work-item in
// groups of 64x4, on every size and format; ksize 1 and 3 load their own rows. Rows loaded ahead:
// one for ksize 1 and 3, ksize 5 on 1 and 4 channels and ksize 7 on 4; none otherwise. A
// schedule given in part keeps the rest.
TEST(SobelStage, DirectKsize5And7ReadLocalRowsOnGpus) {
  struct Case {
    const char* chain;
    FrameDesc in;
    const char* schedule;
  };
  const Case cases[] = {
      {"sobel=ksize=7",
       {2000, 1000, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=7",
       {1920, 1080, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=5",
       {3840, 2160, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=7",
       {3840, 2160, PixelFormat::BGRA8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=1 half=off load=local"},
      {"sobel=ksize=7",
       {3000, 2000, PixelFormat::Gray8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=7",
       {1999, 1000, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=7",
       {3840, 2160, PixelFormat::Gray8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=5",
       {1366, 768, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=0 half=off load=local"},
      {"sobel=ksize=5",
       {1366, 768, PixelFormat::BGRA8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=1 half=off load=local"},
      {"sobel=ksize=5",
       {1366, 768, PixelFormat::Gray8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=1 half=off load=local"},
      {"sobel=ksize=7:vec=8:rows=4",
       {3840, 2160, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=8 rows=4 ahead=0 half=off load=local"},
      {"sobel=ksize=7:load=items:wg=16x4",
       {3840, 2160, PixelFormat::BGR8},
       "kernel=direct wg=16x4 vec=4 rows=8 ahead=0 half=off"},
      {"sobel=ksize=5:ahead=2",
       {1366, 768, PixelFormat::BGR8},
       "kernel=direct wg=64x4 vec=4 rows=8 ahead=2 half=off load=local"},
      {"sobel=ksize=3",
       {1366, 768, PixelFormat::BGR8},
       "kernel=direct wg=32x4 vec=16 rows=4 ahead=1 half=off"},
      {"sobel=ksize=3",
       {1366, 768, PixelFormat::Gray8},
       "kernel=direct wg=8x4 vec=16 rows=4 ahead=1 half=off"},
      {"sobel=ksize=1",
       {1366, 768, PixelFormat::BGRA8},
       "kernel=direct wg=8x4 vec=16 rows=4 ahead=1 half=off"},
  };
  for (const Case& c : cases) {
    Chain chain = Chain::parse(c.chain);
    chain.configure(context(Facts::Gpu), c.in);
    EXPECT_EQ(chain.stage(0).schedule(), c.schedule) << c.chain << " on " << c.in.str();
  }
  // A GPU of fewer work-items per group than colour frames' automatic 32x4 runs them in 8x4; a
  // group given that does not fit is still an error.
  DeviceFacts small = context(Facts::Gpu).facts();
  small.maxWorkGroupSize = 64;
  ClContext narrow(context().info(), small);
  Chain chain = Chain::parse("sobel");
  chain.configure(narrow, {1366, 768, PixelFormat::BGR8});
  EXPECT_EQ(chain.stage(0).schedule(), "kernel=direct wg=8x4 vec=16 rows=4 ahead=1 half=off");
  Chain given = Chain::parse("sobel=wg=32x4");
  EXPECT_THROW(given.configure(narrow, {1366, 768, PixelFormat::BGR8}), UserError);
}

// load=local: the work-group loads its rows into local memory once and the work-items read them
// there. Against OpenCV and byte for byte against the direct kernel loading its own rows: every
// ksize, border and format in turn, modes and scales rotating, groups of several shapes (32 and
// 64 wide, narrow, odd), 4, 8 and 16 bytes x 1 to 16 rows, on the small sizes (tiles past both
// ends of the frame), an odd real frame (rows that do not start on a word) and a frame whose rows
// are whole words.
TEST(SobelStage, DirectRowsFromALocalTileMatchOpenCV) {
  const std::vector<std::string> shapes = {"vec=4:rows=8:wg=32x4", "vec=16:rows=16:wg=8x4",
                                           "vec=8:rows=3:wg=5x3", "vec=4:rows=1:wg=64x1",
                                           "vec=16:rows=4:wg=16x8"};
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  const auto& borders = borderNames();
  unsigned seed = 1900;
  std::size_t n = 0;
  for (int ksize : {1, 3, 5, 7})
    for (const auto& border : borders) {
      const int type = types[n % 3];
      const std::string schedule =
          "kernel=direct:load=local:" + shapes[n % shapes.size()] + (n % 2 ? ":slide=taps" : "");
      const Config c = direct(kModes[n % kModes.size()], ksize, border, n % 4 == 3 ? 0.7 : 1,
                              border == "constant" ? 177 : 0, schedule);
      ++n;
      for (const cv::Size& sz : kSmallSizes)
        EXPECT_MATCHES(randomFrame(sz.width, sz.height, type, seed++), c);
      for (const cv::Size& sz : {cv::Size(643, 97), cv::Size(256, 40)}) {
        const cv::Mat in = realFrame(int(seed++), type, sz.width, sz.height);
        EXPECT_MATCHES(in, c);
        Config items = c;
        items.schedule = "kernel=direct:load=items";
        EXPECT_EQ(maxAbsDiff(runChain(items.chain(), in), runChain(c.chain(), in)), 0)
            << where(in, c);
      }
    }
}

// The tile's rows through a prologue (gray,sobel read in one pass) and stores through an
// epilogue that counts (sobel,hist,brightness): the same output and histogram as the chain's
// passes apart.
TEST(SobelStage, DirectRowsFromALocalTileThroughPrologueAndEpilogue) {
  // Fused into fewer passes than the chain apart, with its bytes and side outputs.
  const auto same = [](const std::string& text, const cv::Mat& in, Facts facts) {
    Chain apart = Chain::parse(text);
    apart.setFusion(Chain::Fusion::Off);
    apart.configure(context(facts), viewOf(in).desc());
    return expectSameOver(text, {in}, facts).size() < apart.passes().size();
  };
  for (int ksize : {3, 7}) {
    const std::string sobel =
        "sobel=kernel=direct:load=local:wg=32x4:vec=4:ksize=" + std::to_string(ksize);
    const cv::Mat bgr = realFrame(45, CV_8UC3, 333, 71), gray = realFrame(46, CV_8UC1, 333, 71);
    EXPECT_TRUE(same("gray," + sobel + ":prologue=on", bgr, Facts::Device));
    EXPECT_TRUE(same(sobel + ",hist,brightness=gain=1.5", gray, Facts::Device));
  }
  // The GPU's own schedule: ksize 5 and 7 read local rows in their 64x4 groups, which an epilogue
  // that counts keeps.
  for (int ksize : {5, 7}) {
    const std::string text =
        "sobel=ksize=" + std::to_string(ksize) + ",hist,brightness=gain=0.8:bias=9";
    const auto passes = expectSameOver(text, {realFrame(47, CV_8UC1, 301, 89)}, Facts::Gpu);
    ASSERT_EQ(passes.size(), 1u) << text;
    EXPECT_NE(passes[0].schedule.find("wg=64x4 vec=4 rows=8"), std::string::npos)
        << passes[0].schedule;
    EXPECT_NE(passes[0].schedule.find("load=local"), std::string::npos) << passes[0].schedule;
  }
}
