#pragma once
// The live preview: a FrameSink that shows the filtered frame (and the original, in compare
// mode) in a window of its own (app/window.hpp) with the panel of measurements (app/panel.hpp),
// and keys that pause, step, seek, toggle stages and move parameters.
//
// Threads: consume() runs on the engine's sink thread and only stores the frame to show; the
// window's GUI thread renders it at the window's size and handles each key as it comes. A
// paused preview holds the engine inside consume(). finish() keeps the window open at the end
// until the user quits (unless exitAtEnd).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/frame_graph.hpp"
#include "app/playback.hpp"
#include "app/view.hpp"
#include "app/window.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

struct PreviewOptions {
  bool compare = false;  // original and filtered together
  bool overlay = true;   // the panel on at start ('o' toggles)
  std::string deviceName;
  std::string chainText;
  std::string snapshotDir = ".";  // where 's' writes PNG snapshots
  std::string title = "vidfilter";
  cv::Size window;         // the window's first size (--window); empty: fit the screen
  bool exitAtEnd = false;  // close at the end of the input instead of waiting for q
  double sourceFps = 0;    // the source's rate: the frame budget and the timecode (0: unknown)
  std::int64_t frameCount = -1;  // frames in the file (-1: unknown)
  bool live = false;             // a camera or a stream: no position, no seeking
  bool fusesByDefault = true;    // the device fuses passes unless told not to (GPUs; not CPUs)
  // The pixels' shape, width over height (1: square or unknown): the input's, and the chain's
  // output's (outputSize at the start; a resize keeps the displayed shape, as the encoder's
  // tag does). Pictures are shown in it.
  double inputSar = 1, outputSar = 1;
  cv::Size outputSize;
};

// What the preview needs from the engine and the playback (an Engine, or a fake in tests).
class PreviewHost {
 public:
  virtual ~PreviewHost() = default;
  virtual EngineStats stats() const = 0;
  // Runs `change` on the chain between two frames (Engine::post).
  virtual void post(std::function<void(Chain&)> change) = 0;
  // True once the engine is shutting down: a paused or ended preview stops waiting for a key.
  virtual bool stopping() const { return false; }
  virtual bool seekable() const { return false; }
  virtual void seek(double /*seconds*/) {}
  virtual bool atEnd() const { return false; }   // the source is held at the end of the file
  virtual bool failed() const { return false; }  // the run ends with an error
};

std::unique_ptr<vf::FrameSink> makePreviewSink(vf::Engine& engine, const PreviewOptions& opts,
                                               PlaybackControl* playback = nullptr);

class PreviewSink : public FrameSink {
 public:
  // `chain` is read here, once (stage names, enabled flags, live parameters): call before the
  // engine runs. Later changes go through host.post() and are mirrored here.
  PreviewSink(std::unique_ptr<PreviewHost> host, const Chain& chain, PreviewOptions opts);
  ~PreviewSink() override;

  void consume(const FrameResult& frame) override;
  void finish() override;
  bool wantsStop() const override { return quit_; }

  // Handles a key as if typed in the window (any thread; key codes of app/window.hpp).
  void pressKey(int key);
  // Draws the panel again (any thread, finish() included): the playback reached the end of the
  // file, or left it.
  void refreshView();

  // Test hooks. interrupt() ends a pause or the wait at the end at once, as a shutdown does.
  void interrupt();
  bool paused() const { return paused_; }
  cv::Mat lastRendered() const;  // the picture last shown (or, without a window, rendered)
  std::uint64_t framesRendered() const { return rendered_; }
  // Show a new frame at most this often (default 1/60 s; 0: every frame).
  void setMinRenderInterval(std::chrono::duration<double> d) { minInterval_ = d; }
  // false: never open a window; each shown frame is rendered at viewSize() on the spot.
  void setShowWindow(bool show) { showWindow_ = show; }
  void setViewSize(cv::Size s) { viewSize_ = s; }
  ViewLayout lastLayout() const;
  PanelParts lastParts() const;
  // What the panel shows now, for the frame on show (history and histogram left out).
  PanelInfo currentPanel() const;

  // Per stage, as mirrored from the chain.
  struct StageState {
    std::string name;
    bool enabled = true;
    std::string param;  // name of the main parameter ("" = none)
    ParamSpec spec;     // its declaration
    double value = 0;   // its current value
  };
  std::vector<StageState> stages() const;
  int selected() const;

 private:
  // The frame being shown: what the picture and the panel are drawn from.
  struct Shown {
    cv::Mat filtered, original, raw;  // BGR, BGR, as the chain made it (for 's')
    FrameDesc inDesc, outDesc;
    std::vector<std::vector<std::uint8_t>> side;
    std::vector<SideOutputInfo> sideInfo;
    FrameTime time;
    FrameStats stats;
    double arrived = 0;  // steady seconds
    bool painted = false;
    bool opening = false;  // the frame that opened the window
  };

  // preview.cpp
  void openWindow(cv::Size frame);
  cv::Mat renderFor(cv::Size size);
  ViewContent content(double now);                        // mu_ held
  PanelInfo panelInfo(const Shown& s, double now) const;  // mu_ held
  void showChanged();  // repaint (window) or render now (no window)
  bool waitWhile(const std::function<bool()>& keep);
  bool seekArrived(const FrameTime& t);  // mu_ held
  double secondsOf(const Shown& s) const;
  // The frame's number in the source from 1 (its time at the source's rate), as the panel
  // shows it; live sources and frames of unknown time: the frames taken before it, plus one.
  std::int64_t frameNumber(const Shown& s) const;
  // The filtered picture's pixel shape (width over height): the output's, or the input's where
  // the chain as toggled leaves the input's size.
  double filteredSar(const Shown& s) const;
  // Frames a second reaching the preview since the last pause or seek ended (-1: not known yet).
  double rateSince(double now) const;  // mu_ held

  // preview_keys.cpp
  void handleKey(int key);  // mu_ held
  void toggleStage(int i);
  void toggleFusion();
  void adjust(int direction);
  void select(int step);
  void seekBy(double seconds);
  void redrawHeld();          // paused: the frame on show made again after a change to the chain
  void seekAgain(double at);  // a seek to the frame at `at` (on show, or just arrived), paused
  void stepBack();
  void stepForward();
  void snapshot();
  void setMessage(const std::string& m);

  std::unique_ptr<PreviewHost> host_;
  PreviewOptions opts_;
  mutable std::mutex mu_;  // guards everything below that is not atomic
  std::condition_variable cv_;
  std::vector<StageState> stages_;
  int selected_ = -1;
  bool overlay_ = true, help_ = false, compare_ = false, histLog_ = true;
  bool fuse_ = true;    // the chain's fusion, as last asked ('u')
  bool ended_ = false;  // finish() came: nothing more will arrive
  std::shared_ptr<Shown> shown_;
  FrameHistory history_{7};     // seconds: the graph's 5 and some
  std::set<double> seenTimes_;  // presentation times seen (stepping back finds the previous)
  // A seek under way: frames are skipped until the one sought arrives. Keys that seek meanwhile
  // add up into the next one, asked for once it arrived (each seek from where the one before
  // went, never from a frame in flight).
  struct Seek {
    double aim = 0;     // the frame's time, where the next key counts from
    double target = 0;  // what the playback is asked for (a little before `aim` for a step back)
    bool pause = false;
  };
  double seekBase() const;                        // where the next seek counts from; mu_ held
  void askSeek(const Seek& seek);                 // now, or after the one under way; mu_ held
  void startSeek(double from, const Seek& seek);  // mu_ held
  bool seeking_ = false, seekPause_ = false;
  bool redrawAfterSeek_ = false;  // the chain changed during a seek: its frame is made again
  double seekTarget_ = 0, seekFrom_ = 0, seekAim_ = 0;
  std::optional<Seek> nextSeek_;
  int seekSkipped_ = 0;
  int stepsPending_ = 0;  // '.' presses not yet shown: each shows the next frame, then pauses
  bool release_ = false;  // leave the paused consume() (a step or a seek)
  double heldUntil_ = 0;  // steady seconds: frames captured before waited in a pause
  // Steady seconds: the frames' rate counts from here (a pause's or a seek's end).
  double rateFrom_ = 0;
  mutable double lastLatencyP50_ = -1, lastLatencyP99_ = -1;  // the last screen latency known
  std::string message_;
  std::chrono::steady_clock::time_point messageUntil_{};

  std::atomic<bool> quit_{false}, paused_{false}, interrupted_{false};
  std::atomic<std::uint64_t> rendered_{0};
  std::chrono::duration<double> minInterval_{1.0 / 60};
  std::chrono::steady_clock::time_point lastShownAt_{};
  bool showWindow_ = true;
  cv::Size viewSize_;
  std::unique_ptr<PreviewWindow> window_;

  mutable std::mutex renderMu_;  // one render at a time; guards renderer_ and what it made
  ViewRenderer renderer_;
  cv::Mat last_;
  ViewLayout layout_;
  PanelParts parts_;
};

}  // namespace vf::app
