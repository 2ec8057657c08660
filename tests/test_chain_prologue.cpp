// Prologues (pipeline/fusion.hpp): point-wise stages folded into the loads of the stage after
// them (the blur's slab kernel, emulated on CPU devices, and the sobel's direct kernel), as
// tests/test_chain_fusion.cpp plans them: the folded chain against OpenCV (cvtColor, convertTo,
// GaussianBlur) on real and random frames, odd sizes, every format and border; against the same
// chain unfused, output and side outputs; and the blur's own pass for the functions when its plan
// cannot read through them.
#include <opencv2/imgproc.hpp>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

cv::Mat cvBlur(const cv::Mat& in, double sigma, int ksize, int border) {
  cv::Mat out;
  cv::GaussianBlur(in, out, cv::Size(ksize, ksize), sigma, sigma, border);
  return out;
}

struct Border {
  const char* name;
  int cv;
};
const Border kBorders[] = {{"reflect101", cv::BORDER_REFLECT_101},
                           {"replicate", cv::BORDER_REPLICATE},
                           {"reflect", cv::BORDER_REFLECT},
                           {"wrap", cv::BORDER_WRAP},
                           {"constant", cv::BORDER_CONSTANT}};

}  // namespace

// gray folded into the slab blur: one pass, the pixels of cvtColor then GaussianBlur, on
// widths whose gray rows are and are not a multiple of 4 and 16 bytes, through every border
// rule (the frames are small enough that every strip touches an edge), BGR and BGRA in turn.
TEST(PrologueChain, GrayIntoTheSlabBlurIsOpenCvs) {
  const cv::Size sizes[] = {{1, 1}, {3, 2}, {17, 13}, {64, 40}, {203, 77}, {640, 480}};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const Border& b : kBorders) {
      const int type = k % 3 ? CV_8UC3 : CV_8UC4;
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, type, 40 + k)
                               : realFrame(k, type, size.width, size.height);
      ++k;
      const std::string text =
          std::string("gray,blur=kernel=slab:sigma=1.3:ksize=7:value=77:border=") + b.name;
      SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
      Chain chain = Chain::parse(text);
      chain.setFusion(Chain::Fusion::On);
      const cv::Mat out = runChecked(chain, in);
      ASSERT_EQ(chain.passes().size(), 1u);
      EXPECT_TRUE(chain.passes()[0].fused);
      EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray+blur", ""}));
      EXPECT_NE(chain.passes()[0].schedule.find("prologue=gray"), std::string::npos);
      cv::Mat gray;
      cv::cvtColor(in, gray, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
      cv::Mat ref;
      if (b.cv == cv::BORDER_CONSTANT) {  // OpenCV's constant border is 0: pad with 77 first
        cv::Mat padded;
        cv::copyMakeBorder(gray, padded, 3, 3, 3, 3, cv::BORDER_CONSTANT, cv::Scalar(77));
        ref = cvBlur(padded, 1.3, 7, cv::BORDER_REFLECT_101)(cv::Rect(3, 3, gray.cols, gray.rows));
      } else {
        ref = cvBlur(gray, 1.3, 7, b.cv);
      }
      EXPECT_EQ(maxAbsDiff(out, ref), 0);
    }
}

// Functions that keep the format (brightness, manual and automatic) folded into the slab blur
// of gray frames (of colour frames they stay passes), wider radii, loads shared by a group's
// warps, odd sizes in turn: the same output and side outputs as the chain unfused.
TEST(PrologueChain, EveryFoldedFunctionEqualsTheUnfusedChain) {
  const std::string chains[] = {
      "brightness=gain=1.7:bias=-20,blur=kernel=slab:sigma=2.5",
      "brightness=gain=0.8:bias=9,blur=kernel=slab:sigma=2.5:share=on:warps=1:strip=1x16",
      "gray,brightness=gain=-1:bias=255,blur=kernel=slab:ksize=5:border=wrap",
      "hist,brightness=mode=auto:clip=2,blur=kernel=slab:sigma=9:prologue=on:border=replicate",
      "gray,hist,brightness=gain=0.6:bias=3,blur=kernel=slab:border=constant:value=200,hist",
      "brightness=gain=1.2,brightness=bias=-9,blur=kernel=slab:sigma=1:border=reflect,sobel",
  };
  const cv::Size sizes[] = {{2, 3}, {37, 23}, {333, 97}};
  int k = 0;
  for (const std::string& text : chains)
    for (const int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Size size = sizes[k % 3];
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, type, 90 + k)
                               : realFrame(k, type, size.width, size.height);
      ++k;
      SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
      Chain fused = Chain::parse(text), plain = Chain::parse(text);
      fused.setFusion(Chain::Fusion::On);
      plain.setFusion(Chain::Fusion::Off);
      std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
      cv::Mat a, b;
      try {
        a = runChecked(fused, in, &sideFused);
      } catch (const UserError&) {
        EXPECT_THROW(runChecked(plain, in, &sidePlain), UserError);
        continue;  // the chain does not take this format (gray on gray frames passes)
      }
      b = runChecked(plain, in, &sidePlain);
      // Folded where the blur's frame is gray (its plan reads colour frames as passes).
      bool folded = false;
      for (const auto& p : fused.passes())
        folded = folded || p.schedule.find("prologue=") != std::string::npos;
      EXPECT_EQ(folded, text.rfind("gray", 0) == 0 || type == CV_8UC1);
      EXPECT_EQ(maxAbsDiff(a, b), 0);
      EXPECT_EQ(sideFused, sidePlain) << "side outputs differ";
    }
}

// A blur whose plan cannot read through its prologue (here the two-pass kernel) runs the
// functions as its own pass first: the same pixels.
TEST(PrologueChain, APlanWithoutPrologueRunsTheFunctionsFirst) {
  const cv::Mat in = realFrame(5, CV_8UC3, 211, 119);
  Chain chain = Chain::parse("gray,brightness=gain=1.4:bias=-30,blur=kernel=cpu:sigma=2");
  chain.setFusion(Chain::Fusion::Off);
  chain.setRowPitch(Chain::RowPitch::Packed);  // the buffers below hold packed rows
  chain.configure(context(), viewOf(in).desc());
  Stage& blur = chain.stage(2);
  EXPECT_FALSE(blur.takesPrologue(viewOf(in).desc()));
  blur.setPrologue({&chain.stage(0), &chain.stage(1)}, viewOf(in).desc());
  EXPECT_NE(blur.schedule().find("prologue=own-pass"), std::string::npos);

  ClContext& cl = context();
  cl::CommandQueue& q = queue();
  const cl::Buffer src(cl.context(), CL_MEM_READ_ONLY, in.total() * in.elemSize());
  const std::size_t outBytes = std::size_t(in.cols) * in.rows;
  const cl::Buffer dst(cl.context(), CL_MEM_READ_WRITE, outBytes);
  q.enqueueWriteBuffer(src, CL_TRUE, 0, in.total() * in.elemSize(), in.data);
  std::vector<std::uint8_t> poison(outBytes, 0x5A);
  q.enqueueWriteBuffer(dst, CL_TRUE, 0, outBytes, poison.data());
  const StageEvents ev = blur.enqueue(q, src, dst, {});
  ASSERT_TRUE(ev.last());
  cv::Mat out(in.rows, in.cols, CV_8UC1);
  q.enqueueReadBuffer(dst, CL_TRUE, 0, outBytes, out.data, nullptr);

  cv::Mat gray, bright;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  gray.convertTo(bright, -1, 1.4, -30);
  EXPECT_EQ(maxAbsDiff(out, cvBlur(bright, 2, 0, cv::BORDER_REFLECT_101)), 0);
}

// A live sigma that takes the blur past the radius its loads read through (the plan's
// prologue) runs the functions as the blur's own pass from the next frame on, and back: the
// chain is not planned again and every frame is OpenCV's.
TEST(PrologueChain, ALiveSigmaPastThePrologueRadiusKeepsThePixels) {
  const cv::Mat in = realFrame(6, CV_8UC3, 157, 91);
  Chain chain = Chain::parse("gray,blur=kernel=slab:sigma=1.2");
  chain.setFusion(Chain::Fusion::On);
  cv::Mat gray;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  for (const double sigma : {1.2, 4.0, 1.2}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    chain.stage(1).params().set("sigma", std::to_string(sigma));
    chain.stage(1).update();
    const cv::Mat out = runChecked(chain, in);
    EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray+blur", ""}));
    EXPECT_EQ(chain.stage(1).schedule().find("prologue=own-pass") != std::string::npos, sigma > 2);
    EXPECT_EQ(maxAbsDiff(out, cvBlur(gray, sigma, 0, cv::BORDER_REFLECT_101)), 0);
  }
}

// gray folded into the direct sobel kernel: every aperture, mode and border, the f16x2 lanes
// (emulated here) and the float paths, scale 1 and another, rows that are and are not whole
// words and vectors (prologue=on: auto leaves ksize 7 as two passes), BGR and BGRA in turn:
// the same bytes as the chain unfused (whose sobel is
// OpenCV's by its own tests), and one chain against OpenCV directly.
TEST(PrologueChain, GrayIntoTheDirectSobelEqualsTheUnfusedChain) {
  const cv::Size sizes[] = {{1, 1}, {5, 3}, {19, 11}, {64, 32}, {203, 77}};
  const char* modes[] = {"mag", "l2", "x", "y"};
  int k = 0;
  for (const Border& b : kBorders)
    for (const int ksize : {1, 3, 5, 7}) {
      const cv::Size size = sizes[k % 5];
      const int type = k % 3 ? CV_8UC3 : CV_8UC4;
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, type, 300 + k)
                               : realFrame(k, type, size.width, size.height);
      const std::string text =
          "gray,sobel=kernel=direct:prologue=on:ksize=" + std::to_string(ksize) +
          ":mode=" + modes[(k + k / 4) % 4] + ":border=" + b.name +
          ":value=" + std::to_string(40 + k) + ":half=" + (k % 2 ? "on" : "off") +
          ":scale=" + (k % 5 == 4 ? "0.5" : "1");
      ++k;
      SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
      Chain fused = Chain::parse(text), plain = Chain::parse(text);
      fused.setFusion(Chain::Fusion::On);
      plain.setFusion(Chain::Fusion::Off);
      const cv::Mat a = runChecked(fused, in), p = runChecked(plain, in);
      ASSERT_EQ(fused.passes().size(), 1u);
      EXPECT_EQ(fused.timingNames(), (std::vector<std::string>{"gray+sobel", ""}));
      EXPECT_EQ(maxAbsDiff(a, p), 0);
    }
  const cv::Mat in = realFrame(3, CV_8UC3, 333, 201);
  Chain chain = Chain::parse("gray,sobel=kernel=direct");
  chain.setFusion(Chain::Fusion::On);
  const cv::Mat out = runChecked(chain, in);
  cv::Mat gray, gx, gy, ax, ay, ref;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  cv::Sobel(gray, gx, CV_16S, 1, 0, 3);
  cv::Sobel(gray, gy, CV_16S, 0, 1, 3);
  cv::convertScaleAbs(gx, ax);
  cv::convertScaleAbs(gy, ay);
  cv::addWeighted(ax, 0.5, ay, 0.5, 0, ref);
  EXPECT_EQ(maxAbsDiff(out, ref), 0);
}

// Where the stages fold by default (where the H200 measured one pass faster: a source within
// the bytes of 2560x1440 BGR), always with prologue=on, never with prologue=off.
TEST(PrologueChain, AutoFoldsWhereFasterAndOffNever) {
  const auto passes = [](const std::string& text, int width, int height = 32,
                         PixelFormat format = PixelFormat::BGR8) {
    Chain chain = Chain::parse(text);
    chain.setFusion(Chain::Fusion::On);
    chain.configure(context(), {width, height, format});
    return chain.passes().size();
  };
  for (const std::string reader : {"sobel=kernel=direct", "blur=kernel=slab"}) {
    SCOPED_TRACE(reader);
    EXPECT_EQ(passes("gray," + reader, 2560, 1440), 1u);
    EXPECT_EQ(passes("gray," + reader, 2560, 1441), 2u);
    EXPECT_EQ(passes("gray," + reader, 1920, 1440, PixelFormat::BGRA8), 1u);  // the same bytes
    EXPECT_EQ(passes("gray," + reader, 2560, 1440, PixelFormat::BGRA8), 2u);
    EXPECT_EQ(passes("gray," + reader + ":prologue=on", 3840, 2160), 1u);
    // The source is the first function's: brightness reads the gray frame, gray the BGR one.
    EXPECT_EQ(passes("gray,brightness=gain=2," + reader, 3840, 1440), 2u);
    // Gray sources: within those bytes they fold (4096x2700 is the same bytes), past them not.
    EXPECT_EQ(passes("brightness=gain=2," + reader, 3840, 2160, PixelFormat::Gray8), 1u);
    EXPECT_EQ(passes("brightness=gain=2," + reader, 4096, 2700, PixelFormat::Gray8), 1u);
    EXPECT_EQ(passes("brightness=gain=2," + reader, 4096, 2701, PixelFormat::Gray8), 2u);
    // The first folded function reads the gray frame after a counter or one that starts a pass.
    const auto folded = [](Chain& chain, int width, int height) {
      chain.setFusion(Chain::Fusion::On);
      chain.configure(context(), {width, height, PixelFormat::BGR8});
      std::string found;
      for (const auto& p : chain.passes())
        if (p.schedule.find("prologue=") != std::string::npos) found += p.schedule;
      return found;
    };
    for (const std::string fns : {"gray,hist,brightness=gain=2,", "gray,brightness=mode=auto,"}) {
      Chain small = Chain::parse(fns + reader), large = Chain::parse(fns + reader);
      EXPECT_NE(folded(small, 3840, 2160).find("prologue=brightness"), std::string::npos) << fns;
      EXPECT_EQ(folded(large, 4096, 2701), "") << fns;
    }
    // A disabled counter is no stop: gray and brightness fold, judged on the BGR frame.
    Chain skipped = Chain::parse("gray,hist,brightness=gain=2," + reader);
    skipped.setEnabled(1, false);
    EXPECT_NE(folded(skipped, 2560, 1440).find("prologue=gray+brightness"), std::string::npos);
    Chain wide = Chain::parse("gray,hist,brightness=gain=2," + reader);
    wide.setEnabled(1, false);
    EXPECT_EQ(folded(wide, 3840, 1440), "");
  }
  EXPECT_EQ(passes("gray,sobel=kernel=direct", 66), 1u);
  EXPECT_EQ(passes("gray,sobel=kernel=direct:ksize=5", 64), 1u);
  EXPECT_EQ(passes("gray,sobel=kernel=direct:ksize=7", 64), 2u);
  EXPECT_EQ(passes("gray,sobel=kernel=direct:prologue=off", 64), 2u);
  EXPECT_EQ(passes("gray,sobel=kernel=tile:prologue=on", 64), 2u);  // the direct kernel's
  EXPECT_EQ(passes("gray,blur=kernel=slab", 66), 1u);
  EXPECT_EQ(passes("gray,blur=kernel=slab:sigma=6", 64), 2u);  // radius 18
  EXPECT_EQ(passes("gray,blur=kernel=slab:prologue=off", 64), 2u);
  EXPECT_EQ(passes("brightness=gain=2,blur=kernel=slab:prologue=on", 64), 2u);  // colour blur
  EXPECT_EQ(passes("gray,blur=kernel=cpu:prologue=on", 64), 2u);
}
