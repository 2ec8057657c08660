#include "app/preview.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <opencv2/highgui.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "app/interrupt.hpp"
#include "app/media/atomic_file.hpp"

namespace vf::app {

namespace {

class EngineHost : public PreviewHost {
 public:
  explicit EngineHost(Engine& e) : engine_(e) {}
  EngineStats stats() const override { return engine_.stats(); }
  void post(std::function<void(Chain&)> change) override { engine_.post(std::move(change)); }
  // The program stops the engine on SIGINT/SIGTERM; a paused preview must let go then, or the
  // engine would wait for it. (Engine has no "stop requested" accessor to ask instead.)
  bool stopping() const override { return interruptSignal() != 0; }

 private:
  Engine& engine_;
};

// The histogram in the side outputs: 256 uint32 bins per channel, so 1024, 3072 or 4096 bytes.
// (The hist stage is the only producer of side outputs.)
const std::vector<std::uint8_t>* findHistogram(const FrameResult& f) {
  if (!f.side) return nullptr;
  for (const auto& s : *f.side)
    if (!s.empty() && s.size() % 1024 == 0 && s.size() / 1024 <= 4) return &s;
  return nullptr;
}

// The step +/- moves a parameter by: 1 for integers; for reals about 5% of the value, never
// less than 1/200 of the range (so 0 can move), rounded to 1, 2 or 5 times a power of ten.
double stepFor(const ParamSpec& s, double v) {
  if (s.type == ParamType::Int) return 1;
  const double range = (s.max > s.min) ? s.max - s.min : 1;
  const double raw = std::max(std::abs(v) * 0.05, range / 200);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

std::string numberText(const ParamSpec& s, double v) {
  if (s.type == ParamType::Int) return std::to_string(static_cast<long long>(std::lround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::unique_ptr<FrameSink> makePreviewSink(Engine& engine, const PreviewOptions& opts) {
  return std::make_unique<PreviewSink>(std::make_unique<EngineHost>(engine), engine.chain(), opts);
}

PreviewSink::PreviewSink(std::unique_ptr<PreviewHost> host, const Chain& chain, PreviewOptions opts)
    : host_(std::move(host)), opts_(std::move(opts)) {
  overlay_ = opts_.overlay;
  compare_ = opts_.compare;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const Stage& st = chain.stage(i);
    StageState s;
    s.name = st.name();
    s.enabled = chain.enabled(i);
    for (const auto& spec : st.params().specs()) {
      if (spec.live && (spec.type == ParamType::Float || spec.type == ParamType::Int)) {
        s.param = spec.name;
        s.spec = spec;
        s.value = st.params().number(spec.name);
        break;
      }
    }
    if (selected_ < 0 && !s.param.empty()) selected_ = static_cast<int>(i);
    stages_.push_back(std::move(s));
  }
}

PreviewSink::~PreviewSink() = default;

void PreviewSink::pressKey(int key) {
  std::lock_guard<std::mutex> lock(mu_);
  keys_.push_back(key);
}

void PreviewSink::interrupt() { interrupted_ = true; }

cv::Mat PreviewSink::lastRendered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_.clone();
}

void PreviewSink::setMessage(const std::string& m) {
  message_ = m;
  messageUntil_ = std::chrono::steady_clock::now() + std::chrono::seconds(3);
}

int PreviewSink::pollKey(int waitMs) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!keys_.empty()) {
      const int k = keys_.front();
      keys_.pop_front();
      if (windowOpen_) cv::waitKey(1);  // keep the window's events flowing
      return k;
    }
  }
  if (windowOpen_) return cv::waitKey(waitMs);
  if (waitMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(waitMs));
  return -1;
}

cv::Mat PreviewSink::compose(const FrameResult& f) {
  cv::Mat view = toBgr(f.output);
  if (compare_ && f.input.data) view = composeCompare(toBgr(f.input), view);
  const int k = displayScale(view.cols);
  if (k > 1) cv::resize(view, view, {}, k, k, cv::INTER_NEAREST);
  if (overlay_) {
    const EngineStats es = host_->stats();
    OverlayInfo info;
    info.device = opts_.deviceName;
    const bool rolling = es.framesOut > 0;
    info.uploadMs = rolling ? es.uploadMs.p50 : f.stats.uploadMs;
    info.downloadMs = rolling ? es.downloadMs.p50 : f.stats.downloadMs;
    info.latencyMs = rolling ? es.latencyMs.p50 : f.stats.latencyMs;
    info.fps = es.fps;
    info.frames = rolling ? es.framesOut : f.stats.index + 1;
    info.dropped = es.dropped;
    info.frameDesc = f.output.desc().str();
    info.paused = paused_;
    if (!message_.empty() && std::chrono::steady_clock::now() < messageUntil_)
      info.message = message_;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      const auto& s = stages_[i];
      OverlayStage o;
      o.name = s.name;
      o.enabled = s.enabled;
      o.selected = static_cast<int>(i) == selected_;
      if (!s.param.empty()) o.param = s.param + "=" + numberText(s.spec, s.value);
      if (i < es.stageMs.size() && rolling)
        o.ms = es.stageMs[i].p50;
      else if (i < f.stats.stageMs.size())
        o.ms = f.stats.stageMs[i];
      info.stages.push_back(std::move(o));
    }
    drawOverlay(view, info);
    if (const auto* h = findHistogram(f)) {
      bool histOn = false;
      for (const auto& s : stages_) histOn |= (s.name == "hist" && s.enabled);
      if (histOn)
        drawHistogram(view, reinterpret_cast<const std::uint32_t*>(h->data()),
                      static_cast<int>(h->size() / 1024));
    }
  }
  if (help_) drawHelp(view);
  return view;
}

void PreviewSink::render(const FrameResult& f) {
  cv::Mat view = compose(f);
  if (showWindow_) {
    if (!windowOpen_) {
      guiThread_ = std::this_thread::get_id();
      cv::namedWindow(opts_.title, cv::WINDOW_AUTOSIZE | cv::WINDOW_GUI_NORMAL);
      windowOpen_ = true;
    }
    cv::imshow(opts_.title, view);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_ = view;
  }
  ++rendered_;
  lastRender_ = std::chrono::steady_clock::now();
}

void PreviewSink::consume(const FrameResult& frame) {
  if (quit_) return;  // the engine drains the frames in flight after a quit
  const auto now = std::chrono::steady_clock::now();
  if (rendered_ > 0 && now - lastRender_ < minInterval_) return;
  render(frame);
  int key = pollKey(1);
  if (key != -1) {
    handleKey(key, frame);
    if (!quit_) render(frame);  // show the key's effect now (overlay off, PAUSED, ...)
  }
  // Paused: stay inside consume() (the frame's views stay valid, the engine holds further
  // frames back), redraw on every key, and leave on space, q, a closed window or a shutdown.
  while (paused_ && !quit_ && !interrupted_ && !host_->stopping()) {
    key = pollKey(30);
    if (key != -1) {
      handleKey(key, frame);
      if (!quit_) render(frame);
    }
    if (windowClosed()) quit_ = true;
  }
  if (!quit_ && windowClosed()) quit_ = true;
  if (quit_) closeWindow();  // at once; the engine drains the frames in flight meanwhile
}

bool PreviewSink::windowClosed() const {
  // The user closed it (window manager's close button): Qt hides it.
  return windowOpen_ && cv::getWindowProperty(opts_.title, cv::WND_PROP_VISIBLE) < 1;
}

void PreviewSink::closeWindow() {
  // highgui calls stay on the thread that opened the window (Qt's GUI thread). The engine calls
  // finish() from another thread; the window then goes with the process.
  if (windowOpen_ && std::this_thread::get_id() == guiThread_) {
    cv::destroyWindow(opts_.title);
    cv::waitKey(1);
    windowOpen_ = false;
  }
}

void PreviewSink::toggleStage(int i) {
  if (i < 0 || i >= static_cast<int>(stages_.size())) return;
  auto& s = stages_[i];
  s.enabled = !s.enabled;
  selected_ = i;
  const bool on = s.enabled;
  // Explicit target state (not "flip"), so this mirror and the chain cannot drift apart.
  host_->post([i, on](Chain& c) { c.setEnabled(static_cast<std::size_t>(i), on); });
  setMessage(s.name + (on ? " on" : " off"));
}

void PreviewSink::adjust(int direction) {
  if (selected_ < 0 || selected_ >= static_cast<int>(stages_.size())) return;
  auto& s = stages_[selected_];
  if (s.param.empty()) {
    setMessage(s.name + " has no live parameter");
    return;
  }
  double v = s.value + direction * stepFor(s.spec, s.value);
  // Keep inside the declared range (an open end stays one step inside).
  const double st = stepFor(s.spec, s.value);
  if (s.spec.max > s.spec.min) {
    const double lo = s.spec.minOpen ? s.spec.min + st * 0.01 : s.spec.min;
    const double hi = s.spec.maxOpen ? s.spec.max - st * 0.01 : s.spec.max;
    v = std::clamp(v, lo, hi);
  }
  if (std::abs(v) < 1e-9) v = 0;
  const std::string text = numberText(s.spec, v);
  s.value = std::stod(text);
  const std::size_t i = static_cast<std::size_t>(selected_);
  const std::string name = s.param;
  host_->post([i, name, text](Chain& c) {
    try {
      c.stage(i).params().set(name, text);
      c.stage(i).update();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vidfilter: preview: %s\n", e.what());
    }
  });
  setMessage(s.name + ": " + name + "=" + text);
}

void PreviewSink::snapshot(const FrameResult& f) {
  static const int types[] = {CV_8UC1, CV_8UC3, CV_8UC4};
  const cv::Mat out(f.output.height, f.output.width, types[static_cast<int>(f.output.format)],
                    f.output.data, f.output.stride);
  // A new name each time (a -N suffix when taken): a snapshot never replaces a file, so it can
  // never write over an input either; the image is written whole or not at all.
  std::string number = std::to_string(f.stats.index);
  if (number.size() < 6) number.insert(0, 6 - number.size(), '0');
  const std::string stem =
      (std::filesystem::path(opts_.snapshotDir) / ("vidfilter-" + number)).string();
  std::string path = stem + ".png", why = "could not encode the frame";
  bool ok = false;
  std::vector<std::uint8_t> png;
  try {
    if (cv::imencode(".png", out, png)) {
      for (int n = 1; n < 1000; ++n) {
        why = media::writeFileAtomically(path, png.data(), png.size(), /*replace=*/false);
        if (why != std::strerror(EEXIST)) break;
        path = stem + "-" + std::to_string(n) + ".png";
      }
      ok = why.empty();
    }
  } catch (const cv::Exception&) {
    ok = false;
  }
  setMessage(ok ? "saved " + path : "could not write " + path + ": " + why);
  std::fprintf(stderr, "vidfilter: %s\n", message_.c_str());
}

void PreviewSink::handleKey(int key, const FrameResult& frame) {
  const int k = key & 0xff;
  switch (k) {
    case 'q':
    case 'Q':
    case 27:
      quit_ = true;
      break;
    case ' ':
      paused_ = !paused_;
      break;
    case 'o':
      overlay_ = !overlay_;
      break;
    case 'h':
    case 'H':
      help_ = !help_;
      break;
    case 's':
      snapshot(frame);
      break;
    case '+':
    case '=':
      adjust(+1);
      break;
    case '-':
    case '_':
      adjust(-1);
      break;
    case '\t':
    case ']':
    case '[': {
      const int n = static_cast<int>(stages_.size());
      if (n > 0) selected_ = ((selected_ < 0 ? 0 : selected_) + (k == '[' ? n - 1 : 1)) % n;
      break;
    }
    default:
      if (k >= '1' && k <= '9') toggleStage(k - '1');
      break;
  }
}

void PreviewSink::finish() { closeWindow(); }

}  // namespace vf::app
