#pragma once
// The preview of several inputs at once: one window (app/window.hpp) with a tile per input
// (app/tile_view.hpp), each showing its input's filtered frame and an overlay line (its name,
// size, rate and the chain's device time per frame); an input that fails says so in its tile
// while the others go on. Keys: q / Esc quits every input, space pauses them all, o toggles
// the overlay lines, f full screen, 1-9 shows that input alone (0 or the same key: the grid),
// h lists the keys.
//
// Threads: each input's sink (sinkFor) runs on that input's engine sink thread and only keeps
// the frame to show; the window's GUI thread draws the tiles at the window's size. A paused
// preview holds every input inside its sink. A file without an output plays at its own rate
// (its frames' times, else its frame rate), as the preview of one file does.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "app/job_runner.hpp"
#include "app/tile_view.hpp"
#include "app/window.hpp"

namespace vf::app {

struct TilePreviewOptions {
  std::string title = "vidfilter";
  cv::Size window;         // the window's first size (--window); empty: fit the screen
  bool overlay = true;     // the overlay lines on at start ('o' toggles)
  bool exitAtEnd = false;  // waitForQuit() returns at once
  bool showWindow = true;  // false: no window (tests render with render())
};

// One input as the tiles name it, and whether its frames are paced to its own rate.
struct TileInput {
  std::string name;    // "cam0", "a.mp4"
  bool paced = false;  // a file without an output: plays at its own rate
};

// The preview of a run's inputs, as the run sees it: a JobWatcher that may keep the inputs on
// the screen after they ended.
class InputsPreview : public JobWatcher {
 public:
  // After every input ended: keeps the window until the user is done with it, then closes it.
  virtual void waitForQuit() = 0;
};

class TilePreview : public InputsPreview {
 public:
  TilePreview(std::vector<TileInput> inputs, TilePreviewOptions opts);
  ~TilePreview() override;
  TilePreview(const TilePreview&) = delete;
  TilePreview& operator=(const TilePreview&) = delete;

  // JobWatcher: an input's sink when it opens, its end when it ends.
  FrameSink* started(std::size_t k, const CaptureSource& source, const Chain& chain) override;
  void ended(std::size_t k, const JobResult& r) override;

  // After every input ended: keeps the window until q, a closed window or a signal (returns
  // at once with exitAtEnd, after a quit, or when no input showed a frame), then closes it.
  void waitForQuit() override;

  void pressKey(int key);  // as if typed in the window (any thread)
  bool quit() const { return quit_; }
  bool paused() const { return paused_; }
  cv::Mat render(cv::Size size);  // the picture at `size` (the GUI thread's render)

 private:
  class Sink;
  struct Tile;
  // From input k's sink thread; true when it held the frame paused.
  bool show(std::size_t k, const FrameResult& f);
  void openWhenReady();
  void openWindow();
  void refresh();
  TilesContent content() const;  // mu_ held
  // Waits while `keep` holds (mu_ taken for it), a quit or a signal ending it.
  void waitWhile(const std::function<bool()>& keep);

  TilePreviewOptions opts_;
  mutable std::mutex mu_;  // guards the tiles and the flags below that are not atomic
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  bool overlay_ = true, help_ = false, opening_ = false, anyShown_ = false;
  int large_ = -1;
  double firstFrame_ = -1;  // when the first frame of any input came (seconds)
  std::atomic<bool> quit_{false}, paused_{false};
  std::unique_ptr<PreviewWindow> window_;

  std::mutex renderMu_;  // one render at a time
  TileRenderer renderer_;
};

// The tile preview of a run's inputs, from the settings (--window, [preview] title,
// --no-overlay, --exit-at-end). Throws UsageError when the inputs cannot all be shown at once (more
// than kMaxTiles, or --jobs below their number).
constexpr std::size_t kMaxTiles = 16;
std::unique_ptr<InputsPreview> makeTilePreview(const Settings& s,
                                               const std::vector<PlannedJob>& jobs);

}  // namespace vf::app
