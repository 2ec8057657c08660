// The preview: overlay drawing (pure functions), key handling through the sink's test hooks,
// and a real window under Xvfb driven by real key presses (xdotool) and checked by a screenshot
// of the X display (ImageMagick's import).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "app/overlay.hpp"
#include "app/preview.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::app;
using namespace std::chrono_literals;

namespace {

// Pixels that differ between two same-size BGR images (any channel).
int differing(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a, b, d);
  cv::Mat g;
  cv::cvtColor(d, g, cv::COLOR_BGR2GRAY);
  return cv::countNonZero(g);
}

// Near-white pixels (text) in a BGR region.
int whitish(const cv::Mat& bgr) {
  cv::Mat mask;
  cv::inRange(bgr, cv::Scalar(200, 200, 200), cv::Scalar(255, 255, 255), mask);
  return cv::countNonZero(mask);
}

OverlayInfo sampleInfo() {
  OverlayInfo info;
  info.device = "Test Device";
  info.stages = {{"gray", 0.25, true, false, ""}, {"brightness", 0.5, true, true, "gain=1.5"}};
  info.uploadMs = 0.125;
  info.downloadMs = 0.0625;
  info.latencyMs = 1.5;
  info.fps = 123.4;
  info.frames = 42;
  info.dropped = 3;
  info.frameDesc = "768x576 gray";
  return info;
}

// Stands in for the engine: fixed statistics, and post() applies the change to its own chain
// at once (the engine would do it between two frames).
class FakeHost : public PreviewHost {
 public:
  FakeHost(Chain& chain, std::atomic<bool>* stopping = nullptr)
      : chain_(chain), stopping_(stopping) {
    stats_.stageNames = {"gray", "hist", "brightness"};
    stats_.stageMs = {{0.2, 0.2, 0.3}, {0.1, 0.1, 0.2}, {0.3, 0.3, 0.4}};
    stats_.uploadMs = {0.5, 0.5, 0.6};
    stats_.downloadMs = {0.4, 0.4, 0.5};
    stats_.latencyMs = {2.0, 2.0, 3.0};
    stats_.fps = 59.9;
    stats_.framesIn = stats_.framesOut = 100;
    stats_.dropped = 2;
  }
  EngineStats stats() const override { return stats_; }
  void post(std::function<void(Chain&)> change) override {
    change(chain_);
    ++posts;
  }
  bool stopping() const override { return stopping_ && *stopping_; }
  int posts = 0;

 private:
  Chain& chain_;
  std::atomic<bool>* stopping_;
  EngineStats stats_;
};

// A frame as the engine hands it over: `out` filtered, `in` as captured, a histogram side output.
struct TestFrame {
  cv::Mat in, out;
  std::vector<std::vector<std::uint8_t>> side;
  FrameResult result;
  TestFrame(const cv::Mat& input, const cv::Mat& output, std::uint64_t index = 7)
      : in(input), out(output) {
    result.input = test::view(in);
    result.output = test::view(out);
    result.stats.index = index;
    result.stats.stageMs = {0.2, 0.1, 0.3};
    // The histogram of the output, as the hist stage would read it back (256 uint32 per channel).
    std::vector<cv::Mat> planes;
    cv::split(out, planes);
    side.emplace_back(256 * 4 * planes.size());
    auto* bins = reinterpret_cast<std::uint32_t*>(side[0].data());
    for (std::size_t c = 0; c < planes.size(); ++c)
      for (auto it = planes[c].begin<std::uint8_t>(); it != planes[c].end<std::uint8_t>(); ++it)
        ++bins[c * 256 + *it];
    result.side = &side;
  }
};

std::unique_ptr<PreviewSink> makeSink(Chain& chain, PreviewOptions opts = {},
                                      std::atomic<bool>* stopping = nullptr) {
  opts.deviceName = "Test Device";
  auto sink =
      std::make_unique<PreviewSink>(std::make_unique<FakeHost>(chain, stopping), chain, opts);
  sink->setShowWindow(false);
  sink->setMinRenderInterval(0s);
  return sink;
}

}  // namespace

// ---- overlay: pure functions ------------------------------------------------------------------

TEST(Overlay, PanelDrawsTextOnlyInsideItsRectangle) {
  const cv::Mat frame = test::realFrame(2, CV_8UC3);
  cv::Mat drawn = frame.clone();
  const cv::Rect panel = drawOverlay(drawn, sampleInfo());
  ASSERT_GT(panel.area(), 0);
  EXPECT_LT(panel.width, frame.cols);
  // One line per: device, fps, frames, transfers, two stages, chain total, hint = 8 lines.
  EXPECT_GT(panel.height, 8 * 10);
  cv::Mat outside = drawn.clone();
  frame(panel).copyTo(outside(panel));
  EXPECT_EQ(differing(outside, frame), 0) << "pixels changed outside the panel";
  EXPECT_GT(differing(drawn(panel), frame(panel)), panel.area() / 2) << "panel not shaded";
  EXPECT_GT(whitish(drawn(panel)), 300) << "no text in the panel";
  EXPECT_LT(whitish(drawn(panel)), panel.area() / 3);
}

TEST(Overlay, PanelShowsWhatChanges) {
  // Different numbers draw different text: the panel is not a fixed picture.
  const cv::Mat frame = test::realFrame(3, CV_8UC3);
  OverlayInfo a = sampleInfo(), b = sampleInfo();
  b.stages[1].ms = 7.75;
  b.fps = 9.5;
  cv::Mat da = frame.clone(), db = frame.clone();
  drawOverlay(da, a);
  drawOverlay(db, b);
  EXPECT_GT(differing(da, db), 20);
  // A disabled stage is drawn in grey, not white.
  OverlayInfo c = sampleInfo();
  c.stages[0].enabled = false;
  cv::Mat dc = frame.clone();
  drawOverlay(dc, c);
  EXPECT_GT(differing(da, dc), 20);
}

TEST(Overlay, HistogramPlotPeaksAtTheFullestBin) {
  cv::Mat frame = test::realFrame(4, CV_8UC3);
  const cv::Mat gray = test::realFrame(4, CV_8UC1);
  std::vector<std::uint32_t> bins(256, 0);
  for (auto it = gray.begin<std::uint8_t>(); it != gray.end<std::uint8_t>(); ++it) ++bins[*it];
  const int peakBin = int(std::max_element(bins.begin(), bins.end()) - bins.begin());
  const cv::Mat before = frame.clone();
  const cv::Rect box = drawHistogram(frame, bins.data(), 1);
  ASSERT_GT(box.area(), 0);
  EXPECT_EQ(box.br().x, frame.cols - 6);
  EXPECT_EQ(box.br().y, frame.rows - 6);
  // The topmost plotted point (light grey, 200) sits in the peak bin's column.
  const cv::Mat plot = frame(box);
  int topRow = plot.rows, topCol = -1;
  for (int y = 0; y < plot.rows && topCol < 0; ++y)
    for (int x = 0; x < plot.cols; ++x)
      if (plot.at<cv::Vec3b>(y, x) == cv::Vec3b(200, 200, 200)) {
        topRow = y;
        topCol = x;
        break;
      }
  ASSERT_GE(topCol, 0) << "no plot line drawn";
  EXPECT_EQ(topRow, 6);
  const int plotW = box.width - 12;
  EXPECT_NEAR(topCol - 6, peakBin * (plotW - 1) / 255, 2) << "peak bin " << peakBin;
  cv::Mat outside = frame.clone();
  before(box).copyTo(outside(box));
  EXPECT_EQ(differing(outside, before), 0);
}

TEST(Overlay, ThreeChannelHistogramDrawsThreeColours) {
  cv::Mat frame = test::realFrame(5, CV_8UC3);
  std::vector<std::uint32_t> bins(3 * 256);
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < 256; ++b) bins[c * 256 + b] = 1 + ((b * (c + 3)) % 97);
  const cv::Rect box = drawHistogram(frame, bins.data(), 3);
  const cv::Mat plot = frame(box);
  int blue = 0, green = 0, red = 0;
  for (auto it = plot.begin<cv::Vec3b>(); it != plot.end<cv::Vec3b>(); ++it) {
    blue += *it == cv::Vec3b(255, 80, 80);
    green += *it == cv::Vec3b(80, 255, 80);
    red += *it == cv::Vec3b(80, 80, 255);
  }
  EXPECT_GT(blue, 50);
  EXPECT_GT(green, 50);
  EXPECT_GT(red, 50);
}

TEST(Overlay, CompareIsOriginalLeftFilteredRight) {
  const cv::Mat a = test::realFrame(1, CV_8UC3), b = test::realFrame(6, CV_8UC3);
  const cv::Mat both = composeCompare(a, b);
  ASSERT_EQ(both.size(), cv::Size(2 * a.cols, a.rows));
  // Away from the labels (bottom) and the divider, each half is its frame unchanged.
  const cv::Rect top(0, 0, a.cols - 1, a.rows - 60);
  EXPECT_EQ(differing(both(top), a(top)), 0);
  EXPECT_EQ(differing(both(top + cv::Point(a.cols + 1, 0)), b(top + cv::Point(1, 0))), 0);
}

TEST(Overlay, ToBgrConvertsEveryFormat) {
  const cv::Mat bgr = test::realFrame(0, CV_8UC3);
  cv::Mat gray, bgra;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  cv::Mat g3;
  cv::cvtColor(gray, g3, cv::COLOR_GRAY2BGR);
  EXPECT_EQ(differing(toBgr(test::view(gray)), g3), 0);
  EXPECT_EQ(differing(toBgr(test::view(bgra)), bgr), 0);
  EXPECT_EQ(differing(toBgr(test::view(bgr)), bgr), 0);
  EXPECT_EQ(displayScale(64), 10);
  EXPECT_EQ(displayScale(768), 1);
}

// ---- the sink, driven through its hooks (no window) --------------------------------------------

TEST(PreviewSink, OverlayOnAndOffAndHelp) {
  Chain chain = Chain::parse("gray,hist,brightness=gain=1.5");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  cv::Mat plain;
  cv::cvtColor(f.out, plain, cv::COLOR_GRAY2BGR);
  sink->consume(f.result);
  const cv::Mat withOverlay = sink->lastRendered();
  ASSERT_EQ(withOverlay.size(), plain.size());
  EXPECT_GT(differing(withOverlay, plain), 5000);
  // The histogram plot is drawn bottom-right because the chain has hist.
  const cv::Rect corner(plain.cols - 200, plain.rows - 60, 190, 50);
  EXPECT_GT(differing(withOverlay(corner), plain(corner)), 500);
  sink->pressKey('o');
  sink->consume(f.result);
  EXPECT_EQ(differing(sink->lastRendered(), plain), 0) << "overlay off shows the frame as is";
  sink->pressKey('h');
  sink->consume(f.result);
  const cv::Mat help = sink->lastRendered();
  const cv::Rect centre(plain.cols / 2 - 50, plain.rows / 2 - 20, 100, 40);
  EXPECT_GT(differing(help(centre), plain(centre)), 1000);
  EXPECT_FALSE(sink->wantsStop());
}

TEST(PreviewSink, HistogramOnlyWhenTheHistStageIsOn) {
  Chain chain = Chain::parse("gray,hist");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(2, CV_8UC3), test::realFrame(2, CV_8UC1));
  sink->consume(f.result);
  const cv::Mat on = sink->lastRendered();
  sink->pressKey('2');  // hist off
  sink->consume(f.result);
  EXPECT_FALSE(chain.enabled(1));
  const cv::Mat off = sink->lastRendered();
  const cv::Rect corner(on.cols - 200, on.rows - 60, 190, 50);
  EXPECT_GT(differing(on(corner), off(corner)), 500);
}

TEST(PreviewSink, NumberKeysToggleStagesInTheChain) {
  Chain chain = Chain::parse("gray,hist,brightness=gain=1.5");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->pressKey('1');
  sink->consume(f.result);
  EXPECT_FALSE(chain.enabled(0));
  EXPECT_FALSE(sink->stages()[0].enabled);
  EXPECT_EQ(sink->selected(), 0);
  // Gray off: the engine now hands over BGR frames; the preview shows them as they come.
  TestFrame bgr(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC3));
  sink->consume(bgr.result);
  EXPECT_EQ(sink->lastRendered().type(), CV_8UC3);
  sink->pressKey('1');
  sink->consume(f.result);
  EXPECT_TRUE(chain.enabled(0));
  sink->pressKey('3');
  sink->consume(f.result);
  EXPECT_FALSE(chain.enabled(2));
  EXPECT_TRUE(chain.enabled(1));
  sink->pressKey('9');  // no ninth stage: ignored
  sink->consume(f.result);
  EXPECT_EQ(sink->stages().size(), 3u);
}

TEST(PreviewSink, PlusMinusMoveTheSelectedStagesMainParameter) {
  Chain chain = Chain::parse("gray,brightness=gain=1.5");
  auto sink = makeSink(chain);
  EXPECT_EQ(sink->selected(), 1) << "the first stage with a live numeric parameter";
  EXPECT_EQ(sink->stages()[1].param, "gain");
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->pressKey('+');
  sink->consume(f.result);
  const double up = chain.stage(1).params().number("gain");
  EXPECT_GT(up, 1.5);
  EXPECT_DOUBLE_EQ(up, sink->stages()[1].value);
  sink->pressKey('-');
  sink->consume(f.result);
  sink->pressKey('-');
  sink->consume(f.result);
  EXPECT_LT(chain.stage(1).params().number("gain"), 1.5);
  // Held down: stays inside the declared range [-16, 16].
  for (int i = 0; i < 200; ++i) sink->pressKey('+');
  for (int i = 0; i < 200; ++i) sink->consume(f.result);
  EXPECT_DOUBLE_EQ(chain.stage(1).params().number("gain"), 16);
  // gray has no live parameter: selecting it and pressing + changes nothing.
  sink->pressKey('[');
  sink->pressKey('+');
  sink->consume(f.result);
  sink->consume(f.result);
  EXPECT_EQ(sink->selected(), 0);
  EXPECT_DOUBLE_EQ(chain.stage(1).params().number("gain"), 16);
}

TEST(PreviewSink, SnapshotWritesTheFilteredFrameAsPng) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("vf-preview-snap-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Chain chain = Chain::parse("gray,brightness");
  PreviewOptions opts;
  opts.snapshotDir = dir.string();
  auto sink = makeSink(chain, opts);
  TestFrame f(test::realFrame(3, CV_8UC3), test::realFrame(3, CV_8UC1), 42);
  sink->pressKey('s');
  sink->consume(f.result);
  const auto path = dir / "vidfilter-000042.png";
  ASSERT_TRUE(std::filesystem::exists(path));
  const cv::Mat back = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
  ASSERT_EQ(back.type(), CV_8UC1);
  EXPECT_EQ(test::maxAbsDiff(back, f.out), 0);
  std::filesystem::remove_all(dir);
}

TEST(PreviewSink, QuitKeys) {
  for (int key : {int('q'), 27}) {
    Chain chain = Chain::parse("gray");
    auto sink = makeSink(chain);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->consume(f.result);
    EXPECT_FALSE(sink->wantsStop());
    sink->pressKey(key);
    sink->consume(f.result);
    EXPECT_TRUE(sink->wantsStop()) << key;
    const auto n = sink->framesRendered();
    sink->consume(f.result);  // frames still in flight after a quit: taken, not shown
    EXPECT_EQ(sink->framesRendered(), n);
  }
}

TEST(PreviewSink, PauseHoldsTheFrameUntilResumed) {
  Chain chain = Chain::parse("gray,brightness");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->pressKey(' ');
  auto done = std::async(std::launch::async, [&] { sink->consume(f.result); });
  EXPECT_EQ(done.wait_for(300ms), std::future_status::timeout) << "pause did not hold";
  EXPECT_TRUE(sink->paused());
  // Keys still work while paused (the window stays responsive): toggle a stage.
  sink->pressKey('2');
  for (int i = 0; i < 100 && chain.enabled(1); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(chain.enabled(1));
  sink->pressKey(' ');
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready) << "resume did not release the frame";
  EXPECT_FALSE(sink->paused());
}

TEST(PreviewSink, PauseNeverBlocksShutdownOrQuit) {
  // A quit key while paused.
  {
    Chain chain = Chain::parse("gray");
    auto sink = makeSink(chain);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->pressKey(' ');
    auto done = std::async(std::launch::async, [&] { sink->consume(f.result); });
    EXPECT_EQ(done.wait_for(200ms), std::future_status::timeout);
    sink->pressKey('q');
    ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(sink->wantsStop());
  }
  // The engine shutting down while paused (stop(), an error elsewhere, SIGINT).
  {
    Chain chain = Chain::parse("gray");
    std::atomic<bool> stopping{false};
    auto sink = makeSink(chain, {}, &stopping);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->pressKey(' ');
    auto done = std::async(std::launch::async, [&] { sink->consume(f.result); });
    EXPECT_EQ(done.wait_for(200ms), std::future_status::timeout);
    stopping = true;
    ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
    sink->finish();
  }
  // interrupt() (the hook an engine can call directly).
  {
    Chain chain = Chain::parse("gray");
    auto sink = makeSink(chain);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->pressKey(' ');
    auto done = std::async(std::launch::async, [&] { sink->consume(f.result); });
    EXPECT_EQ(done.wait_for(200ms), std::future_status::timeout);
    sink->interrupt();
    ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
  }
}

TEST(PreviewSink, CompareShowsInputAndOutputSideBySide) {
  Chain chain = Chain::parse("gray");
  PreviewOptions opts;
  opts.compare = true;
  opts.overlay = false;
  auto sink = makeSink(chain, opts);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->consume(f.result);
  const cv::Mat shown = sink->lastRendered();
  ASSERT_EQ(shown.size(), cv::Size(2 * f.in.cols, f.in.rows));
  const cv::Rect top(0, 0, f.in.cols - 1, f.in.rows - 60);
  EXPECT_EQ(differing(shown(top), f.in(top)), 0);
  cv::Mat g3;
  cv::cvtColor(f.out, g3, cv::COLOR_GRAY2BGR);
  EXPECT_EQ(differing(shown(top + cv::Point(f.in.cols + 1, 0)), g3(top + cv::Point(1, 0))), 0);
}

// ---- a real window under Xvfb ------------------------------------------------------------------

namespace {

// Runs a shell command, returns its stdout (trimmed) and exit status.
std::pair<int, std::string> sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, ""};
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int rc = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

bool have(const char* tool) {
  return sh(std::string("command -v ") + tool + " >/dev/null").first == 0;
}

// An Xvfb server on a free display (-displayfd picks it), stopped by the destructor.
class Xvfb {
 public:
  Xvfb() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      const std::string fd = std::to_string(fds[1]);
      ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1280x1024x24",
               "-nolisten", "tcp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    pollfd pfd{fds[0], POLLIN, 0};
    std::string num;
    while (::poll(&pfd, 1, 15000) > 0) {
      char c;
      if (::read(fds[0], &c, 1) != 1 || c == '\n') break;
      num += c;
    }
    ::close(fds[0]);
    if (!num.empty()) display_ = ":" + num;
  }
  ~Xvfb() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

}  // namespace

TEST(PreviewWindow, XvfbScreenshotShowsTheOverlayAndKeysPauseAndQuit) {
  for (const char* tool : {"Xvfb", "xdotool", "import"})
    ASSERT_TRUE(have(tool)) << tool
                            << " not found: install the packages xvfb, xdotool, imagemagick";
  Xvfb x;
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  ::setenv("DISPLAY", x.display().c_str(), 1);
  ::setenv("QT_QPA_PLATFORM", "xcb", 1);

  const std::string title = "vf-preview-test-" + std::to_string(::getpid());
  const auto dir = std::filesystem::temp_directory_path() / title;
  std::filesystem::create_directories(dir);
  const std::string shot = (dir / "screen.png").string();

  Chain chain = Chain::parse("gray,hist,brightness=gain=1.5");
  PreviewOptions opts;
  opts.title = title;
  opts.deviceName = "Test Device";
  PreviewSink sink(std::make_unique<FakeHost>(chain), chain, opts);
  sink.setMinRenderInterval(0s);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));

  // The person at the keyboard: find the window, pause, screenshot, quit with a real key press.
  std::string geometry, log;
  std::atomic<bool> pausedSeen{false};
  std::thread person([&] {
    const auto [rc, id] =
        sh("timeout 20 xdotool search --sync --onlyvisible --name '^" + title + "$' | head -1");
    log += "search rc " + std::to_string(rc) + " id '" + id + "'\n";
    if (id.empty()) return;
    std::this_thread::sleep_for(300ms);
    log += "focus rc " + std::to_string(sh("xdotool windowfocus --sync " + id).first) + "\n";
    sh("xdotool key --delay 50 space");
    for (int i = 0; i < 200 && !sink.paused(); ++i) std::this_thread::sleep_for(10ms);
    pausedSeen = sink.paused();
    std::this_thread::sleep_for(300ms);  // the paused frame is drawn
    geometry = sh("xdotool getwindowgeometry --shell " + id).second;
    log += "import rc " + std::to_string(sh("import -window root " + shot).first) + "\n";
    sh("xdotool key --delay 50 q");
  });
  const auto deadline = std::chrono::steady_clock::now() + 40s;
  while (!sink.wantsStop() && std::chrono::steady_clock::now() < deadline) sink.consume(f.result);
  person.join();
  sink.finish();
  SCOPED_TRACE(log);
  EXPECT_TRUE(pausedSeen) << "space did not pause";
  ASSERT_TRUE(sink.wantsStop()) << "q did not quit";

  // Where the window is, from xdotool's X=, Y=, WIDTH=, HEIGHT= lines.
  auto field = [&](const std::string& k) {
    const auto p = geometry.find(k + "=");
    return p == std::string::npos ? -1 : std::atoi(geometry.c_str() + p + k.size() + 1);
  };
  const cv::Rect win(field("X"), field("Y"), field("WIDTH"), field("HEIGHT"));
  const cv::Mat screen = cv::imread(shot, cv::IMREAD_COLOR);
  ASSERT_FALSE(screen.empty()) << "no screenshot";
  const cv::Mat shown = sink.lastRendered();
  ASSERT_EQ(win.size(), shown.size()) << geometry;
  ASSERT_TRUE((win & cv::Rect(0, 0, screen.cols, screen.rows)) == win) << geometry;
  const cv::Mat onScreen = screen(win);
  // The screen shows what the sink rendered (paused, so it is this very image)...
  cv::Mat d;
  cv::absdiff(onScreen, shown, d);
  EXPECT_LE(cv::norm(d, cv::NORM_INF), 2);
  // ...and that differs from the bare frame where the overlay panel is: text is drawn there.
  cv::Mat plain;
  cv::cvtColor(f.out, plain, cv::COLOR_GRAY2BGR);
  const cv::Rect panel(0, 0, 300, 150);
  EXPECT_GT(differing(onScreen(panel), plain(panel)), 5000);
  EXPECT_GT(whitish(onScreen(panel)), 300);
  cv::imwrite((std::filesystem::temp_directory_path() / "vf-preview-window.png").string(),
              onScreen);
  std::filesystem::remove_all(dir);
}

// The real program: `vidfilter -i vtest.avi --chain gray,blur,sobel,hist,brightness` in a window
// on Xvfb, driven by key presses as a person would: pause, overlay off, stage 1 (gray) off,
// resume, quit. Screenshots of the X display check what each key did.
TEST(PreviewWindow, VidfilterProgramPreviewUnderXvfb) {
  for (const char* tool : {"Xvfb", "xdotool", "import"})
    ASSERT_TRUE(have(tool)) << tool
                            << " not found: install the packages xvfb, xdotool, imagemagick";
  const std::string video = "/usr/share/doc/opencv-doc/examples/data/vtest.avi";
  ASSERT_TRUE(std::filesystem::exists(video)) << video << " not found: install opencv-doc";
  const char* binEnv = std::getenv("VIDFILTER_BIN");
  const std::string bin =
      binEnv && *binEnv
          ? binEnv
          : (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "app" /
             "vidfilter")
                .string();
  Xvfb x;
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const auto dir =
      std::filesystem::temp_directory_path() / ("vf-preview-program-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string env = "DISPLAY=" + x.display() + " ";

  std::pair<int, std::string> program;
  std::thread runner([&] {
    program = sh(env + "timeout 90 " + bin + " -i " + video +
                 " --chain gray,blur,sobel,hist,brightness --preview 2>&1");
  });
  std::string log;
  auto shot = [&](const std::string& name, const std::string& id) {
    const std::string path = (dir / name).string();
    const auto g = sh(env + "xdotool getwindowgeometry --shell " + id).second;
    sh(env + "import -window root " + path);
    auto field = [&](const std::string& k) {
      const auto p = g.find(k + "=");
      return p == std::string::npos ? -1 : std::atoi(g.c_str() + p + k.size() + 1);
    };
    const cv::Mat screen = cv::imread(path, cv::IMREAD_COLOR);
    const cv::Rect win(field("X"), field("Y"), field("WIDTH"), field("HEIGHT"));
    log += name + ": " + g + "\n";
    if (screen.empty() || win.width <= 0 || (win & cv::Rect(0, 0, screen.cols, screen.rows)) != win)
      return cv::Mat();
    return screen(win).clone();
  };
  const auto [rc, id] =
      sh(env + "timeout 60 xdotool search --sync --onlyvisible --name '^vidfilter' | head -1");
  cv::Mat paused, bare, colour;
  if (!id.empty()) {
    sh(env + "xdotool windowfocus --sync " + id);
    std::this_thread::sleep_for(1500ms);  // frames flowing, statistics filled in
    sh(env + "xdotool key --delay 100 space");
    std::this_thread::sleep_for(700ms);
    paused = shot("paused.png", id);
    sh(env + "xdotool key --delay 100 o");
    std::this_thread::sleep_for(700ms);
    bare = shot("bare.png", id);
    sh(env + "xdotool key --delay 100 1 space");  // gray off, resume
    std::this_thread::sleep_for(2000ms);
    colour = shot("colour.png", id);
    sh(env + "xdotool key --delay 100 q");
  } else {
    log += "window not found (xdotool rc " + std::to_string(rc) + ")\n";
  }
  runner.join();
  SCOPED_TRACE(log + program.second);
  EXPECT_EQ(program.first, 0) << "vidfilter did not exit cleanly on q";
  ASSERT_FALSE(paused.empty());
  ASSERT_EQ(paused.size(), bare.size());
  ASSERT_FALSE(colour.empty());
  // Paused, the same frame is shown with and without the overlay: they differ where the panel
  // is (text), and nowhere in the middle of the frame.
  const cv::Rect panel(0, 0, std::min(300, paused.cols), std::min(150, paused.rows));
  EXPECT_GT(differing(paused(panel), bare(panel)), 5000);
  EXPECT_GT(whitish(paused(panel)), 300);
  // Below the panel and left of the histogram plot: the frame alone.
  const cv::Rect free(0, paused.rows / 2, paused.cols / 2, paused.rows / 2 - 8);
  EXPECT_EQ(differing(paused(free), bare(free)), 0) << "the frame moved while paused";
  // With gray on, the filtered frame is gray (B = G = R); with stage 1 off, the chain runs on
  // BGR and the edges come out in colour.
  auto colourPixels = [](const cv::Mat& m) {
    std::vector<cv::Mat> ch;
    cv::split(m, ch);
    cv::Mat d1, d2;
    cv::absdiff(ch[0], ch[1], d1);
    cv::absdiff(ch[1], ch[2], d2);
    return cv::countNonZero(d1 + d2);
  };
  EXPECT_EQ(colourPixels(bare), 0);
  EXPECT_GT(colourPixels(colour(free)), 100);
  std::filesystem::remove_all(dir);
}

// Paused, the preview holds the engine's sink thread; SIGTERM (as Ctrl-C) must still end the
// program promptly and cleanly, not wait for a key.
TEST(PreviewWindow, SignalWhilePausedStopsTheProgram) {
  for (const char* tool : {"Xvfb", "xdotool"})
    ASSERT_TRUE(have(tool)) << tool << " not found: install the packages xvfb, xdotool";
  const std::string video = "/usr/share/doc/opencv-doc/examples/data/vtest.avi";
  ASSERT_TRUE(std::filesystem::exists(video)) << video << " not found: install opencv-doc";
  const char* binEnv = std::getenv("VIDFILTER_BIN");
  const std::string bin =
      binEnv && *binEnv
          ? binEnv
          : (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "app" /
             "vidfilter")
                .string();
  Xvfb x;
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = "DISPLAY=" + x.display() + " ";
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("vf-preview-signal-" + std::to_string(::getpid()) + ".log"))
                              .string();
  // The shell prints the program's pid, waits for it and prints its exit status.
  FILE* p = ::popen((env + bin + " -i " + video + " --chain gray,brightness --preview >" + log +
                     " 2>&1 & echo $!; wait $!; echo $?")
                        .c_str(),
                    "r");
  ASSERT_NE(p, nullptr);
  char line[64] = {0};
  ASSERT_NE(std::fgets(line, sizeof line, p), nullptr);
  const pid_t pid = std::atoi(line);
  ASSERT_GT(pid, 0);
  const auto [rc, id] =
      sh(env + "timeout 60 xdotool search --sync --onlyvisible --name '^vidfilter' | head -1");
  ASSERT_FALSE(id.empty()) << "no window";
  sh(env + "xdotool windowfocus --sync " + id);
  std::this_thread::sleep_for(500ms);
  sh(env + "xdotool key --delay 100 space");
  std::this_thread::sleep_for(1000ms);
  ASSERT_EQ(::kill(pid, 0), 0) << "the program ended by itself";
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  // A watchdog, so a deadlock fails the test instead of hanging it.
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(100ms);
    if (!done) ::kill(pid, SIGKILL);
  });
  char status[64] = {0};
  const bool gotStatus = std::fgets(status, sizeof status, p) != nullptr;
  done = true;
  watchdog.join();
  ::pclose(p);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream f(log);
  const std::string out((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::filesystem::remove(log);
  ASSERT_TRUE(gotStatus);
  EXPECT_EQ(std::atoi(status), 128 + SIGTERM) << out;  // the clean stop's status, not SIGKILL's
  EXPECT_LT(secs, 10) << out;
}
