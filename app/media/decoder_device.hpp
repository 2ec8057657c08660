#pragma once
// The CUDA device each NVIDIA decoder (cuvid, or NVDEC's hwaccel) runs on: the process's one CUDA
// context, made once, with a stream of the decoder's own. Contexts are made one at a time in the
// driver (~0.1 s each), so one for all decoders lets many inputs start at once; on streams of
// their own, the decoders map and copy their frames independently. The streams are ordered after
// the context's default stream, where FFmpeg's decoders leave work too (docs/PERFORMANCE.md,
// "Several files at once").
extern "C" {
#include <libavutil/buffer.h>
}

namespace vf::media {

// A new reference to a CUDA device for one decoder (its hw_device_ctx); nullptr when NVIDIA's
// driver does not load or no CUDA device opens (the decoder then makes its own, or fails).
AVBufferRef* decoderDevice();

}  // namespace vf::media
