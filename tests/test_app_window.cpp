// The preview as a user sees it, on an Xvfb screen: real key presses (xdotool), screenshots of
// the X display (ImageMagick's import) checked for what must be there. The preview's sink in
// process here; the program's window: tests/test_app_window_program.cpp; a dead or missing
// display: tests/test_app_display.cpp.
#include <chrono>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "app/layout.hpp"
#include "app/sources.hpp"
#include "app/theme.hpp"
#include "tests/support/media.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace std::chrono_literals;
using namespace vf::test;

namespace {

// q, with the focus, again until the sink wants to stop: on a loaded machine a key can be lost,
// and a lost q would leave a paused consume() or finish() waiting for ever. After three tries
// the host says the engine stops, which ends both (the test then fails on what q should have
// done, instead of hanging).
void quit(const std::string& env, const std::string& id, const PreviewSink& sink,
          FakeHost::Shared& host) {
  for (int i = 0; i < 3 && !sink.wantsStop(); ++i) {
    shell(env + "xdotool windowfocus --sync " + id + " key q");
    for (int w = 0; w < 50 && !sink.wantsStop(); ++w) std::this_thread::sleep_for(100ms);
  }
  if (!sink.wantsStop()) host.stopping = true;
}

}  // namespace

// ---- in process: the sink with a real window
// ------------------------------------------------------

// Five + presses 30 ms apart while frames arrive at 10 fps: every one moves sigma one step.
TEST(PreviewWindow, KeysInABurstAreAllApplied) {
  REQUIRE_X_TOOLS();
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  ::setenv("DISPLAY", x.display().c_str(), 1);
  ::setenv("QT_QPA_PLATFORM", "xcb", 1);
  const std::string env = x.env();
  const std::string title = "vf-burst-" + std::to_string(::getpid());

  Chain chain = Chain::parse("blur=sigma=1.5"), twin = Chain::parse("blur=sigma=1.5");
  PreviewOptions opts;
  opts.title = title;
  opts.sourceFps = 10;
  FakeHost::Shared host;
  PreviewSink sink(std::make_unique<FakeHost>(chain, &host), chain, opts);
  sink.setMinRenderInterval(0s);
  auto reference = makeSink(twin);
  for (int i = 0; i < 5; ++i) reference->pressKey('+');
  const double want = twin.stage(0).params().number("sigma");
  ASSERT_GT(want, 2.0);

  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC3));
  std::string log;
  std::atomic<double> seen{0};
  std::thread person([&] {
    const std::string id = findWindow(env, "^" + title + "$");
    log += "window '" + id + "'\n";
    if (id.empty()) return;
    shell(env + "xdotool windowfocus --sync " + id);
    std::this_thread::sleep_for(500ms);
    shell(env + "xdotool key --delay 30 plus plus plus plus plus");
    std::this_thread::sleep_for(800ms);
    seen = chain.stage(0).params().number("sigma");
    quit(env, id, sink, host);
  });
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!sink.wantsStop() && std::chrono::steady_clock::now() < deadline) {
    sink.consume(f.result);
    std::this_thread::sleep_for(100ms);  // a 10 fps source
  }
  person.join();
  if (!sink.wantsStop()) host.stopping = true;  // no q came: finish() must not wait for one
  sink.finish();
  SCOPED_TRACE(log);
  ASSERT_TRUE(sink.wantsStop()) << "q did not quit";
  EXPECT_DOUBLE_EQ(seen.load(), want) << "five presses, five steps";
}

// f: the whole screen, the picture drawn at the screen's size; f again: back as it was.
TEST(PreviewWindow, FullScreenAndBack) {
  REQUIRE_X_TOOLS();
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  ::setenv("DISPLAY", x.display().c_str(), 1);
  ::setenv("QT_QPA_PLATFORM", "xcb", 1);
  const std::string env = x.env();
  const std::string title = "vf-full-" + std::to_string(::getpid());
  Chain chain = Chain::parse("gray");
  PreviewOptions opts;
  opts.title = title;
  opts.window = {640, 400};
  FakeHost::Shared host;
  PreviewSink sink(std::make_unique<FakeHost>(chain, &host), chain, opts);
  sink.setMinRenderInterval(0s);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  cv::Size first, full, back;
  std::thread person([&] {
    const std::string id = findWindow(env, "^" + title + "$");
    if (id.empty()) return;
    shell(env + "xdotool windowfocus --sync " + id);
    std::this_thread::sleep_for(700ms);
    first = sink.lastRendered().size();
    shell(env + "xdotool key f");
    std::this_thread::sleep_for(1200ms);
    full = sink.lastRendered().size();
    shell(env + "xdotool key f");
    std::this_thread::sleep_for(1200ms);
    back = sink.lastRendered().size();
    quit(env, id, sink, host);
  });
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!sink.wantsStop() && std::chrono::steady_clock::now() < deadline) {
    sink.consume(f.result);
    std::this_thread::sleep_for(50ms);
  }
  person.join();
  if (!sink.wantsStop()) host.stopping = true;  // no q came: finish() must not wait for one
  sink.finish();
  EXPECT_EQ(first, cv::Size(640, 400)) << "--window sets the first size";
  EXPECT_EQ(full, cv::Size(1280, 800));
  EXPECT_EQ(back, cv::Size(640, 400));
}

// The graph, the bars and the histogram on the screen, in their colours, where the panel says
// it drew them; and the screen shows exactly the picture rendered.
TEST(PreviewWindow, GraphBarsAndHistogramOnTheScreen) {
  REQUIRE_X_TOOLS();
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  ::setenv("DISPLAY", x.display().c_str(), 1);
  ::setenv("QT_QPA_PLATFORM", "xcb", 1);
  const std::string env = x.env();
  const std::string title = "vf-graph-" + std::to_string(::getpid());
  TempDir dir("preview_graph");

  Chain chain = Chain::parse("gray,hist,brightness=gain=1.5");
  PreviewOptions opts;
  opts.title = title;
  opts.sourceFps = 30;  // a 33 ms budget
  opts.frameCount = 300;
  FakeHost::Shared host;
  PreviewSink sink(std::make_unique<FakeHost>(chain, &host), chain, opts);
  sink.setMinRenderInterval(0s);
  std::vector<TestFrame> frames;
  for (int i = 0; i < 8; ++i)
    frames.emplace_back(test::realFrame(i, CV_8UC3), test::realFrame(i, CV_8UC1), i);

  std::atomic<bool> shotTaken{false};
  cv::Mat onScreen, shown;
  PanelParts parts;
  Geometry g;
  std::thread person([&] {
    const std::string id = findWindow(env, "^" + title + "$");
    if (id.empty()) return;
    std::this_thread::sleep_for(2500ms);  // two seconds of history
    shell(env + "xdotool windowfocus --sync " + id);
    shell(env + "xdotool key space");  // paused: the picture stays as it is for the screenshot
    std::this_thread::sleep_for(600ms);
    onScreen = windowPart(screenshot(env, id, dir / "screen.png", &g), g);
    // What was drawn last, before q draws again (a frame's own latency to the screen is known
    // once it is there, so the next picture has it in the graph).
    shown = sink.lastRendered();
    parts = sink.lastParts();
    shotTaken = true;
    quit(env, id, sink, host);
  });
  int n = 0;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!sink.wantsStop() && std::chrono::steady_clock::now() < deadline) {
    TestFrame& f = frames[n % frames.size()];
    f.result.stats.index = std::uint64_t(n);
    f.result.stats.latencyMs = 12 + n % 5;  // device 0.6 ms, latency 12-16 ms plus the paint
    f.result.time = {n, 1, 1, 30};
    ++n;
    sink.consume(f.result);
    std::this_thread::sleep_for(33ms);
  }
  person.join();
  if (!sink.wantsStop()) host.stopping = true;  // no q came: finish() must not wait for one
  sink.finish();
  ASSERT_TRUE(shotTaken);
  ASSERT_FALSE(onScreen.empty()) << "window " << g.window << " on screen " << g.screen;
  ASSERT_EQ(onScreen.size(), shown.size());
  EXPECT_LE(cv::norm(onScreen, shown, cv::NORM_INF), 2) << "the screen shows the picture drawn";
  ASSERT_GT(parts.graph.area(), 0);
  const cv::Mat graph = onScreen(parts.graph);
  EXPECT_GT(pixelsOf(graph, theme::kLatency, 3), 100) << "no latency line";
  EXPECT_GT(pixelsOf(graph, theme::kDevice, 3), 100) << "no device time";
  EXPECT_GT(pixelsOf(graph, theme::kBudget, 3), 100) << "no budget line";
  EXPECT_GT(pixelsOf(onScreen(parts.bars), theme::kDevice, 3), 10) << "no stage bars";
  EXPECT_GT(pixelsOf(onScreen(parts.bars), theme::kP99, 3), 10) << "no p99 ticks";
  ASSERT_GT(parts.histogram.area(), 0);
  EXPECT_GT(pixelsOf(onScreen(parts.histogram), theme::kHistGray, 40), 500) << "no histogram";
  ASSERT_GT(parts.position.area(), 0);
  EXPECT_GT(pixelsOf(onScreen(parts.position), theme::kProgress, 3), 4) << "no position bar";
  // None of these colours in the picture itself: the panel is beside it.
  const ViewLayout l = sink.lastLayout();
  EXPECT_EQ((l.panel & l.filtered).area(), 0);
}
