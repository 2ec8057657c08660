#pragma once
// The live preview window (OpenCV highgui): the filtered frame with a timing overlay, keys to
// pause, toggle stages and move parameters. A FrameSink: consume() runs on the engine's sink
// thread, which also owns the window (highgui calls stay on that one thread).
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/overlay.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

struct PreviewOptions {
  bool compare = false;  // original and filtered side by side
  bool overlay = true;   // timing overlay on at start ('o' toggles)
  std::string deviceName;
  std::string chainText;
  std::string snapshotDir = ".";  // where 's' writes PNG snapshots
  std::string title = "vidfilter";
};

std::unique_ptr<vf::FrameSink> makePreviewSink(vf::Engine& engine, const PreviewOptions& opts);

}  // namespace vf::app

// ---------------------------------------------------------------------------------------------
// The sink itself, public so tests can drive it without an engine or a real keyboard.
namespace vf::app {

// What the preview needs from the engine (an Engine, or a fake in tests).
class PreviewHost {
 public:
  virtual ~PreviewHost() = default;
  virtual EngineStats stats() const = 0;
  // Runs `change` on the chain between two frames (Engine::post).
  virtual void post(std::function<void(Chain&)> change) = 0;
  // True once the engine is shutting down: a paused preview stops waiting for a key.
  virtual bool stopping() const { return false; }
};

class PreviewSink : public FrameSink {
 public:
  // `chain` is read here, once (stage names, enabled flags, live parameters): call before the
  // engine runs. Later changes go through host.post() and are mirrored here.
  PreviewSink(std::unique_ptr<PreviewHost> host, const Chain& chain, PreviewOptions opts);
  ~PreviewSink() override;

  void consume(const FrameResult& frame) override;
  void finish() override;
  bool wantsStop() const override { return quit_; }

  // Test hooks (thread-safe). pressKey() queues a key as if typed in the window; it is handled
  // at the next key poll. interrupt() ends a pause at once, as an engine shutdown does.
  void pressKey(int key);
  void interrupt();
  bool paused() const { return paused_; }
  cv::Mat lastRendered() const;  // the image last shown (overlay included)
  std::uint64_t framesRendered() const { return rendered_; }
  // Render at most this often (default 1/60 s; 0 renders every frame).
  void setMinRenderInterval(std::chrono::duration<double> d) { minInterval_ = d; }
  // false: draw and handle keys, but never open a window (tests without a display).
  void setShowWindow(bool show) { showWindow_ = show; }

  // Per stage, as mirrored from the chain.
  struct StageState {
    std::string name;
    bool enabled = true;
    std::string param;  // name of the main parameter ("" = none)
    ParamSpec spec;     // its declaration
    double value = 0;   // its current value
  };
  const std::vector<StageState>& stages() const { return stages_; }
  int selected() const { return selected_; }

 private:
  void render(const FrameResult& frame);
  cv::Mat compose(const FrameResult& frame);
  void handleKey(int key, const FrameResult& frame);
  int pollKey(int waitMs);
  void toggleStage(int i);
  void adjust(int direction);
  void snapshot(const FrameResult& frame);
  void setMessage(const std::string& m);
  bool windowClosed() const;
  void closeWindow();

  std::unique_ptr<PreviewHost> host_;
  PreviewOptions opts_;
  std::vector<StageState> stages_;
  int selected_ = -1;
  bool overlay_ = true, help_ = false, compare_ = false;
  bool showWindow_ = true, windowOpen_ = false;
  std::thread::id guiThread_;
  std::atomic<bool> quit_{false}, paused_{false}, interrupted_{false};
  std::atomic<std::uint64_t> rendered_{0};
  std::chrono::duration<double> minInterval_{1.0 / 60};
  std::chrono::steady_clock::time_point lastRender_{};
  std::string message_;
  std::chrono::steady_clock::time_point messageUntil_{};
  mutable std::mutex mu_;  // guards keys_ and last_
  std::deque<int> keys_;
  cv::Mat last_;
};

}  // namespace vf::app
