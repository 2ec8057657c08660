#include "pipeline/engine_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "pipeline/percentile.hpp"

namespace vf {

EngineStats::Dist distribution(std::vector<double> v) {
  EngineStats::Dist d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  d.p50 = percentile(v, 0.50);
  d.p99 = percentile(v, 0.99);
  return d;
}

void RollingStats::start(std::vector<std::string> stageNames) {
  std::lock_guard<std::mutex> lock(mutex_);
  names_ = std::move(stageNames);
  frames_.clear();
  submitMs_.clear();
  times_.clear();
  in_ = out_ = dropped_ = 0;
  start_ = Clock::now();
}

void RollingStats::setStageNames(std::vector<std::string> stageNames) {
  std::lock_guard<std::mutex> lock(mutex_);
  names_ = std::move(stageNames);
}

void RollingStats::countIn() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++in_;
}

void RollingStats::countDropped() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++dropped_;
}

void RollingStats::add(const FrameStats& frame, double submitMs) {
  const auto now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (++out_ == 1) firstOut_ = now;
  lastOut_ = now;
  frames_.push_back(frame);
  submitMs_.push_back(submitMs);
  times_.push_back(now);
  while (frames_.size() > window_) {
    frames_.pop_front();
    submitMs_.pop_front();
    times_.pop_front();
  }
}

EngineStats RollingStats::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  EngineStats s;
  s.stageNames = names_;
  s.framesIn = in_;
  s.framesOut = out_;
  s.dropped = dropped_;
  s.elapsedSec = std::chrono::duration<double>(Clock::now() - start_).count();
  std::vector<double> up, down, lat;
  std::vector<std::vector<double>> stages(names_.size());
  for (const auto& f : frames_) {
    up.push_back(f.uploadMs);
    down.push_back(f.downloadMs);
    lat.push_back(f.latencyMs);
    // A frame from before a change of the chain may have another stage count: skip it there.
    if (f.stageMs.size() == names_.size())
      for (std::size_t i = 0; i < names_.size(); ++i) stages[i].push_back(f.stageMs[i]);
  }
  s.uploadMs = distribution(std::move(up));
  s.downloadMs = distribution(std::move(down));
  s.latencyMs = distribution(std::move(lat));
  s.submitMs = distribution(std::vector<double>(submitMs_.begin(), submitMs_.end()));
  for (auto& v : stages) s.stageMs.push_back(distribution(std::move(v)));
  if (times_.size() >= 2) {
    const double sec = std::chrono::duration<double>(times_.back() - times_.front()).count();
    if (sec > 0) s.fps = double(times_.size() - 1) / sec;
  }
  const double run = std::chrono::duration<double>(lastOut_ - firstOut_).count();
  if (out_ >= 2 && run > 0) s.runFps = double(out_ - 1) / run;
  return s;
}

std::vector<std::string> stageKeys(const std::vector<std::string>& names) {
  std::map<std::string, int> count;
  for (const auto& n : names) ++count[n];
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < names.size(); ++i)
    keys.push_back(count[names[i]] > 1 && !names[i].empty() ? names[i] + "#" + std::to_string(i)
                                                            : names[i]);
  return keys;
}

namespace {
// Milliseconds to 0.1 us, as the file has always held them; non-finite times as 0.
double roundedMs(double v) { return std::isfinite(v) ? std::round(v * 1e4) / 1e4 : 0.0; }
}  // namespace

std::string statsJsonLine(const FrameStats& f, const std::vector<std::string>& keys) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < f.stageMs.size(); ++i) {
    if (i < keys.size() && keys[i].empty()) continue;  // in a fused pass, timed with its first
    stages[i < keys.size() ? keys[i] : "stage#" + std::to_string(i)] = roundedMs(f.stageMs[i]);
  }
  const nlohmann::ordered_json line{{"index", f.index},
                                    {"stages", stages},
                                    {"upload_ms", roundedMs(f.uploadMs)},
                                    {"download_ms", roundedMs(f.downloadMs)},
                                    {"queue_wait_ms", roundedMs(f.queueWaitMs)},
                                    {"latency_ms", roundedMs(f.latencyMs)}};
  // Stage names are the chain's (ASCII); a replacement character keeps any other byte readable.
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace vf
