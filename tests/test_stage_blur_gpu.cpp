// blur's GPU kernels against cv::GaussianBlur, byte for byte: the tiled kernel and the slab
// kernel (tensor cores; on PoCL their products run emulated, with the same operands and data
// layout) as the GPU defaults pick them (Facts::Gpu on the test device) and forced, every
// border, radius, strip and real frames. The cases and the reference are
// tests/support/blur_check.hpp's.
#include <opencv2/imgproc.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "tests/support/blur_check.hpp"

using namespace vf;
using namespace vf::test;

// The tiled kernel (kernels/blur_tiled.cl) with tiles that do not divide the frame, 1-pixel
// frames, rows not a multiple of 4 bytes (column loads byte by byte instead of by words), every
// border and channel count, radii up to the largest it takes (radius x channels <= 40).
TEST(BlurStage, GpuDefaultTiledKernelEqualsOpenCV) {
  unsigned seed = 500;
  int rotate = 0;
  for (BorderMode b : allBorders()) {
    for (int round = 0; round < 2; ++round) {
      const int ci = rotate++ % 3;
      const BlurCase c = matrixCase(b, ci);
      for (const cv::Size sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(160, 48)})
        expectExact(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c, Facts::Gpu, "tiled");
    }
  }
  expectExact(realFrame(100, CV_8UC3, 640, 480), matrixCase(BorderMode::Reflect101, 1), Facts::Gpu,
              "tiled");
  BlurCase widest;  // the largest radius the tiled kernel takes for 4 channels: R = 10
  widest.ksize = 21;
  widest.sigma = 3;
  widest.border = BorderMode::Constant;
  widest.value = 77;
  expectExact(randomFrame(67, 41, CV_8UC4, seed++), widest, Facts::Gpu, "tiled");
  expectExact(realFrame(60, CV_8UC1, 1921, 1081), matrixCase(BorderMode::Reflect, 0), Facts::Gpu,
              "tiled");
  expectExact(realFrame(61, CV_8UC4, 1920, 1080), matrixCase(BorderMode::Wrap, 2), Facts::Gpu,
              "tiled");
}

// Past the tiled kernel's reach a GPU runs the cpu kernel with float row sums (row_int=0) on
// vectors of at most 4, as narrow as its local memory asks at radius 150.
TEST(BlurStage, GpuDefaultPastTheTiledKernelsReachEqualsOpenCV) {
  BlurCase big;
  big.sigma = 50;
  const std::string s = expectExact(randomFrame(203, 97, CV_8UC1, 600), big, Facts::Gpu, "cpu");
  EXPECT_NE(s.find("row_int=0"), std::string::npos) << s;
  BlurCase wide;
  wide.ksize = 31;  // R = 15: 15 x 3 > 40
  wide.sigma = 4;
  expectExact(randomFrame(101, 37, CV_8UC3, 601), wide, Facts::Gpu, "cpu");
}

// --- the slab kernel (kernels/blur_slab.cl), the NVIDIA default ------------------------------

// Every border (constant at 77), radii 1, 2, 5 and 8 and gray, BGR and BGRA in turn, on random
// 1x1, 17x13 and 133x71 frames, under three strip shapes: the per-frame default, whose
// next-band loads depend on the halo and the bands per strip; one set of 16 outputs and two
// bands per warp, one warp per group, without them; two warps of six sets and four bands with
// them (row sums and loaded words carried from band to band).
TEST(BlurStage, SlabKernelEqualsOpenCVForEveryBorderRadiusAndStrip) {
  const int ksizes[] = {3, 5, 0, 17};  // radius 1, 2, 5 (sigma 1.5) and 8 (sigma 3)
  unsigned seed = 1500;
  int n = 0;
  for (const char* strip : {"kernel=slab", "kernel=slab:strip=1x32:warps=1:prefetch=off",
                            "kernel=slab:strip=6x64:warps=2:prefetch=on"}) {
    for (BorderMode b : allBorders()) {
      BlurCase c;
      c.border = b;
      c.value = b == BorderMode::Constant ? 77 : 0;
      c.ksize = ksizes[n % 4];
      c.sigma = c.ksize == 17 ? 3 : 1.5;
      c.schedule = strip;
      const int ci = n++ % 3;
      for (const cv::Size sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(133, 71)})
        expectExact(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c, Facts::Device, "slab");
    }
  }
}

// Real frames: the default 11x11 on an unaligned 1921x1081 and a 640x480 gray frame; strips
// clear of every edge at row halos 8, 24 and 40 elements, with one row product per band (the
// fewest sets each halo allows) and with three bands and no next-band loads at halo 40; rows a
// multiple of 4 bytes but not of 16 (interior strips store their outputs word by word).
TEST(BlurStage, SlabKernelEqualsOpenCVOnRealFrames) {
  const auto slab = [](const cv::Mat& in, BlurCase c) {
    expectExact(in, c, Facts::Device, "slab");
  };
  BlurCase def;
  def.schedule = "kernel=slab";
  slab(realFrame(60, CV_8UC1, 1921, 1081), def);
  slab(realFrame(61, CV_8UC1, 640, 480), def);
  slab(realFrame(62, CV_8UC3, 640, 480), radius8Case("kernel=slab"));
  slab(realFrame(77, CV_8UC4, 480, 272), radius8Case("kernel=slab:strip=6x64:warps=2:prefetch=on"));
  slab(realFrame(78, CV_8UC4, 480, 272), radius8Case("kernel=slab"));
  slab(realFrame(83, CV_8UC4, 480, 272), radius8Case("kernel=slab:strip=3x48:prefetch=off"));
  BlurCase r5;  // radius 5
  r5.border = BorderMode::Constant;
  r5.value = 77;
  r5.schedule = "kernel=slab:strip=1x0";
  slab(realFrame(79, CV_8UC1, 320, 240), r5);  // halo 8
  r5.schedule = "kernel=slab:strip=2x0";
  slab(realFrame(80, CV_8UC3, 320, 240), r5);  // halo 24
  r5.schedule = "kernel=slab:strip=0x16";
  slab(realFrame(81, CV_8UC3, 644, 240), r5);                                     // n = 1932
  slab(realFrame(82, CV_8UC4, 481, 272), radius8Case("kernel=slab:strip=0x16"));  // n = 1924
}

namespace {

// Slab kernel cases on random frames (seeds from `seed`), each exact against OpenCV: the blur's
// ksize and sigma, frame type, border (constant at 31), size and slab parameters.
struct SlabCase {
  int ksize;
  double sigma;
  int type;
  BorderMode border;
  cv::Size size;
  const char* schedule;
};

void expectSlabCases(std::initializer_list<SlabCase> cases, unsigned seed) {
  for (const SlabCase& l : cases) {
    BlurCase c;
    c.ksize = l.ksize;
    c.sigma = l.sigma;
    c.border = l.border;
    c.value = l.border == BorderMode::Constant ? 31 : 0;
    c.schedule = std::string("kernel=slab:") + l.schedule;
    expectExact(randomFrame(l.size.width, l.size.height, l.type, seed++), c, Facts::Device, "slab");
  }
}

}  // namespace

// Radii past 8: the column window holds more pairs of slabs (radius 12: 4 pairs; 18: 4; 30: 6;
// 60: 10; 72: 10) and the row products more chunks (past 17 operands they are read from local
// memory: radius 72 on BGR, 19; and on request); one-band strips, so every strip of these small
// frames fills its window first, and strips clear of every edge (the plain loads) on rows of odd
// lengths, every border in turn.
TEST(BlurStage, SlabKernelEqualsOpenCVForLargeRadii) {
  expectSlabCases({{25, 4, CV_8UC3, BorderMode::Reflect101, {97, 83}, "strip=1x16"},
                   {37, 6, CV_8UC1, BorderMode::Constant, {161, 121}, "strip=2x16:operands=local"},
                   {37, 6, CV_8UC4, BorderMode::Wrap, {45, 37}, "strip=0x0"},
                   {61, 10, CV_8UC3, BorderMode::Replicate, {77, 130}, "strip=1x32"},
                   {121, 20, CV_8UC1, BorderMode::Reflect, {213, 190}, "strip=1x16:operands=local"},
                   {145, 24, CV_8UC3, BorderMode::Reflect101, {451, 40}, "strip=1x16"}},
                  1700);
  BlurCase real;  // the default strip on a real frame
  real.sigma = 6;
  real.schedule = "kernel=slab";
  expectExact(realFrame(90, CV_8UC3, 203, 150), real, Facts::Device, "slab");
}

// The warps of a work-group side by side, loading each band's rows once into local memory
// (share=on) and each warp loading its own (share=off), each where it is not the default:
// radii 1-8 shared and 12, 18 and 30 not, every border, gray, BGR and BGRA,
// one to four warps a group, frames wide and tall enough for groups clear of every edge on rows
// of whole 16-byte vectors, of whole words only and of neither, with the next band's vectors
// loaded ahead (prefetch=on: on rows of whole vectors; elsewhere it loads as the band starts),
// and on a real frame.
TEST(BlurStage, SlabKernelSharedAndOwnRowLoadsEqualOpenCV) {
  expectSlabCases(
      {{3, 0.8, CV_8UC1, BorderMode::Reflect101, {160, 80}, "share=on:strip=1x16:warps=2"},
       {0, 1.5, CV_8UC3, BorderMode::Constant, {172, 70}, "share=on:strip=2x32:warps=3"},
       {17, 3, CV_8UC1, BorderMode::Replicate, {333, 61}, "share=on:strip=1x16:warps=4"},
       {5, 1.1, CV_8UC4, BorderMode::Reflect, {131, 50}, "share=on:prefetch=on:strip=3x32:warps=2"},
       {17,
        3,
        CV_8UC3,
        BorderMode::Constant,
        {320, 110},
        "share=on:prefetch=on:strip=2x48:warps=3"},
       {0, 1.5, CV_8UC1, BorderMode::Wrap, {256, 100}, "share=on:prefetch=on:strip=1x32:warps=2"},
       {9, 2, CV_8UC3, BorderMode::Wrap, {95, 66}, "share=on:strip=1x16:warps=1"},
       {25, 4, CV_8UC3, BorderMode::Reflect101, {300, 90}, "share=off:strip=1x16"},
       {61, 10, CV_8UC1, BorderMode::Constant, {203, 150}, "share=off:strip=1x32:warps=2"},
       {37, 6, CV_8UC4, BorderMode::Wrap, {97, 71}, "share=off"}},
      1800);
  BlurCase real;
  real.sigma = 6;
  real.schedule = "kernel=slab:share=on:strip=1x16:warps=1";
  expectExact(realFrame(91, CV_8UC3, 517, 203), real, Facts::Device, "slab");
}

// --- schedule parameters --------------------------------------------------------------------
