// Padded rows (Chain::RowPitch): where the chain pads its frames' rows to whole multiples of
// Chain::kPitchAlign pixels, every stage that takes a row pitch gives the bytes it gives on packed
// rows, through every kernel a stage may run (the GPU schedules run on the CPU device through
// Facts::Gpu), fused or not, with the side outputs; the padding of the input, poisoned, is never
// read as pixels. Which chains pad; the engine's rectangle uploads and downloads against the
// stream's frames through the chain on packed rows.
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "pipeline/engine.hpp"
#include "tests/support/test_support.hpp"
#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;

namespace {

struct Result {
  cv::Mat out;
  std::vector<std::vector<std::uint8_t>> side;
  int pitchPixels = 0;
};

// `text` on `in` with rows `mode`, its schedules the GPU's: the input's padding and the output
// poisoned with `poison` before the run.
Result run(const std::string& text, const cv::Mat& in, Chain::RowPitch mode, std::uint8_t poison) {
  ClContext& cl = context(Facts::Gpu);
  cl::CommandQueue& q = queue(Facts::Gpu);
  Chain chain = Chain::parse(text);
  chain.setRowPitch(mode);
  chain.setFusion(Chain::Fusion::On);
  chain.configure(cl, viewOf(in).desc());
  Result r;
  r.pitchPixels = chain.pitchPixels();
  const FrameDesc id = chain.input(), od = chain.output();
  std::vector<std::uint8_t> host(chain.inputBytes(), poison);
  for (int y = 0; y < id.height; ++y)
    std::memcpy(host.data() + std::size_t(y) * chain.inputPitch(), in.ptr(y), id.rowBytes());
  cl::Buffer dIn(cl.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size(), host.data());
  std::vector<std::uint8_t> outHost(chain.outputBytes(), std::uint8_t(poison ^ 0xFF));
  cl::Buffer dOut(cl.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, outHost.size(),
                  outHost.data());
  chain.enqueue(q, dIn, dOut, {}, &r.side);
  q.enqueueReadBuffer(dOut, CL_TRUE, 0, outHost.size(), outHost.data());
  r.out = makeMat(od);
  for (int y = 0; y < od.height; ++y)
    std::memcpy(r.out.ptr(y), outHost.data() + std::size_t(y) * chain.outputPitch(), od.rowBytes());
  return r;
}

// Padded rows give the packed rows' output and side outputs, whatever the padding holds.
void expectPaddedIsPacked(const std::string& text, const cv::Mat& in) {
  SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
  const Result packed = run(text, in, Chain::RowPitch::Packed, 0x5A);
  ASSERT_EQ(packed.pitchPixels, in.cols);
  for (const std::uint8_t poison : {std::uint8_t(0x00), std::uint8_t(0xFF), std::uint8_t(0x93)}) {
    const Result padded = run(text, in, Chain::RowPitch::Padded, poison);
    ASSERT_EQ(padded.pitchPixels % Chain::kPitchAlign, 0);
    ASSERT_GT(padded.pitchPixels, in.cols) << "the chain did not pad its rows";
    EXPECT_EQ(maxAbsDiff(padded.out, packed.out), 0) << "padding " << int(poison);
    EXPECT_EQ(padded.side, packed.side) << "padding " << int(poison);
  }
}

}  // namespace

// Every kernel of the stages that take a row pitch, on widths whose rows are no whole number of
// words, vectors or work-groups, one row and several.
TEST(RowPitch, PaddedRowsGiveThePackedRowsBytes) {
  const char* gray[] = {
      "blur=kernel=slab",
      "blur=kernel=slab:sigma=6",
      "blur=kernel=cpu:border=constant:value=9",
      "blur=kernel=ring:border=wrap",
      "blur=kernel=tiled:border=reflect",
      "sobel=kernel=direct",
      "sobel=kernel=direct:ksize=5:mode=l2",
      "sobel=kernel=direct:ksize=7:scale=0.5:border=constant:value=3",
      "sobel=kernel=tile:ksize=3:border=replicate",
      "blur=kernel=auto,sobel=filter=on",
      "blur,sobel=filter=off:epilogue=on,hist,brightness=gain=1.3:bias=-7",
      "hist,brightness=auto",
      "brightness=gain=0.8,hist,brightness=auto:clip=2",
  };
  const char* colour[] = {
      "gray,blur,sobel,hist,brightness",
      "gray,blur=kernel=slab:prologue=on",
      "gray,sobel=kernel=direct:prologue=on,hist",
      "blur=kernel=slab",
      "sobel=kernel=direct:ksize=5",
      "gray,hist,brightness=gain=1.2:bias=-10",
      "hist,brightness=auto",
      "blur=kernel=ring,sobel=kernel=tile",
  };
  const cv::Size sizes[] = {{77, 19}, {131, 1}, {203, 33}};
  int k = 0;
  for (const cv::Size s : sizes) {
    for (const char* text : gray) {
      const cv::Mat in = k % 2 ? randomFrame(s.width, s.height, CV_8UC1, 300 + k)
                               : realFrame(k, CV_8UC1, s.width, s.height);
      expectPaddedIsPacked(text, in);
      ++k;
    }
    for (const char* text : colour) {
      const int type = k % 2 ? CV_8UC3 : CV_8UC4;
      const cv::Mat in = k % 3 ? randomFrame(s.width, s.height, type, 300 + k)
                               : realFrame(k, type, s.width, s.height);
      expectPaddedIsPacked(text, in);
      ++k;
    }
  }
}

// The default chain on padded rows against OpenCV itself (GaussianBlur, Sobel, calcHist).
TEST(RowPitch, PaddedDefaultChainIsOpenCvs) {
  const cv::Mat in = realFrame(3, CV_8UC3, 141, 37);
  const Result r = run("gray,blur,sobel", in, Chain::RowPitch::Padded, 0xC3);
  ASSERT_GT(r.pitchPixels, in.cols);
  cv::Mat gray, blurred, gx, gy, ax, ay, mag;
  cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
  cv::GaussianBlur(gray, blurred, cv::Size(11, 11), 1.5, 1.5, cv::BORDER_REFLECT_101);
  cv::Sobel(blurred, gx, CV_16S, 1, 0, 3);
  cv::Sobel(blurred, gy, CV_16S, 0, 1, 3);
  cv::convertScaleAbs(gx, ax);
  cv::convertScaleAbs(gy, ay);
  cv::addWeighted(ax, 0.5, ay, 0.5, 0, mag);
  EXPECT_LE(maxAbsDiff(r.out, mag), 1);
}

// Auto pads on GPUs, and only chains whose every enabled stage takes a row pitch; packed on
// CPUs, and for widths already a multiple of kPitchAlign.
TEST(RowPitch, AutoPadsWhereEveryStageTakesIt) {
  const FrameDesc odd{77, 9, PixelFormat::BGR8}, whole{128, 9, PixelFormat::BGR8};
  const auto pitchOf = [](const std::string& text, const FrameDesc& d, Facts facts) {
    Chain chain = Chain::parse(text);
    chain.configure(context(facts), d);
    return chain.pitchPixels();
  };
  EXPECT_EQ(pitchOf("gray,blur,sobel,hist,brightness", odd, Facts::Gpu), 128);
  EXPECT_EQ(pitchOf("gray,blur,sobel,hist,brightness", whole, Facts::Gpu), 128);
  EXPECT_EQ(pitchOf("gray,blur,resize=40x20", odd, Facts::Gpu), 77);
  EXPECT_EQ(pitchOf("blur,crop=10:5:2:2", odd, Facts::Gpu), 77);
  EXPECT_EQ(pitchOf("gray,blur,sobel,hist,brightness", odd, Facts::Device),
            context().facts().cpu ? 77 : 128);
  Chain chain = Chain::parse("blur,resize=40x20");
  chain.setEnabled(1, false);
  chain.configure(context(Facts::Gpu), odd);
  EXPECT_EQ(chain.pitchPixels(), 128) << "a disabled stage does not keep the rows packed";
}

// The engine copies frames between the host's packed rows and the device's padded ones by
// rectangle; a change that packs the rows again (a stage without a row pitch turned on) takes
// effect from the next frame without losing or corrupting one.
TEST(RowPitch, EngineMovesPaddedRowsIntact) {
  const std::string text = "gray,blur,sobel,hist,brightness";
  const FrameDesc d{83, 21, PixelFormat::BGR8};
  const StreamPlan plan = StreamPlan::uniform(24, d);
  std::shared_ptr<ClContext> gpu(&context(Facts::Gpu), [](ClContext*) {});
  Engine engine(gpu, Chain::parse(text), engineOptions(3, Transfer::Copy));
  TestSource source(plan);
  CollectSink sink;
  engine.run(source, sink);
  const auto got = sink.frames();
  ASSERT_EQ(got.size(), std::size_t(plan.total()));
  EXPECT_EQ(engine.chain().pitchPixels(), 128);
  expectFramesCorrect(got, text, plan);
}

TEST(RowPitch, EngineRepacksWhenAChangeNeedsPackedRows) {
  const FrameDesc d{83, 21, PixelFormat::BGR8};
  const StreamPlan plan = StreamPlan::uniform(30, d);
  std::shared_ptr<ClContext> gpu(&context(Facts::Gpu), [](ClContext*) {});
  Chain chain = Chain::parse("gray,blur,threshold=value=100");
  chain.setEnabled(2, false);
  Engine engine(gpu, std::move(chain), engineOptions(3, Transfer::Copy));
  TestSource source(plan);
  CollectSink sink;
  source.afterFill = [&](int i) {
    if (i == 12) engine.post([](Chain& c) { c.setEnabled(2, true); });
  };
  engine.run(source, sink);
  const auto got = sink.frames();
  ASSERT_EQ(got.size(), std::size_t(plan.total()));
  EXPECT_EQ(engine.chain().pitchPixels(), d.width) << "threshold takes no row pitch";
  int padded = 0, packed = 0;
  for (const auto& f : got) {
    const cv::Mat in = streamFrame(f.index, d);
    const bool on = maxAbsDiff(f.output, runChain("gray,blur,threshold=value=100", in)) == 0;
    const bool off = maxAbsDiff(f.output, runChain("gray,blur", in)) == 0;
    EXPECT_TRUE(on || off) << "frame " << f.index << " is neither chain's output";
    padded += off && !on;
    packed += on && !off;
  }
  EXPECT_GT(padded, 0);
  EXPECT_GT(packed, 0);
}
