// What the preview's picture shows, gathered from the frame on show, the engine's statistics
// and the preview's own state (part of PreviewSink; see preview.hpp).
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app/preview.hpp"

namespace vf::app {

namespace {

std::string numberText(const ParamSpec& s, double v) {
  if (s.type == ParamType::Int) return std::to_string(static_cast<long long>(std::lround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// brightness=auto's "levels": channels gains, then channels biases (floats).
std::string levelsText(const std::vector<std::uint8_t>& bytes) {
  const std::size_t n = bytes.size() / sizeof(float);
  if (n < 2 || n % 2) return "";
  std::vector<float> v(n);
  std::memcpy(v.data(), bytes.data(), n * sizeof(float));
  const std::size_t c = std::min<std::size_t>(n / 2, 3);  // bgra: alpha stays 1, 0
  auto list = [&](std::size_t from, int decimals) {
    std::string s;
    for (std::size_t k = 0; k < c; ++k) {
      char b[32];
      const double x = double(v[from + k]);
      std::snprintf(b, sizeof b, "%.*f", decimals, std::abs(x) < 0.5 ? 0.0 : x);  // never "-0"
      s += (k ? " " : "") + std::string(b);
    }
    return s;
  };
  return "applied gain " + list(0, 2) + "  bias " + list(n / 2, 0);
}

}  // namespace

double PreviewSink::secondsOf(const Shown& s) const {
  if (s.time.known()) return s.time.seconds();
  if (opts_.sourceFps > 0) return double(s.stats.index) / opts_.sourceFps;
  return -1;
}

std::int64_t PreviewSink::frameNumber(const Shown& s) const {
  const double at = opts_.live ? -1 : secondsOf(s);
  return at >= 0 && opts_.sourceFps > 0 ? std::llround(at * opts_.sourceFps) + 1
                                        : std::int64_t(s.stats.index) + 1;
}

double PreviewSink::rateSince(double now) const {
  // Frames reaching the preview over the last 2 s, from the last pause's or seek's end; unknown
  // (-1) until two came.
  const double from = std::max(now - 2, rateFrom_);
  int n = 0;
  double first = 0, last = 0;
  for (const auto& e : history_.entries()) {
    if (e.t < from) continue;
    if (n++ == 0) first = e.t;
    last = e.t;
  }
  return n >= 2 && last > first ? double(n - 1) / (last - first) : -1;
}

double PreviewSink::filteredSar(const Shown& s) const {
  const cv::Size out(s.outDesc.width, s.outDesc.height), in(s.inDesc.width, s.inDesc.height);
  if (out == opts_.outputSize) return opts_.outputSar;
  return out == in ? opts_.inputSar : 1.0;
}

PanelInfo PreviewSink::panelInfo(const Shown& s, double now) const {
  const EngineStats es = host_->stats();
  const bool rolling = es.framesOut > 0;
  PanelInfo in;
  in.device = opts_.deviceName;
  in.formats = s.outDesc.str();
  if (!s.original.empty() && s.inDesc != s.outDesc)
    in.formats = s.inDesc.str() + " -> " + in.formats;
  const cv::Size shown = displaySize({s.outDesc.width, s.outDesc.height}, filteredSar(s));
  if (shown.width != s.outDesc.width)  // non-square pixels: the size players show
    in.formats +=
        " (shown " + std::to_string(shown.width) + "x" + std::to_string(shown.height) + ")";
  const bool atEnd = ended_ || host_->atEnd();
  // At the end, the whole run's rate; the rolling window's would be its last frames'.
  in.fpsOfRun = atEnd && es.runFps > 0;
  in.fps = in.fpsOfRun ? es.runFps : paused_ ? -1 : rateSince(now);
  in.sourceFps = opts_.sourceFps;
  // Capture to screen, as the graph shows it; until a frame was painted, capture to preview.
  // After a pause or a seek longer than the window, the last figures known: the engine's own
  // would count the time the frames waited in the pause.
  if (history_.screenLatency(&in.latencyP50, &in.latencyP99)) {
    lastLatencyP50_ = in.latencyP50;
    lastLatencyP99_ = in.latencyP99;
  } else if (lastLatencyP50_ >= 0) {
    in.latencyP50 = lastLatencyP50_;
    in.latencyP99 = lastLatencyP99_;
  } else {
    in.latencyP50 = rolling ? es.latencyMs.p50 : s.stats.latencyMs;
    in.latencyP99 = rolling ? es.latencyMs.p99 : s.stats.latencyMs;
  }
  in.dropped = es.dropped;
  in.state = atEnd ? PlayState::Ended : paused_ ? PlayState::Paused : PlayState::Playing;
  in.seekable = host_->seekable() && !ended_;
  if (!opts_.live) {  // a file: where in it (a live source's clock says nothing of the kind)
    in.seconds = secondsOf(s);
    if (opts_.frameCount > 0 && opts_.sourceFps > 0)
      in.duration = double(opts_.frameCount) / opts_.sourceFps;
    in.frame = frameNumber(s);
    in.frameCount = opts_.frameCount;
  }

  in.table.budgetMs = opts_.sourceFps > 0 ? 1000.0 / opts_.sourceFps : 0;
  in.table.uploadP50 = rolling ? es.uploadMs.p50 : s.stats.uploadMs;
  in.table.uploadP99 = rolling ? es.uploadMs.p99 : s.stats.uploadMs;
  in.table.downloadP50 = rolling ? es.downloadMs.p50 : s.stats.downloadMs;
  in.table.downloadP99 = rolling ? es.downloadMs.p99 : s.stats.downloadMs;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    const auto& st = stages_[i];
    StageRow r;
    r.name = st.name;
    r.enabled = st.enabled;
    r.selected = static_cast<int>(i) == selected_;
    if (!st.param.empty()) r.param = st.param + " " + numberText(st.spec, st.value);
    // A fused pass is timed on its first stage's row, named by its label ("gray+brightness");
    // its other stages show no time of their own.
    const bool fusedIn = i < es.stageNames.size() && es.stageNames[i].empty() && st.enabled;
    if (i < es.stageNames.size() && !es.stageNames[i].empty()) r.name = es.stageNames[i];
    if (fusedIn) {
    } else if (rolling && i < es.stageMs.size()) {
      r.timed = true;
      r.p50 = es.stageMs[i].p50;
      r.p99 = es.stageMs[i].p99;
    } else if (i < s.stats.stageMs.size()) {
      r.timed = true;
      r.p50 = r.p99 = s.stats.stageMs[i];
    }
    in.table.stages.push_back(std::move(r));
  }
  // Side outputs: the values a stage applied, and the histogram (the selected hist stage's,
  // else the first one on).
  int histAt = -1;
  for (std::size_t k = 0; k < s.sideInfo.size() && k < s.side.size(); ++k) {
    const int st = s.sideInfo[k].stage;
    if (st < 0 || st >= static_cast<int>(stages_.size()) || !stages_[st].enabled) continue;
    if (s.sideInfo[k].name == "levels") in.table.stages[st].applied = levelsText(s.side[k]);
    if (s.sideInfo[k].name == "otsu" && s.side[k].size() == sizeof(float)) {
      float level = 0;  // threshold=mode=otsu: this frame's level
      std::memcpy(&level, s.side[k].data(), sizeof level);
      in.table.stages[st].applied = "applied level " + std::to_string(int(level));
    }
    if (s.sideInfo[k].name == "histogram" && s.side[k].size() % 1024 == 0 &&
        (histAt < 0 || st == selected_))
      histAt = static_cast<int>(k);
  }
  if (histAt >= 0) {
    const int st = s.sideInfo[histAt].stage;
    int before = st - 1;
    while (before >= 0 && !stages_[before].enabled) --before;
    in.hasHistogram = true;
    in.histogram.bins = reinterpret_cast<const std::uint32_t*>(s.side[histAt].data());
    in.histogram.channels = static_cast<int>(s.side[histAt].size() / 1024);
    in.histogram.log = histLog_;
    in.histogram.source =
        std::to_string(st + 1) + " " + stages_[st].name + ", of " +
        (before < 0 ? std::string("the input") : stages_[before].name + "'s output");
  }
  in.now = in.state == PlayState::Playing ? now : std::min(now, history_.lastTime());
  in.graph.budgetMs = in.table.budgetMs;
  if (!message_.empty() && std::chrono::steady_clock::now() < messageUntil_) in.message = message_;
  return in;
}

ViewContent PreviewSink::content(double now) {
  ViewContent c;
  c.compare = compare_;
  c.overlay = overlay_;
  c.help = help_;
  if (!shown_) return c;
  c.filtered = shown_->filtered;
  c.original = shown_->original;
  c.filteredSar = filteredSar(*shown_);
  c.originalSar = opts_.inputSar;
  c.panel = panelInfo(*shown_, now);
  c.panel.history = std::make_shared<const FrameHistory>(history_);
  c.owner = shown_;
  return c;
}

}  // namespace vf::app
