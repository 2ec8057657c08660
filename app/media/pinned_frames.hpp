#pragma once
// Frames of NVIDIA's decoders in page-locked host memory. A cuvid decoder copies each frame from
// the device into a buffer it asks its codec context for (get_buffer2); NVDEC's hwaccel leaves
// the frame on the device for the caller to copy back. Into FFmpeg's default, pageable memory,
// the driver copies through a staging buffer at a few GB/s; into page-locked memory the copy is
// one DMA transfer at the link's speed (1080p H.264 through cuvid: 12% more frames a second,
// one input or eight; docs/PERFORMANCE.md).
//
// The memory comes from NVIDIA's driver (cuMemHostAlloc, portable: page-locked for every
// context), loaded at run time as FFmpeg loads it; without it the decoder keeps FFmpeg's
// buffers. Each pool holds a reference to the decoder's CUDA device, so the context outlives
// every frame allocated in it, whichever thread frees the frame last.
#include <memory>

#include "app/media/av.hpp"

namespace vf::media {

class PinnedFrames;

// A pool of page-locked frames allocated in `device`'s CUDA context (a reference is kept);
// nullptr when the driver's functions do not load.
std::shared_ptr<PinnedFrames> pinnedPool(AVBufferRef* device);
// Gives `frame` (format, width and height set; no buffers yet) its planes from the pool; false
// (and `frame` unchanged) for a format the decoders do not copy back or when no memory could be
// had.
bool pinnedFrame(PinnedFrames& pool, AVFrame* frame);

// Makes `dec` (an NVIDIA decoder, before avcodec_open2) take its host frames from page-locked
// memory, with `device` (a CUDA device context) as its device; the returned pool must outlive
// the codec context. nullptr (and `dec` unchanged) when the driver's functions do not load.
std::shared_ptr<PinnedFrames> usePinnedFrames(AVCodecContext* dec, AVBufferRef* device);

}  // namespace vf::media
