// A display that is dead or missing: one clear error and nothing created when the preview was
// asked for, a run without a window when it was not (never the abort Qt gives).
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::test;

namespace {}  // namespace

// ---------------------------------------------------------------------

// DISPLAY set but no server (an ssh session's forwarded display gone): with --preview one
// clear message, exit 2, and no output file created.
TEST(Display, DeadDisplayWithPreviewIsOneClearErrorAndCreatesNothing) {
  TempDir dir("dead_display");
  const std::string dead = deadDisplay();
  for (const std::string& out : {std::string("x.mkv"), std::string("f_%03d.png")}) {
    ProcOptions po;
    po.setEnv = {"DISPLAY=" + dead};
    const ProcResult r = runVidfilter(
        {"-i", kVideo, "--chain", "gray", "--frames", "5", "--preview", "-o", dir / out}, po);
    EXPECT_EQ(r.status, 2) << r.err;
    const std::string err = errorLines(r.err);
    EXPECT_NE(err.find("--preview needs a display"), std::string::npos) << err;
    EXPECT_NE(err.find("'" + dead + "'"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line: " << err;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "an output was created";
  }
}

// Without --preview a dead display means no preview: the run goes on headless (no abort),
// and with -o the display is never contacted.
TEST(Display, DeadDisplayWithoutPreviewRunsHeadless) {
  TempDir dir("dead_headless");
  ProcOptions po;
  po.setEnv = {"DISPLAY=" + deadDisplay()};
  ProcResult r = runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "5"}, po);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("no preview: "), std::string::npos) << r.err;
  EXPECT_NE((r.out + r.err).find("frames: 5 in, 5 out"), std::string::npos) << r.out << r.err;
  r = runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "5", "-o", dir / "x.mkv"}, po);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_GT(std::filesystem::file_size(dir / "x.mkv"), 0u);
  EXPECT_EQ(r.err.find("preview"), std::string::npos) << "the display was looked at: " << r.err;
}

TEST(Display, WaylandWithoutXOrAMissingQtPluginIsOneClearError) {
  ProcOptions po;
  po.setEnv = {"WAYLAND_DISPLAY=wayland-vf-none"};
  ProcResult r = runVidfilter({"-i", kVideo, "--chain", "gray", "--preview"}, po);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(errorLines(r.err).find("DISPLAY is not"), std::string::npos) << r.err;
  // Asked for Qt's Wayland platform: either its plugin is missing, or the socket is dead.
  po.setEnv = {"WAYLAND_DISPLAY=wayland-vf-none", "QT_QPA_PLATFORM=wayland",
               "XDG_RUNTIME_DIR=" + std::filesystem::temp_directory_path().string()};
  r = runVidfilter({"-i", kVideo, "--chain", "gray", "--preview"}, po);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(errorLines(r.err).find("--preview needs a display"), std::string::npos) << r.err;
}

// The display goes away while the preview shows a live input being recorded (an ssh session's
// forwarded display closed, the desktop session ended): the run stops as on a hang-up, the
// output is closed with every frame written, one error names the display, exit 1.
TEST(Display, DisplayThatGoesAwayMidRunLeavesAPlayableOutput) {
  for (const char* tool : {"Xvfb", "xdotool"}) ASSERT_TRUE(have(tool)) << tool << " not found";
  TempDir dir("display_gone");
  const std::string out = dir / "live.mkv";
  Xvfb x("640x480x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  Child c(vidfilterBinary(),
          {"-i",
           "videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=25/1 ! "
           "videoconvert ! appsink",
           "--chain", "gray,sobel", "--preview", "-o", out},
          x.options(90));
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("writing ") != std::string::npos; }, 60))
      << c.errSoFar();
  // The window is up (it opens at the first frame), then two seconds of frames at 25 fps.
  ASSERT_FALSE(findWindow(x.env(), "^vidfilter").empty()) << c.errSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  x.stop();
  const ProcResult r = c.wait();
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("display went away"), std::string::npos) << r.err;
  // No signal came: nothing says one did, or offers a second Ctrl-C.
  EXPECT_EQ(r.err.find("hung up"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Ctrl-C"), std::string::npos) << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 10) << r.err;
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
}
