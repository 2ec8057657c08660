#pragma once
// Engine throughput for `vidfilter bench`: host frames in, the chain, host frames out, through
// the streaming engine and through a serial baseline of the same kernels, in the same run.
#include <string>

#include "pipeline/cl/context.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/frame.hpp"

namespace vf::bench {

struct EngineBenchResult {
  double engineFps = 0, engineGBps = 0, serialFps = 0, serialGBps = 0;
  int frames = 0;
  double latencyMs = 0;
  double submitMs = 0;   // engine: host time the submit thread spent enqueueing a frame, median
  std::string transfer;  // how the engine moved frames: "copy" or "map" (zero-copy)
};

// Synthetic host frames (random, a few distinct ones rotated) of w x h `format` through
// `chainText`, via the Engine with `slots` slots and a null sink; then the same kernels
// serially: blocking write, chain on one queue, blocking read, per frame. GB/s counts bytes
// moved host->device + device->host. Warm-up excluded. latencyMs: single-frame latency
// (upload, chain, download, nothing else in flight), median.
//
// Details that matter when reading the numbers:
// - Engine: the source fills each pinned slot with a random frame the first time it sees the
//   slot and afterwards only stamps the frame number into its first bytes, so the source's own
//   cost (a decoder writing into the slot) is not counted; every frame is still uploaded and
//   downloaded in full. fps = frames / time between the sink receiving the last warm-up frame
//   and the last frame.
// - `transfer`: Auto lets the engine choose (zero-copy "map" on devices sharing host memory,
//   such as PoCL; "copy" on discrete GPUs); GB/s counts the frame bytes either way.
// - Serial: the frames live in pinned host memory too (mapped CL_MEM_ALLOC_HOST_PTR buffers), so
//   engine vs serial measures the overlap of transfers and kernels, not pinned vs pageable.
// - Latency: the engine with one slot (so nothing else is in flight), median of its per-frame
//   capture-to-sink latency: upload, chain, download, and the hand-overs between its threads.
EngineBenchResult benchEngine(ClContext& cl, const std::string& chainText, int width, int height,
                              PixelFormat format, int frames, int slots,
                              EngineOptions::Transfer transfer = EngineOptions::Transfer::Auto);

}  // namespace vf::bench
