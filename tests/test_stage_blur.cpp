// blur against cv::GaussianBlur, byte for byte: the stage claims OpenCV's 8-bit result exactly,
// for every kernel (cpu, ring, tiled, slab), border, channel count and size. OpenCV's GaussianBlur
// takes neither BORDER_WRAP nor a non-zero constant, so the reference pads with
// cv::copyMakeBorder (which takes both) and blurs the padded image, keeping the centre;
// ReferenceEqualsGaussianBlurDirectly checks that this is GaussianBlur itself for the modes it
// accepts.
//
// Each kernel runs through the stage's schedule parameters (kernel=...) and, for the GPU
// defaults, with a GPU's facts on the test device (Facts::Gpu): on PoCL in CI the slab kernel's
// tensor-core products run emulated, with the same operands and data layout.
#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

#include "pipeline/cl/program_cache.hpp"
#include "tests/support/blur_check.hpp"

using namespace vf;
using namespace vf::test;

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

// --- the test device's own schedule (on PoCL: the ring kernel, the cpu kernel past it) --------

TEST(BlurStage, EqualsOpenCVOnRealFrames) {
  for (int index : {0, 120}) {
    for (int ci : {0, 1}) {
      const cv::Mat in = realFrame(index, kTypes[ci]);
      expectExact(in, BlurCase{});  // defaults: sigma 1.5, ksize 11, reflect101
      BlurCase c = matrixCase(BorderMode::Replicate, ci);
      c.sigma = 2.5;  // another sigma through the same program (taps only)
      expectExact(in, c);
    }
  }
}

// Every border mode at every small size (1x1 and 2x2 under kernels of 3 to 11 taps fold indices
// several times over) and at 640x480, for each channel count.
TEST(BlurStage, EqualsOpenCVForEveryBorderAndSizeUpTo640x480) {
  unsigned seed = 1;
  for (BorderMode b : allBorders()) {
    for (int ci = 0; ci < 3; ++ci) {
      const BlurCase c = matrixCase(b, ci);
      for (const cv::Size sz :
           {cv::Size(1, 1), cv::Size(2, 2), cv::Size(17, 13), cv::Size(640, 480)})
        expectExact(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c);
      expectExact(realFrame(200, kTypes[ci], 640, 480), c);
    }
  }
}

TEST(BlurStage, EqualsOpenCVOnLargeOddFrames) {
  expectExact(randomFrame(1921, 1081, CV_8UC1, 7), matrixCase(BorderMode::Reflect101, 0));
  expectExact(realFrame(60, CV_8UC3, 1921, 1081), matrixCase(BorderMode::Wrap, 1));
  BlurCase c = matrixCase(BorderMode::Constant, 2);
  c.value = 255;
  expectExact(realFrame(60, CV_8UC4, 1921, 1081), c);
}

// Large kernels: the tail of the Gaussian, halos wider than a work-group, tiles that switch to
// narrow types to fit in local memory, and radii larger than the frame.
TEST(BlurStage, EqualsOpenCVWithLargeKernels) {
  BlurCase c;
  c.sigma = 8;
  c.ksize = 151;
  c.border = BorderMode::Constant;
  c.value = 90;
  expectExact(randomFrame(17, 13, CV_8UC3, 21), c);
  expectExact(randomFrame(203, 97, CV_8UC3, 22), c);
  c.border = BorderMode::Wrap;
  expectExact(randomFrame(203, 97, CV_8UC4, 23), c);
  BlurCase big;
  big.sigma = 50;  // derived ksize 301: the largest radius
  expectExact(realFrame(30, CV_8UC1, 320, 240), big);
}

// The cpu kernel's work-group shapes: ones that do not divide the frame, one-wide and one-high
// ones, each with its own border and channel count.
TEST(BlurStage, CpuKernelWorkGroupShapesDoNotChangeTheResult) {
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
        c.schedule = std::string("kernel=cpu:wg=") + sh.wg;
        c.border = sh.border;
        c.value = 140;
        c.ksize = 7;
        c.sigma = sigma;
        expectExact(in, c, Facts::Device, "cpu");
      }
    }
  }
}

// The ring kernel (CPUs' default up to radius 8): every radius it takes under every border,
// each channel count, on frames narrower than a vector (1, 5 and 15 pixels: every strip is an
// end strip), rows whose last strip is partial, and heights that end inside a band of 32 rows or
// are shorter than the radius.
TEST(BlurStage, RingKernelEqualsOpenCVForEveryRadiusAndBorder) {
  unsigned seed = 900;
  const cv::Size sizes[] = {cv::Size(1, 1), cv::Size(5, 3), cv::Size(15, 70), cv::Size(67, 33),
                            cv::Size(161, 97)};
  for (int ksize = 3; ksize <= 17; ksize += 2) {
    for (BorderMode b : allBorders()) {
      for (int ci = 0; ci < 3; ++ci) {
        BlurCase c;
        c.ksize = ksize;
        c.sigma = 0.4 * ksize;
        c.border = b;
        c.value = 37 + ksize;
        c.schedule = "kernel=ring";
        const cv::Size sz = sizes[(ksize / 2 + ci + static_cast<int>(b)) % 5];
        expectExact(randomFrame(sz.width, sz.height, kTypes[ci], seed++), c, Facts::Device, "ring");
      }
    }
  }
  BlurCase c;
  c.schedule = "kernel=ring";
  expectExact(realFrame(90, CV_8UC3, 1921, 1081), c, Facts::Device, "ring");
  c.ksize = 19;  // radius 9: past the ring
  try {
    runChain(chainText(c), randomFrame(32, 8, CV_8UC1, 4));
    FAIL() << "kernel=ring took radius 9";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("blur: kernel=ring takes radius <= 8", 0), 0u)
        << e.what();
  }
}

// --- a GPU's defaults: the tiled kernel, and the cpu kernel with a GPU's tiles -----------------

// A schedule parameter out of its range is an error naming it, with the chain's caret; a named
// kernel that cannot take the radius is one naming the kernel and what it takes.
TEST(BlurStage, BadScheduleParametersAreClearErrors) {
  for (const char* bad : {"blur=strip=17x16", "blur=strip=4x24", "blur=warps=33",
                          "blur=kernel=fast", "blur=prefetch=2", "blur=wg=0x4"}) {
    try {
      Chain::parse(bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const ChainError& e) {
      const std::string key = std::string(bad).substr(5, std::string(bad).find('=', 5) - 5);
      EXPECT_EQ(e.message().rfind("blur: " + key, 0), 0u) << e.what();
    }
  }
  Chain slab = Chain::parse("blur=sigma=24.5:kernel=slab");  // ksize 149: radius 74
  const cv::Mat in = randomFrame(32, 8, CV_8UC1, 3);
  try {
    slab.configure(context(), viewOf(in).desc());
    FAIL() << "kernel=slab took radius 74";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("blur: kernel=slab takes radius <= 72", 0), 0u)
        << e.what();
  }
}

// --- what every kernel shares ---------------------------------------------------------------

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
          // Within a level of the unquantised Gaussian (the taps have 8 fractional bits).
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
    EXPECT_EQ(maxAbsDiff(out, reference(in, c)), 0);
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
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), reference(in, c)), 0);
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
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), reference(in, c)), 0);
  chain.stage(0).params().set("sigma", "1.5");  // back: a program-cache hit
  const auto before = context().programs().stats();
  chain.stage(0).update();
  EXPECT_EQ(context().programs().stats().memoryHits, before.memoryHits + 1);
  c.sigma = 1.5;
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), reference(in, c)), 0);
}

// Frames already enqueued keep the taps they were enqueued with: the new taps are written in
// queue order, after them.
TEST(BlurStage, LiveChangeDoesNotRaceFramesInFlight) {
  const cv::Mat in = randomFrame(640, 480, CV_8UC1, 77);
  Chain chain = Chain::parse("blur=sigma=0.6:ksize=11");
  chain.configure(context(), viewOf(in).desc());
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
    EXPECT_EQ(maxAbsDiff(out, reference(in, c)), 0) << "frame " << f << " sigma " << sigmas[f];
  }
}

TEST(BlurStage, LiveValueChangeNeedsNoBuild) {
  const cv::Mat in = randomFrame(33, 17, CV_8UC3, 8);
  BlurCase c = matrixCase(BorderMode::Constant, 1);
  c.value = 0;
  Chain chain = Chain::parse(chainText(c));
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), reference(in, c)), 0);
  const auto before = context().programs().stats();
  chain.stage(0).params().set("value", "222");
  chain.stage(0).update();
  c.value = 222;
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), reference(in, c)), 0);
  EXPECT_EQ(context().programs().stats().memoryHits, before.memoryHits);
  EXPECT_EQ(context().programs().stats().builds, before.builds);
}

TEST(BlurStage, BareValueIsSigma) {
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
  Chain big = Chain::parse("blur=wg=1024x1024:kernel=cpu");
  const cv::Mat in = randomFrame(16, 16, CV_8UC1, 3);
  try {
    big.configure(context(), viewOf(in).desc());
    FAIL() << "oversized work-group accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("blur: wg"), std::string::npos) << e.what();
  }
}
