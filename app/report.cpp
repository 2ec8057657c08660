#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vf::app {

std::string formatDuration(double seconds, int decimals) {
  decimals = std::clamp(decimals, 0, 3);
  if (!(seconds >= 0) || !std::isfinite(seconds)) seconds = 0;
  const double scale = std::pow(10.0, decimals);
  // Round once, then split, so 59.999 s prints as 0:01:00.00 and not 0:00:60.00.
  const auto units = static_cast<std::int64_t>(std::llround(seconds * scale));
  const std::int64_t whole = units / static_cast<std::int64_t>(scale);
  const std::int64_t frac = units % static_cast<std::int64_t>(scale);
  char buf[128];
  if (decimals > 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld.%0*lld",
                  static_cast<long long>(whole / 3600), static_cast<long long>(whole / 60 % 60),
                  static_cast<long long>(whole % 60), decimals, static_cast<long long>(frac));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(whole / 3600),
                  static_cast<long long>(whole / 60 % 60), static_cast<long long>(whole % 60));
  return buf;
}

std::string formatProgress(const Progress& p) {
  char buf[256];
  const double fps = p.elapsedSec > 0 ? p.frames / p.elapsedSec : 0;
  std::string s;
  std::snprintf(buf, sizeof buf, "frame=%5lld fps=%.0f", static_cast<long long>(p.frames), fps);
  s += buf;
  if (p.dropped > 0) s += " drop=" + std::to_string(p.dropped);
  if (p.inputFps > 0 && p.elapsedSec > 0) {
    std::snprintf(buf, sizeof buf, " speed=%.3gx", p.frames / p.inputFps / p.elapsedSec);
    s += buf;
  }
  s += " elapsed=" + formatDuration(p.elapsedSec, 2);
  if (p.total > 0) {
    const std::int64_t done = p.frames + p.dropped;
    const std::int64_t left = std::max<std::int64_t>(0, p.total - done);
    const double inFps = p.elapsedSec > 0 ? done / p.elapsedSec : 0;
    if (inFps > 0) s += " eta=" + formatDuration(left / inFps, 1);
    const double pct = std::min(100.0, 100.0 * done / p.total);
    std::snprintf(buf, sizeof buf, " %3.0f%%", pct);
    s += buf;
  }
  return s;
}

std::string formatSummary(const EngineStats& st, const std::string& deviceName) {
  std::string s;
  char line[256];
  // The name column: 22 wide, wider for a fused pass's label ("  1 gray+hist+brightness").
  int w = 22;
  for (std::size_t i = 0; i < st.stageNames.size(); ++i)
    w = std::max<int>(w, int(std::to_string(i + 1).size() + st.stageNames[i].size()) + 3);
  w = std::min(w, 120);
  std::snprintf(line, sizeof line, "%-*s %9s %9s %9s\n", w, "device time (ms)", "mean", "p50",
                "p99");
  s += line;
  auto row = [&](const std::string& name, const EngineStats::Dist& d) {
    std::snprintf(line, sizeof line, "%-*.*s %9.3f %9.3f %9.3f\n", w, w, name.c_str(), d.mean,
                  d.p50, d.p99);
    s += line;
  };
  double total = 0;
  for (std::size_t i = 0; i < st.stageNames.size(); ++i) {
    if (st.stageNames[i].empty()) continue;  // timed in its fused pass's row
    const EngineStats::Dist d = i < st.stageMs.size() ? st.stageMs[i] : EngineStats::Dist{};
    const std::string name = "  " + std::to_string(i + 1) + " " + st.stageNames[i];
    if (d.mean == 0 && d.p99 == 0) {  // nothing enqueued: already done (gray from the luma plane)
      std::snprintf(line, sizeof line, "%-*.*s %9s  no device work\n", w, w, name.c_str(), "-");
      s += line;
      continue;
    }
    row(name, d);
    total += d.mean;
  }
  std::snprintf(line, sizeof line, "%-*s %9.3f\n", w, "  chain (sum of means)", total);
  s += line;
  row("  upload", st.uploadMs);
  row("  download", st.downloadMs);
  row("latency (host, ms)", st.latencyMs);
  // The engine's fps is over its recent window; the run's average is frames over time.
  const double average = st.elapsedSec > 0 ? st.framesOut / st.elapsedSec : 0;
  std::snprintf(line, sizeof line,
                "frames: %llu in, %llu out, %llu dropped; %.1f fps average (%.1f recent) over "
                "%.2f s on %s\n",
                static_cast<unsigned long long>(st.framesIn),
                static_cast<unsigned long long>(st.framesOut),
                static_cast<unsigned long long>(st.dropped), average, st.fps, st.elapsedSec,
                deviceName.c_str());
  s += line;
  return s;
}

}  // namespace vf::app
