// Fusion (pipeline/fusion.hpp; its plan: tests/test_chain_fusion_plan.cpp): the fused chain
// against the same chain with fusion off, byte for byte, output and every side output, on every
// sequence of stages the registry allows (generated from the registry, with parameters drawn
// from each stage's own declarations), odd sizes, every format, real and random frames. The
// unfused stages are proven against OpenCV by their own tests; one fused chain is also checked
// against OpenCV here.
#include <opencv2/imgproc.hpp>
#include <random>

#include "pipeline/fusion.hpp"
#include "pipeline/registry.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// A value for `spec` drawn from its declaration: enums any choice, numbers within the range
// clipped to [-8, 8] (so a blur radius stays small). Schedule parameters
// keep their defaults: the device's schedule is what runs.
std::string drawValue(const ParamSpec& spec, std::mt19937& rng) {
  if (spec.type == ParamType::Enum)
    return spec
        .choices[std::uniform_int_distribution<std::size_t>(0, spec.choices.size() - 1)(rng)];
  const double lo = std::max(spec.min, -8.0), hi = std::min(spec.max, 8.0);
  if (spec.type == ParamType::Int)
    return std::to_string(std::uniform_int_distribution<int>(int(lo), int(hi))(rng));
  // A few points across the range (a blur's radius follows sigma: few distinct builds).
  const double at[] = {0.07, 0.31, 0.5, 0.77, 1.0};
  double v = lo + (hi - lo) * at[std::uniform_int_distribution<int>(0, 4)(rng)];
  if (spec.minOpen && v <= spec.min) v = hi;
  if (spec.maxOpen && v >= spec.max) v = lo;
  return std::to_string(v);
}

// Stage `info` with drawn parameters (half of them left at their defaults), as chain text that
// validates: draws are retried until the stage's own validate() takes them.
std::string drawStage(const StageInfo& info, std::mt19937& rng) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::string args;
    for (const ParamSpec& s : info.params) {
      if (s.schedule || s.type == ParamType::Size || s.type == ParamType::Bool) continue;
      if (rng() % 2) continue;
      args += (args.empty() ? "" : ":") + s.name + "=" + drawValue(s, rng);
    }
    const std::string text = info.name + (args.empty() ? "" : "=" + args);
    try {
      Chain::parse(text);
      return text;
    } catch (const ChainError&) {
    }
  }
  return "";  // no draw parses (a stage with a required parameter, e.g. a file): skipped
}

// Every sequence of `length` registered stages, as indices into the registry.
std::vector<std::vector<std::size_t>> sequences(std::size_t length) {
  const std::size_t n = stageRegistry().size();
  std::vector<std::vector<std::size_t>> out{{}};
  for (std::size_t l = 0; l < length; ++l) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& s : out)
      for (std::size_t k = 0; k < n; ++k) {
        next.push_back(s);
        next.back().push_back(k);
      }
    out.swap(next);
  }
  return out;
}

// `count` sequences of `length` registered stages drawn at random (seeded): longer sequences
// than every one of them could be run in the suite's time as the registry grows.
std::vector<std::vector<std::size_t>> sampledSequences(std::size_t length, int count,
                                                       std::mt19937& rng) {
  const std::size_t n = stageRegistry().size();
  std::vector<std::vector<std::size_t>> out(count);
  for (auto& s : out)
    for (std::size_t l = 0; l < length; ++l)
      s.push_back(std::uniform_int_distribution<std::size_t>(0, n - 1)(rng));
  return out;
}

// A chain for `seq` with drawn parameters.
std::string chainText(const std::vector<std::size_t>& seq, std::mt19937& rng) {
  std::string text;
  for (const std::size_t s : seq) {
    const std::string stage = drawStage(*stageRegistry()[s], rng);
    if (stage.empty()) return "";
    text += (text.empty() ? "" : ",") + stage;
  }
  try {
    Chain::parse(text);  // stages the parser refuses together (gray after color=to=hsv)
  } catch (const ChainError&) {
    return "";
  }
  return text;
}

struct Outcome {
  bool configured = false;
  cv::Mat frame;
  std::vector<std::vector<std::uint8_t>> side;
  bool fused = false;  // some pass was fused
};

Outcome run(const std::string& text, bool fuse, const std::vector<cv::Mat>& frames, Facts facts) {
  Outcome o;
  Chain chain = Chain::parse(text);
  chain.setFusion(fuse ? Chain::Fusion::On : Chain::Fusion::Off);
  try {
    chain.configure(context(facts),
                    formatOf(frames[0]) == PixelFormat::Gray8
                        ? FrameDesc{frames[0].cols, frames[0].rows, PixelFormat::Gray8}
                        : viewOf(frames[0]).desc());
  } catch (const UserError&) {
    return o;  // the registry does not allow this sequence on this format
  }
  o.configured = true;
  for (const auto& p : chain.passes()) o.fused = o.fused || p.fused;
  // Several frames through one chain: the double-buffered histograms advance per frame.
  for (const cv::Mat& f : frames) {
    std::vector<std::vector<std::uint8_t>> side;
    o.frame = runChecked(chain, f, &side, facts);
    for (auto& s : side) o.side.push_back(std::move(s));
  }
  return o;
}

// Fused and unfused agree on `frames`; returns whether the fused chain fused anything.
bool expectSame(const std::string& text, const std::vector<cv::Mat>& frames,
                Facts facts = Facts::Device) {
  if (text.empty()) return false;  // no draw could parse a stage, or the stages together
  SCOPED_TRACE(text + " on " + viewOf(frames[0]).desc().str() +
               (facts == Facts::Gpu ? " (a GPU's schedules)" : ""));
  const Outcome fused = run(text, true, frames, facts), plain = run(text, false, frames, facts);
  EXPECT_EQ(fused.configured, plain.configured);
  if (!fused.configured || !plain.configured) return false;
  EXPECT_FALSE(plain.fused);
  EXPECT_EQ(maxAbsDiff(fused.frame, plain.frame), 0);
  EXPECT_EQ(fused.side, plain.side) << "side outputs differ";
  return fused.fused;
}

std::vector<cv::Mat> framesOf(int width, int height, int type, unsigned seed, bool real) {
  if (real)
    return {realFrame(int(seed), type, width, height),
            realFrame(int(seed) + 3, type, width, height)};
  return {randomFrame(width, height, type, seed), randomFrame(width, height, type, seed + 1)};
}

}  // namespace

// Every sequence of one and two stages, each with drawn parameters, on small odd frames of
// every format, random and real; then sequences of three and four drawn from the registry.
TEST(FusedChain, EverySequenceOfTwoEqualsTheUnfusedChain) {
  std::mt19937 rng(20261201);
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  const cv::Size sizes[] = {{1, 1}, {2, 2}, {17, 13}, {61, 37}};
  int fusedChains = 0, k = 0;
  for (std::size_t length = 1; length <= 2; ++length) {
    for (const auto& seq : sequences(length)) {
      for (const int type : types) {
        const cv::Size size = sizes[k % 4];
        fusedChains +=
            expectSame(chainText(seq, rng), framesOf(size.width, size.height, type, 7 + k, k % 2))
                ? 1
                : 0;
        ++k;
      }
    }
  }
  // The sweep must exercise fused passes, not only chains that plan none.
  EXPECT_GT(fusedChains, 5);
}

TEST(FusedChain, DrawnSequencesOfThreeAndFourEqualTheUnfusedChain) {
  std::mt19937 rng(4);
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  int k = 0, fusedChains = 0;
  for (const std::size_t length : {3, 4}) {
    for (const auto& seq : sampledSequences(length, 90, rng)) {
      fusedChains +=
          expectSame(chainText(seq, rng), framesOf(23 + k % 9, 11, types[k % 3], 100 + k, k % 2))
              ? 1
              : 0;
      ++k;
    }
  }
  // The draw must exercise fused passes: 3 of the registry's stages fuse (gray, brightness,
  // hist), so about one drawn sequence in nine plans a fused pass.
  EXPECT_GT(fusedChains, 10);
}

// With a GPU's facts the fused pass counts with 256 work-items per group and local atomics in
// a grid-stride loop (and the stages around it take their GPU kernels): every pair, drawn
// triples.
TEST(FusedChain, GpuScheduleSequencesEqualTheUnfusedChain) {
  std::mt19937 rng(77);
  const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  int fusedChains = 0, k = 0;
  auto all = sequences(2);
  for (const auto& seq : sampledSequences(3, 60, rng)) all.push_back(seq);
  for (const auto& seq : all) {
    fusedChains +=
        expectSame(chainText(seq, rng), framesOf(67, 29, types[k % 3], 300 + k, k % 2), Facts::Gpu)
            ? 1
            : 0;
    ++k;
  }
  EXPECT_GT(fusedChains, 10);
}

// Large odd frames, real content, every border mode through the stages around a fused pass.
TEST(FusedChain, LargeOddFramesEveryBorder) {
  for (const char* border : {"reflect101", "replicate", "reflect", "wrap", "constant"}) {
    const std::string b = std::string("border=") + border;
    for (const int type : {CV_8UC3, CV_8UC4, CV_8UC1}) {
      const auto frames = framesOf(1921, 1081, type, 2, true);
      EXPECT_TRUE(expectSame("gray,hist,brightness=gain=1.7:bias=-20,blur=sigma=1.2:" + b +
                                 ",sobel=" + b +
                                 ",hist,brightness=mode=auto:clip=2,brightness=bias=9",
                             frames) ||
                  type == CV_8UC1);
      expectSame("blur=" + b + ",brightness=gain=-1:bias=255,hist,brightness=mode=auto", frames);
      expectSame("hist,brightness=gain=0.6:bias=3,gray,hist", frames, Facts::Gpu);
    }
  }
}

// One fused chain against OpenCV directly: cvtColor, calcHist, convertTo.
TEST(FusedChain, GrayHistBrightnessMatchesOpenCv) {
  const cv::Mat in = realFrame(1, CV_8UC3, 853, 479);
  Chain chain = Chain::parse("gray,hist,brightness=gain=1.3:bias=-7");
  chain.setFusion(Chain::Fusion::On);
  std::vector<std::vector<std::uint8_t>> side;
  const cv::Mat out = runChecked(chain, in, &side);
  ASSERT_EQ(chain.passes().size(), 1u);
  EXPECT_TRUE(chain.passes()[0].fused);
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray+hist+brightness", "", ""}));
  cv::Mat gray, ref;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  gray.convertTo(ref, -1, 1.3, -7);
  EXPECT_EQ(maxAbsDiff(out, ref), 0);
  cv::Mat h;
  const int channel[] = {0}, bins[] = {256};
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  cv::calcHist(&gray, 1, channel, cv::Mat(), h, 1, bins, ranges);
  ASSERT_EQ(side.size(), 1u);
  ASSERT_EQ(side[0].size(), 1024u);
  const auto* counts = reinterpret_cast<const std::uint32_t*>(side[0].data());
  for (int v = 0; v < 256; ++v) EXPECT_EQ(counts[v], std::uint32_t(h.at<float>(v))) << v;
}

// Off, the chain times each stage on its own; the names follow.
TEST(FusedChain, OffTimesEveryStage) {
  Chain chain = Chain::parse("gray,brightness=gain=2");
  chain.setFusion(Chain::Fusion::Off);
  chain.configure(context(), {64, 32, PixelFormat::BGR8});
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray", "brightness"}));
  EXPECT_EQ(chain.passes().size(), 2u);
  EXPECT_TRUE(chain.setFusion(Chain::Fusion::On));
  chain.configure(context(), {64, 32, PixelFormat::BGR8});
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray+brightness", ""}));
}

// Auto fuses on GPUs and leaves a CPU device's stages their own kernels (faster there).
TEST(FusedChain, AutoFusesOnGpusOnly) {
  Chain chain = Chain::parse("gray,brightness=gain=2");
  EXPECT_EQ(chain.fusion(), Chain::Fusion::Auto);
  chain.configure(context(Facts::Gpu), {64, 32, PixelFormat::BGR8});
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray+brightness", ""}));
  if (context().facts().cpu) {
    chain.configure(context(), {64, 32, PixelFormat::BGR8});
    EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"gray", "brightness"}));
  }
}
