#pragma once
// How the blur runs on a device, apart from what it computes (blur_taps.hpp and the kernels):
// which of its kernels, their -D build options and launch shapes. Pure functions of the
// device's facts, the frame and the stage's parameters, so a test can state any device's
// defaults without that device.
//
// The kernels, each the default on some device (chooseBlurKernel):
//   cpu    kernels/blur.cl: rows, then columns through a 16-bit scratch, each pass a tile in
//          local memory. Any radius. CPUs past the ring kernel's reach, GPUs past the others'.
//   ring   kernels/blur_ring.cl: both passes in one, a column strip per work-item, the last 2R+1
//          rows it blurred along held in a ring of registers. Radius <= 8. CPUs.
//   tiled  kernels/blur_tiled.cl: columns, then rows, in one kernel through a float tile in
//          local memory. Radius <= 16 and a row halo R * channels <= 40. GPUs.
//   slab   kernels/blur_slab.cl: both passes as 8-bit integer matrix products, a strip per warp
//          (mma.sync on NVIDIA's tensor cores; emulated in OpenCL C elsewhere, for tests); at
//          large radii a work-group's warps share each row's loads. Radius <= 72, any row length.
//          NVIDIA GPUs of compute capability 8 and later.
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/cl/device_facts.hpp"
#include "pipeline/cl/opencl.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/params.hpp"

namespace vf {

enum class BlurKernel { Cpu, Ring, Tiled, Slab };
const char* blurKernelName(BlurKernel k);  // "cpu", "ring", "tiled", "slab"

// What the schedule depends on besides the device: the frame, the taps and the stage's
// schedule parameters.
struct BlurRequest {
  FrameDesc frame;
  std::size_t pitch = 0;        // bytes from a row of the frame to the next (0: rowBytes())
  std::vector<int> taps;        // fixedPointTaps(): the radius is taps.size() - 1
  std::string border;           // its build option, borderDefine()
  std::string kernel = "auto";  // auto, cpu, ring, tiled or slab
  Size2 wg{16, 4};              // the cpu kernel's work-group
  Size2 strip{0, 0};            // the slab kernel's strip: sets of 16 outputs x rows; 0: per frame
  int warps = 0;                // the slab kernel's warps per work-group; 0: 8 shared, else 4
  std::string operands = "auto";  // the slab kernel's row operands: registers, local or auto
  std::string prefetch = "auto";  // the slab kernel loads each band's rows during the band before
  std::string share = "auto";     // the slab kernel's warps share each row's loads (side by side)
  std::string prologue = "auto";  // the slab kernel reads through point-wise functions offered

  std::size_t rowPitch() const { return pitch ? pitch : frame.rowBytes(); }
};

// One kernel launch of a plan.
struct BlurLaunch {
  const char* kernel;
  cl::NDRange global, local;
};

struct BlurPlan {
  BlurKernel kernel = BlurKernel::Cpu;
  std::string file;     // kernels/<file>
  std::string options;  // -D build options
  // In order. Two: the first writes a 16-bit scratch of the frame's size the second reads.
  std::vector<BlurLaunch> launches;
  std::size_t groupItems = 0;  // work-items per group, checked against what the kernels run
  // The group size is the schedule's own choice: when the built kernels run fewer work-items,
  // plan again with that limit (planBlur's groupLimit). Otherwise it is an error naming `hint`.
  bool groupShrinks = false;
  std::string hint;
  std::string text;  // the schedule as key=value text (Stage::schedule())
  // It reads its source through point-wise functions where the chain offers them
  // (Stage::takesPrologue): the slab kernel, where that is faster than their own pass, on
  // sources that prologueSourceFits or, anySource (prologue=on), on any.
  bool prologue = false;
  bool anySource = false;
};

// The slab kernel's plan (blur_slab_plan.cpp), for planBlur: radius `radius`, work-groups of at
// most `groupLimit` work-items (0: the plan's own choice).
BlurPlan planSlab(const BlurRequest& request, const DeviceFacts& facts, int radius,
                  std::size_t groupLimit);

// The kernel `request.kernel` names, or for auto the device's: slab on NVIDIA compute capability
// 8+ where it reaches, tiled on other GPUs where it reaches, ring on CPUs where it reaches, else
// cpu. UserError when a named kernel cannot take the radius, channels or taps.
BlurKernel chooseBlurKernel(const BlurRequest& request, const DeviceFacts& facts);

// The plan for `request` on a device with `facts`; groupLimit (> 0) caps an automatic group
// size. UserError when the device's limits rule the request out (local memory, work-group size).
BlurPlan planBlur(const BlurRequest& request, const DeviceFacts& facts, std::size_t groupLimit = 0);

}  // namespace vf
