#pragma once
// The CUDA device each NVIDIA decoder (cuvid, or NVDEC's hwaccel) runs on: the GPU that runs the
// input's chain where the two are one card (the same PCI address), else CUDA's first; one context
// per GPU for the process, made once, with a stream of the decoder's own. Contexts are made one at
// a time in the driver (~0.1 s each), so one for all decoders lets many inputs start at once; on
// streams of their own, the decoders map and copy their frames independently. The streams are
// ordered after the context's default stream, where FFmpeg's decoders leave work too
// (docs/PERFORMANCE.md, "Several files at once").
extern "C" {
#include <libavutil/buffer.h>
}

#include <string>

namespace vf::media {

// A new reference to a CUDA device for one decoder (its hw_device_ctx), on the GPU at
// `pciAddresses` (DeviceInfo::pciAddresses of the input's OpenCL device; "" or addresses no CUDA
// device is at: CUDA's first); nullptr when NVIDIA's driver does not load or no CUDA device opens
// (the decoder then makes its own, or fails).
AVBufferRef* decoderDevice(const std::string& pciAddresses);

// A CUDA PCI bus ID ("0000:3B:05.0", cuDeviceGetPCIBusId's form) as DeviceInfo::pciAddresses
// writes an address ("0000:3b:05"); "" when it does not read as one.
std::string cudaPciAddress(const char* busId);

}  // namespace vf::media
