#pragma once
// Engine throughput for `vidfilter bench`: host frames in, the chain, host frames out, through
// the streaming engine and through a serial baseline of the same kernels, in the same run.
#include <string>

#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"

namespace vf::bench {

struct EngineBenchResult {
  double engineFps = 0, engineGBps = 0, serialFps = 0, serialGBps = 0;
  int frames = 0;
  double latencyMs = 0;
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
// - Serial: the frames live in pinned host memory too (mapped CL_MEM_ALLOC_HOST_PTR buffers), so
//   engine vs serial measures the overlap of transfers and kernels, not pinned vs pageable.
// - Latency: one frame at a time on the engine's three queues (upload, compute, download linked
//   by events), host clock from enqueueing the upload to the download event's completion.
EngineBenchResult benchEngine(ClContext& cl, const std::string& chainText, int width, int height,
                              PixelFormat format, int frames, int slots);

}  // namespace vf::bench
