#include "app/preview.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "app/interrupt.hpp"
#include "app/mat_view.hpp"
#include "app/media/atomic_file.hpp"

namespace vf::app {

namespace {

using Clock = std::chrono::steady_clock;

double nowSeconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

class EngineHost : public PreviewHost {
 public:
  EngineHost(Engine& e, PlaybackControl* p) : engine_(e), playback_(p) {}
  EngineStats stats() const override { return engine_.stats(); }
  void post(std::function<void(Chain&)> change) override { engine_.post(std::move(change)); }
  // The program stops the engine on SIGINT/SIGTERM; a paused preview must let go then, or the
  // engine would wait for it. (Engine has no "stop requested" accessor to ask instead.)
  bool stopping() const override { return interruptSignal() != 0; }
  bool seekable() const override { return playback_ && playback_->seekable(); }
  void seek(double s) override {
    if (playback_) playback_->seek(s);
  }
  bool atEnd() const override { return playback_ && playback_->atEnd(); }
  bool failed() const override { return engine_.failed(); }

 private:
  Engine& engine_;
  PlaybackControl* playback_;
};

// The live parameter +/- moves: the first live number; for brightness=auto its clip (gain and
// bias are what the stage computes then).
const ParamSpec* mainParam(const Stage& st) {
  const auto& specs = st.params().specs();
  const bool autoMode = std::any_of(specs.begin(), specs.end(), [&](const ParamSpec& s) {
    return s.name == "mode" && st.params().text("mode") == "auto";
  });
  for (const auto& spec : specs)
    if (spec.live && (spec.type == ParamType::Float || spec.type == ParamType::Int) &&
        (!autoMode || spec.name == "clip"))
      return &spec;
  return nullptr;
}

}  // namespace

std::unique_ptr<FrameSink> makePreviewSink(Engine& engine, const PreviewOptions& opts,
                                           PlaybackControl* playback) {
  auto sink = std::make_unique<PreviewSink>(std::make_unique<EngineHost>(engine, playback),
                                            engine.chain(), opts);
  // The panel's END comes when the file ends, not with the next key.
  if (playback) playback->onAtEndChanged([s = sink.get()] { s->refreshView(); });
  return sink;
}

PreviewSink::PreviewSink(std::unique_ptr<PreviewHost> host, const Chain& chain, PreviewOptions opts)
    : host_(std::move(host)), opts_(std::move(opts)) {
  overlay_ = opts_.overlay;
  compare_ = opts_.compare;
  fuse_ = chain.fusion() == Chain::Fusion::On ||
          (chain.fusion() == Chain::Fusion::Auto && opts_.fusesByDefault);
  viewSize_ = opts_.window;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const Stage& st = chain.stage(i);
    StageState s;
    s.name = st.name();
    s.enabled = chain.enabled(i);
    if (const ParamSpec* spec = mainParam(st)) {
      s.param = spec->name;
      s.spec = *spec;
      s.value = st.params().number(spec->name);
    }
    if (selected_ < 0 && !s.param.empty()) selected_ = static_cast<int>(i);
    stages_.push_back(std::move(s));
  }
}

PreviewSink::~PreviewSink() {
  std::unique_ptr<PreviewWindow> w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = std::move(window_);
  }
}

std::vector<PreviewSink::StageState> PreviewSink::stages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stages_;
}

int PreviewSink::selected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return selected_;
}

void PreviewSink::pressKey(int key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    handleKey(key);
  }
  cv_.notify_all();
  showChanged();
}

void PreviewSink::interrupt() {
  interrupted_ = true;
  cv_.notify_all();
}

cv::Mat PreviewSink::lastRendered() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (window_) return window_->lastShown().clone();
  }
  std::lock_guard<std::mutex> lock(renderMu_);
  return last_.clone();
}

ViewLayout PreviewSink::lastLayout() const {
  std::lock_guard<std::mutex> lock(renderMu_);
  return layout_;
}

PanelParts PreviewSink::lastParts() const {
  std::lock_guard<std::mutex> lock(renderMu_);
  return parts_;
}

PanelInfo PreviewSink::currentPanel() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!shown_) return {};
  PanelInfo in = panelInfo(*shown_, nowSeconds());
  in.histogram.bins = nullptr;
  return in;
}

void PreviewSink::showChanged() {
  PreviewWindow* win = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    win = window_.get();
  }
  if (win) {
    win->refresh();
    return;
  }
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    any = shown_ != nullptr;
  }
  if (any) renderFor(viewSize_);
}

void PreviewSink::refreshView() {
  {
    // Under the lock: finish() takes the window away under it, so it is never gone meanwhile
    // (refresh() only marks a paint wanted).
    std::lock_guard<std::mutex> lock(mu_);
    if (window_) {
      window_->refresh();
      return;
    }
    if (!shown_ || ended_) return;
  }
  renderFor(viewSize_);
}

void PreviewSink::openWindow(cv::Size frame) {
  PreviewWindow::Handlers h;
  h.firstSize = [this, frame](cv::Size work) {
    if (!opts_.window.empty()) return opts_.window;
    ViewContent c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      c = content(nowSeconds());
    }
    std::lock_guard<std::mutex> lock(renderMu_);
    return renderer_.initialSize(c, frame, work);
  };
  h.render = [this](cv::Size size) { return renderFor(size); };
  h.key = [this](int k) { pressKey(k); };
  h.closed = [this] {
    quit_ = true;
    cv_.notify_all();
  };
  auto w = std::make_unique<PreviewWindow>(opts_.title, std::move(h));
  std::lock_guard<std::mutex> lock(mu_);
  window_ = std::move(w);
}

cv::Mat PreviewSink::renderFor(cv::Size size) {
  const double now = nowSeconds();
  ViewContent c;
  std::shared_ptr<Shown> s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    c = content(now);
    s = shown_;
  }
  std::lock_guard<std::mutex> lock(renderMu_);
  const auto t0 = Clock::now();
  cv::Mat img = renderer_.render(size, c);
  spdlog::trace("preview: drew {}x{} in {:.1f} ms", size.width, size.height,
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  last_ = img;
  layout_ = renderer_.layout();
  parts_ = renderer_.parts();
  if (s) {
    std::lock_guard<std::mutex> l(mu_);
    // Capture to screen: its latency to the preview plus the time since. (Not for the frame
    // that opened the window: it waited for the window, not for the pipeline.)
    if (!s->painted && !s->opening && s->arrived - s->stats.latencyMs / 1e3 >= heldUntil_)
      history_.markShown(s->stats.index, s->stats.latencyMs + (nowSeconds() - s->arrived) * 1e3);
    s->painted = true;
  }
  return img;
}

bool PreviewSink::seekArrived(const FrameTime& t) {
  if (!t.known() || ++seekSkipped_ > 64) return true;  // cannot tell, or never coming
  const double tol = opts_.sourceFps > 0 ? 0.25 / opts_.sourceFps : 1e-3;
  const double at = t.seconds();
  // Frames already on their way when the seek was asked for lie on the far side of the frame
  // it was asked from; the sought one on the near side.
  return seekTarget_ > seekFrom_ ? at >= seekTarget_ - tol : at < seekFrom_ - tol;
}

void PreviewSink::consume(const FrameResult& f) {
  if (quit_) return;  // the engine drains the frames in flight after a quit
  const double now = nowSeconds();
  bool pauseAfter = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    double device = -1;
    if (!f.stats.stageMs.empty()) {
      device = f.stats.uploadMs + f.stats.downloadMs;
      for (double ms : f.stats.stageMs) device += ms;
    }
    // A frame captured before a pause ended waited on it: no latency of the pipeline's.
    const bool waited = now - f.stats.latencyMs / 1e3 < heldUntil_;
    history_.add(f.stats.index, now, device, waited ? -1 : f.stats.latencyMs);
    if (f.time.known() && host_->seekable()) {  // for stepping back (bounded)
      if (seenTimes_.size() >= 100000) seenTimes_.clear();
      seenTimes_.insert(f.time.seconds());
    }
    bool force = false;
    if (seeking_) {
      if (!seekArrived(f.time)) return;
      seeking_ = false;
      rateFrom_ = now;
      if (nextSeek_) {  // keys came meanwhile: on to where they lead, from here
        const Seek next = *nextSeek_;
        nextSeek_.reset();
        startSeek(f.time.known() ? f.time.seconds() : seekAim_, next);
        return;
      }
      if (redrawAfterSeek_ && f.time.known()) {  // the chain changed on the way: made again
        redrawAfterSeek_ = false;
        seekAgain(f.time.seconds());
        return;
      }
      force = true;
      pauseAfter = seekPause_;
    }
    if (stepsPending_ > 0) {
      --stepsPending_;
      force = pauseAfter = true;
    }
    if (!force && shown_ && Clock::now() - lastShownAt_ < minInterval_) return;
    lastShownAt_ = Clock::now();
  }
  // The copies are made without the lock (the window goes on drawing the frame before).
  auto s = std::make_shared<Shown>();
  s->filtered = toBgr(f.output);
  if (f.input.data) s->original = toBgr(f.input);
  s->raw = f.output.format == PixelFormat::BGR8 ? s->filtered : copyOf(f.output);
  if (f.side) s->side = *f.side;
  if (f.sideInfo) s->sideInfo = *f.sideInfo;
  s->inDesc = f.input.desc();
  s->outDesc = f.output.desc();
  s->time = f.time;
  s->stats = f.stats;
  s->arrived = now;
  s->opening = showWindow_ && !window_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shown_ = std::move(s);
    release_ = stepsPending_ > 0;  // a release was for the frame held before this one
    if (pauseAfter) paused_ = true;
  }
  ++rendered_;
  if (showWindow_ && !window_) openWindow({f.output.width, f.output.height});
  if (!showWindow_ && viewSize_.empty()) {
    ViewContent c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      c = content(now);
    }
    std::lock_guard<std::mutex> lock(renderMu_);
    viewSize_ = renderer_.initialSize(c, {f.output.width, f.output.height}, {1264, 760});
  }
  showChanged();
  // Paused: stay inside consume() (the engine holds further frames back) until play, a step or
  // a seek, a quit, or a shutdown.
  bool held = false;
  waitWhile([this, &held] {
    const bool wait = paused_ && !release_;
    held = held || wait;
    return wait;
  });
  std::lock_guard<std::mutex> lock(mu_);
  release_ = false;
  // The frames captured before now waited on the pause: their latency is not the pipeline's.
  if (held) heldUntil_ = rateFrom_ = nowSeconds();
}

// Waits while `keep` holds (mu_ taken for it), a quit, an interrupt or a shutdown ending it.
// Returns true when it ended because `keep` turned false.
bool PreviewSink::waitWhile(const std::function<bool()>& keep) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (quit_ || interrupted_) return false;
    if (!keep()) return true;
    lock.unlock();
    const bool stop = host_->stopping();
    lock.lock();
    if (stop) return false;
    cv_.wait_for(lock, std::chrono::milliseconds(30));
  }
}

void PreviewSink::finish() {
  // The end of the input: the window stays until q. Not after an error: the message waits in
  // the terminal.
  if (window_ && !opts_.exitAtEnd && !host_->failed()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ended_ = true;
      paused_ = false;
    }
    window_->refresh();
    waitWhile([] { return true; });  // until q, a closed window or a signal
  }
  // Out from under the lock first: a key handled meanwhile on the GUI thread finds no window
  // (the destructor waits for that thread to end).
  std::unique_ptr<PreviewWindow> w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = std::move(window_);
  }
  w.reset();
}

}  // namespace vf::app
