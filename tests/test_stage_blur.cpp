// blur against cv::GaussianBlur. OpenCV's GaussianBlur takes neither BORDER_WRAP nor a non-zero
// constant, so the reference pads with cv::copyMakeBorder (which takes both) and blurs the
// padded image, keeping the centre; ReferenceEqualsGaussianBlurDirectly checks that this is
// GaussianBlur itself for the modes it accepts.
#include <sys/resource.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/stages/blur_shape.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

struct BlurCase {
  double sigma = 1.5;
  int ksize = 0;
  BorderMode border = BorderMode::Reflect101;
  int value = 0;
  std::string wg = "16x4";  // the default
};

int effectiveKsize(const BlurCase& c) {
  return c.ksize > 0 ? c.ksize : (cvRound(c.sigma * 3 * 2 + 1) | 1);
}

std::string chainText(const BlurCase& c) {
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.17g", c.sigma);
  return std::string("blur=sigma=") + sigma + ":ksize=" + std::to_string(c.ksize) +
         ":border=" + borderName(c.border) + ":value=" + std::to_string(c.value) + ":wg=" + c.wg;
}

std::string describe(const BlurCase& c, const cv::Mat& in) {
  return chainText(c) + " on " + std::to_string(in.cols) + "x" + std::to_string(in.rows) + "x" +
         std::to_string(in.channels());
}

cv::Mat reference(const cv::Mat& src, const BlurCase& c) {
  const int k = effectiveKsize(c), r = k / 2;
  cv::Mat padded, blurred;
  cv::copyMakeBorder(src, padded, r, r, r, r, cvBorderType(c.border), cv::Scalar::all(c.value));
  cv::GaussianBlur(padded, blurred, cv::Size(k, k), c.sigma, c.sigma, cv::BORDER_REPLICATE);
  return blurred(cv::Rect(r, r, src.cols, src.rows)).clone();
}

// Largest difference seen against OpenCV over the whole program (reported at the end).
int gWorst = 0;

void expectMatches(const cv::Mat& in, const BlurCase& c) {
  const cv::Mat out = runChain(chainText(c), in);
  const int d = maxAbsDiff(out, reference(in, c));
  gWorst = std::max(gWorst, d);
  EXPECT_LE(d, 1) << describe(c, in);
}

const std::vector<BorderMode>& allBorders() {
  static const std::vector<BorderMode> b = {BorderMode::Constant, BorderMode::Replicate,
                                            BorderMode::Reflect, BorderMode::Wrap,
                                            BorderMode::Reflect101};
  return b;
}

}  // namespace

TEST(BlurStage, ReferenceEqualsGaussianBlurDirectly) {
  const cv::Mat in = randomFrame(37, 29, CV_8UC3, 5);
  for (BorderMode b :
       {BorderMode::Constant, BorderMode::Replicate, BorderMode::Reflect, BorderMode::Reflect101}) {
    for (int k : {3, 7, 0}) {
      BlurCase c;
      c.ksize = k;
      c.border = b;
      const int ks = effectiveKsize(c);
      cv::Mat direct;
      cv::GaussianBlur(in, direct, cv::Size(ks, ks), c.sigma, c.sigma, cvBorderType(b));
      EXPECT_EQ(maxAbsDiff(direct, reference(in, c)), 0) << describe(c, in);
    }
  }
}

// Every (border, channels) pair is built once (each distinct radius, channel count, border and
// work-group shape is a program: about a second of PoCL compile time, so the matrix is chosen
// to reuse them) with one of these kernels, rotating so each kernel meets several borders and
// every channel count: derived from sigma (11 taps), explicit 3, 5 and 7.
BlurCase matrixCase(BorderMode border, int channelIndex) {
  static const std::pair<double, int> kernels[] = {{1.5, 0}, {0.8, 3}, {1.1, 5}, {2.0, 7}};
  const auto [sigma, ksize] = kernels[(static_cast<int>(border) + channelIndex) % 4];
  BlurCase c;
  c.sigma = sigma;
  c.ksize = ksize;
  c.border = border;
  c.value = border == BorderMode::Constant ? 200 : 0;
  return c;
}

const int kTypes[] = {CV_8UC1, CV_8UC3, CV_8UC4};

TEST(BlurStage, MatchesOpenCVOnRealFrames) {
  for (int index : {0, 120}) {
    for (int ci : {0, 1}) {
      const cv::Mat in = realFrame(index, kTypes[ci]);
      expectMatches(in, BlurCase{});  // defaults: sigma 1.5, ksize 11, reflect101
      BlurCase c = matrixCase(BorderMode::Replicate, ci);
      c.sigma = 2.5;  // another sigma through the same program (taps only)
      expectMatches(in, c);
    }
  }
}

// Every border mode at every small size (1x1 and 2x2 under kernels of 3 to 11 taps fold indices
// several times over) and at 640x480, for each channel count.
TEST(BlurStage, EveryBorderEverySizeUpTo640x480) {
  unsigned seed = 1;
  for (BorderMode b : allBorders()) {
    for (int ci = 0; ci < 3; ++ci) {
      const BlurCase c = matrixCase(b, ci);
      for (const cv::Size sz :
           {cv::Size(1, 1), cv::Size(2, 2), cv::Size(17, 13), cv::Size(640, 480)})
        expectMatches(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c);
      expectMatches(realFrame(200, kTypes[ci], 640, 480), c);
    }
  }
}

TEST(BlurStage, LargeOddFrames) {
  expectMatches(randomFrame(1921, 1081, CV_8UC1, 7), matrixCase(BorderMode::Reflect101, 0));
  expectMatches(realFrame(60, CV_8UC3, 1921, 1081), matrixCase(BorderMode::Wrap, 1));
  BlurCase c = matrixCase(BorderMode::Constant, 2);
  c.value = 255;
  expectMatches(realFrame(60, CV_8UC4, 1921, 1081), c);
}

// Large kernels: the tail of the Gaussian, halos wider than a work-group, tiles that switch to
// narrow types to fit in local memory, and radii larger than the frame.
TEST(BlurStage, LargeKernels) {
  BlurCase c;
  c.sigma = 8;
  c.ksize = 151;
  c.border = BorderMode::Constant;
  c.value = 90;
  expectMatches(randomFrame(17, 13, CV_8UC3, 21), c);
  expectMatches(randomFrame(203, 97, CV_8UC3, 22), c);
  c.border = BorderMode::Wrap;
  expectMatches(randomFrame(203, 97, CV_8UC4, 23), c);
  BlurCase big;
  big.sigma = 50;  // derived ksize 301: the largest radius
  expectMatches(realFrame(30, CV_8UC1, 320, 240), big);
}

// The GPU schedules (kernels/blur_gpu.cl), forced on whatever device runs the tests so CI checks
// them: the fused kernel and the two-pass one with tiles, segments and work-groups that do not
// divide the frame (odd tile sizes, 1-pixel frames, rows not a multiple of 4 bytes, which
// switch the column loads from words to bytes), every border and channel count, radii up to the
// largest the GPU kernels take (16 + 2*ceil4(R*channels) <= 96 elements).
TEST(BlurStage, GpuSchedules) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  const char* schedules[] = {"",  // the default: fused, 128x32 tile, 4 rows x 1 word per item
                             "passes=2,mma=0", "passes=1,vx=16,tw=256,th=16,py=8,wg=64,inner=2",
                             "passes=2,tw=64,th=8,py=2,vx=8,wg=32,mma=0",
                             "passes=1,tw=36,th=6,py=3,vx=4,wg=17,inner=0"};
  unsigned seed = 500;
  int rotate = 0;
  for (const char* sched : schedules) {
    SCOPED_TRACE(std::string("VIDFILTER_BLUR_GPU=") + sched);
    const ScopedEnv env("VIDFILTER_BLUR_GPU", sched);
    // Every border; the channel count rotates with the border and the schedule (each
    // combination is a program build, seconds on PoCL), so every schedule sees all three.
    for (BorderMode b : allBorders()) {
      const int ci = rotate++ % 3;
      const BlurCase c = matrixCase(b, ci);
      for (const cv::Size sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(160, 48)})
        expectMatches(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c);
    }
    expectMatches(realFrame(100, CV_8UC3, 640, 480), matrixCase(BorderMode::Reflect101, 1));
    BlurCase widest;  // the largest radius the GPU kernels take for 4 channels: R = 10
    widest.ksize = 21;
    widest.sigma = 3;
    widest.border = BorderMode::Constant;
    widest.value = 77;
    expectMatches(randomFrame(67, 41, CV_8UC4, seed++), widest);
  }
  // The default GPU schedule on the large odd frame (rows not whole words: byte loads) and
  // another on a 1080p BGRA frame.
  expectMatches(realFrame(60, CV_8UC1, 1921, 1081), matrixCase(BorderMode::Reflect, 0));
  {
    const ScopedEnv env("VIDFILTER_BLUR_GPU", "vx=16,tw=256");
    expectMatches(realFrame(61, CV_8UC4, 1920, 1080), matrixCase(BorderMode::Wrap, 2));
  }
  // Past the GPU kernels' largest radius: the portable kernels of blur.cl with 4-wide vectors.
  BlurCase big;
  big.sigma = 50;
  expectMatches(randomFrame(203, 97, CV_8UC1, seed++), big);
  BlurCase wide;
  wide.ksize = 31;  // R = 15: 16 + 2*48 > 96 for 3 channels
  wide.sigma = 4;
  expectMatches(randomFrame(101, 37, CV_8UC3, seed++), wide);
}

// The fused kernel's border-free copies of the column phase (inner=1, the default: tiles inside
// the row; inner=2: inside the row and the frame's rows; inner=0: none) on frames with interior
// tiles (600x100 and 700x150: tiles inside, at the edges and partly past them), every border
// under inner=2, gray and BGR, against OpenCV and byte for byte against inner=0.
TEST(BlurStage, GpuInteriorTileCopies) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  unsigned seed = 700;
  int n = 0;
  for (BorderMode b : allBorders()) {
    BlurCase c;  // sigma 1.5: 11x11, radius 5
    c.border = b;
    c.value = b == BorderMode::Constant ? 200 : 0;
    const cv::Mat in =
        n++ % 2 ? randomFrame(600, 100, CV_8UC1, seed++) : randomFrame(700, 150, CV_8UC3, seed++);
    cv::Mat none;
    {
      const ScopedEnv env("VIDFILTER_BLUR_GPU", "inner=0");
      none = runChain(chainText(c), in);
    }
    const ScopedEnv env("VIDFILTER_BLUR_GPU", "inner=2");
    expectMatches(in, c);
    EXPECT_EQ(maxAbsDiff(runChain(chainText(c), in), none), 0) << describe(c, in);
  }
}

namespace {

// `in` through the blur of case c under VIDFILTER_BLUR_GPU=schedule: against OpenCV and byte
// for byte against blur_fused (mma=0). For the strip kernels (mma=2, 3) and the tensor-core row
// pass (passes=2 with mma), first that it is the one that runs: a key only it checks, out of range,
// must then be an error (the stage quietly takes blur_fused or blur_rows where they do not
// apply, and would compare blur_fused with itself).
void expectSameAsFused(const cv::Mat& in, const BlurCase& c, const char* schedule) {
  const std::string s = schedule;
  const char* bad = s.rfind("mma=2", 0) == 0 || s.rfind("mma=3", 0) == 0 ? ",nb=17"
                    : s.rfind("passes=2,mma", 0) == 0                    ? ",rg=3"
                                                                         : "";
  if (*bad) {  // a key only the kernel under test checks, out of range
    const ScopedEnv env("VIDFILTER_BLUR_GPU", s + bad);
    EXPECT_THROW(runChain(chainText(c), in), std::exception)
        << schedule << " did not run its kernel: " << describe(c, in);
  }
  cv::Mat fused;
  {
    const ScopedEnv env("VIDFILTER_BLUR_GPU", "mma=0");
    fused = runChain(chainText(c), in);
  }
  const ScopedEnv env("VIDFILTER_BLUR_GPU", schedule);
  SCOPED_TRACE(std::string("VIDFILTER_BLUR_GPU=") + schedule);
  expectMatches(in, c);
  EXPECT_EQ(maxAbsDiff(runChain(chainText(c), in), fused), 0) << describe(c, in);
}

// Under each schedule, every border (constant at 77), radii 1, 2, 5 and 8 and gray, BGR and
// BGRA in turn, on random 1x1, 17x13 and 133x71 frames. Returns the next seed.
unsigned expectSchedulesSameAsFused(std::initializer_list<const char*> schedules, unsigned seed) {
  const int ksizes[] = {3, 5, 0, 17};  // radius 1, 2, 5 (sigma 1.5) and 8 (sigma 3)
  int n = 0;
  for (const char* schedule : schedules) {
    for (BorderMode b : allBorders()) {
      BlurCase c;
      c.border = b;
      c.value = b == BorderMode::Constant ? 77 : 0;
      c.ksize = ksizes[n % 4];
      c.sigma = c.ksize == 17 ? 3 : 1.5;
      const int ci = n++ % 3;
      for (const cv::Size sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(133, 71)})
        expectSameAsFused(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c, schedule);
    }
  }
  return seed;
}

// The largest radius the tensor-core kernels take: 17x17 (radius 8), sigma 3, BORDER_REFLECT.
BlurCase radius8Case() {
  BlurCase c;
  c.ksize = 17;
  c.sigma = 3;
  c.border = BorderMode::Reflect;
  return c;
}

// Real frames under a schedule: the default 11x11 on an unaligned 1921x1081 and a 640x480 gray
// frame, radius8Case() on a 640x480 BGR one.
void expectRealFramesSameAsFused(const char* schedule) {
  expectSameAsFused(realFrame(60, CV_8UC1, 1921, 1081), BlurCase(), schedule);
  expectSameAsFused(realFrame(61, CV_8UC1, 640, 480), BlurCase(), schedule);
  expectSameAsFused(realFrame(62, CV_8UC3, 640, 480), radius8Case(), schedule);
}

}  // namespace

// The tensor-core tile kernel (kernels/blur_mma.cl, mma=1; on NVIDIA GPUs its products are
// mma.sync; on PoCL they run emulated through local memory with the same fragments, so the data
// layout and arithmetic are tested here): every border, gray, BGR and BGRA, radii 1 to 8, three
// tiles (one 16x16 with a single warp), frames from 1x1 to an unaligned real 1921x1081, against
// OpenCV and byte for byte against blur_fused (mma=0).
TEST(BlurStage, GpuTensorCoreKernel) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  const unsigned seed = expectSchedulesSameAsFused(
      {"mma=1", "mma=1,tw=16,th=16,wg=32", "mma=1,tw=240,th=32,wg=128"}, 900);
  expectRealFramesSameAsFused("mma=1");
  BlurCase c = radius8Case();
  expectSameAsFused(randomFrame(320, 96, CV_8UC4, seed), c, "mma=1,tw=240,th=32,wg=128");
}

// The strip kernel (kernels/blur_strip.cl, mma=2: the tile kernel's products with every
// intermediate in registers, windows moved between lanes by shuffles; both emulated on PoCL): every
// border, gray, BGR and BGRA, radii 1 to 8 (row halos 8, 24 and 40 elements), three strip shapes
// (the default, one band per warp; three blocks and two bands, one warp per group; two warps of six
// blocks and four bands: rows carried from band to band), frames from 1x1 to an unaligned real
// 1921x1081 and real frames with strips clear of every edge, one row product per band (the fewest
// blocks each row halo allows), against OpenCV and byte for byte against blur_fused (mma=0).
TEST(BlurStage, GpuStripKernel) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  expectSchedulesSameAsFused({"mma=2", "mma=2,nb=3,th=32,wg=32", "mma=2,nb=6,th=64,wg=64"}, 1100);
  expectRealFramesSameAsFused("mma=2");
  BlurCase c = radius8Case();
  expectSameAsFused(realFrame(63, CV_8UC4, 480, 272), c, "mma=2,nb=6,th=64,wg=64");
  expectSameAsFused(realFrame(64, CV_8UC4, 480, 272), c, "mma=2");  // the default, nb 4
  // One row product per band (the fewest blocks each row halo allows: nb 1 for 8 elements, 2
  // for 24, 3 for 40), with strips clear of the edges.
  expectSameAsFused(realFrame(65, CV_8UC4, 480, 272), c, "mma=2,nb=3");  // R 8 x 4: halo 40
  c.border = BorderMode::Reflect101;
  c.ksize = 0;
  c.sigma = 1.5;                                                         // R 5
  expectSameAsFused(realFrame(66, CV_8UC1, 320, 240), c, "mma=2,nb=1");  // halo 8
  expectSameAsFused(realFrame(67, CV_8UC3, 320, 240), c, "mma=2,nb=2");  // halo 24
}

// The rows-first tensor-core kernel (kernels/blur_slab.cl, mma=3, the default on NVIDIA GPUs of
// compute capability 8+: each product's result fragment is the next one's operand, nothing
// transposed or shuffled; emulated on PoCL): every border, gray, BGR and BGRA, radii 1 to 8 (row
// halos 8, 24 and 40 elements), three strip shapes (the default, whose next-band loads depend on
// the halo and the bands per strip; one set of 16 outputs and two bands per warp, one warp per
// group, without them; two warps of six sets and four bands with them: row sums and loaded words
// carried from band to band), frames from 1x1 to an unaligned real 1921x1081 and real frames with
// strips clear of every edge (rows a multiple of 16 bytes or only of 4), against OpenCV and byte
// for byte against blur_fused (mma=0).
TEST(BlurStage, GpuSlabKernel) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  expectSchedulesSameAsFused(
      {"mma=3", "mma=3,nb=1,th=32,wg=32,pf=0", "mma=3,nb=6,th=64,wg=64,pf=1"}, 1500);
  expectRealFramesSameAsFused("mma=3");
  BlurCase c = radius8Case();
  expectSameAsFused(realFrame(77, CV_8UC4, 480, 272), c, "mma=3,nb=6,th=64,wg=64,pf=1");  // halo 40
  expectSameAsFused(realFrame(78, CV_8UC4, 480, 272), c, "mma=3");
  // Halo 40 with three bands per strip and no next-band loads (the schedules above give pf=0
  // several bands only at halos up to 24).
  expectSameAsFused(realFrame(83, CV_8UC4, 480, 272), c, "mma=3,nb=3,th=48,pf=0");
  c.border = BorderMode::Constant;
  c.value = 77;
  c.ksize = 0;
  c.sigma = 1.5;                                                         // R 5
  expectSameAsFused(realFrame(79, CV_8UC1, 320, 240), c, "mma=3,nb=1");  // halo 8
  expectSameAsFused(realFrame(80, CV_8UC3, 320, 240), c, "mma=3,nb=2");  // halo 24
  // Rows a multiple of 4 bytes but not of 16 (interior strips store their outputs word by
  // word), halos 24 and 40.
  expectSameAsFused(realFrame(81, CV_8UC3, 644, 240), c, "mma=3,th=16");              // n = 1932
  expectSameAsFused(realFrame(82, CV_8UC4, 481, 272), radius8Case(), "mma=3,th=16");  // n = 1924
}

// The rows-first kernel's default strip per frame (slabShape): the tallest strips, then the
// widest, that leave every compute unit 24 warps, here for an H200's 132 (3,168 warps); a given
// nb or th is kept; a device reporting no compute units counts as one.
TEST(BlurStage, SlabShapePerFrame) {
  const auto shape = [](std::size_t n, int h, unsigned units, int nb = -1, int th = -1) {
    const vf::SlabShape s = vf::slabShape(n, h, units, 24, nb, th);
    return std::to_string(s.nb) + "x" + std::to_string(s.th);
  };
  EXPECT_EQ(shape(3840, 2160, 132), "4x32");          // 60 x 34 = 2,040 warps at th 64; 4,080 at 32
  EXPECT_EQ(shape(30720, 4320, 132), "4x64");         // 7680x4320 BGRA: 480 x 68
  EXPECT_EQ(shape(5760, 1080, 132), "4x16");          // 1080p BGR: 3,060 warps at th 32
  EXPECT_EQ(shape(1920, 1080, 132), "2x16");          // 1080p gray: 2,040 at nb 4, th 16
  EXPECT_EQ(shape(1, 1, 132), "1x16");                // never enough: the smallest strip
  EXPECT_EQ(shape(3840, 2160, 0), "4x64");            // one unit: 24 warps suffice
  EXPECT_EQ(shape(3840, 2160, 132, 8), "8x16");       // nb given: only th chosen
  EXPECT_EQ(shape(1920, 1080, 132, -1, 32), "1x32");  // th given: only nb chosen
  EXPECT_EQ(shape(1920, 1080, 132, 3, 48), "3x48");   // both given
}

// The two-pass form's second pass on the tensor cores (kernels/blur_rows_mma.cl, passes=2 with
// mma, the default for passes=2 on NVIDIA; emulated on PoCL), after blur_gpu.cl's column pass:
// every border, gray, BGR and BGRA, radii 1 to 8, frames from 1x1 to an unaligned real
// 1921x1081 (scratch rows not a multiple of 16 bytes: element loads) and real frames whose
// warps lie clear of the edges (16-byte loads; also with rows ending just past a warp's loads,
// a partial last row set and BORDER_CONSTANT), against OpenCV and byte for byte against
// blur_fused.
TEST(BlurStage, GpuTwoPassTensorRows) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  expectSchedulesSameAsFused({"passes=2,mma=1"}, 1300);
  expectRealFramesSameAsFused("passes=2,mma=1");
  BlurCase c = radius8Case();
  expectSameAsFused(realFrame(73, CV_8UC4, 480, 272), c, "passes=2,mma=1");
  // Rows a multiple of 16 bytes ending just past a warp's span (n mod 128 = 8 for the 8-element
  // halo, 40 for the 40-element one: the last warp reads 16-byte words up to the row's end), the
  // last 8-row set partial, BORDER_CONSTANT; and two groups per warp.
  c.border = BorderMode::Constant;
  c.value = 77;
  expectSameAsFused(realFrame(74, CV_8UC4, 490, 270), c, "passes=2,mma=1");  // n = 1960
  BlurCase r5;
  r5.border = BorderMode::Constant;
  r5.value = 200;
  expectSameAsFused(realFrame(75, CV_8UC1, 1032, 270), r5, "passes=2,mma=1");
  expectSameAsFused(realFrame(76, CV_8UC3, 640, 270), r5, "passes=2,mma=1,rg=2");
}

// A bad VIDFILTER_BLUR_GPU names itself and what it takes.
TEST(BlurStage, BadGpuScheduleIsAClearError) {
  const ScopedEnv gpu("VIDFILTER_BLUR_SCHEDULE", "gpu");
  for (const char* bad : {"vx=5",        "tw=12,vx=8",  "nonsense",
                          "py=3,th=64",  "passes=3",    "wg=abc",
                          "tw=-8",       "mma=4",       "mma=0,nb=4",
                          "mma=2,th=24", "mma=2,nb=0",  "mma=2,nb=17",
                          "mma=2,wg=48", "mma=3,th=24", "mma=3,nb=0",
                          "mma=3,nb=17", "mma=3,wg=48", "mma=3,pf=2",
                          "mma=2,pf=1",  "mma=0,pf=0",  "passes=2,mma=1,rg=5"}) {
    const ScopedEnv env("VIDFILTER_BLUR_GPU", bad);
    try {
      runChain("blur", randomFrame(32, 8, CV_8UC1, 3));
      ADD_FAILURE() << "no error for VIDFILTER_BLUR_GPU=" << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("VIDFILTER_BLUR_GPU"), std::string::npos) << e.what();
    }
  }
}

// The schedule must not change the result: work-group shapes that do not divide the frame,
// one-wide and one-high ones, each with its own border and channel count.
TEST(BlurStage, WorkGroupShapes) {
  struct Shape {
    const char* wg;
    int type;
    BorderMode border;
  };
  unsigned seed = 300;
  for (const Shape& sh :
       {Shape{"32x8", CV_8UC1, BorderMode::Reflect}, Shape{"64x4", CV_8UC3, BorderMode::Constant},
        Shape{"8x2", CV_8UC4, BorderMode::Wrap}, Shape{"1x32", CV_8UC3, BorderMode::Replicate}}) {
    for (const cv::Size sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(640, 480)}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, sh.type, seed++);
      for (double sigma : {1.0, 2.0}) {
        BlurCase c;
        c.wg = sh.wg;
        c.border = sh.border;
        c.value = 140;
        c.ksize = 7;
        c.sigma = sigma;
        expectMatches(in, c);
      }
    }
  }
}

// A single bright pixel on a grey background: the output is the background plus the outer
// product of the kernel with itself, centred on the pixel (a shift by one would move the peak;
// a channel mix-up would leak into the other channels).
TEST(BlurStage, ImpulseShowsTheKernelCentred) {
  const int w = 41, h = 31, px = 13, py = 19;  // off-centre, so a flip about the frame shows
  const int ksize = 11;  // the default radius: this program is shared with other tests
  const double sigma = 1.7;
  const cv::Mat k = cv::getGaussianKernel(ksize, sigma, CV_64F);
  for (int type : {CV_8UC1, CV_8UC3}) {
    cv::Mat in(h, w, type, cv::Scalar::all(40));
    in.ptr<uchar>(py)[px * in.channels()] = 240;  // channel 0 only
    const cv::Mat out = runChain("blur=sigma=1.7:ksize=11", in);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < in.channels(); ++ch) {
          double expected = 40;
          const int dy = y - py, dx = x - px;
          if (ch == 0 && std::abs(dy) <= ksize / 2 && std::abs(dx) <= ksize / 2)
            expected += 200 * k.at<double>(dy + ksize / 2) * k.at<double>(dx + ksize / 2);
          const int got = out.ptr<uchar>(y)[x * in.channels() + ch];
          EXPECT_LE(std::abs(got - expected), 1.0)
              << "at (" << x << "," << y << ") channel " << ch << " of " << in.channels();
        }
    // The peak is at the impulse (40 + 200 * 0.234^2 = 51 with these taps).
    cv::Point peak;
    cv::minMaxLoc(out.reshape(1), nullptr, nullptr, nullptr, &peak);
    EXPECT_EQ(peak, cv::Point(px * in.channels(), py));
    EXPECT_GE(int(out.ptr<uchar>(py)[px * in.channels()]), 50);
  }
}

TEST(BlurStage, ConstantImageUnchangedExceptUnderConstantBorder) {
  for (int ci : {0, 1, 2}) {
    const cv::Mat in(23, 19, kTypes[ci], cv::Scalar::all(173));
    for (BorderMode b : allBorders()) {
      BlurCase c = matrixCase(b, ci);
      c.value = 173;  // constant border with the image's own value: unchanged too
      EXPECT_EQ(maxAbsDiff(runChain(chainText(c), in), in), 0) << describe(c, in);
    }
    BlurCase c = matrixCase(BorderMode::Constant, ci);
    c.value = 10;
    const cv::Mat out = runChain(chainText(c), in);
    // The corners darken, the centre (more than a radius from every edge) does not.
    const int r = effectiveKsize(c) / 2;
    EXPECT_LT(int(out.ptr<uchar>(0)[0]), 173 - 30) << describe(c, in);
    const cv::Rect centre(r, r, in.cols - 2 * r, in.rows - 2 * r);
    EXPECT_EQ(maxAbsDiff(out(centre), in(centre)), 0) << describe(c, in);
    EXPECT_LE(maxAbsDiff(out, reference(in, c)), 1);
  }
}

TEST(BlurStage, LiveSigmaChangeRewritesTapsWithoutRebuild) {
  const cv::Mat in = realFrame(10, CV_8UC3, 320, 240);
  Chain chain = Chain::parse("blur=sigma=1:ksize=11");
  runChecked(chain, in);
  const auto before = context().programs().stats();
  chain.stage(0).params().set("sigma", "2.5");
  chain.stage(0).update();
  ASSERT_TRUE(chain.configured());
  BlurCase c;
  c.sigma = 2.5;
  c.ksize = 11;
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), reference(in, c)), 1);
  const auto after = context().programs().stats();
  // Same radius: no program was built, loaded or even looked up.
  EXPECT_EQ(after.builds, before.builds);
  EXPECT_EQ(after.diskHits, before.diskHits);
  EXPECT_EQ(after.memoryHits, before.memoryHits);
}

TEST(BlurStage, LiveSigmaChangeWithDerivedRadiusRebuilds) {
  const cv::Mat in = realFrame(10, CV_8UC1, 320, 240);
  Chain chain = Chain::parse("blur=sigma=1.5");
  runChecked(chain, in);
  chain.stage(0).params().set("sigma", "4");  // ksize 11 -> 25
  chain.stage(0).update();
  ASSERT_TRUE(chain.configured());
  BlurCase c;
  c.sigma = 4;
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), reference(in, c)), 1);
  chain.stage(0).params().set("sigma", "1.5");  // back: a program-cache hit
  const auto before = context().programs().stats();
  chain.stage(0).update();
  EXPECT_EQ(context().programs().stats().memoryHits, before.memoryHits + 1);
  c.sigma = 1.5;
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), reference(in, c)), 1);
}

// Frames already enqueued keep the taps they were enqueued with: the new taps are written in
// queue order, after them.
TEST(BlurStage, LiveChangeDoesNotRaceFramesInFlight) {
  const cv::Mat in = randomFrame(640, 480, CV_8UC1, 77);
  Chain chain = Chain::parse("blur=sigma=0.6:ksize=11");
  chain.configure(context(), view(in).desc());
  const std::size_t bytes = in.total();
  cl::Buffer dIn(context().context(), CL_MEM_READ_WRITE, bytes);
  std::vector<cl::Buffer> dOut;
  const std::vector<double> sigmas = {0.6, 5.0, 0.6, 2.0, 5.0, 1.0};
  cl::CommandQueue& q = queue();
  q.enqueueWriteBuffer(dIn, CL_TRUE, 0, bytes, in.data);
  for (std::size_t f = 0; f < sigmas.size(); ++f) {
    if (f > 0) {
      chain.stage(0).params().set("sigma", std::to_string(sigmas[f]));
      chain.stage(0).update();
    }
    dOut.emplace_back(context().context(), CL_MEM_READ_WRITE, bytes);
    chain.enqueue(q, dIn, dOut.back(), {});
  }
  q.finish();
  for (std::size_t f = 0; f < sigmas.size(); ++f) {
    cv::Mat out(in.size(), in.type());
    q.enqueueReadBuffer(dOut[f], CL_TRUE, 0, bytes, out.data);
    BlurCase c;
    c.sigma = sigmas[f];
    c.ksize = 11;
    EXPECT_LE(maxAbsDiff(out, reference(in, c)), 1) << "frame " << f << " sigma " << sigmas[f];
  }
}

TEST(BlurStage, LiveValueChange) {
  const cv::Mat in = randomFrame(33, 17, CV_8UC3, 8);
  BlurCase c = matrixCase(BorderMode::Constant, 1);
  c.value = 0;
  Chain chain = Chain::parse(chainText(c));
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), reference(in, c)), 1);
  const auto before = context().programs().stats();
  chain.stage(0).params().set("value", "222");
  chain.stage(0).update();
  c.value = 222;
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), reference(in, c)), 1);
  EXPECT_EQ(context().programs().stats().memoryHits, before.memoryHits);
  EXPECT_EQ(context().programs().stats().builds, before.builds);
}

TEST(BlurStage, PositionalSigma) {
  Chain chain = Chain::parse("blur=2");
  EXPECT_DOUBLE_EQ(chain.stage(0).params().number("sigma"), 2.0);
}

TEST(BlurStage, ErrorsNameTheParameter) {
  try {
    Chain::parse("gray,blur=ksize=4");
    FAIL() << "even ksize accepted";
  } catch (const ChainError& e) {
    EXPECT_NE(std::string(e.what()).find("blur: ksize"), std::string::npos) << e.what();
  }
  try {
    Chain::parse("blur=sigma=-1");
    FAIL() << "negative sigma accepted";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(), "blur: sigma must be in (0, 50], got -1");
  }
  EXPECT_THROW(Chain::parse("blur=ksize=153"), ChainError);
  EXPECT_THROW(Chain::parse("blur=border=mirror"), ChainError);
  // A work-group larger than the device allows: a UserError naming wg, at configure time.
  Chain big = Chain::parse("blur=wg=1024x1024");
  const cv::Mat in = randomFrame(16, 16, CV_8UC1, 3);
  try {
    big.configure(context(), view(in).desc());
    FAIL() << "oversized work-group accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("blur: wg"), std::string::npos) << e.what();
  }
}

// Prints the largest difference against OpenCV over every comparison the run made (each one
// already asserts <= 1 on its own).
class WorstDifferenceReport : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("[ blur ] max |vidfilter - OpenCV| over all comparisons in this run: %d\n", gWorst);
  }
};
const auto* const kWorstDifferenceReport =
    ::testing::AddGlobalTestEnvironment(new WorstDifferenceReport);

// Not a unit test (disabled by default; no timing assertions): device time of the two passes at
// 1920x1080 against cv::GaussianBlur's CPU time, measured in the same program.
//   test_stage_blur --gtest_also_run_disabled_tests --gtest_filter='*DISABLED_Bench*'
// VIDFILTER_BLUR_BENCH="sigma=2:ksize=5" sets the chain's parameters, VIDFILTER_BLUR_BENCH_RUNS
// the number of timed runs (default 21). Besides wall-clock
// medians it prints the process CPU time per frame (all threads), which a busy machine
// disturbs less than wall-clock time.
double processCpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-3;
}

TEST(BlurStage, DISABLED_Bench1080p) {
  const char* extra = std::getenv("VIDFILTER_BLUR_BENCH");
  const char* runsEnv = std::getenv("VIDFILTER_BLUR_BENCH_RUNS");
  const int kRuns = runsEnv ? std::max(1, std::atoi(runsEnv)) : 21;
  for (int type : {CV_8UC1, CV_8UC3}) {
    const cv::Mat in = realFrame(60, type, 1920, 1080);
    std::string text = "blur";
    if (extra && *extra) text += std::string("=") + extra;
    Chain chain = Chain::parse(text);
    const auto t0 = std::chrono::steady_clock::now();
    chain.configure(context(), view(in).desc());
    const auto t1 = std::chrono::steady_clock::now();
    cv::Mat out = makeMat(chain.output());
    chain.runOnce(context(), queue(), view(in), view(out));  // warm-up (and first-launch codegen)
    const auto t2 = std::chrono::steady_clock::now();

    // Device-resident frames: kernels only, no transfers.
    cl::CommandQueue& q = queue();
    cl::Buffer dIn(context().context(), CL_MEM_READ_WRITE, in.total() * in.elemSize());
    cl::Buffer dOut(context().context(), CL_MEM_READ_WRITE, in.total() * in.elemSize());
    q.enqueueWriteBuffer(dIn, CL_TRUE, 0, in.total() * in.elemSize(), in.data);
    std::vector<double> rows, cols, both;
    for (int i = 0; i < kRuns; ++i) {
      const ChainRun run = chain.enqueue(q, dIn, dOut, {});
      q.finish();
      const StageEvents& ev = run.stages[0];
      rows.push_back(eventMs(ev.first));
      cols.push_back(eventMs(ev.last));
      const cl_ulong a = ev.first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const cl_ulong b = ev.last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      both.push_back((b - a) * 1e-6);
    }
    double c0 = processCpuMs();
    for (int i = 0; i < kRuns; ++i) chain.enqueue(q, dIn, dOut, {});
    q.finish();
    const double clCpu = (processCpuMs() - c0) / kRuns;

    const auto& p = chain.stage(0).params();
    const int k =
        p.integer("ksize") ? p.integer("ksize") : (cvRound(p.number("sigma") * 6 + 1) | 1);
    std::vector<double> cpu;
    cv::Mat ref;
    c0 = processCpuMs();
    for (int i = 0; i < kRuns; ++i) {
      const auto w0 = std::chrono::steady_clock::now();
      cv::GaussianBlur(in, ref, cv::Size(k, k), p.number("sigma"), p.number("sigma"),
                       cvBorderType(parseBorder(p.text("border"))));
      cpu.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
    }
    const double cvCpu = (processCpuMs() - c0) / kRuns;
    EXPECT_LE(maxAbsDiff(out, ref), 1);

    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf(
        "[ blur ] %s %dx%d ch=%d (configure %.0f ms, first frame %.0f ms)\n"
        "[ blur ]   vidfilter on %s: rows %.3f ms + cols %.3f ms, stage %.3f ms (median of %d); "
        "process CPU %.3f ms/frame\n"
        "[ blur ]   cv::GaussianBlur, %d threads: %.3f ms (median of %d); process CPU %.3f "
        "ms/frame\n",
        chain.str().c_str(), in.cols, in.rows, in.channels(),
        std::chrono::duration<double, std::milli>(t1 - t0).count(),
        std::chrono::duration<double, std::milli>(t2 - t1).count(), context().info().name.c_str(),
        median(rows), median(cols), median(both), kRuns, clCpu, cv::getNumThreads(), median(cpu),
        kRuns, cvCpu);
  }
}
