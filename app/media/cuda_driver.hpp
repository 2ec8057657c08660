#pragma once
// NVIDIA's driver API, the few entry points the decoders' helpers use (page-locked frames, a
// stream of each decoder's own), loaded at run time as FFmpeg loads it: no CUDA headers or
// libraries are needed to build, and a machine without the driver runs without them.
#include <cstddef>

extern "C" {
#include <libavutil/buffer.h>
}

struct CUctx_st;     // cuda.h's CUcontext points to one
struct CUstream_st;  // and CUstream

namespace vf::media::cuda {

using Result = int;  // CUresult: 0 is success
using Context = ::CUctx_st*;
using Stream = ::CUstream_st*;
using Device = int;  // CUdevice

struct Driver {
  Result (*memHostAlloc)(void**, std::size_t, unsigned) = nullptr;
  Result (*memFreeHost)(void*) = nullptr;
  Result (*ctxPush)(Context) = nullptr;
  Result (*ctxPop)(Context*) = nullptr;
  Result (*streamCreate)(Stream*, unsigned) = nullptr;
  Result (*streamDestroy)(Stream) = nullptr;
  Result (*init)(unsigned) = nullptr;
  Result (*deviceGetCount)(int*) = nullptr;
  Result (*deviceGet)(Device*, int) = nullptr;
  Result (*deviceGetPCIBusId)(char*, int, Device) = nullptr;
};

// The driver's functions; nullptr where libcuda.so.1 or one of them does not load.
const Driver* driver();

// `context` current on this thread for the scope's life; ok() is false when it could not be.
class Current {
 public:
  // Only where driver() loaded.
  explicit Current(Context context) : ok_(driver() && driver()->ctxPush(context) == 0) {}
  ~Current() {
    Context popped = nullptr;
    if (ok_) driver()->ctxPop(&popped);
  }
  Current(const Current&) = delete;
  Current& operator=(const Current&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

// The CUDA context of an FFmpeg CUDA device (AVCUDADeviceContext's); setDevice gives a device
// allocated but not initialised yet its context and stream.
Context contextOf(const AVBufferRef* device);
void setDevice(AVBufferRef* device, Context context, Stream stream);

}  // namespace vf::media::cuda
