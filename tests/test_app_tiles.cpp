// The preview of several inputs, the program on an Xvfb screen: real key presses (xdotool),
// screenshots (ImageMagick's import), each tile checked against its input filtered by OpenCV on
// the CPU. Named PreviewWindow* (CI runs the window tests without the leak check). The grid's
// arithmetic and drawing alone: tests/test_app_tile_layout.cpp.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <thread>

#include "app/job_list.hpp"
#include "app/theme.hpp"
#include "app/tile_layout.hpp"
#include "tests/support/json_file.hpp"
#include "tests/support/media.hpp"
#include "tests/test_tile_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;
using namespace std::chrono_literals;

namespace {

// A lossless clip of `frames` copies of `img` (ffv1 in BGR: decoded exactly as written).
std::string stillClip(const TempDir& dir, const std::string& name, const cv::Mat& img, int frames,
                      int fps) {
  const std::string png = dir / (name + ".png"), clip = dir / (name + ".mkv");
  cv::imwrite(png, img);
  ffmpeg("-loop 1 -framerate " + std::to_string(fps) + " -i " + q(png) + " -frames:v " +
         std::to_string(frames) + " -c:v ffv1 -pix_fmt bgr0 " + q(clip));
  return clip;
}

// The window's picture on the screen.
cv::Mat shot(const std::string& env, const std::string& id, const TempDir& dir,
             const std::string& name) {
  Geometry g;
  const cv::Mat screen = screenshot(env, id, dir / (name + ".png"), &g);
  return windowPart(screen, g);
}

// q with the focus, again while the program has not printed its closing table: on a loaded
// machine a key can be lost, and the window would wait for ever.
void quit(const std::string& env, const std::string& id, Child& program) {
  for (int i = 0; i < 3; ++i) {
    shell(env + "xdotool windowfocus --sync " + id + " key q");
    if (program.readUntil(
            [](const std::string& err) { return err.find(" at once) on ") != std::string::npos; },
            5))
      return;
  }
}

}  // namespace

// ---- the program --------------------------------------------------------------------------------

// Three files, each written with -o: one window with a tile per input, each showing its input
// as the chain `gray` makes it on the CPU; 2 shows the second input alone, o hides its line, 2
// again is the grid, which follows the window when it is resized and goes full screen with f;
// q quits, each output with all its frames.
TEST(PreviewWindowTiles, ProgramShowsEachInputInItsTile) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_each");
  std::vector<std::string> clips;
  std::vector<cv::Mat> refs;
  std::vector<cv::Size> sizes;
  for (int i = 0; i < 3; ++i) {
    clips.push_back(stillClip(dir, "in" + std::to_string(i), picture(i), 20, 25));
    refs.push_back(grayReference(picture(i)));
    sizes.push_back(picture(i).size());
  }
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  Child program(vidfilterBinary(),
                {"-i", clips[0], "-i", clips[1], "-i", clips[2], "-o", dir / "out_{index}.mkv",
                 "--chain", "gray", "--preview"},
                x.options(120));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(3s);  // 20 frames each, written as fast as they come
  shell(env + "xdotool windowfocus --sync " + id);
  const cv::Mat grid = shot(env, id, dir, "grid");
  shell(env + "xdotool key 2");
  std::this_thread::sleep_for(800ms);
  const cv::Mat large = shot(env, id, dir, "large");
  shell(env + "xdotool key o");
  std::this_thread::sleep_for(800ms);
  const cv::Mat bare = shot(env, id, dir, "bare");
  shell(env + "xdotool key 2");
  std::this_thread::sleep_for(800ms);
  const cv::Mat back = shot(env, id, dir, "back");
  shell(env + "xdotool windowmove " + id + " 0 0 windowsize " + id + " 560 780");
  std::this_thread::sleep_for(1000ms);
  const cv::Mat tall = shot(env, id, dir, "tall");
  shell(env + "xdotool key f");
  std::this_thread::sleep_for(1200ms);
  const cv::Mat full = shot(env, id, dir, "full");
  quit(env, id, program);
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  ASSERT_FALSE(grid.empty());

  const TileLayout l = layoutTiles(grid.size(), sizes);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("tile " + std::to_string(i));
    const cv::Rect pic = l.pictures[i];
    EXPECT_LT(differenceFrom(grid, pic, refs[i], middle(pic)), 4.0);
    for (int j = 0; j < 3; ++j) {
      if (j == i) continue;
      EXPECT_GT(differenceFrom(grid, pic, refs[j], middle(pic)), 15.0) << j;
    }
    EXPECT_EQ(colourPixels(grid(middle(pic))), 0) << "gray";
    EXPECT_GT(whitish(grid(cv::Rect(pic.x, pic.y, pic.width / 2, 28))), 30) << "its line";
  }
  ASSERT_EQ(large.size(), grid.size());
  const cv::Rect big = layoutTiles(large.size(), sizes, 1).pictures[1];
  EXPECT_LT(differenceFrom(large, big, refs[1], middle(big)), 4.0) << "2: the second alone";
  const cv::Rect top(big.x, big.y, big.width / 2, 28);
  EXPECT_GT(differenceFrom(large, big, refs[1], top), 8.0) << "its line over the picture";
  EXPECT_LT(differenceFrom(bare, big, refs[1], top), 4.0) << "o: the line hidden";
  const cv::Rect first = l.pictures[0];
  EXPECT_LT(differenceFrom(back, first, refs[0], middle(first)), 4.0) << "2 again: the grid";
  // Resized tall: the grid follows (one above the other), each tile still its input.
  ASSERT_EQ(tall.size(), cv::Size(560, 780));
  const TileLayout lt = layoutTiles(tall.size(), sizes);
  EXPECT_EQ(std::make_pair(lt.cols, lt.rows), std::make_pair(1, 3));
  ASSERT_EQ(full.size(), cv::Size(1280, 800)) << "f: the whole screen";
  const TileLayout lf = layoutTiles(full.size(), sizes);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(differenceFrom(tall, lt.pictures[i], refs[i], middle(lt.pictures[i])), 4.0) << i;
    EXPECT_LT(differenceFrom(full, lf.pictures[i], refs[i], middle(lf.pictures[i])), 4.0) << i;
  }
  for (int i = 0; i < 3; ++i) {
    const Probe p = probe(dir / ("out_" + std::to_string(i) + ".mkv"));
    EXPECT_EQ(p.frames, 20) << i;
    EXPECT_EQ(cv::Size(p.width, p.height), sizes[i]) << i;
  }
}

// An input of non-square pixels (2:1, as an anamorphic recording's) is shown in its shape, twice
// as wide as its pixels, beside one of square pixels.
TEST(PreviewWindowTiles, ProgramShowsNonSquarePixelsInTheirShape) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_sar");
  const std::string square = stillClip(dir, "square", picture(0), 20, 25);
  const std::string wideSource = stillClip(dir, "wide_src", picture(2), 20, 25);
  const std::string wide = dir / "wide.mkv";
  ffmpeg("-i " + q(wideSource) + " -c:v ffv1 -pix_fmt bgr0 -vf setsar=2/1 " + q(wide));
  ASSERT_EQ(probeValue(wide, "-select_streams v:0", "stream=sample_aspect_ratio"), "2:1");
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  Child program(
      vidfilterBinary(),
      {"-i", square, "-i", wide, "-o", dir / "out_{index}.mkv", "--chain", "gray", "--preview"},
      x.options(120));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(3s);
  shell(env + "xdotool windowfocus --sync " + id);
  const cv::Mat grid = shot(env, id, dir, "grid");
  quit(env, id, program);
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  ASSERT_FALSE(grid.empty());
  const cv::Size shown(2 * picture(2).cols, picture(2).rows);
  const TileLayout l = layoutTiles(grid.size(), {picture(0).size(), shown});
  const cv::Rect pic = l.pictures[1];
  EXPECT_NEAR(double(pic.width) / pic.height, 2.0 * picture(2).cols / picture(2).rows, 0.02);
  EXPECT_LT(differenceFrom(grid, pic, grayReference(picture(2)), middle(pic)), 4.0);
  EXPECT_LT(differenceFrom(grid, l.pictures[0], grayReference(picture(0)), middle(l.pictures[0])),
            4.0);
}

// A file that is not a video among two good ones: it fails alone, its tile says so in red, the
// others play to their end; the exit status says one failed.
TEST(PreviewWindowTiles, ProgramBadInputFailsAloneInItsTile) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_bad");
  const std::string a = stillClip(dir, "a", picture(0), 10, 25);
  const std::string c = stillClip(dir, "c", picture(2), 10, 25);
  const std::string bad = dir / "bad.mkv";
  {
    std::ofstream out(bad, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(char((i * 7919) % 251));
  }
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  Child program(
      vidfilterBinary(),
      {"-i", a, "-i", bad, "-i", c, "--chain", "gray", "--preview", "--json", dir / "run.json"},
      x.options(120));
  const std::string id = findWindow(env, "^vidfilter");
  ASSERT_FALSE(id.empty()) << "no window";
  std::this_thread::sleep_for(3s);  // 10 frames at 25 fps: over
  const cv::Mat win = shot(env, id, dir, "screen");
  quit(env, id, program);
  const ProcResult r = program.wait();
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad.mkv"), std::string::npos);
  ASSERT_FALSE(win.empty());
  const TileLayout l = layoutTiles(win.size(), {picture(0).size(), {}, picture(2).size()});
  EXPECT_GT(pixelsOf(win(l.cells[1]), theme::kFailed, 3), 30) << "the bad input's tile says so";
  EXPECT_EQ(l.pictures[1].area(), 0);
  for (int i : {0, 2}) {
    EXPECT_EQ(pixelsOf(win(l.cells[i]), theme::kFailed, 3), 0) << i;
    const cv::Rect pic = l.pictures[i];
    EXPECT_LT(differenceFrom(win, pic, grayReference(picture(i)), middle(pic)), 4.0) << i;
  }
  const auto doc = readJson(dir / "run.json");
  EXPECT_EQ(doc["inputs"][0]["status"], "done");
  EXPECT_EQ(doc["inputs"][0]["frames_out"], 10);
  EXPECT_EQ(doc["inputs"][1]["status"], "failed");
  EXPECT_EQ(doc["inputs"][2]["status"], "done");
  EXPECT_EQ(doc["inputs"][2]["frames_out"], 10);
}

// Files without an output play at their own rate (15 frames at 10 fps take 1.5 s, as a player
// shows them), every frame of each; --exit-at-end closes the window at the end.
TEST(PreviewWindowTiles, ProgramFilesPlayAtTheirRateAndExitAtEnd) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_rate");
  const std::string slow = stillClip(dir, "slow", picture(0), 15, 10);
  const std::string fast = stillClip(dir, "fast", picture(1), 30, 25);
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const ProcResult r = runVidfilter({"-i", slow, "-i", fast, "--chain", "gray", "--preview",
                                     "--exit-at-end", "--json", dir / "run.json"},
                                    x.options(60));
  SCOPED_TRACE(r.err);
  EXPECT_EQ(r.status, 0);
  const auto doc = readJson(dir / "run.json");
  EXPECT_EQ(doc["inputs"][0]["frames_out"], 15);
  EXPECT_EQ(doc["inputs"][1]["frames_out"], 30);
  EXPECT_GE(doc["inputs"][0]["elapsed_s"].get<double>(), 1.3) << "15 frames at 10 fps";
  EXPECT_GE(doc["inputs"][1]["elapsed_s"].get<double>(), 1.1) << "30 frames at 25 fps";
}

// Two live streams recorded while shown: space pauses both, q ends both, each output whole and
// playable with every frame the run reports. A signal while paused ends the run as a signal
// does (130), the outputs playable too.
TEST(PreviewWindowTiles, ProgramLiveStreamsQuitAndSignal) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_live");
  auto stream = [](const std::string& pattern) {
    return "videotestsrc is-live=true pattern=" + pattern +
           " ! video/x-raw,width=160,height=120,framerate=30/1 ! videoconvert ! appsink";
  };
  Xvfb x("1280x800x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  const std::string env = x.env();
  for (const bool bySignal : {false, true}) {
    SCOPED_TRACE(bySignal ? "SIGINT" : "q");
    const std::string out = dir / (bySignal ? "sig_{index}.mkv" : "q_{index}.mkv");
    const std::string json = dir / (bySignal ? "sig.json" : "q.json");
    Child program(vidfilterBinary(),
                  {"-i", stream("ball"), "-i", stream("smpte"), "-o", out, "-c:v", "ffv1",
                   "--chain", "gray", "--preview", "--json", json},
                  x.options(60));
    const std::string id = findWindow(env, "^vidfilter");
    ASSERT_FALSE(id.empty()) << "no window";
    std::this_thread::sleep_for(1500ms);
    shell(env + "xdotool windowfocus --sync " + id + " key space");
    std::this_thread::sleep_for(500ms);
    const auto t0 = std::chrono::steady_clock::now();
    if (bySignal)
      program.signal(SIGINT);
    else
      quit(env, id, program);
    const ProcResult r = program.wait();
    SCOPED_TRACE(r.err);
    EXPECT_EQ(r.status, bySignal ? 130 : 0);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
    const auto doc = readJson(json);
    for (int i = 0; i < 2; ++i) {
      const std::string name = expandJobName(out, "", i);
      const Probe p = probe(name);
      EXPECT_GE(p.frames, 10) << name;
      EXPECT_EQ(p.frames, doc["inputs"][i]["frames_out"].get<long>()) << name;
      EXPECT_EQ(cv::Size(p.width, p.height), cv::Size(160, 120)) << name;
    }
  }
}

// What the tiles cannot show is refused before anything opens, each with what to change: more
// than 16 inputs, --jobs below their number (some would wait unseen), a batch with a window.
TEST(PreviewWindowTiles, ProgramRefusesWhatTheTilesCannotShow) {
  REQUIRE_X_TOOLS();
  TempDir dir("tiles_refused");
  const std::string clip = stillClip(dir, "a", picture(0), 2, 25);
  Xvfb x("640x480x24");
  ASSERT_FALSE(x.display().empty()) << "Xvfb did not start";
  std::vector<std::string> many;
  for (int i = 0; i < 17; ++i) many.insert(many.end(), {"-i", clip});
  many.insert(many.end(), {"--chain", "gray", "--preview"});
  ProcResult r = runVidfilter(many, x.options(60));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("16"), std::string::npos) << r.err;
  r = runVidfilter({"-i", clip, "-i", clip, "--jobs", "1", "--chain", "gray", "--preview"},
                   x.options(60));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
  r = runVidfilter(
      {"batch", "-i", clip, "-o", dir / "out/{name}.mkv", "--chain", "gray", "--preview"},
      x.options(60));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "nothing written";
}
