#pragma once
// The CUDA device each NVIDIA decoder (cuvid, or NVDEC's hwaccel) runs on: the process's one CUDA
// context, made once, with a stream of the decoder's own. A context of each decoder's own costs
// ~0.1 s to make, one at a time in the driver (8 inputs waited ~1 s to start); decoders sharing a
// context and its one stream took turns on it. On streams of their own, decoders of one context map
// and copy their frames independently.
extern "C" {
#include <libavutil/buffer.h>
}

namespace vf::media {

// A new reference to a CUDA device for one decoder (its hw_device_ctx); nullptr when NVIDIA's
// driver does not load or no CUDA device opens (the decoder then makes its own, or fails).
AVBufferRef* decoderDevice();

}  // namespace vf::media
