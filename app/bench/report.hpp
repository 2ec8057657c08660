#pragma once
// What `vidfilter bench` prints and writes: the method, the per-stage table against the OpenCV
// peers, the bandwidth of each stage against a copy, the engine's throughput and the check, on
// stdout; every number in one JSON document (--json).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/bench/check.hpp"
#include "app/bench/engine_bench.hpp"
#include "app/bench/fusion_bench.hpp"
#include "app/bench/peers.hpp"
#include "app/bench/timing.hpp"
#include "pipeline/cl/device.hpp"

namespace vf::bench {

struct StageResult {
  CvStageSpec spec;
  std::string schedule;
  bool enabled = true;
  Summary vf, cpu, tapi;  // tapi: empty when the T-API peer did not run
  // The name its time is reported under (Chain::timingNames): its own, a fused pass's label on
  // the pass's first stage, "" on the pass's other stages (timed with the first).
  std::string timing;
};

// Bytes a stage (or one of the blur's passes) reads and writes over its median device time.
struct BandwidthRow {
  std::string name;
  double bytes = 0, ms = 0;
  double gbps() const { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }
};

struct Results {
  std::string chain, chainText;  // as the chain prints itself, and as the user wrote it
  FrameDesc frame;
  DeviceInfo device;
  TapiSetup tapi;
  int warmup = 0, frames = 0, distinct = 0;
  std::vector<StageResult> stages;
  bool tapiTimed = false;
  Summary span, wall, cpuChain, tapiChain, copy;
  std::vector<BandwidthRow> bandwidth;
  bool engineSkipped = false;
  std::optional<EngineBenchResult> engine;
  int slots = 0;
  std::optional<CheckResult> check;
  std::optional<FusionComparison> fusion;  // the same chain fused and unfused

  double copyGBps() const {
    return copy.median > 0 ? 2.0 * double(frame.bytes()) / (copy.median * 1e6) : 0;
  }
};

// Printed before anything is timed (and flushed), so a slow run shows what it is doing.
void printMethod(const Results& r);
// The per-stage table and the bandwidth section.
void printTimes(const Results& r);
void printFusion(const Results& r);
void printEngine(const Results& r);
void printCheck(const Results& r);

nlohmann::ordered_json toJson(const Results& r);

}  // namespace vf::bench
