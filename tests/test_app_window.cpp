// The preview as a user sees it, on an Xvfb screen: real key presses (xdotool), screenshots of
// the X display (ImageMagick's import) checked for what must be there. (A dead or missing
// display: tests/test_app_display.cpp.)
#include <xcb/xcb.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
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

#define REQUIRE_TOOLS()                                            \
  for (const char* tool : {"Xvfb", "xdotool", "import", "ffmpeg"}) \
  ASSERT_TRUE(have(tool)) << tool << " not found: install xvfb, xdotool, imagemagick, ffmpeg"

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
  REQUIRE_TOOLS();
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
  REQUIRE_TOOLS();
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
  REQUIRE_TOOLS();
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

// ---- the program -------------------------------------------------------------------------------

// A 1080p file in compare mode on a 1280x800 screen: the window fits, the original is in
// colour, the filtered frame gray, and the panel beside them has its graph and bars.
TEST(PreviewWindow, ProgramCompareOf1080pFitsA1280x800Screen) {
  REQUIRE_TOOLS();
  TempDir dir("preview_fit");
  const std::string hd = dir / "hd.mkv";
  ASSERT_EQ(shell("ffmpeg -loglevel error -y -i " + std::string(kVideo) +
                  " -t 6 -vf scale=1920:1080 -c:v ffv1 " + hd)
                .status,
            0);
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  const ProcOptions po = x.options(120);
  Child program(vidfilterBinary(),
                {"-i", hd, "--chain", "gray,blur,sobel,hist,brightness", "--compare", "--preview"},
                po);
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(3s);
  shell(env + "xdotool windowfocus --sync " + id + " key space");
  std::this_thread::sleep_for(800ms);
  Geometry g;
  const cv::Mat screen = screenshot(env, id, dir / "screen.png", &g);
  shell(env + "xdotool key q");
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(g.screen, cv::Size(1280, 800));
  EXPECT_TRUE((g.window & cv::Rect(0, 0, 1280, 800)) == g.window) << g.window << " off the screen";
  const cv::Mat win = windowPart(screen, g);
  ASSERT_FALSE(win.empty());
  // Where the preview put things, by the same rule it follows.
  const ViewLayout l =
      layoutView(win.size(), {1920, 1080}, true, theme::panelWidth(theme::fontPx(win.size())));
  ASSERT_GT(l.panel.area(), 0);
  EXPECT_LT(l.scale, 1.0);
  const cv::Rect inner(l.filtered.width / 4, l.filtered.height / 4, l.filtered.width / 2,
                       l.filtered.height / 2);
  EXPECT_EQ(colourPixels(win(l.filtered)(inner)), 0) << "the filtered picture is gray";
  EXPECT_GT(colourPixels(win(l.original)(inner)), inner.area() / 2) << "the original in colour";
  const cv::Mat panel = win(l.panel);
  EXPECT_GT(pixelsOf(panel, theme::kLatency, 3), 50);
  EXPECT_GT(pixelsOf(panel, theme::kDevice, 3), 50);
  EXPECT_GT(pixelsOf(panel, theme::kBudget, 3), 50);
  EXPECT_GT(pixelsOf(panel, theme::kHistGray, 40), 300);
  cv::imwrite((std::filesystem::temp_directory_path() / "vf-preview-compare-1080p.png").string(),
              win);
}

// A --window larger than the screen opens at the screen's work area, all of it on the screen.
TEST(PreviewWindow, ProgramWindowLargerThanTheScreenFitsIt) {
  REQUIRE_TOOLS();
  TempDir dir("preview_window");
  Xvfb x("1024x768x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  Child program(vidfilterBinary(),
                {"-i", kVideo, "--chain", "gray", "--window", "4000x3000", "--preview"},
                x.options(60));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(1500ms);
  Geometry g;
  screenshot(env, id, dir / "screen.png", &g);
  shell(env + "xdotool key q");
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(g.screen, cv::Size(1024, 768));
  EXPECT_GT(g.window.area(), 0);
  EXPECT_TRUE((g.window & cv::Rect(0, 0, 1024, 768)) == g.window) << g.window << " off the screen";
}

// The window destroyed by another program ends the run as closing it does (it would otherwise
// wait for a q that no window can take).
TEST(PreviewWindow, ProgramWindowDestroyedByAnotherProgramEndsTheRun) {
  REQUIRE_TOOLS();
  Xvfb x("1024x768x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  Child program(vidfilterBinary(), {"-i", kVideo, "--chain", "gray", "--preview"}, x.options(60));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(1s);
  shell(env + "xdotool windowclose " + id);
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("destroyed by another program"), std::string::npos);
}

namespace {

// What a window manager sends when its close button is pressed: WM_DELETE_WINDOW, as a
// WM_PROTOCOLS client message to the window (`id` as xdotool prints it, in decimal).
bool sendWmDelete(const std::string& display, const std::string& id) {
  xcb_connection_t* c = xcb_connect(display.c_str(), nullptr);
  if (!c || xcb_connection_has_error(c)) return false;
  const auto atom = [c](const char* name) {
    xcb_intern_atom_reply_t* r = xcb_intern_atom_reply(
        c, xcb_intern_atom(c, 0, std::uint16_t(std::strlen(name)), name), nullptr);
    const xcb_atom_t a = r ? r->atom : xcb_atom_t(XCB_ATOM_NONE);
    std::free(r);
    return a;
  };
  xcb_client_message_event_t e{};
  e.response_type = XCB_CLIENT_MESSAGE;
  e.format = 32;
  e.window = xcb_window_t(std::stoul(id));
  e.type = atom("WM_PROTOCOLS");
  e.data.data32[0] = atom("WM_DELETE_WINDOW");
  e.data.data32[1] = XCB_CURRENT_TIME;
  xcb_send_event(c, 0, e.window, XCB_EVENT_MASK_NO_EVENT, reinterpret_cast<const char*>(&e));
  xcb_flush(c);
  xcb_disconnect(c);
  return true;
}

// Closes the program's window as a window manager's close button does until `ended` holds on
// its stderr: each try sends WM_DELETE_WINDOW to every visible window of that title, found again
// (on a loaded machine the window may not take a message sent as it opens, or be made again).
bool closeUntil(Child& program, const Xvfb& x,
                const std::function<bool(const std::string&)>& ended) {
  for (int i = 0; i < 4; ++i) {
    const std::string ids =
        shellOutput(x.env() + "xdotool search --onlyvisible --name '^vidfilter' 2>/dev/null");
    std::istringstream lines(ids);
    for (std::string id; std::getline(lines, id);)
      if (!id.empty() && !sendWmDelete(x.display(), id)) return false;
    if (program.readUntil(ended, 8)) return true;
  }
  return false;
}

}  // namespace

// The window's close button (a window manager's WM_DELETE_WINDOW) ends the run as q does, and
// is not taken for another program destroying the window; of several inputs in tiles, one that
// had not ended is reported stopped, not done.
TEST(PreviewWindow, ProgramClosedByItsCloseButtonStopsTheInputs) {
  REQUIRE_TOOLS();
  TempDir dir("preview_wm_close");
  Xvfb x("1024x768x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  {
    Child program(vidfilterBinary(), {"-i", kVideo, "--chain", "gray", "--preview"}, x.options(60));
    const std::string id = findWindow(env, "^vidfilter");
    ASSERT_FALSE(id.empty()) << "no window";
    std::this_thread::sleep_for(1s);
    EXPECT_TRUE(closeUntil(program, x, [](const std::string& err) {
      return err.find("frames: ") != std::string::npos;  // its summary
    }));
    const ProcResult r = program.wait();
    SCOPED_TRACE(r.err);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err.find("destroyed by another program"), std::string::npos);
  }
  const std::string json = dir / "run.json";
  Child tiles(vidfilterBinary(),
              {"-i", kVideo, "-i", kVideo, "--chain", "gray", "--preview", "--json", json},
              x.options(60));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(2s);  // both playing at 10 fps: 795 frames take 80 s
  EXPECT_TRUE(closeUntil(tiles, x, [](const std::string& err) {
    return err.find(" at once) on ") != std::string::npos;  // its closing table
  }));
  const ProcResult r = tiles.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err.find("destroyed by another program"), std::string::npos);
  std::ifstream in(json);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(report.is_object()) << "no report";
  ASSERT_EQ(report["inputs"].size(), 2u) << report.dump();
  for (const auto& input : report["inputs"]) EXPECT_EQ(input["status"], "stopped") << report.dump();
}

// At the end of a file the window stays, showing the last frame, until q; --exit-at-end
// closes it there.
TEST(PreviewWindow, ProgramStaysOpenAtTheEndUntilQ) {
  REQUIRE_TOOLS();
  TempDir dir("preview_end");
  const std::string clip = dir / "clip.mkv";
  ASSERT_EQ(
      shell("ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 12 "
            "-c:v ffv1 " +
            clip)
          .status,
      0);
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  const ProcOptions po = x.options(60);
  {
    Child program(vidfilterBinary(), {"-i", clip, "--chain", "gray", "--preview"}, po);
    const std::string id = findWindow(env, "^vidfilter");
    ASSERT_FALSE(id.empty()) << "no window";
    std::this_thread::sleep_for(3s);  // 12 frames at 25 fps are long over
    EXPECT_EQ(::kill(program.pid(), 0), 0) << "the program ended at the end of the file";
    EXPECT_EQ(findWindow(env, "^vidfilter"), id) << "the window went away";
    const auto t0 = std::chrono::steady_clock::now();
    shell(env + "xdotool windowfocus --sync " + id + " key q");
    const ProcResult r = program.wait();
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
    EXPECT_NE((r.out + r.err).find("frames: 12 in, 12 out"), std::string::npos) << r.out << r.err;
  }
  const ProcResult r =
      runVidfilter({"-i", clip, "--chain", "gray", "--preview", "--exit-at-end"}, po);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_LT(r.seconds, 30);
}

// Seek and frame step on a file: each frame shown (saved with 's') is the one FFmpeg decodes at
// that place.
TEST(PreviewWindow, ProgramSeekAndStepShowTheFramesFfmpegDecodes) {
  REQUIRE_TOOLS();
  TempDir dir("preview_seek");
  const std::string clip = dir / "clip.mkv";
  ASSERT_EQ(shell("ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=320x240:rate=25 -t 20 "
                  "-pix_fmt yuv420p -c:v ffv1 " +
                  clip)
                .status,
            0);
  ASSERT_TRUE(openSource(classifySource(clip), InputOptions{})->seekable());
  // Every frame as FFmpeg decodes it, the reference.
  std::filesystem::create_directories(dir / "ref");
  ASSERT_EQ(shell("ffmpeg -loglevel error -i " + clip + " " + (dir / "ref") + "/%04d.png").status,
            0);
  std::vector<cv::Mat> ref;
  for (int i = 1;; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/%04d.png", i);
    cv::Mat m = cv::imread((dir / "ref") + name, cv::IMREAD_COLOR);
    if (m.empty()) break;
    ref.push_back(m);
  }
  ASSERT_EQ(ref.size(), 500u);
  auto which = [&](const cv::Mat& shot) {  // the reference frame it is, or -1
    int best = -1;
    double bestDiff = 1e9;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double d = meanDiff(shot, ref[i]);
      if (d < bestDiff) {
        bestDiff = d;
        best = int(i);
      }
    }
    return bestDiff < 2.0 ? best : -1;
  };
  std::ofstream(dir / "snap.toml") << "[preview]\nsnapshot_dir = \"" << (dir / "snaps") << "\"\n";
  std::filesystem::create_directories(dir / "snaps");
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  const ProcOptions po = x.options(120);
  Child program(vidfilterBinary(),
                {"-i", clip, "--chain", "hist", "--preview", "--config", dir / "snap.toml"}, po);
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::set<std::string> seen;
  // Presses `keys`, then s; returns the frame the new snapshot shows.
  auto shownAfter = [&](const std::string& keys) {
    if (!keys.empty()) shell(env + "xdotool key --delay 150 " + keys);
    std::this_thread::sleep_for(1500ms);
    shell(env + "xdotool key s");
    std::this_thread::sleep_for(800ms);
    for (const auto& e : std::filesystem::directory_iterator(dir / "snaps")) {
      if (!seen.insert(e.path().string()).second) continue;
      const int w = which(cv::imread(e.path().string()));
      // Named by the frame's number in the source from 1, as the panel shows it.
      char want[32];
      std::snprintf(want, sizeof want, "vidfilter-%06d.png", w + 1);
      EXPECT_EQ(e.path().filename().string(), want);
      return w;
    }
    return -2;
  };
  shell(env + "xdotool windowfocus --sync " + id);
  std::this_thread::sleep_for(1s);
  const int paused = shownAfter("space");
  ASSERT_GE(paused, 0);
  EXPECT_EQ(shownAfter("Right"), paused + 125) << "5 s at 25 fps";
  EXPECT_EQ(shownAfter("period"), paused + 126);
  EXPECT_EQ(shownAfter("period period"), paused + 128);
  EXPECT_EQ(shownAfter("comma"), paused + 127);
  EXPECT_EQ(shownAfter("Left"), paused + 2);
  EXPECT_EQ(shownAfter("Down"), 0) << "60 s back from 0:0x: the first frame";
  shell(env + "xdotool key q");
  const ProcResult r = program.wait();
  EXPECT_EQ(r.status, 0) << r.err;
}

// Paused, the preview holds the engine's sink thread; SIGTERM must still end the program
// promptly and cleanly, not wait for a key.
TEST(PreviewWindow, SignalWhilePausedStopsTheProgram) {
  REQUIRE_TOOLS();
  Xvfb x;
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  const ProcOptions po = x.options(60);
  Child program(vidfilterBinary(), {"-i", kVideo, "--chain", "gray,brightness", "--preview"}, po);
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  shell(env + "xdotool windowfocus --sync " + id);
  std::this_thread::sleep_for(500ms);
  shell(env + "xdotool key --delay 100 space");
  std::this_thread::sleep_for(1000ms);
  ASSERT_EQ(::kill(program.pid(), 0), 0) << "the program ended by itself";
  const auto t0 = std::chrono::steady_clock::now();
  program.signal(SIGTERM);
  const ProcResult r = program.wait();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;  // the clean stop's status, not SIGKILL's
  EXPECT_LT(secs, 10) << r.err;
}
