#include "app/tile_preview.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "app/interrupt.hpp"
#include "app/sinks.hpp"
#include "app/view.hpp"

namespace vf::app {

namespace {

using Clock = std::chrono::steady_clock;

double nowSeconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

// What one tile shows, and what its line is made of.
struct TilePreview::Tile {
  enum class Phase { Opening, Running, Ended, Failed, Stopped };
  TileInput input;
  Phase phase = Phase::Opening;
  std::string error;
  cv::Mat picture;
  cv::Size size;                // the chain's output size, once open
  cv::Size shape;               // the size it is shown at: widened by non-square pixels
  std::deque<double> arrivals;  // seconds, the last 2 s
  std::deque<double> deviceMs;  // the last timed frames
  double lastCopy = -1;         // when the picture was last taken (seconds)
  std::uint64_t frames = 0;

  double fps() const {
    if (arrivals.size() < 2 || arrivals.back() <= arrivals.front()) return 0;
    return double(arrivals.size() - 1) / (arrivals.back() - arrivals.front());
  }
  double device() const {
    if (deviceMs.empty()) return -1;
    double sum = 0;
    for (double d : deviceMs) sum += d;
    return sum / double(deviceMs.size());
  }
};

// Input k's frames into its tile, paced to the input's own rate when it plays a file.
class TilePreview::Sink : public FrameSink {
 public:
  Sink(TilePreview& p, std::size_t k) : p_(p), k_(k) {}
  void start(bool paced, double fps) {
    paced_ = paced;
    fps_ = fps;
  }
  void consume(const FrameResult& f) override {
    if (p_.quit_) return;  // the engine drains the frames in flight after a quit
    if (paced_) pace(f);
    if (p_.show(k_, f)) based_ = false;  // held paused: the clock starts again from here
  }
  bool wantsStop() const override { return p_.quit_; }

 private:
  // Waits until the frame is due: its time since the first frame, on the clock since then. A
  // frame more than half a second late (the device or the decoder could not keep up) starts
  // the clock again.
  void pace(const FrameResult& f) {
    double t = -1;
    if (f.time.known())
      t = f.time.seconds();
    else if (fps_ > 0)
      t = double(f.stats.index) / fps_;
    if (t < 0) return;
    const auto now = Clock::now();
    if (based_ && t >= baseTime_) {
      const auto due = base_ + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(t - baseTime_));
      if (due >= now - std::chrono::milliseconds(500)) {
        waitUntil(due);
        return;
      }
    }
    based_ = true;
    base_ = now;
    baseTime_ = t;
  }

  // Until `due`, a quit or a signal (which are looked at every 20 ms).
  void waitUntil(Clock::time_point due) {
    std::unique_lock<std::mutex> lock(p_.mu_);
    while (!p_.quit_ && !interruptSignal() && Clock::now() < due)
      p_.cv_.wait_until(lock, std::min(due, Clock::now() + std::chrono::milliseconds(20)));
  }

  TilePreview& p_;
  std::size_t k_;
  bool paced_ = false, based_ = false;
  double fps_ = 0, baseTime_ = 0;
  Clock::time_point base_;
};

TilePreview::TilePreview(std::vector<TileInput> inputs, TilePreviewOptions opts)
    : opts_(std::move(opts)) {
  overlay_ = opts_.overlay;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    tiles_.push_back(std::make_unique<Tile>());
    tiles_.back()->input = std::move(inputs[k]);
    sinks_.push_back(std::make_unique<Sink>(*this, k));
  }
}

TilePreview::~TilePreview() {
  std::unique_ptr<PreviewWindow> w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = std::move(window_);
  }
}

FrameSink* TilePreview::started(std::size_t k, const CaptureSource& source, const Chain& chain) {
  const FrameDesc out = chain.output();
  sinks_[k]->start(tiles_[k]->input.paced && !source.live(), source.fps());
  {
    std::lock_guard<std::mutex> lock(mu_);
    tiles_[k]->size = {out.width, out.height};
    // Non-square pixels (a DVD's 720x480 at 32:27) are shown in their shape.
    tiles_[k]->shape = displaySize(tiles_[k]->size, pixelShapes(source, chain).output);
  }
  openWhenReady();
  refresh();
  return sinks_[k].get();
}

void TilePreview::ended(std::size_t k, const JobResult& r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Tile& t = *tiles_[k];
    switch (r.status) {
      case JobStatus::Failed:
        t.phase = Tile::Phase::Failed;
        t.error = r.error;
        break;
      case JobStatus::Stopped:
        t.phase = Tile::Phase::Stopped;
        break;
      default:
        t.phase = Tile::Phase::Ended;
        break;
    }
  }
  cv_.notify_all();
  openWhenReady();
  refresh();
}

// Once a frame came, and every input is open (its size known, so the first window fits them
// all) or a second has passed (a camera or a stream slow to open gets its place later).
void TilePreview::openWhenReady() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!opts_.showWindow || window_ || opening_ || firstFrame_ < 0) return;
    bool known = true;
    for (const auto& t : tiles_)
      known = known && (t->size.area() > 0 || t->phase != Tile::Phase::Opening);
    if (!known && nowSeconds() - firstFrame_ < 1) return;
    opening_ = true;
  }
  openWindow();
}

bool TilePreview::show(std::size_t k, const FrameResult& f) {
  const double now = nowSeconds();
  {
    std::lock_guard<std::mutex> lock(mu_);
    Tile& t = *tiles_[k];
    ++t.frames;
    t.arrivals.push_back(now);
    while (t.arrivals.size() > 2 && t.arrivals.front() < now - 2) t.arrivals.pop_front();
    if (!f.stats.stageMs.empty()) {
      double ms = f.stats.uploadMs + f.stats.downloadMs;
      for (double s : f.stats.stageMs) ms += s;
      t.deviceMs.push_back(ms);
      if (t.deviceMs.size() > 30) t.deviceMs.pop_front();
    }
    // A new picture at most 60 times a second (an input with an output runs as fast as the
    // device allows); always the one a pause holds.
    if (t.lastCopy >= 0 && now - t.lastCopy < 1.0 / 60 && !paused_) return false;
    t.lastCopy = now;
  }
  cv::Mat bgr = toBgr(f.output);  // without the lock: the window goes on drawing meanwhile
  {
    std::lock_guard<std::mutex> lock(mu_);
    Tile& t = *tiles_[k];
    t.picture = std::move(bgr);
    t.size = t.picture.size();
    if (t.phase == Tile::Phase::Opening) t.phase = Tile::Phase::Running;
    anyShown_ = true;
    if (firstFrame_ < 0) firstFrame_ = now;
  }
  openWhenReady();
  refresh();
  if (!paused_) return false;
  waitWhile([this] { return paused_.load(); });
  return true;
}

void TilePreview::openWindow() {
  PreviewWindow::Handlers h;
  h.firstSize = [this](cv::Size work) {
    if (!opts_.window.empty()) return opts_.window;
    std::vector<cv::Size> sizes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& t : tiles_) sizes.push_back(t->shape);
    }
    return initialTileCanvas(sizes, work);
  };
  h.render = [this](cv::Size size) { return render(size); };
  h.key = [this](int k) { pressKey(k); };
  h.closed = [this] {
    quit_ = true;
    cv_.notify_all();
  };
  try {
    auto w = std::make_unique<PreviewWindow>(opts_.title, std::move(h));
    std::lock_guard<std::mutex> lock(mu_);
    window_ = std::move(w);
  } catch (const std::exception& e) {
    spdlog::warn("{}; the inputs go on without it", e.what());
  }
}

void TilePreview::refresh() {
  std::lock_guard<std::mutex> lock(mu_);
  if (window_) window_->refresh();
}

void TilePreview::waitWhile(const std::function<bool()>& keep) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_ && !interruptSignal() && keep()) cv_.wait_for(lock, std::chrono::milliseconds(20));
}

void TilePreview::pressKey(int key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int n = static_cast<int>(tiles_.size());
    if (key == 'q' || key == 'Q' || key == key::kEscape) quit_ = true;
    if (key == ' ') paused_ = !paused_;
    if (key == 'o') overlay_ = !overlay_;
    if (key == 'h' || key == 'H') help_ = !help_;
    if ((key == 'f' || key == key::kF11) && window_) window_->toggleFullScreen();
    if (key == '0') large_ = -1;
    if (key >= '1' && key <= '9' && key - '1' < n) large_ = large_ == key - '1' ? -1 : key - '1';
  }
  cv_.notify_all();
  refresh();
}

void TilePreview::waitForQuit() {
  bool wait = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wait = window_ && anyShown_ && !opts_.exitAtEnd;
    paused_ = false;
  }
  if (wait) {
    refresh();
    waitWhile([] { return true; });  // until q, a closed window or a signal
  }
  std::unique_ptr<PreviewWindow> w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = std::move(window_);
  }
}

cv::Mat TilePreview::render(cv::Size size) {
  TilesContent c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    c = content();
  }
  std::lock_guard<std::mutex> lock(renderMu_);
  return renderer_.render(size, c);
}

TilesContent TilePreview::content() const {
  TilesContent c;
  c.overlay = overlay_;
  c.large = large_;
  c.help = help_;
  bool allEnded = true;
  for (std::size_t k = 0; k < tiles_.size(); ++k) {
    const Tile& t = *tiles_[k];
    TileContent tc;
    tc.picture = t.picture;
    tc.frameSize = t.shape;
    tc.line = "[" + std::to_string(k + 1) + "] " + t.input.name;
    if (t.size.area() > 0)
      tc.figures += "  " + std::to_string(t.size.width) + "x" + std::to_string(t.size.height);
    using P = Tile::Phase;
    allEnded = allEnded && t.phase != P::Opening && t.phase != P::Running;
    if (t.phase == P::Running) {
      if (const double fps = t.fps(); fps > 0) tc.figures += "  " + fixed(fps, 1) + " fps";
      if (const double d = t.device(); d >= 0) tc.figures += "  device " + fixed(d, 2) + " ms";
    }
    if (t.phase == P::Ended) tc.figures += "  ended";
    if (t.phase == P::Stopped) tc.figures += "  stopped";
    tc.failed = t.phase == P::Failed;
    if (tc.failed) tc.figures += "  failed";
    tc.status = t.phase == P::Failed    ? "failed: " + t.error
                : t.phase == P::Opening ? "opening " + t.input.name
                                        : t.input.name + ": no frames";
    c.tiles.push_back(std::move(tc));
  }
  if (paused_ && !allEnded)
    c.note = "paused: space plays";
  else if (allEnded)
    c.note = "every input has ended: q quits";
  return c;
}

std::unique_ptr<InputsPreview> makeTilePreview(const Settings& s,
                                               const std::vector<PlannedJob>& jobs) {
  if (jobs.size() > kMaxTiles)
    throw UsageError("--preview shows at most " + std::to_string(kMaxTiles) + " inputs, got " +
                     std::to_string(jobs.size()) + "; write them with -o instead");
  if (s.jobs && static_cast<std::size_t>(*s.jobs) < jobs.size())
    throw UsageError("--preview shows every input at once; --jobs " + std::to_string(*s.jobs) +
                     " would keep some waiting: leave --jobs out");
  if (s.compare.value_or(false))
    spdlog::warn(
        "--compare shows one input beside its original; with several, each tile shows "
        "its input filtered");
  TilePreviewOptions o;
  if (s.title) o.title = *s.title;
  if (s.window) o.window = {parseWindow(*s.window).width, parseWindow(*s.window).height};
  o.overlay = s.overlay.value_or(true);
  o.exitAtEnd = s.exitAtEnd.value_or(false);
  std::vector<TileInput> inputs;
  for (const PlannedJob& j : jobs) {
    TileInput in;
    // A file by its name; a camera, a URL or a pipeline as given.
    in.name = j.source.kind == SourceKind::File
                  ? std::filesystem::path(j.spec.input).filename().string()
                  : j.spec.input;
    in.paced = j.output.kind == OutputKind::None;
    inputs.push_back(std::move(in));
  }
  return std::make_unique<TilePreview>(std::move(inputs), std::move(o));
}

}  // namespace vf::app
