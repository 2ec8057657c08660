#include "app/media/decoder_device.hpp"

#include <spdlog/spdlog.h>

#include <charconv>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <vector>

#include "app/media/cuda_driver.hpp"
#include "pipeline/cl/device.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf::media {

namespace {

// CU_STREAM_DEFAULT: ordered after the work of the context's stream 0, where the decoder's own
// work goes (a non-blocking stream mapped frames before NVDEC had written them).
constexpr unsigned kBlocking = 0x0;

// The CUDA ordinal of the GPU at the first of `pciAddresses` (DeviceInfo's) where a CUDA device
// is; 0, CUDA's first (FFmpeg's default), when it is "" or no CUDA device is at any of them.
int ordinalAt(const std::string& pciAddresses) {
  const cuda::Driver* d = cuda::driver();
  int count = 0;
  if (pciAddresses.empty() || d->init(0) != 0 || d->deviceGetCount(&count) != 0) return 0;
  std::vector<std::string> cudas;  // each CUDA device's address, by ordinal
  for (int i = 0; i < count; ++i) {
    cuda::Device device = 0;
    char id[32] = {};
    const bool known =
        d->deviceGet(&device, i) == 0 && d->deviceGetPCIBusId(id, sizeof id, device) == 0;
    cudas.push_back(known ? cudaPciAddress(id) : "");
  }
  std::istringstream candidates(pciAddresses);
  for (std::string want; std::getline(candidates, want, ',');)
    for (int i = 0; i < count; ++i)
      if (cudas[static_cast<std::size_t>(i)] == want) {
        spdlog::debug("NVIDIA decoders for the GPU at PCI {}: CUDA device {}", want, i);
        return i;
      }
  spdlog::debug("no CUDA device at PCI {}; NVIDIA decoders on CUDA device 0", pciAddresses);
  return 0;
}

// The process's CUDA device on a GPU, made by the first decoder that asks for that GPU (nullptr
// when it does not open, asked once); kept until the process ends (frames of any decoder may be
// freed as late as that).
AVBufferRef* processDevice(int ordinal) {
  static std::mutex mutex;
  static std::map<int, AVBufferRef*> made;
  const std::lock_guard lock(mutex);
  const auto [it, first] = made.try_emplace(ordinal, nullptr);
  if (first) {
    const std::string name = std::to_string(ordinal);
    if (av_hwdevice_ctx_create(&it->second, AV_HWDEVICE_TYPE_CUDA, name.c_str(), nullptr, 0) < 0)
      it->second = nullptr;
  }
  return it->second;
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

std::string cudaPciAddress(const char* busId) {
  // domain:bus:device.function, each hex digits only
  const std::string_view text(busId);
  unsigned parts[4] = {};
  std::size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    const char end = i < 2 ? ':' : i == 2 ? '.' : '\0';
    const std::size_t stop = end ? text.find(end, at) : text.size();
    if (stop == std::string_view::npos || stop == at) return "";
    const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + stop, parts[i], 16);
    if (ec != std::errc() || ptr != text.data() + stop) return "";
    at = stop + 1;
  }
  return pciAddressName(parts[0], parts[1], parts[2]);
}

AVBufferRef* decoderDevice(const std::string& pciAddresses) {
  if (!cuda::driver()) return nullptr;
  AVBufferRef* process = processDevice(ordinalAt(pciAddresses));
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
