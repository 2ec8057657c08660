#pragma once
// What the user reads during and after a run: the FFmpeg-like progress line and the summary.
#include <cstdint>
#include <string>

#include "pipeline/engine.hpp"

namespace vf::app {

// "0:01:02.35": hours, minutes, seconds with `decimals` digits.
std::string formatDuration(double seconds, int decimals = 2);

struct Progress {
  std::int64_t frames = 0;   // frames written so far
  std::int64_t dropped = 0;  // live sources: frames dropped because the pipeline was behind
  std::int64_t total = -1;   // expected frames, -1 when unknown (live, or no count)
  double elapsedSec = 0;
  double inputFps = 0;  // the source's nominal rate (0 = unknown): gives speed=
};

// "frame=  240 fps=312 drop=3 speed=12.5x elapsed=0:00:00.77 eta=0:00:01.8  30%"; fields
// whose inputs are unknown (or zero drops) are left out. The total counts frames in, so
// dropped frames count towards it.
std::string formatProgress(const Progress& p);

// The end-of-run table: per-stage device time (mean, p50, p99), upload, download, latency,
// then frames, dropped, fps.
std::string formatSummary(const EngineStats& stats, const std::string& deviceName);

}  // namespace vf::app
