// The preview sink driven through its hooks, without a window: what each key does to the chain
// and to the picture, pause and frame step, seeks (which frames are skipped, which is shown),
// the position of a file, and the values a stage applied. The window itself, with real key
// presses and screenshots, is tests/test_app_window.cpp.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "app/preview.hpp"
#include "app/theme.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace std::chrono_literals;
using namespace vf::test;

TEST(PreviewSink, PanelOnAndOffAndHelp) {
  Chain chain = Chain::parse("gray,hist,brightness=gain=1.5");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->consume(f.result);
  const cv::Mat with = sink->lastRendered();
  const ViewLayout on = sink->lastLayout();
  ASSERT_GT(on.panel.area(), 0);
  EXPECT_EQ((on.panel & on.filtered).area(), 0) << "the panel covers the picture";
  EXPECT_GT(sink->lastParts().histogram.area(), 0) << "the chain has hist: its panel is drawn";
  // The panel's own background, where nothing is drawn (its bottom right corner).
  const cv::Scalar& bg = theme::kPanel;
  EXPECT_EQ(with.at<cv::Vec3b>(on.panel.br().y - 2, on.panel.br().x - 2),
            cv::Vec3b(cv::saturate_cast<uchar>(bg[0]), cv::saturate_cast<uchar>(bg[1]),
                      cv::saturate_cast<uchar>(bg[2])));
  sink->pressKey('o');
  const ViewLayout off = sink->lastLayout();
  EXPECT_EQ(off.panel.area(), 0);
  EXPECT_GT(off.filtered.area(), on.filtered.area()) << "without the panel the picture grows";
  sink->pressKey('h');
  const cv::Mat help = sink->lastRendered();
  const cv::Point c(help.cols / 2, help.rows / 2);
  EXPECT_GT(whitish(help(cv::Rect(c.x - 100, c.y - 40, 200, 80))), 50) << "no key list";
  EXPECT_FALSE(sink->wantsStop());
}

TEST(PreviewSink, HistogramOnlyWhenTheHistStageIsOn) {
  Chain chain = Chain::parse("gray,hist");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(2, CV_8UC3), test::realFrame(2, CV_8UC1));
  sink->consume(f.result);
  EXPECT_TRUE(sink->currentPanel().hasHistogram);
  EXPECT_EQ(sink->currentPanel().histogram.source, "2 hist, of gray's output");
  sink->pressKey('2');  // hist off
  EXPECT_FALSE(chain.enabled(1));
  sink->consume(f.result);
  EXPECT_FALSE(sink->currentPanel().hasHistogram);
  EXPECT_EQ(sink->lastParts().histogram.area(), 0);
  sink->pressKey('2');
  sink->pressKey('l');
  EXPECT_TRUE(sink->currentPanel().hasHistogram);
  EXPECT_FALSE(sink->currentPanel().histogram.log) << "l switches the scale to linear";
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
  EXPECT_TRUE(chain.enabled(0));
  sink->pressKey('3');
  EXPECT_FALSE(chain.enabled(2));
  EXPECT_TRUE(chain.enabled(1));
  EXPECT_FALSE(sink->currentPanel().table.stages[2].enabled);
  sink->pressKey('9');  // no ninth stage: ignored
  EXPECT_EQ(sink->stages().size(), 3u);
}

TEST(PreviewSink, PlusMinusMoveTheSelectedStagesMainParameter) {
  Chain chain = Chain::parse("gray,brightness=gain=1.5");
  auto sink = makeSink(chain);
  EXPECT_EQ(sink->selected(), 1) << "the first stage with a live numeric parameter";
  EXPECT_EQ(sink->stages()[1].param, "gain");
  sink->pressKey('+');
  const double up = chain.stage(1).params().number("gain");
  EXPECT_GT(up, 1.5);
  EXPECT_DOUBLE_EQ(up, sink->stages()[1].value);
  sink->pressKey('-');
  sink->pressKey('-');
  EXPECT_LT(chain.stage(1).params().number("gain"), 1.5);
  // Held down: stays inside the declared range [-16, 16].
  for (int i = 0; i < 200; ++i) sink->pressKey('+');
  EXPECT_DOUBLE_EQ(chain.stage(1).params().number("gain"), 16);
  // gray has no live parameter: selecting it and pressing + changes nothing.
  sink->pressKey('[');
  sink->pressKey('+');
  EXPECT_EQ(sink->selected(), 0);
  EXPECT_DOUBLE_EQ(chain.stage(1).params().number("gain"), 16);
}

// Keys are handled as they come, not one per frame: five presses with no frame between them
// move the parameter five steps, as five presses one per frame do.
TEST(PreviewSink, EveryKeyIsHandledWithoutWaitingForFrames) {
  Chain burst = Chain::parse("blur=sigma=1.5"), paced = Chain::parse("blur=sigma=1.5");
  auto a = makeSink(burst), b = makeSink(paced);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC3));
  a->consume(f.result);
  b->consume(f.result);
  for (int i = 0; i < 5; ++i) a->pressKey('+');
  for (int i = 0; i < 5; ++i) {
    b->pressKey('+');
    b->consume(f.result);
  }
  const double sigma = burst.stage(0).params().number("sigma");
  EXPECT_DOUBLE_EQ(sigma, paced.stage(0).params().number("sigma"));
  // Five steps of 0.2 (1/200 of the range (0, 50] is 0.25, rounded to 2 x 0.1; 5% of sigma is
  // less).
  EXPECT_NEAR(sigma, 1.5 + 5 * 0.2, 1e-9);
}

// brightness=auto: the panel shows the gain and bias the device applied (its side output),
// and +/- moves clip, not gain (which auto mode computes).
TEST(PreviewSink, AutoBrightnessShowsTheLevelsItApplied) {
  Chain chain = Chain::parse("gray,brightness=auto");
  auto sink = makeSink(chain);
  EXPECT_EQ(sink->stages()[1].param, "clip");
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  const float levels[2] = {1.8125f, -41.7f};
  f.side.clear();
  f.side.emplace_back(sizeof levels);
  std::memcpy(f.side[0].data(), levels, sizeof levels);
  f.sideInfo = {{1, "levels"}};
  f.result.side = &f.side;
  f.result.sideInfo = &f.sideInfo;
  sink->consume(f.result);
  const PanelInfo p = sink->currentPanel();
  ASSERT_EQ(p.table.stages.size(), 2u);
  EXPECT_EQ(p.table.stages[1].applied, "applied gain 1.81  bias -42");
  EXPECT_EQ(p.table.stages[0].applied, "");
  EXPECT_EQ(p.table.stages[1].param, "clip 1");
}

TEST(PreviewSink, SnapshotWritesTheFilteredFrameAsPng) {
  TempDir dir("preview_snap");
  Chain chain = Chain::parse("gray,brightness");
  PreviewOptions opts;
  opts.snapshotDir = dir.path().string();
  auto sink = makeSink(chain, opts);
  TestFrame f(test::realFrame(3, CV_8UC3), test::realFrame(3, CV_8UC1), 41);
  sink->consume(f.result);
  sink->pressKey('s');
  const auto path = dir.path() / "vidfilter-000042.png";  // the 42nd frame (no time known)
  ASSERT_TRUE(std::filesystem::exists(path));
  const cv::Mat back = cv::imread(path.string(), cv::IMREAD_UNCHANGED);
  ASSERT_EQ(back.type(), CV_8UC1);
  EXPECT_EQ(test::maxAbsDiff(back, f.out), 0);
}

TEST(PreviewSink, QuitKeys) {
  for (int key : {int('q'), 27}) {
    Chain chain = Chain::parse("gray");
    auto sink = makeSink(chain);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->consume(f.result);
    EXPECT_FALSE(sink->wantsStop());
    sink->pressKey(key);
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
  EXPECT_EQ(sink->currentPanel().state, PlayState::Paused);
  // Keys still work while paused (the window stays responsive): toggle a stage.
  sink->pressKey('2');
  EXPECT_FALSE(chain.enabled(1));
  sink->pressKey(' ');
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready) << "resume did not release the frame";
  EXPECT_FALSE(sink->paused());
}

TEST(PreviewSink, PauseNeverBlocksShutdownOrQuit) {
  {  // a quit key while paused
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
  {  // the engine shutting down while paused (stop(), an error elsewhere, SIGINT)
    Chain chain = Chain::parse("gray");
    FakeHost::Shared shared;
    auto sink = makeSink(chain, {}, &shared);
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    sink->pressKey(' ');
    auto done = std::async(std::launch::async, [&] { sink->consume(f.result); });
    EXPECT_EQ(done.wait_for(200ms), std::future_status::timeout);
    shared.stopping = true;
    ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
    sink->finish();
  }
  {  // interrupt() (the hook an engine can call directly)
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

TEST(PreviewSink, CompareShowsTheOriginalAndTheFilteredFrame) {
  Chain chain = Chain::parse("gray");
  PreviewOptions opts;
  opts.compare = true;
  opts.overlay = false;
  auto sink = makeSink(chain, opts);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->consume(f.result);
  const cv::Mat shown = sink->lastRendered();
  const ViewLayout l = sink->lastLayout();
  ASSERT_EQ(l.original.size(), l.filtered.size());
  EXPECT_EQ((l.original & l.filtered).area(), 0);
  // Each picture is its frame scaled into place (away from the corner label).
  cv::Mat want, wantGray;
  cv::resize(f.in, want, l.original.size(), 0, 0, cv::INTER_LINEAR);
  const cv::Rect inner(l.original.width / 3, l.original.height / 3, l.original.width / 2,
                       l.original.height / 2);
  cv::Mat d;
  cv::absdiff(shown(l.original)(inner), want(inner), d);
  EXPECT_LE(cv::mean(d)[0], 3.0);
  const cv::Mat filtered = shown(l.filtered)(inner);
  EXPECT_EQ(colourPixels(filtered), 0) << "the filtered half is the gray output";
  EXPECT_GT(colourPixels(shown(l.original)(inner)), inner.area() / 2);
  // 'c' turns compare off: the filtered frame alone.
  sink->pressKey('c');
  EXPECT_TRUE(sink->lastLayout().original.empty());
}

// Non-square pixels (a DVD's 720x480 at 32:27) are shown in their shape, as players show them:
// the picture's width over its height is the frame's display aspect, the original's in compare
// mode too, and the panel names the size shown.
TEST(PreviewSink, NonSquarePixelsAreShownInTheirShape) {
  Chain chain = Chain::parse("gray");
  const double sar = 32.0 / 27;
  for (const bool compare : {false, true}) {
    SCOPED_TRACE(compare ? "compare" : "alone");
    PreviewOptions opts;
    opts.compare = compare;
    opts.overlay = false;
    TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
    opts.inputSar = opts.outputSar = sar;
    opts.outputSize = f.out.size();
    auto sink = makeSink(chain, opts);
    sink->consume(f.result);
    const ViewLayout l = sink->lastLayout();
    const double want = f.out.cols * sar / f.out.rows;
    EXPECT_NEAR(double(l.filtered.width) / l.filtered.height, want, 0.02);
    if (compare) {
      EXPECT_NEAR(double(l.original.width) / l.original.height, want, 0.02);
    }
    EXPECT_NE(sink->currentPanel().formats.find(
                  "(shown " + std::to_string(int(std::lround(f.out.cols * sar))) + "x"),
              std::string::npos)
        << sink->currentPanel().formats;
  }
  // Square pixels: the frame's own shape, nothing added to the panel.
  PreviewOptions square;
  square.overlay = false;
  auto sink = makeSink(chain, square);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  sink->consume(f.result);
  const ViewLayout l = sink->lastLayout();
  EXPECT_NEAR(double(l.filtered.width) / l.filtered.height, double(f.out.cols) / f.out.rows, 0.02);
  EXPECT_EQ(sink->currentPanel().formats.find("shown"), std::string::npos);
}

// ---- files: position, seeks, frame steps -------------------------------------------------------

TEST(PreviewSink, FilePositionAndBudgetComeFromTheFrameTime) {
  Chain chain = Chain::parse("gray");
  auto sink = makeSink(chain, fileOptions());
  TestFrame f = fileFrame(37);
  sink->consume(f.result);
  const PanelInfo p = sink->currentPanel();
  EXPECT_DOUBLE_EQ(p.seconds, 3.7);
  EXPECT_DOUBLE_EQ(p.duration, 10.0);
  EXPECT_EQ(p.frame, 38);
  EXPECT_EQ(p.frameCount, 100);
  EXPECT_DOUBLE_EQ(p.table.budgetMs, 100.0);
  EXPECT_DOUBLE_EQ(p.graph.budgetMs, 100.0);
  EXPECT_EQ(formatTimecode(p.seconds), "0:03.70");
}

TEST(PreviewSink, SeekSkipsTheFramesInFlightAndShowsTheOneSought) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  std::vector<TestFrame> frames;
  for (int n = 0; n < 100; ++n) frames.push_back(fileFrame(n));
  sink->consume(frames[20].result);
  sink->pressKey(key::kRight);
  ASSERT_EQ(shared.seeks.size(), 1u);
  EXPECT_DOUBLE_EQ(shared.seeks[0], 7.0);
  const auto shown = sink->framesRendered();
  // Frames already in flight arrive first: not shown.
  sink->consume(frames[21].result);
  sink->consume(frames[22].result);
  EXPECT_EQ(sink->framesRendered(), shown);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 2.0);
  sink->consume(frames[70].result);
  EXPECT_EQ(sink->framesRendered(), shown + 1);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 7.0);
  EXPECT_FALSE(sink->paused()) << "a seek while playing goes on playing";
  // Back 60 s from 7 s: the start. Up seeks 60 s forward, clamped to the last frame.
  sink->pressKey(key::kDown);
  EXPECT_DOUBLE_EQ(shared.seeks.back(), 0.0);
  sink->consume(frames[71].result);  // in flight, after the frame shown: skipped
  sink->consume(frames[0].result);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 0.0);
  sink->pressKey(key::kUp);
  EXPECT_DOUBLE_EQ(shared.seeks.back(), 9.9);
}

TEST(PreviewSink, FrameStepForwardAndBackShowOneFrameAndPause) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  std::vector<TestFrame> frames;
  for (int n = 0; n < 100; ++n) frames.push_back(fileFrame(n));
  for (int n = 10; n <= 12; ++n) sink->consume(frames[n].result);
  // '.' while playing: the next frame is shown, then held paused.
  sink->pressKey('.');
  auto held = std::async(std::launch::async, [&] { sink->consume(frames[13].result); });
  EXPECT_EQ(held.wait_for(300ms), std::future_status::timeout) << "did not pause after a step";
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 1.3);
  // '.' again: released, and the next frame is held.
  sink->pressKey('.');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  held = std::async(std::launch::async, [&] { sink->consume(frames[14].result); });
  EXPECT_EQ(held.wait_for(300ms), std::future_status::timeout);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 1.4);
  // ',': a seek to just before the frame seen before 1.4 s (1.3 s), shown paused.
  sink->pressKey(',');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  ASSERT_EQ(shared.seeks.size(), 1u);
  EXPECT_GT(shared.seeks[0], 1.2);
  EXPECT_LE(shared.seeks[0], 1.3);
  sink->consume(frames[15].result);  // in flight: skipped
  held = std::async(std::launch::async, [&] { sink->consume(frames[13].result); });
  EXPECT_EQ(held.wait_for(300ms), std::future_status::timeout);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 1.3);
  EXPECT_TRUE(sink->paused());
  // The picture is frame 13's, not the one before the step back.
  const cv::Mat shown = sink->lastRendered()(sink->lastLayout().filtered);
  cv::Mat want13, want14;
  cv::cvtColor(frames[13].out, want13, cv::COLOR_GRAY2BGR);
  cv::cvtColor(frames[14].out, want14, cv::COLOR_GRAY2BGR);
  cv::resize(want13, want13, shown.size(), 0, 0, cv::INTER_NEAREST);
  cv::resize(want14, want14, shown.size(), 0, 0, cv::INTER_NEAREST);
  EXPECT_LT(meanDiff(shown, want13), 2.0);
  EXPECT_GT(meanDiff(shown, want14), 4.0);
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
}

TEST(PreviewSink, LiveOrWrittenInputsDoNotSeek) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;  // not seekable
  auto sink = makeSink(chain, fileOptions(), &shared);
  TestFrame f = fileFrame(30);
  sink->consume(f.result);
  sink->pressKey(key::kRight);
  sink->pressKey(',');
  EXPECT_TRUE(shared.seeks.empty());
  EXPECT_NE(sink->currentPanel().message.find("cannot"), std::string::npos);
}

TEST(PreviewSink, TheEndOfAFileIsShown) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  TestFrame f = fileFrame(99);
  sink->consume(f.result);
  EXPECT_EQ(sink->currentPanel().state, PlayState::Playing);
  shared.atEnd = true;  // the playback holds at the end
  EXPECT_EQ(sink->currentPanel().state, PlayState::Ended);
  sink->pressKey(key::kLeft);  // a seek back plays again
  EXPECT_DOUBLE_EQ(shared.seeks.back(), 4.9);
  sink->finish();  // no window: nothing to wait for
}
