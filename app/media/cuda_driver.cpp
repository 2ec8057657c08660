#include "app/media/cuda_driver.hpp"

#include <dlfcn.h>

#include <type_traits>

// hwcontext_cuda.h includes cuda.h unless CUDA_VERSION is defined; the two types it declares
// with are all it needs from there.
typedef struct CUctx_st* CUcontext;
typedef struct CUstream_st* CUstream;
#define CUDA_VERSION 0
extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}
#undef CUDA_VERSION

namespace vf::media::cuda {

const Driver* driver() {
  static const Driver loaded = [] {
    Driver d;
    // Never closed: memory of the driver's may be freed at any time until the process ends.
    void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return d;
    auto take = [lib](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    };
    take(d.memHostAlloc, "cuMemHostAlloc");
    take(d.memFreeHost, "cuMemFreeHost");
    take(d.ctxPush, "cuCtxPushCurrent_v2");
    take(d.ctxPop, "cuCtxPopCurrent_v2");
    take(d.streamCreate, "cuStreamCreate");
    take(d.streamDestroy, "cuStreamDestroy_v2");
    take(d.init, "cuInit");
    take(d.deviceGetCount, "cuDeviceGetCount");
    take(d.deviceGet, "cuDeviceGet");
    take(d.deviceGetPCIBusId, "cuDeviceGetPCIBusId");
    return d;
  }();
  const Driver& d = loaded;
  return d.memHostAlloc && d.memFreeHost && d.ctxPush && d.ctxPop && d.streamCreate &&
                 d.streamDestroy && d.init && d.deviceGetCount && d.deviceGet && d.deviceGetPCIBusId
             ? &d
             : nullptr;
}

namespace {

AVCUDADeviceContext* cudaDevice(const AVBufferRef* device) {
  auto* dev = reinterpret_cast<AVHWDeviceContext*>(device->data);
  return static_cast<AVCUDADeviceContext*>(dev->hwctx);
}

}  // namespace

Context contextOf(const AVBufferRef* device) { return cudaDevice(device)->cuda_ctx; }

void setDevice(AVBufferRef* device, Context context, Stream stream) {
  cudaDevice(device)->cuda_ctx = context;
  cudaDevice(device)->stream = stream;
}

}  // namespace vf::media::cuda
