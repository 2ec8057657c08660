// sobel's "slab" kernel (kernels/sobel_slab.cl: the gradients as 8-bit matrix products, on
// NVIDIA's tensor cores; here on PoCL with the products emulated in OpenCL C) against OpenCV:
// every ksize, mode it takes, border and channel count, exact; several strips, warps and rows
// that do not start at whole words; and where it does not run (mode l2, another scale, a fused
// pass), the stage's other kernel gives OpenCV's bytes; and the plan on any device's facts. The
// reference is tests/support/sobel_check.hpp's.
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "pipeline/error.hpp"
#include "pipeline/stages/sobel_params.hpp"
#include "pipeline/stages/sobel_slab.hpp"
#include "tests/support/sobel_check.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {
Config slab(const std::string& mode, int ksize, const std::string& border = "reflect101",
            int value = 0, const std::string& schedule = "kernel=slab") {
  Config c = make(mode, ksize, border, 1, value);
  c.schedule = schedule;
  return c;
}

// The products are integers: every mode the kernel takes is exact.
#define EXPECT_EXACT(in, cfg)                                                             \
  do {                                                                                    \
    const cv::Mat& in_ = (in);                                                            \
    const Config& c_ = (cfg);                                                             \
    EXPECT_EQ(diffToOpenCV(in_, c_), 0) << where(in_, c_);                                \
    EXPECT_EQ(scheduleOf(c_.chain(), in_).rfind("kernel=slab", 0), 0u) << where(in_, c_); \
  } while (0)

std::string scheduleOf(const std::string& text, const cv::Mat& in) {
  Chain chain = Chain::parse(text);
  chain.configure(context(), {in.cols, in.rows, formatOf(in)});
  return chain.stage(0).schedule();
}

const std::vector<std::string> kSlabModes = {"mag", "x", "y"};
}  // namespace

// Every ksize x mode, the border (constant at two values) and the channel count in turn; every
// border at ksize 7 on gray and BGR (whose halo of 9 bytes takes two chunks a row product):
// the small sizes (every pixel near an edge, each strip's words through the border rule) and a
// real 33x21 frame.
TEST(SobelSlab, MatchesOpenCVForEveryKsizeModeAndBorder) {
  struct Border {
    std::string name;
    int value;
  };
  std::vector<Border> borders;
  for (const auto& b : borderNames()) borders.push_back({b, 0});
  borders.push_back({"constant", 77});
  const std::vector<int> types = {CV_8UC1, CV_8UC3, CV_8UC4};
  unsigned seed = 3000;
  std::size_t t = 0;
  const auto check = [&](const Config& c, int type) {
    for (const cv::Size& sz : kSmallSizes)
      EXPECT_EXACT(randomFrame(sz.width, sz.height, type, seed++), c);
    EXPECT_EXACT(realFrame(int(seed++), type, 33, 21), c);
  };
  for (int ksize : {1, 3, 5, 7})
    for (const auto& mode : kSlabModes) {
      const Border& b = borders[t % borders.size()];
      check(slab(mode, ksize, b.name, b.value), types[t++ % types.size()]);
    }
  for (const Border& b : borders) check(slab("mag", 7, b.name, b.value), types[t++ % 2]);
}

// Strips of several bands (the next band's words loaded ahead where the halo is at most 8
// bytes), several sets and warps, frames whose rows do not start at whole words (67 and 131
// bytes) or at 16 bytes (96), one whose height leaves warps past the last strip.
TEST(SobelSlab, MatchesOpenCVOverStripsWarpsAndRowLengths) {
  unsigned seed = 3100;
  EXPECT_EXACT(randomFrame(67, 70, CV_8UC1, seed++),
               slab("mag", 5, "reflect101", 0, "kernel=slab:strip=1x32:warps=2"));
  EXPECT_EXACT(randomFrame(131, 45, CV_8UC1, seed++),
               slab("x", 7, "replicate", 0, "kernel=slab:strip=2x48:warps=3"));
  EXPECT_EXACT(randomFrame(32, 33, CV_8UC3, seed++),
               slab("y", 7, "reflect", 0, "kernel=slab:strip=3x16:warps=1"));
  EXPECT_EXACT(randomFrame(24, 70, CV_8UC4, seed++),
               slab("mag", 5, "reflect101", 0, "kernel=slab:strip=1x64:warps=4"));
  EXPECT_EXACT(realFrame(5, CV_8UC3, 61, 97), slab("mag", 3, "wrap", 0, "kernel=slab:strip=2x32"));
  EXPECT_EXACT(realFrame(6, CV_8UC1, 250, 130), slab("mag", 5, "constant", 255));
  // Four sets x 64 rows in 2 warps, the default on large colour frames: ksize 7 (a window of 3
  // words a set) and ksize 5 with the next band's words loaded ahead.
  EXPECT_EXACT(realFrame(7, CV_8UC3, 133, 90),
               slab("mag", 7, "reflect101", 0, "kernel=slab:strip=4x64:warps=2"));
  EXPECT_EXACT(randomFrame(97, 80, CV_8UC4, seed++),
               slab("mag", 5, "replicate", 0, "kernel=slab:strip=4x64:warps=2:prefetch=on"));
}

// Where the slab kernel does not run, the stage's other kernel does and gives OpenCV's bytes:
// mode l2, a scale other than 1 (also live, back and forth), a fused pass.
TEST(SobelSlab, OtherKernelWhereTheSlabDoesNotRun) {
  const cv::Mat in = realFrame(9, CV_8UC1, 65, 37);
  const Config l2 = slab("l2", 5);
  EXPECT_LE(diffToOpenCV(in, l2), allowed(l2)) << where(in, l2);
  EXPECT_NE(scheduleOf(l2.chain(), in).rfind("kernel=slab", 0), 0u);
  Config scaled = slab("mag", 5);
  scaled.scale = 0.3;
  EXPECT_LE(diffToOpenCV(in, scaled), allowed(scaled)) << where(in, scaled);
  EXPECT_NE(scheduleOf(scaled.chain(), in).rfind("kernel=slab", 0), 0u);

  Chain chain = Chain::parse(slab("x", 7).chain());
  const cv::Mat a = runChecked(chain, in);
  chain.stage(0).params().set("scale", "0.5");
  chain.stage(0).update();
  const cv::Mat b = runChecked(chain, in);
  chain.stage(0).params().set("scale", "1");
  chain.stage(0).update();
  const cv::Mat c = runChecked(chain, in);
  EXPECT_EQ(maxAbsDiff(a, reference(in, make("x", 7))), 0);
  Config half = make("x", 7);
  half.scale = 0.5;
  EXPECT_EQ(maxAbsDiff(b, reference(in, half)), 0);
  EXPECT_EQ(maxAbsDiff(c, a), 0);

  // gray,sobel,hist fused on a GPU's plan: one pass, the sobel's other kernel reading through
  // gray and counting as it stores; the bytes and the histogram are the unfused chain's (whose
  // sobel runs the slab kernel).
  const cv::Mat bgr = realFrame(2, CV_8UC3, 70, 41);
  const auto passes =
      expectSameOver("gray,sobel=ksize=7:kernel=slab:prologue=on,hist", {bgr}, Facts::Gpu);
  EXPECT_EQ(passes.size(), 1u);
}

// The plan, from the device's facts alone: kernel=auto takes the slab kernel for ksize 5 and 7
// in modes mag, x and y on NVIDIA GPUs of compute capability 8+ (mma.sync), strips of 4 sets x
// 64 rows where the frame still gives every compute unit 40 warps so, else of 2 sets whose rows
// the frame sets, 2 warps a group, a pass of its own on large frames; kernel=slab
// elsewhere emulates the products. The slab's schedule values are named where no slab kernel
// runs.
TEST(SobelSlab, PlannedForKsize5And7OnTensorCoreGpus) {
  DeviceFacts nv;
  nv.vendor = Vendor::Nvidia;
  nv.nvidiaCc = 9;
  nv.computeUnits = 132;
  nv.localMemBytes = 48 * 1024;
  nv.maxWorkGroupSize = 1024;
  DeviceFacts older = nv;
  older.nvidiaCc = 7;
  const DeviceFacts& cpu = context(Facts::Device).facts();
  const FrameDesc bgr4k{3840, 2160, PixelFormat::BGR8}, gray1080{1920, 1080, PixelFormat::Gray8};
  const auto plan = [](const std::string& given, const DeviceFacts& f, const FrameDesc& in) {
    const Chain chain = Chain::parse("sobel=" + given);
    return planSobelSlab(chain.stage(0).params(), f, in, in.rowBytes());
  };
  for (int k : {1, 3, 5, 7}) {
    const std::string ksize = "ksize=" + std::to_string(k);
    EXPECT_EQ(plan(ksize, nv, bgr4k).use, k >= 5) << ksize;
    EXPECT_FALSE(plan(ksize, older, bgr4k).use) << ksize;
    EXPECT_FALSE(plan(ksize, cpu, bgr4k).use) << ksize;
    EXPECT_TRUE(plan(ksize + ":kernel=slab", cpu, bgr4k).use) << ksize;
  }
  EXPECT_FALSE(plan("ksize=7:mode=l2", nv, bgr4k).use);
  EXPECT_FALSE(plan("ksize=7:kernel=direct", nv, bgr4k).use);
  EXPECT_EQ(plan("ksize=7", nv, bgr4k).text,
            "kernel=slab strip=4x64 warps=2 prefetch=off products=mma.sync");
  EXPECT_EQ(plan("ksize=5", nv, bgr4k).text,
            "kernel=slab strip=4x64 warps=2 prefetch=on products=mma.sync");
  EXPECT_EQ(plan("ksize=5", nv, FrameDesc{1920, 1080, PixelFormat::BGR8}).text,
            "kernel=slab strip=2x32 warps=2 prefetch=on products=mma.sync");
  EXPECT_EQ(plan("ksize=7:strip=2x0", nv, bgr4k).text,
            "kernel=slab strip=2x64 warps=2 prefetch=off products=mma.sync");
  EXPECT_EQ(plan("ksize=5", nv, gray1080).text,
            "kernel=slab strip=2x16 warps=2 prefetch=off products=mma.sync");
  EXPECT_EQ(plan("ksize=7:strip=1x32:warps=4:prefetch=on", nv, gray1080).text,
            "kernel=slab strip=1x32 warps=4 prefetch=on products=mma.sync");
  EXPECT_EQ(plan("kernel=slab", cpu, gray1080).text.find("products=emulated") != std::string::npos,
            true);
  // More warps than the device's work-groups hold; more than its local memory holds.
  DeviceFacts small = older;
  small.maxWorkGroupSize = 256;
  EXPECT_THROW(plan("ksize=7:kernel=slab:warps=16", small, bgr4k), UserError);
  small.localMemBytes = 16 * 1024;
  EXPECT_THROW(plan("ksize=7:kernel=slab:warps=8:strip=8x16", small, bgr4k), UserError);

  // Past 2560x1440 (ksize 7) and 3840x2160 (ksize 5) the slab kernel keeps a pass of its own, the
  // histograms and point-wise stages after it theirs, unless epilogue=on.
  const auto declines = [&](const std::string& given, int w, int h) {
    const Chain chain = Chain::parse("sobel=" + given);
    const FrameDesc in{w, h, PixelFormat::Gray8};
    const Params& p = chain.stage(0).params();
    return slabDeclinesEpilogue(planSobelSlab(p, nv, in, in.rowBytes()), p, in);
  };
  EXPECT_FALSE(declines("ksize=7", 2560, 1440));
  EXPECT_TRUE(declines("ksize=7", 3840, 2160));
  EXPECT_FALSE(declines("ksize=5", 3840, 2160));
  EXPECT_TRUE(declines("ksize=5", 7680, 4320));
  EXPECT_FALSE(declines("ksize=7:epilogue=on", 7680, 4320));
  EXPECT_FALSE(declines("ksize=7:kernel=direct", 7680, 4320));
  EXPECT_FALSE(declines("ksize=3", 7680, 4320));

  const auto unused = [](const std::string& given, const DeviceFacts& f) {
    const Chain chain = Chain::parse("sobel=" + given);
    const Params& p = chain.stage(0).params();
    const FrameDesc in{640, 480, PixelFormat::BGR8};
    return sobelParamsWithoutEffect(p, planSobel(p, f, in, p.size("wg")),
                                    planSobelSlab(p, f, in, in.rowBytes()).use);
  };
  EXPECT_TRUE(unused("ksize=7:warps=4:strip=1x32", nv).empty());
  const std::vector<std::string> notes = unused("ksize=3:warps=4:prefetch=on", nv);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].rfind("warps=4:", 0), 0u);
  EXPECT_EQ(notes[1].rfind("prefetch=on:", 0), 0u);
  EXPECT_EQ(unused("ksize=5:kernel=slab:mode=l2", nv).size(), 1u);
}
