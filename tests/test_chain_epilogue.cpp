// Epilogues (pipeline/fusion.hpp, pipeline/epilogue.hpp): histograms and point-wise stages
// after the direct sobel kernel applied as it stores each byte, as the planner folds them:
// against OpenCV (Sobel, calcHist, convertTo) on real and random frames, odd sizes, every
// border; against the same chain unfused, output and every side output, over several frames
// (the histograms' double buffers) and live changes; and where the planner stops an epilogue.
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "pipeline/epilogue.hpp"
#include "pipeline/stages/histogram_kernel.hpp"
#include "tests/support/sobel_check.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// The histogram of a gray frame as the hist stage's side output holds it: 256 uint.
std::vector<std::uint8_t> cvHistogram(const cv::Mat& gray) {
  std::vector<cl_uint> bins(256, 0);
  for (int y = 0; y < gray.rows; ++y)
    for (int x = 0; x < gray.cols; ++x) ++bins[gray.at<std::uint8_t>(y, x)];
  std::vector<std::uint8_t> bytes(bins.size() * sizeof(cl_uint));
  std::memcpy(bytes.data(), bins.data(), bytes.size());
  return bytes;
}

bool hasEpilogue(const std::vector<Chain::Pass>& passes, const std::string& what) {
  for (const auto& p : passes)
    if (p.schedule.find("epilogue=" + what) != std::string::npos) return true;
  return false;
}

}  // namespace

// The default chain's tail as one pass: sobel, its histogram and brightness, on gray frames of
// odd and even widths through every border: the pixels of convertTo(Sobel) and the histogram
// of the gradients, as OpenCV computes them.
TEST(EpilogueChain, SobelHistBrightnessIsOpenCvs) {
  const cv::Size sizes[] = {{1, 1}, {3, 2}, {17, 13}, {64, 40}, {203, 77}, {640, 480}};
  const char* borders[] = {"reflect101", "replicate", "reflect", "wrap", "constant"};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const char* border : borders) {
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, CV_8UC1, 70 + k)
                               : realFrame(k, CV_8UC1, size.width, size.height);
      Config c;
      c.border = border;
      c.value = 30 + k;
      c.schedule = "kernel=direct";
      ++k;
      const std::string text = c.chain() + ",hist,brightness=gain=1.7:bias=-20";
      SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
      Chain chain = Chain::parse(text);
      chain.setFusion(Chain::Fusion::On);
      std::vector<std::vector<std::uint8_t>> side;
      const cv::Mat out = runChecked(chain, in, &side);
      ASSERT_EQ(chain.passes().size(), 1u);
      EXPECT_TRUE(hasEpilogue(chain.passes(), "hist+brightness"));
      EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"sobel+hist+brightness", "", ""}));
      const cv::Mat grad = reference(in, c);
      cv::Mat ref;
      grad.convertTo(ref, -1, 1.7, -20);
      EXPECT_EQ(maxAbsDiff(out, ref), 0);
      ASSERT_EQ(side.size(), 1u);
      EXPECT_EQ(side[0], cvHistogram(grad));
    }
}

// Every aperture and mode, the f16x2 lanes (emulated here) and the float paths, scale 1 and
// another, 4-, 8- and 16-byte work-items, with a prologue before (gray from BGR and BGRA) and
// without, epilogues of counters and functions in several orders: the same bytes and
// histograms as the chain unfused, over three frames.
TEST(EpilogueChain, EveryPathEqualsTheUnfusedChain) {
  const cv::Size sizes[] = {{2, 3}, {5, 3}, {19, 11}, {67, 29}, {203, 77}};
  const char* modes[] = {"mag", "l2", "x", "y"};
  const char* tails[] = {
      "hist",
      "brightness=gain=0.8:bias=9",
      "hist,brightness=gain=1.5:bias=-30,hist",
      "brightness=gain=-1:bias=255,hist,brightness=gain=2",
  };
  const char* borders[] = {"reflect101", "replicate", "reflect", "wrap", "constant"};
  int k = 0;
  for (const int ksize : {1, 3, 5, 7})
    for (const int vec : {4, 8, 16}) {
      const cv::Size size = sizes[k % 5];
      const int type = k % 3 == 0 ? CV_8UC1 : k % 3 == 1 ? CV_8UC3 : CV_8UC4;
      std::vector<cv::Mat> frames;
      for (int f = 0; f < 3; ++f)
        frames.push_back(f % 2 ? randomFrame(size.width, size.height, type, 500 + 3 * k + f)
                               : realFrame(k + f, type, size.width, size.height));
      const std::string text = std::string(type == CV_8UC1 ? "" : "gray,") +
                               "sobel=kernel=direct:prologue=on:ksize=" + std::to_string(ksize) +
                               ":vec=" + std::to_string(vec) + ":mode=" + modes[k % 4] +
                               ":border=" + borders[k % 5] + ":value=" + std::to_string(60 + k) +
                               ":half=" + (k % 2 ? "on" : "off") +
                               ":scale=" + (k % 5 == 3 ? "0.5" : "1") + "," + tails[k % 4];
      ++k;
      const auto passes = expectSameOver(text, frames);
      ASSERT_EQ(passes.size(), 1u) << text;
      EXPECT_TRUE(hasEpilogue(passes, "")) << text;
    }
}

// With a GPU's facts (the direct kernel by default, 8x4 work-items, the f16x2 lanes where they
// apply): the default chain and its relatives, each as the unfused chain, and the passes the
// default chain plans.
TEST(EpilogueChain, GpuDefaultsEqualTheUnfusedChain) {
  const cv::Mat bgr = realFrame(4, CV_8UC3, 1921, 1081);
  const std::vector<cv::Mat> frames = {bgr, randomFrame(1921, 1081, CV_8UC3, 8)};
  auto passes = expectSameOver("gray,blur,sobel,hist,brightness", frames, Facts::Gpu);
  EXPECT_TRUE(hasEpilogue(passes, "hist+brightness"));
  passes = expectSameOver("gray,sobel,hist,brightness=gain=1.3:bias=-8", frames, Facts::Gpu);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].label, "gray+sobel+hist+brightness");
  passes = expectSameOver("gray,sobel,hist,brightness=mode=auto,hist", frames, Facts::Gpu);
  EXPECT_TRUE(hasEpilogue(passes, "hist"));
  const cv::Mat gray = realFrame(2, CV_8UC1, 1279, 719);
  passes = expectSameOver("blur,sobel=border=wrap,hist,brightness=gain=3,hist",
                          {gray, randomFrame(1279, 719, CV_8UC1, 3)}, Facts::Gpu);
  EXPECT_TRUE(hasEpilogue(passes, "hist+brightness+hist"));
}

// Live changes between frames: a new gain reaches the epilogue's function, a new scale swaps
// the sobel's kernel for the other program (which stores through the epilogue too), each frame
// as OpenCV computes it.
TEST(EpilogueChain, LiveChangesReachTheEpilogue) {
  const cv::Mat in = realFrame(7, CV_8UC1, 157, 91);
  Chain chain = Chain::parse("sobel=kernel=direct,hist,brightness=gain=1.2");
  chain.setFusion(Chain::Fusion::On);
  for (const auto& [scale, gain] : {std::pair{1.0, 1.2}, {0.5, 2.0}, {1.0, 0.7}}) {
    SCOPED_TRACE("scale " + std::to_string(scale) + " gain " + std::to_string(gain));
    chain.stage(0).params().set("scale", std::to_string(scale));
    chain.stage(0).update();
    chain.stage(2).params().set("gain", std::to_string(gain));
    chain.stage(2).update();
    std::vector<std::vector<std::uint8_t>> side;
    const cv::Mat out = runChecked(chain, in, &side);
    EXPECT_TRUE(hasEpilogue(chain.passes(), "hist+brightness"));
    Config c;
    c.scale = scale;
    const cv::Mat grad = reference(in, c);
    cv::Mat ref;
    grad.convertTo(ref, -1, gain, 0);
    EXPECT_EQ(maxAbsDiff(out, ref), 0);
    ASSERT_EQ(side.size(), 1u);
    EXPECT_EQ(side[0], cvHistogram(grad));
  }
}

// The sub-histograms a counter's schedule asks for (hist's copies) are the epilogue's, and any
// number counts the same.
TEST(EpilogueChain, TheCountersCopiesAreTheEpiloguesOwn) {
  const cv::Mat in = realFrame(1, CV_8UC1, 211, 97);
  for (const int copies : {1, 2, 32}) {
    const std::string text =
        "sobel=kernel=direct,hist=copies=" + std::to_string(copies) + ",brightness=bias=3";
    const auto passes = expectSameOver(text, {in, randomFrame(211, 97, CV_8UC1, copies)});
    ASSERT_EQ(passes.size(), 1u);
    EXPECT_NE(passes[0].schedule.find(" copies=" + std::to_string(copies)), std::string::npos)
        << passes[0].schedule;
  }
}

// Several counters share one number of sub-histograms: the most any of them asks for; and as
// many as local memory holds with the tables (1 + counters) x 256 bytes, none where not even one
// fits.
TEST(EpilogueChain, CountersShareTheMostCopiesThatFit) {
  const cv::Mat in = realFrame(2, CV_8UC1, 131, 67);
  const auto passes =
      expectSameOver("sobel=kernel=direct,hist=copies=2,brightness=gain=1.4,hist=copies=8,hist",
                     {in, randomFrame(131, 67, CV_8UC1, 5)});
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_NE(passes[0].schedule.find(" copies=8"), std::string::npos) << passes[0].schedule;

  Chain chain = Chain::parse("sobel=kernel=direct,hist=copies=16,hist,hist");
  chain.setFusion(Chain::Fusion::Off);
  chain.configure(context(), {64, 32, PixelFormat::Gray8});
  const std::vector<Stage*> after{&chain.stage(1), &chain.stage(2), &chain.stage(3)};
  EXPECT_EQ(epilogueLocalBytes(3, 16), 4 * 256 + 3 * 16 * 1024u);
  EXPECT_EQ(epilogueCopies(after, 4, 1 << 20), 16);
  EXPECT_EQ(epilogueCopies(after, 4, 48 * 1024), 8);  // 16 copies and the tables: 49 KiB
  EXPECT_EQ(epilogueCopies(after, 4, 4 * 256 + 3 * 1024), 1);
  EXPECT_EQ(epilogueCopies(after, 4, 4 * 256 + 3 * 1024 - 1), 0);
  Chain plain = Chain::parse("sobel=kernel=direct,hist,brightness=bias=2");
  plain.setFusion(Chain::Fusion::Off);
  plain.configure(context(), {64, 32, PixelFormat::Gray8});
  EXPECT_EQ(epilogueCopies({&plain.stage(1), &plain.stage(2)}, 4, 1 << 20), 4);
}

// Where an epilogue stops: at a function that needs the whole frame first, at one that changes
// the channels, at a stage that is neither; never on colour frames, the tile kernel, or with
// epilogue=off or fusion off.
TEST(EpilogueChain, WhereTheEpilogueStops) {
  const auto plan = [](const std::string& text, PixelFormat format = PixelFormat::Gray8,
                       Chain::Fusion fuse = Chain::Fusion::On) {
    Chain chain = Chain::parse(text);
    chain.setFusion(fuse);
    chain.configure(context(), {64, 32, format});
    std::vector<std::string> names;
    for (const auto& p : chain.passes()) names.push_back(p.label);
    return names;
  };
  using V = std::vector<std::string>;
  const std::string s = "sobel=kernel=direct";
  EXPECT_EQ(plan(s + ",hist,brightness=mode=auto,hist"), (V{"sobel+hist", "brightness+hist"}));
  EXPECT_EQ(plan(s + ",brightness=gain=2,blur,hist"), (V{"sobel+brightness", "blur", "hist"}));
  // A blur that could read through brightness (the slab kernel's prologue) reads the frame the
  // epilogue stored.
  EXPECT_EQ(plan(s + ",brightness=gain=2,blur=kernel=slab,hist"),
            (V{"sobel+brightness", "blur", "hist"}));
  EXPECT_EQ(plan(s + ",hist,sobel=kernel=direct,hist"), (V{"sobel+hist", "sobel+hist"}));
  EXPECT_EQ(plan(s + ",hist", PixelFormat::BGR8), (V{"sobel", "hist"}));
  EXPECT_EQ(plan("gray," + s + ",hist,gray", PixelFormat::BGR8),
            (V{"gray+sobel+hist", "gray"}));  // gray on gray passes the frame on
  EXPECT_EQ(plan("sobel=kernel=tile,hist,brightness=gain=2"), (V{"sobel", "hist+brightness"}));
  EXPECT_EQ(plan(s + ":epilogue=off,hist,brightness=gain=2"), (V{"sobel", "hist+brightness"}));
  EXPECT_EQ(plan(s + ",hist,brightness=gain=2", PixelFormat::Gray8, Chain::Fusion::Off),
            (V{"sobel", "hist", "brightness"}));
}

// The work-group shape: 32x8 where an epilogue counts (its sub-histograms shared by 8 warps),
// 8x4 otherwise, the one given when given; a half-automatic shape is refused.
TEST(EpilogueChain, CountingEpiloguesTakeWideGroups) {
  const auto schedule = [](const std::string& text) {
    Chain chain = Chain::parse(text);
    chain.setFusion(Chain::Fusion::On);
    chain.configure(context(), {67, 29, PixelFormat::Gray8});
    return chain.stage(0).schedule();
  };
  EXPECT_NE(schedule("sobel=kernel=direct,hist").find("wg=32x8"), std::string::npos);
  EXPECT_NE(schedule("sobel=kernel=direct,brightness=gain=2").find("wg=8x4"), std::string::npos);
  EXPECT_NE(schedule("sobel=kernel=direct:epilogue=off,hist").find("wg=8x4"), std::string::npos);
  EXPECT_NE(schedule("sobel=kernel=direct:wg=4x2,hist").find("wg=4x2"), std::string::npos);
  EXPECT_THROW(Chain::parse("sobel=wg=0x3"), ChainError);
  // Wide groups count the same: the frame and histogram of the unfused chain.
  const cv::Mat in = realFrame(3, CV_8UC1, 203, 77);
  expectSameOver("sobel=kernel=direct,hist,brightness=gain=1.1",
                 {in, randomFrame(203, 77, CV_8UC1, 5)});
}

// With a GPU's facts ksize 3 counting through an epilogue takes 8 bytes a work-item (16 when it
// does not count), other apertures and a vec given by hand keep theirs; the frame and histogram
// are the unfused chain's.
TEST(EpilogueChain, CountingKsize3TakesEightBytesOnGpus) {
  const auto schedule = [](const std::string& text) {
    Chain chain = Chain::parse(text);
    chain.configure(context(Facts::Gpu), {1920, 1080, PixelFormat::Gray8});
    return chain.stage(0).schedule();
  };
  const auto has = [](const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
  };
  EXPECT_TRUE(has(schedule("sobel,hist"), "wg=32x8 vec=8 rows=4"));
  EXPECT_TRUE(has(schedule("sobel,brightness=gain=2"), "wg=8x4 vec=16 rows=4"));
  EXPECT_TRUE(has(schedule("sobel=epilogue=off,hist"), "vec=16 rows=4"));
  EXPECT_TRUE(has(schedule("sobel=ksize=5,hist"), "vec=4 rows=8"));
  EXPECT_TRUE(has(schedule("sobel=vec=16,hist"), "wg=32x8 vec=16 rows=4"));
  const cv::Mat in = realFrame(6, CV_8UC3, 1001, 67);
  const auto passes = expectSameOver("gray,sobel,hist,brightness=gain=0.9:bias=12",
                                     {in, randomFrame(1001, 67, CV_8UC3, 9)}, Facts::Gpu);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_TRUE(has(passes[0].schedule, "vec=8"));
}
