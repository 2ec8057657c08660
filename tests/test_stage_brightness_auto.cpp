// brightness=auto: a contrast stretch from the same frame's histogram, against a reference
// built from OpenCV's calcHist and convertTo. (Fixed gain and bias:
// tests/test_stage_brightness.cpp.)
#include <cmath>
#include <cstring>
#include <limits>
#include <opencv2/imgproc.hpp>

#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// The definition, on the CPU: per channel (alpha of bgra excepted), with N pixels and
// t = clip% of N, low = the smallest v with cum[v] > t, high = the largest v with more than t
// pixels >= v; the channel becomes convertTo(255/(high-low), -low*255/(high-low)), or stays as
// it is when high <= low. Returns each channel's {gain, bias}.
std::vector<std::pair<double, double>> autoLevels(const cv::Mat& in, double clip) {
  std::vector<cv::Mat> planes;
  cv::split(in, planes);
  const int stretch = in.channels() == 4 ? 3 : in.channels();
  const double n = double(in.total());
  const double t = clip / 100.0 * n;
  std::vector<std::pair<double, double>> levels(planes.size(), {1.0, 0.0});
  for (int c = 0; c < stretch; ++c) {
    cv::Mat h;
    const int bins[] = {256};
    const float range[] = {0, 256};
    const float* ranges[] = {range};
    const int channel[] = {0};
    cv::calcHist(&planes[c], 1, channel, cv::Mat(), h, 1, bins, ranges);
    double cum[256];
    double run = 0;
    for (int v = 0; v < 256; ++v) cum[v] = run += h.at<float>(v);
    int low = 0;
    while (!(cum[low] > t)) ++low;
    int high = 255;
    while (!(n - (high > 0 ? cum[high - 1] : 0) > t)) --high;
    if (high > low) {
      const double gain = 255.0 / (high - low);
      levels[c] = {gain, -low * gain};
    }
  }
  return levels;
}

// A gain or bias the device computed against the float of the reference's double: equal where
// the device has fp64 (the levels in double, as the reference); without it they take one float
// division, which OpenCL C need not round exactly (2.5 ulp), so within a few of its ulps.
bool levelMatches(float got, double want) {
  const float f = static_cast<float>(want);
  static const bool fp64 =
      context().device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") != std::string::npos;
  return fp64 ? got == f
              : std::abs(got - f) <= 4 * std::numeric_limits<float>::epsilon() * std::abs(f);
}

cv::Mat autoReference(const cv::Mat& in, double clip) {
  const auto levels = autoLevels(in, clip);
  std::vector<cv::Mat> planes;
  cv::split(in, planes);
  for (std::size_t c = 0; c < planes.size(); ++c)
    if (levels[c] != std::pair<double, double>{1.0, 0.0})
      planes[c].convertTo(planes[c], -1, levels[c].first, levels[c].second);
  cv::Mat out;
  cv::merge(planes, out);
  return out;
}

std::string autoChain(double clip, bool withHist) {
  return std::string(withHist ? "hist," : "") + "brightness=auto:clip=" + std::to_string(clip);
}

}  // namespace

TEST(BrightnessAuto, MatchesReferenceOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat frame = realFrame(50, type);
    // The frame spans 0..255 in every channel, so clip=0 alone leaves it as it is; squeezed
    // into [50, 203] it changes at every clip level.
    cv::Mat squeezed;
    frame.convertTo(squeezed, -1, 0.6, 50);
    for (const cv::Mat& in : {frame, squeezed}) {
      for (double clip : {0.0, 1.0, 5.0}) {
        const cv::Mat ref = autoReference(in, clip);
        if (clip > 0 || in.data == squeezed.data) {
          ASSERT_GT(maxAbsDiff(ref, in), 5) << "clip " << clip << ": the stretch changes it";
        }
        for (bool withHist : {false, true}) {
          const std::string chain = autoChain(clip, withHist);
          EXPECT_LE(maxAbsDiff(runChain(chain, in), ref), 1)
              << chain << " channels " << in.channels();
        }
      }
    }
  }
}

TEST(BrightnessAuto, MatchesReferenceOnRandomOddSizes) {
  unsigned seed = 31;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      // Uniform noise squeezed into [40, 200] so that every clip level stretches it.
      cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      in.convertTo(in, -1, 160.0 / 255, 40);
      for (double clip : {0.0, 1.0, 5.0}) {
        const cv::Mat ref = autoReference(in, clip);
        const std::string chain = autoChain(clip, seed % 2 == 0);
        EXPECT_LE(maxAbsDiff(runChain(chain, in), ref), 1)
            << chain << " " << sz << " channels " << in.channels();
      }
    }
  }
}

TEST(BrightnessAuto, MatchesReferenceOnARealFrameAtOddSizes) {
  for (const auto& sz : oddSizes()) {
    const cv::Mat in = realFrame(80, CV_8UC3, sz.width, sz.height);
    for (bool withHist : {false, true})
      EXPECT_LE(maxAbsDiff(runChain(autoChain(1, withHist), in), autoReference(in, 1)), 1) << sz;
  }
}

TEST(BrightnessAuto, ConstantImageUnchanged) {
  for (const auto& sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(640, 480)}) {
    const cv::Mat bgr(sz, CV_8UC3, cv::Scalar(120, 30, 200));
    const cv::Mat gray(sz, CV_8UC1, cv::Scalar(77));
    for (double clip : {0.0, 1.0, 5.0}) {
      for (bool withHist : {false, true}) {
        EXPECT_EQ(maxAbsDiff(runChain(autoChain(clip, withHist), bgr), bgr), 0) << sz;
        EXPECT_EQ(maxAbsDiff(runChain(autoChain(clip, withHist), gray), gray), 0) << sz;
      }
    }
  }
}

// The gain and bias each frame got come back as the side output "levels" (channels gains, then
// channels biases), the floats of the reference's doubles, with or without an upstream hist.
TEST(BrightnessAuto, LevelsSideOutputIsTheGainAndBiasApplied) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    cv::Mat in = realFrame(60, type);
    in.convertTo(in, -1, 0.5, 70);  // squeezed: every channel is stretched
    for (bool withHist : {false, true}) {
      Chain chain = Chain::parse(autoChain(2, withHist));
      chain.configure(context(), viewOf(in).desc());
      const auto outs = chain.sideOutputs();
      ASSERT_EQ(outs.size(), withHist ? 2u : 1u);
      EXPECT_EQ(outs.back().name, "levels");
      EXPECT_EQ(outs.back().stage, withHist ? 1 : 0);
      std::vector<std::vector<std::uint8_t>> side;
      cv::Mat out = makeMat(chain.output());
      chain.runOnce(context(), queue(), viewOf(in), viewOf(out), &side);
      const int c = in.channels();
      ASSERT_EQ(side.back().size(), 2 * c * sizeof(float));
      std::vector<float> got(2 * c);
      std::memcpy(got.data(), side.back().data(), side.back().size());
      const auto want = autoLevels(in, 2);
      for (int k = 0; k < c; ++k) {
        // The floats convertTo makes of the reference's doubles.
        EXPECT_TRUE(levelMatches(got[k], want[k].first)) << "gain, channel " << k << " of " << c;
        EXPECT_TRUE(levelMatches(got[c + k], want[k].second))
            << "bias, channel " << k << " of " << c;
      }
      if (c == 4) {
        EXPECT_EQ(got[3], 1.0f);
        EXPECT_EQ(got[7], 0.0f);
      } else {
        EXPECT_GT(got[0], 1.5f) << "the squeezed frame is stretched";
      }
    }
  }
  // Manual mode has nothing to report: gain and bias are the parameters.
  Chain manual = Chain::parse("brightness=gain=1.5");
  manual.configure(context(), {64, 48, PixelFormat::Gray8});
  EXPECT_TRUE(manual.sideOutputs().empty());
}

// Levels 81 and 236: there -low * gain in float is not the float of OpenCV's double bias, and
// the stretch would round some pixels the other way.
TEST(BrightnessAuto, TheBiasIsTheFloatOfTheReferencesDouble) {
  cv::Mat ramp(48, 64, CV_8UC1);
  for (int i = 0; i < static_cast<int>(ramp.total()); ++i) ramp.data[i] = 81 + i % 156;
  cv::Mat bgr;
  cv::merge(std::vector<cv::Mat>{ramp, ramp, ramp}, bgr);
  for (const cv::Mat& in : {ramp, bgr}) {
    const auto want = autoLevels(in, 0);
    ASSERT_EQ(static_cast<float>(want[0].second), static_cast<float>(-81 * (255.0 / 155)));
    Chain chain = Chain::parse(autoChain(0, false));
    chain.configure(context(), viewOf(in).desc());
    std::vector<std::vector<std::uint8_t>> side;
    cv::Mat out = makeMat(chain.output());
    chain.runOnce(context(), queue(), viewOf(in), viewOf(out), &side);
    std::vector<float> got(2 * in.channels());
    ASSERT_EQ(side.back().size(), got.size() * sizeof(float));
    std::memcpy(got.data(), side.back().data(), side.back().size());
    for (int k = 0; k < in.channels(); ++k) {
      EXPECT_TRUE(levelMatches(got[k], want[k].first)) << k << ": " << got[k];
      EXPECT_TRUE(levelMatches(got[in.channels() + k], want[k].second))
          << k << ": " << got[in.channels() + k];
    }
    EXPECT_LE(maxAbsDiff(out, autoReference(in, 0)), 1);
  }
}

TEST(BrightnessAuto, AlphaIsLeftAlone) {
  cv::Mat in = realFrame(50, CV_8UC4);
  std::vector<cv::Mat> planes;
  cv::split(in, planes);
  planes[3] = realFrame(90, CV_8UC1);  // an alpha plane that a stretch would change
  cv::merge(planes, in);
  const cv::Mat out = runChain("brightness=auto", in);
  EXPECT_LE(maxAbsDiff(out, autoReference(in, 1)), 1);
  cv::Mat alphaIn, alphaOut;
  cv::extractChannel(in, alphaIn, 3);
  cv::extractChannel(out, alphaOut, 3);
  EXPECT_EQ(maxAbsDiff(alphaIn, alphaOut), 0);
}

TEST(BrightnessAuto, UsesTheUpstreamHistogramOnlyOfTheSameFrame) {
  const cv::Mat in = realFrame(50, CV_8UC3);
  cv::Mat out;
  {
    // hist right before: brightness reuses its histogram (this frame's buffer of the two).
    Chain chain = Chain::parse("hist,brightness=auto");
    chain.configure(context(), viewOf(in).desc());
    out = makeMat(chain.output());
    const ChainRun run = chain.runOnce(context(), queue(), viewOf(in), viewOf(out));
    EXPECT_EQ(run.stages[1].first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_NDRANGE_KERNEL);
    EXPECT_LE(maxAbsDiff(out, autoReference(in, 1)), 1);
  }
  {
    Chain chain = Chain::parse("brightness=auto");
    chain.configure(context(), viewOf(in).desc());
    const ChainRun run = chain.runOnce(context(), queue(), viewOf(in), viewOf(out));
    // Its own histogram, with no clear command: the histogram kernel comes first.
    EXPECT_EQ(run.stages[0].first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_NDRANGE_KERNEL);
    EXPECT_LE(maxAbsDiff(out, autoReference(in, 1)), 1);
  }
  {
    // A stage that changes the frame between them: the histogram of the input is stale, and
    // brightness must count the gray frame itself.
    Chain chain = Chain::parse("hist,gray,brightness=auto");
    const cv::Mat result = runChecked(chain, in);
    cv::Mat gray;
    cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
    EXPECT_LE(maxAbsDiff(result, autoReference(gray, 1)), 1);
  }
  {
    // Same with a manual brightness in between.
    Chain chain = Chain::parse("hist,brightness=gain=0.5:bias=60,brightness=auto:clip=2");
    const cv::Mat result = runChecked(chain, in);
    cv::Mat mid;
    in.convertTo(mid, -1, 0.5, 60);
    EXPECT_LE(maxAbsDiff(result, autoReference(mid, 2)), 1);
  }
}

TEST(BrightnessAuto, LiveClipAndModeSwitchApplyToTheNextFrame) {
  const cv::Mat in = realFrame(50, CV_8UC1);
  Chain chain = Chain::parse("brightness=auto:clip=1");
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), autoReference(in, 1)), 1);
  chain.stage(0).params().set("clip", "5");
  chain.stage(0).update();
  ASSERT_TRUE(chain.configured());
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), autoReference(in, 5)), 1);
  // manual <-> auto: a schedule change, applied by configure.
  chain.stage(0).params().set("mode", "manual");
  chain.stage(0).params().set("gain", "0.5");
  chain.configure(context(), viewOf(in).desc());
  cv::Mat ref;
  in.convertTo(ref, -1, 0.5, 0);
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), ref), 1);
  chain.stage(0).params().set("mode", "auto");
  chain.configure(context(), viewOf(in).desc());
  EXPECT_LE(maxAbsDiff(runChecked(chain, in), autoReference(in, 5)), 1);
}

// Each mode's parameters given to the other mode would do nothing: the chain names them.
TEST(BrightnessAuto, ParametersOfTheOtherModeAreRefused) {
  const auto refused = [](const std::string& text, const std::string& name) {
    try {
      Chain::parse(text);
    } catch (const ChainError& e) {
      return e.message().find("brightness: " + name) != std::string::npos ||
             e.message().find(name + " is mode=") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused("brightness=auto:gain=2", "gain"));
  EXPECT_TRUE(refused("brightness=mode=auto:bias=-4", "gain and bias"));
  EXPECT_TRUE(refused("brightness=clip=3", "clip"));
  EXPECT_TRUE(refused("brightness=mode=manual:gain=2:clip=5", "clip"));
  for (const char* fine : {"brightness=auto:clip=3", "brightness=gain=2:bias=-4",
                           "brightness=auto:gain=1:bias=0", "brightness"})
    EXPECT_NO_THROW(Chain::parse(fine)) << fine;
}

TEST(BrightnessAuto, SecondFrameGetsItsOwnStretch) {
  const cv::Mat a = realFrame(50, CV_8UC3);
  cv::Mat b;
  a.convertTo(b, -1, 0.3, 100);  // much lower contrast: a different stretch
  for (const char* text : {"brightness=auto", "hist,brightness=auto"}) {
    Chain chain = Chain::parse(text);
    EXPECT_LE(maxAbsDiff(runChecked(chain, a), autoReference(a, 1)), 1) << text;
    EXPECT_LE(maxAbsDiff(runChecked(chain, b), autoReference(b, 1)), 1) << text;
  }
}

// The histogram is double-buffered (no clear command per frame): frames enqueued back to back
// on one queue, nothing waiting between them, each get the stretch of their own histogram,
// with brightness's own histogram and with an upstream hist stage's (whose side output is
// checked too).
TEST(BrightnessAuto, FramesInFlightEachGetTheirOwnStretch) {
  const int frames = 8;
  for (int type : {CV_8UC1, CV_8UC3}) {
    std::vector<cv::Mat> in;
    for (int k = 0; k < frames; ++k) in.push_back(streamRealFrame(k, type, 320, 240));
    const std::size_t bytes = in[0].total() * in[0].elemSize();
    for (const char* text :
         {"brightness=auto", "hist,brightness=auto", "hist=local=64:copies=8,brightness=auto"}) {
      Chain chain = Chain::parse(text);
      chain.configure(context(), viewOf(in[0]).desc());
      std::vector<cl::Buffer> dIn, dOut;
      for (const auto& m : in) {
        dIn.emplace_back(context().context(), CL_MEM_READ_WRITE, bytes);
        dOut.emplace_back(context().context(), CL_MEM_READ_WRITE, bytes);
        queue().enqueueWriteBuffer(dIn.back(), CL_TRUE, 0, bytes, m.data);
      }
      std::vector<std::vector<std::vector<std::uint8_t>>> side(frames);
      for (int k = 0; k < frames; ++k) chain.enqueue(queue(), dIn[k], dOut[k], {}, &side[k]);
      queue().finish();
      for (int k = 0; k < frames; ++k) {
        cv::Mat out(in[k].size(), in[k].type());
        queue().enqueueReadBuffer(dOut[k], CL_TRUE, 0, bytes, out.data);
        EXPECT_LE(maxAbsDiff(out, autoReference(in[k], 1)), 1) << text << " frame " << k;
        if (chain.size() == 2) {
          ASSERT_EQ(side[k].size(), 2u) << "the histogram, then the levels";
          std::vector<std::uint32_t> h(side[k][0].size() / 4);
          std::memcpy(h.data(), side[k][0].data(), side[k][0].size());
          for (int c = 0; c < in[k].channels(); ++c) {
            cv::Mat plane, ref;
            cv::extractChannel(in[k], plane, c);
            const int channel[] = {0}, bins[] = {256};
            const float range[] = {0, 256};
            const float* ranges[] = {range};
            cv::calcHist(&plane, 1, channel, cv::Mat(), ref, 1, bins, ranges);
            for (int v = 0; v < 256; ++v)
              ASSERT_EQ(h[c * 256 + v], std::uint32_t(ref.at<float>(v)))
                  << text << " frame " << k << " channel " << c << " bin " << v;
          }
        }
      }
    }
  }
}

// The same through the engine with several frames in flight.
TEST(BrightnessAuto, EngineGivesEachFrameItsOwnStretch) {
  const int frames = 20;
  for (int type : {CV_8UC1, CV_8UC3}) {
    for (const char* text : {"brightness=auto", "hist,brightness=auto"}) {
      for (int slots : {1, 4}) {
        SCOPED_TRACE(std::string(text) + " slots " + std::to_string(slots) + " channels " +
                     std::to_string(CV_MAT_CN(type)));
        const auto got = runRealStream(text, frames, type, 160, 120, slots);
        ASSERT_EQ(got.size(), std::size_t(frames));
        for (const auto& f : got)
          EXPECT_LE(
              maxAbsDiff(f.output, autoReference(streamRealFrame(int(f.index), type, 160, 120), 1)),
              1)
              << "frame " << f.index;
      }
    }
  }
}
