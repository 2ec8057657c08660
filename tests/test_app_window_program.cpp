// The program's preview window on an Xvfb screen: it fits the screen, ends the run when it is
// closed or destroyed, stays open at the end until q, and seeks and steps to the frames ffmpeg
// decodes. (The preview's sink in process: tests/test_app_window.cpp.)
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
#include "app/theme.hpp"
#include "tests/support/media.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace std::chrono_literals;
using namespace vf::test;

// A 1080p file in compare mode on a 1280x800 screen: the window fits, the original is in
// colour, the filtered frame gray, and the panel beside them has its graph and bars.
TEST(PreviewWindow, ProgramCompareOf1080pFitsA1280x800Screen) {
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
  REQUIRE_X_TOOLS();
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
