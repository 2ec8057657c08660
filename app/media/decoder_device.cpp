#include "app/media/decoder_device.hpp"

#include "app/media/cuda_driver.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf::media {

namespace {

// CU_STREAM_DEFAULT: ordered after the work of the context's stream 0, where the decoder's own
// work goes (a non-blocking stream mapped frames before NVDEC had written them).
constexpr unsigned kBlocking = 0x0;

// The process's CUDA device, made by the first decoder that asks; kept until the process ends
// (frames of any decoder may be freed as late as that).
AVBufferRef* processDevice() {
  static AVBufferRef* const device = [] {  // made once, whichever decoder's thread asks first
    AVBufferRef* d = nullptr;
    return av_hwdevice_ctx_create(&d, AV_HWDEVICE_TYPE_CUDA, nullptr, nullptr, 0) < 0 ? nullptr : d;
  }();
  return device;
}

// What a decoder's device owns beside FFmpeg's: its stream, and a reference to the process's
// device, whose context the stream lives in.
struct Owned {
  AVBufferRef* process;
  cuda::Stream stream;
};

void destroyStream(cuda::Context context, cuda::Stream stream) {
  if (const cuda::Current current(context); current.ok()) cuda::driver()->streamDestroy(stream);
}

void freeDevice(AVHWDeviceContext* dev) {
  auto* owned = static_cast<Owned*>(dev->user_opaque);
  destroyStream(cuda::contextOf(owned->process), owned->stream);
  av_buffer_unref(&owned->process);
  delete owned;
}

}  // namespace

AVBufferRef* decoderDevice() {
  if (!cuda::driver()) return nullptr;
  AVBufferRef* process = processDevice();
  if (!process) return nullptr;
  const cuda::Context context = cuda::contextOf(process);
  cuda::Stream stream = nullptr;
  if (const cuda::Current current(context);
      !current.ok() || cuda::driver()->streamCreate(&stream, kBlocking) != 0)
    return nullptr;
  AVBufferRef* device = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (!device) {
    destroyStream(context, stream);
    return nullptr;
  }
  // The context is not this device's to destroy (FFmpeg destroys only a context it made).
  cuda::setDevice(device, context, stream);
  auto* dev = reinterpret_cast<AVHWDeviceContext*>(device->data);
  dev->user_opaque = new Owned{av_buffer_ref(process), stream};
  dev->free = freeDevice;  // after FFmpeg's uninit, whether init succeeded or not
  if (av_hwdevice_ctx_init(device) < 0) av_buffer_unref(&device);
  return device;
}

}  // namespace vf::media
