// The preview's keys pressed faster than frames come, driven through its hooks without a window:
// every frame step shows a frame, seeks add up (each from where the one before went, never from
// a frame in flight), the end of the file is drawn when it comes, the time a pause held frames
// back is no latency, and 'u' on a device that does not fuse by default fuses at once.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "app/playback.hpp"
#include "app/preview.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace std::chrono_literals;
using namespace vf::test;

namespace {

// Feeds frames[n] on a thread of its own (consume() holds a paused frame until released).
std::future<void> feed(PreviewSink& sink, const std::vector<TestFrame>& frames, int n) {
  return std::async(std::launch::async, [&sink, &frames, n] { sink.consume(frames[n].result); });
}

std::vector<TestFrame> fileFrames() {
  std::vector<TestFrame> frames;
  for (int n = 0; n < 100; ++n) frames.push_back(fileFrame(n));
  return frames;
}

}  // namespace

TEST(PreviewBursts, EveryFrameStepShowsAFrame) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  const auto frames = fileFrames();
  sink->consume(frames[10].result);
  sink->pressKey(' ');  // paused on frame 10
  auto held = feed(*sink, frames, 11);
  EXPECT_EQ(held.wait_for(200ms), std::future_status::timeout);
  // Five steps before any frame comes: frames 11 to 15 are shown, and 16 is held.
  for (int i = 0; i < 5; ++i) sink->pressKey('.');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  for (int n = 12; n <= 15; ++n) {
    held = feed(*sink, frames, n);
    ASSERT_EQ(held.wait_for(5s), std::future_status::ready) << "frame " << n << " held";
  }
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 1.5);
  held = feed(*sink, frames, 16);
  EXPECT_EQ(held.wait_for(200ms), std::future_status::timeout) << "the sixth frame went on";
  EXPECT_TRUE(sink->paused());
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
}

TEST(PreviewBursts, SeeksPressedFasterThanTheyArriveAddUp) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  const auto frames = fileFrames();
  sink->consume(frames[90].result);  // 9.0 s
  // Left three times at once: 9 s back to 4, then on to 0 (not 4 three times).
  for (int i = 0; i < 3; ++i) sink->pressKey(key::kLeft);
  ASSERT_EQ(shared.seeks.size(), 1u);  // one seek under way at a time
  EXPECT_DOUBLE_EQ(shared.seeks[0], 4.0);
  const auto shown = sink->framesRendered();
  sink->consume(frames[91].result);  // in flight: skipped
  sink->consume(frames[40].result);  // the first seek's: on to the next, not shown
  ASSERT_EQ(shared.seeks.size(), 2u);
  EXPECT_DOUBLE_EQ(shared.seeks[1], 0.0);
  EXPECT_EQ(sink->framesRendered(), shown);
  sink->consume(frames[41].result);  // the first seek's, in flight: skipped
  sink->consume(frames[0].result);
  EXPECT_EQ(sink->framesRendered(), shown + 1);
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 0.0);
  EXPECT_FALSE(sink->paused());
  // Three steps back at once from 0.5 s: the first to 0.4 s, the two after it add up into one
  // from there to 0.2 s, which is shown paused.
  for (int n = 1; n <= 5; ++n) sink->consume(frames[n].result);
  for (int i = 0; i < 3; ++i) sink->pressKey(',');
  ASSERT_EQ(shared.seeks.size(), 3u);
  EXPECT_NEAR(shared.seeks[2], 0.4, 0.011);
  sink->consume(frames[6].result);  // in flight: skipped
  sink->consume(frames[4].result);  // 0.4 s: on to the next
  ASSERT_EQ(shared.seeks.size(), 4u);
  EXPECT_NEAR(shared.seeks[3], 0.2, 0.011);
  auto held = feed(*sink, frames, 2);
  EXPECT_EQ(held.wait_for(200ms), std::future_status::timeout) << "not held paused";
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 0.2);
  EXPECT_TRUE(sink->paused());
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
}

TEST(PreviewBursts, TheEndIsDrawnWhenTheFileEnds) {
  // The playback tells the preview it holds the end: the panel is drawn again then, with END,
  // without a key or a frame.
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  const auto frames = fileFrames();
  sink->consume(frames[99].result);
  const auto drawn = sink->lastRendered().clone();
  shared.atEnd = true;
  sink->refreshView();  // as PlaybackSource's onAtEndChanged calls it
  EXPECT_EQ(sink->currentPanel().state, PlayState::Ended);
  cv::Mat diff;
  cv::absdiff(sink->lastRendered(), drawn, diff);
  EXPECT_GT(cv::countNonZero(diff.reshape(1)), 0) << "the view was not drawn again";
  sink->finish();
}

namespace {

// Two frames of 8x8 gray, then the end.
class TwoFrames : public CaptureSource {
 public:
  bool live() const override { return false; }
  bool next(const SlotFn& slot, FrameTime&) override {
    if (left_ == 0) return false;
    --left_;
    slot(FrameDesc{8, 8, PixelFormat::Gray8});
    return true;
  }
  FrameDesc firstFrameDesc() const override { return {8, 8, PixelFormat::Gray8}; }
  std::string description() const override { return "two frames"; }

 private:
  int left_ = 2;
};

}  // namespace

TEST(PreviewBursts, ThePlaybackSaysWhenItHoldsTheEndAndWhenItLeavesIt) {
  TwoFrames frames;
  PlaybackSource playback(frames, {});
  std::atomic<bool> hold{true};
  std::atomic<int> changes{0};
  playback.holdAtEnd([&] { return hold.load(); });
  playback.onAtEndChanged([&] { ++changes; });
  std::vector<std::uint8_t> bytes(64);
  const FrameSource::SlotFn slot = [&](const FrameDesc& d) {
    return FrameView{bytes.data(), d.width, d.height, std::size_t(d.width), d.format};
  };
  FrameTime t;
  ASSERT_TRUE(playback.next(slot, t));
  ASSERT_TRUE(playback.next(slot, t));
  auto end = std::async(std::launch::async, [&] { return playback.next(slot, t); });
  for (int i = 0; i < 100 && changes == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(changes, 1) << "the end was not said when it came";
  EXPECT_TRUE(playback.atEnd());
  hold = false;
  ASSERT_EQ(end.wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(end.get());
  EXPECT_EQ(changes, 2);
  EXPECT_FALSE(playback.atEnd());
}

TEST(PreviewBursts, TimeAPauseHeldFramesBackIsNoLatency) {
  Chain chain = Chain::parse("gray");
  auto sink = makeSink(chain, fileOptions());
  auto frames = fileFrames();
  for (int n = 0; n < 5; ++n) sink->consume(frames[n].result);
  sink->pressKey(' ');
  auto held = feed(*sink, frames, 5);
  std::this_thread::sleep_for(700ms);
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  // The frames after it were captured before the pause ended: their latency (0.7 s and more,
  // as the engine would count it) is not drawn nor counted.
  for (int n = 6; n < 10; ++n) {
    frames[n].result.stats.latencyMs = 750;
    sink->consume(frames[n].result);
  }
  EXPECT_LT(sink->currentPanel().latencyP99, 100) << "a pause counted as latency";
  // Frames captured after it count as ever.
  frames[10].result.stats.latencyMs = 750;
  std::this_thread::sleep_for(800ms);
  for (int n = 10; n < 40; ++n) {
    frames[n % 100].result.stats.latencyMs = 750;
    sink->consume(frames[n].result);
  }
  EXPECT_GT(sink->currentPanel().latencyP50, 700);
}

// A pause longer than the panel's 5 s window, then a frame step: the latency is still the
// frames' own (the engine's p99 counts the frames that waited in the pause), no rate is shown
// while paused, and after play the rate is the frames' since then, not one over the pause.
TEST(PreviewBursts, ALongPauseIsNeitherLatencyNorASlowRate) {
  Chain chain = Chain::parse("gray");
  FakeHost::Shared shared;
  auto sink = makeSink(chain, fileOptions(), &shared);
  auto frames = fileFrames();
  for (int n = 0; n < 5; ++n) sink->consume(frames[n].result);
  sink->pressKey(' ');
  auto held = feed(*sink, frames, 5);
  EXPECT_LT(sink->currentPanel().fps, 0) << "a rate shown while paused";
  std::this_thread::sleep_for(5500ms);
  shared.engineLatencyP99 = 5500;
  shared.engineFps = 1.5;
  sink->pressKey('.');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  frames[6].result.stats.latencyMs = 5500;  // captured before the pause ended
  auto stepped = feed(*sink, frames, 6);    // shown, then held: the step pauses again
  EXPECT_EQ(stepped.wait_for(300ms), std::future_status::timeout);
  const PanelInfo paused = sink->currentPanel();
  EXPECT_LT(paused.latencyP99, 100) << "a pause counted as latency";
  EXPECT_LT(paused.fps, 0);
  sink->pressKey(' ');
  ASSERT_EQ(stepped.wait_for(5s), std::future_status::ready);
  for (int n = 7; n < 20; ++n) {
    sink->consume(frames[n].result);
    std::this_thread::sleep_for(20ms);
  }
  const double fps = sink->currentPanel().fps;
  EXPECT_GT(fps, 20) << "the rate counts the pause";
  EXPECT_LT(fps, 60);
}

// Paused, a change to the chain (a stage off, a parameter, fusion) makes the frame on show
// again: a seek to it, still paused, so the change shows at once. A source that cannot seek
// says the change shows from the next frame.
TEST(PreviewBursts, AChangeWhilePausedRedrawsTheFrameOnShow) {
  Chain chain = Chain::parse("gray,blur");
  FakeHost::Shared shared;
  shared.seekable = true;
  auto sink = makeSink(chain, fileOptions(), &shared);
  const auto frames = fileFrames();
  sink->consume(frames[30].result);
  sink->pressKey(' ');
  auto held = feed(*sink, frames, 31);  // shown and held: 3.1 s
  ASSERT_EQ(held.wait_for(200ms), std::future_status::timeout);
  sink->pressKey('2');
  ASSERT_EQ(shared.seeks.size(), 1u) << "the frame on show was not made again";
  EXPECT_NEAR(shared.seeks[0], 3.1, 0.02);
  EXPECT_LE(shared.seeks[0], 3.1);
  EXPECT_FALSE(chain.enabled(1));
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready) << "the seek lets the held frame go";
  sink->consume(frames[32].result);  // in flight before the seek: skipped
  held = feed(*sink, frames, 31);    // the sought frame: shown, and held (still paused)
  EXPECT_EQ(held.wait_for(300ms), std::future_status::timeout);
  EXPECT_TRUE(sink->paused());
  EXPECT_DOUBLE_EQ(sink->currentPanel().seconds, 3.1);
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);

  // A second change before the sought frame arrives: that frame was made before it, so it is
  // made again when it comes.
  sink->pressKey(' ');
  held = feed(*sink, frames, 32);
  ASSERT_EQ(held.wait_for(200ms), std::future_status::timeout);
  sink->pressKey('2');
  ASSERT_EQ(shared.seeks.size(), 2u);
  sink->pressKey('1');  // during that seek
  EXPECT_EQ(shared.seeks.size(), 2u);
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);
  sink->consume(frames[32].result);  // the sought frame, made before '1': sought again
  ASSERT_EQ(shared.seeks.size(), 3u) << "a frame made before the last change stays on show";
  EXPECT_NEAR(shared.seeks[2], 3.2, 0.02);
  held = feed(*sink, frames, 32);  // made after both: shown and held
  EXPECT_EQ(held.wait_for(300ms), std::future_status::timeout);
  sink->pressKey(' ');
  ASSERT_EQ(held.wait_for(5s), std::future_status::ready);

  // live, or written with -o
  Chain live = Chain::parse("gray,blur");
  FakeHost::Shared liveShared;
  auto liveSink = makeSink(live, fileOptions(), &liveShared);
  liveSink->consume(frames[5].result);
  liveSink->pressKey(' ');
  auto liveHeld = feed(*liveSink, frames, 6);
  liveSink->pressKey('2');
  EXPECT_TRUE(liveShared.seeks.empty());
  EXPECT_NE(liveSink->currentPanel().message.find("shown from the next frame"), std::string::npos)
      << liveSink->currentPanel().message;
  liveSink->pressKey(' ');
  ASSERT_EQ(liveHeld.wait_for(5s), std::future_status::ready);
}

TEST(PreviewBursts, FusionKeyOnADeviceThatDoesNotFuseByDefault) {
  // On a CPU device the chain runs unfused by default: the first 'u' fuses.
  Chain chain = Chain::parse("gray,hist");
  PreviewOptions o = fileOptions();
  o.fusesByDefault = false;
  auto sink = makeSink(chain, o);
  sink->consume(fileFrame(1).result);
  sink->pressKey('u');
  EXPECT_EQ(chain.fusion(), Chain::Fusion::On);
  sink->pressKey('u');
  EXPECT_EQ(chain.fusion(), Chain::Fusion::Off);
}
