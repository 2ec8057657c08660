#pragma once
// What the schedules ask of a device, queried once when its context opens (ClContext::facts()).
// Every choice the library makes per device reads this struct; nothing else queries the device
// for it.
#include <cstddef>
#include <cstdint>

#include "pipeline/cl/device.hpp"

namespace vf {

enum class Vendor { Nvidia, Amd, Intel, Other };

struct DeviceFacts {
  // A CPU device (PoCL): the CPU schedules, which keep a work-group's data in cache rather than
  // in on-chip local memory. Every other type gets the GPU schedules.
  bool cpu = false;
  Vendor vendor = Vendor::Other;  // from CL_DEVICE_VENDOR_ID
  // NVIDIA's compute capability major (cl_nv_device_attribute_query), 0 on other devices.
  // Non-zero also means the device's compiler takes inline PTX (asm) for the instructions
  // OpenCL C cannot name.
  unsigned nvidiaCc = 0;
  // Work-items that run in lockstep (NVIDIA's warp, AMD's wavefront); 0 when the device does
  // not say.
  unsigned subGroupSize = 0;
  bool pocl = false;               // the platform is PoCL (its compiler's own vector code)
  bool littleEndian = true;        // byte 0 of a loaded word is its lowest
  bool hostUnifiedMemory = false;  // the device works in host memory (CPUs, integrated GPUs)
  unsigned computeUnits = 1;
  std::size_t localMemBytes = 0;
  std::size_t maxWorkGroupSize = 1;
  std::uint64_t maxAllocBytes = 0;
};

// Queries `device`'s facts. Throws ClError when the device does not answer a core query.
DeviceFacts queryDeviceFacts(const DeviceInfo& device);

}  // namespace vf
