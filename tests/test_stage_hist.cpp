// hist against cv::calcHist (per channel, 256 bins, range [0, 256)): histograms exactly equal.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

using Hist = std::vector<std::uint32_t>;

// cv::calcHist of every channel, concatenated: the layout the stage produces.
Hist referenceHist(const cv::Mat& in) {
  Hist all;
  for (int c = 0; c < in.channels(); ++c) {
    cv::Mat h;
    const int channel[] = {c};
    const int bins[] = {256};
    const float range[] = {0, 256};
    const float* ranges[] = {range};
    cv::calcHist(&in, 1, channel, cv::Mat(), h, 1, bins, ranges);
    for (int v = 0; v < 256; ++v) all.push_back(static_cast<std::uint32_t>(h.at<float>(v)));
  }
  return all;
}

Hist toHist(const std::vector<std::uint8_t>& bytes) {
  Hist h(bytes.size() / sizeof(std::uint32_t));
  std::memcpy(h.data(), bytes.data(), h.size() * sizeof(std::uint32_t));
  return h;
}

// Runs `chain` on `in` (twice over poisoned outputs, see runChecked), checks the frame came out
// unchanged when `unchanged`, and returns the histogram side output (the only one expected).
Hist runHist(Chain& chain, const cv::Mat& in, cv::Mat* out = nullptr) {
  std::vector<std::vector<std::uint8_t>> side;
  const cv::Mat result = runChecked(chain, in, &side);
  EXPECT_EQ(side.size(), 1u);
  if (out) *out = result;
  return side.empty() ? Hist{} : toHist(side[0]);
}

Hist runHist(const std::string& chainText, const cv::Mat& in) {
  Chain chain = Chain::parse(chainText);
  cv::Mat out;
  const Hist h = runHist(chain, in, &out);
  EXPECT_EQ(maxAbsDiff(out, in), 0) << chainText << ": the frame must pass through unchanged";
  return h;
}

// Schedules covering the serial CPU path (local=1), the local-atomic path at several
// work-group sizes, one group doing everything, and more groups than there is work for.
const std::vector<std::string>& schedules() {
  static const std::vector<std::string> s = {"hist", "hist=groups=1:local=1",
                                             "hist=groups=3:local=64", "hist=groups=64:local=256",
                                             "hist=groups=5:local=1"};
  return s;
}

double ms(const cl::Event& first, const cl::Event& last) {
  const auto start = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return (end - start) * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST(HistStage, MatchesCalcHistOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(30, type);
    const Hist ref = referenceHist(in);
    for (const auto& chain : schedules())
      EXPECT_EQ(runHist(chain, in), ref) << chain << " channels " << in.channels();
  }
}

TEST(HistStage, MatchesCalcHistOnRandomOddSizes) {
  unsigned seed = 7;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      const Hist ref = referenceHist(in);
      for (const auto& chain : {"hist", "hist=groups=2:local=1", "hist=groups=9:local=128"})
        EXPECT_EQ(runHist(chain, in), ref) << chain << " " << sz << " channels " << in.channels();
    }
  }
}

TEST(HistStage, RealFrameAtOddSizes) {
  for (const auto& sz : oddSizes()) {
    const cv::Mat in = realFrame(70, CV_8UC3, sz.width, sz.height);
    EXPECT_EQ(runHist("hist=local=32", in), referenceHist(in)) << sz;
  }
}

TEST(HistStage, SingleValueFillsOneBin) {
  for (const auto& sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(640, 480)}) {
    const cv::Mat gray(sz, CV_8UC1, cv::Scalar(173));
    const Hist g = runHist("hist=local=64", gray);
    ASSERT_EQ(g.size(), 256u);
    for (int v = 0; v < 256; ++v)
      EXPECT_EQ(g[v], v == 173 ? std::uint32_t(sz.area()) : 0u) << sz << " bin " << v;

    const cv::Mat bgr(sz, CV_8UC3, cv::Scalar(10, 255, 0));
    const Hist h = runHist("hist", bgr);
    ASSERT_EQ(h.size(), 3u * 256);
    const int expected[] = {10, 255, 0};
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 256; ++v)
        EXPECT_EQ(h[c * 256 + v], v == expected[c] ? std::uint32_t(sz.area()) : 0u)
            << sz << " channel " << c << " bin " << v;
  }
}

TEST(HistStage, FramePassesThroughUnchanged) {
  const cv::Mat in = realFrame(40, CV_8UC3);
  // hist between two stages changes nothing: hist,brightness equals brightness alone.
  for (const char* chain : {"hist,brightness=gain=2", "hist=local=64,brightness=gain=2"}) {
    const cv::Mat a = runChain(chain, in);
    const cv::Mat b = runChain("brightness=gain=2", in);
    EXPECT_EQ(maxAbsDiff(a, b), 0) << chain;
    cv::Mat ref;
    in.convertTo(ref, -1, 2, 0);
    EXPECT_LE(maxAbsDiff(a, ref), 1) << chain;
  }
  Chain chain = Chain::parse("hist");
  chain.configure(context(), view(in).desc());
  EXPECT_TRUE(chain.stage(0).passthrough());
  EXPECT_EQ(chain.output(), chain.input());
}

TEST(HistStage, SeesTheFrameOfItsPlaceInTheChain) {
  // After a stage that changes the frame, hist counts the changed frame.
  const cv::Mat in = realFrame(20, CV_8UC3);
  Chain chain = Chain::parse("brightness=gain=1.5:bias=-20,hist");
  cv::Mat out;
  const Hist h = runHist(chain, in, &out);
  EXPECT_EQ(h, referenceHist(out));
  EXPECT_NE(h, referenceHist(in));
}

TEST(HistStage, ClearedEveryFrame) {
  const cv::Mat a = realFrame(5, CV_8UC3);
  const cv::Mat b = randomFrame(a.cols, a.rows, CV_8UC3, 123);
  for (const char* text : {"hist", "hist=groups=4:local=128"}) {
    Chain chain = Chain::parse(text);
    chain.configure(context(), view(a).desc());
    EXPECT_EQ(runHist(chain, a), referenceHist(a)) << text;
    ASSERT_TRUE(chain.configured());
    EXPECT_EQ(runHist(chain, b), referenceHist(b)) << text << ": second frame";
    EXPECT_EQ(runHist(chain, a), referenceHist(a)) << text << ": third frame";
  }
}

TEST(HistStage, SideOutputThroughRunOnce) {
  const cv::Mat in = realFrame(60, CV_8UC4);
  Chain chain = Chain::parse("brightness=gain=1.1,hist");
  chain.configure(context(), view(in).desc());
  const auto outs = chain.sideOutputs();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].name, "histogram");
  EXPECT_EQ(outs[0].stage, 1);
  EXPECT_EQ(outs[0].bytes, 4u * 256 * sizeof(std::uint32_t));

  cv::Mat out = makeMat(chain.output());
  std::vector<std::vector<std::uint8_t>> side;
  const ChainRun run = chain.runOnce(context(), queue(), view(in), view(out), &side);
  ASSERT_EQ(side.size(), 1u);
  EXPECT_EQ(toHist(side[0]), referenceHist(out));
  // The stage's events: the device clear first, the counting kernel (with the merge) last.
  EXPECT_EQ(run.stages[1].first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_FILL_BUFFER);
  EXPECT_EQ(run.stages[1].last.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_NDRANGE_KERNEL);
}

TEST(HistStage, RejectsBadSchedule) {
  EXPECT_THROW(Chain::parse("hist=local=2000"), ChainError);
  EXPECT_THROW(Chain::parse("hist=groups=-1"), ChainError);
  if (context().info().maxWorkGroupSize < 1024) {
    Chain chain = Chain::parse("hist=local=1024");
    EXPECT_THROW(chain.configure(context(), {64, 64, PixelFormat::Gray8}), UserError);
  }
}

// Timing at 1920x1080 next to OpenCV's CPU functions; no assertion on time. Run with
//   test_stage_hist --gtest_also_run_disabled_tests --gtest_filter='*Timing*'
TEST(HistStage, DISABLED_Timing1080p) {
  const int runs = 11;
  for (int type : {CV_8UC1, CV_8UC3}) {
    const cv::Mat in = realFrame(30, type, 1920, 1080);
    const char* fmt = type == CV_8UC1 ? "gray" : "bgr";
    // Device: time of one stage of a chain = last.END - first.START of its events. Two ways:
    // Chain::runOnce (fresh device buffers per call, so a stage that writes the frame also pays
    // first-touch page faults on PoCL), and Chain::enqueue on persistent buffers (what the
    // streaming engine does).
    auto device = [&](const std::string& text, int stageIndex) {
      Chain chain = Chain::parse(text);
      chain.configure(context(), view(in).desc());
      cv::Mat out = makeMat(chain.output());
      std::vector<double> once, steady;
      for (int i = 0; i < runs + 2; ++i) {
        const ChainRun r = chain.runOnce(context(), queue(), view(in), view(out));
        const auto& ev = r.stages[stageIndex];
        if (i >= 2) once.push_back(ms(ev.first, ev.last));
      }
      cl::Buffer dIn(context().context(), CL_MEM_READ_WRITE, chain.input().bytes());
      cl::Buffer dOut(context().context(), CL_MEM_READ_WRITE, chain.output().bytes());
      queue().enqueueWriteBuffer(dIn, CL_TRUE, 0, chain.input().bytes(), in.data);
      for (int i = 0; i < runs + 2; ++i) {
        const ChainRun r = chain.enqueue(queue(), dIn, dOut, {});
        queue().finish();
        const auto& ev = r.stages[stageIndex];
        if (i >= 2) steady.push_back(ms(ev.first, ev.last));
      }
      std::printf("  %-4s %-32s stage %d: runOnce %7.3f ms, enqueue %7.3f ms (medians of %d)\n",
                  fmt, text.c_str(), stageIndex, median(once), median(steady), runs);
    };
    device("hist", 0);
    device("hist=groups=2:local=1", 0);
    device("hist=local=64", 0);
    device("hist=local=256", 0);
    device("brightness=gain=1.3:bias=-12", 0);
    device("brightness=auto", 0);
    device("hist,brightness=auto", 1);

    auto cpu = [&](const char* what, auto&& fn) {
      std::vector<double> t;
      for (int i = 0; i < runs + 2; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        const auto b = std::chrono::steady_clock::now();
        if (i >= 2) t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
      }
      std::printf("  %-4s OpenCV CPU %-29s : %7.3f ms (median of %d, %d threads)\n", fmt, what,
                  median(t), runs, cv::getNumThreads());
    };
    cpu("calcHist (every channel)", [&] { referenceHist(in); });
    cv::Mat out;
    cpu("convertTo", [&] { in.convertTo(out, -1, 1.3, -12); });
  }
}
