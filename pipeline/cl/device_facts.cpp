#include "pipeline/cl/device_facts.hpp"

#include <algorithm>
#include <string>

#include "pipeline/error.hpp"

namespace vf {
namespace {

Vendor vendorOf(cl_uint id) {
  switch (id) {
    case 0x10DE:
      return Vendor::Nvidia;
    case 0x1002:
      return Vendor::Amd;
    case 0x8086:
      return Vendor::Intel;
    default:
      return Vendor::Other;
  }
}

// An extension's query: 0 when the device lacks the extension or does not answer.
template <cl_device_info kWhat>
unsigned extensionQuery(const cl::Device& d, const std::string& extensions, const char* name) {
  if (extensions.find(name) == std::string::npos) return 0;
  try {
    return d.getInfo<kWhat>();
  } catch (const cl::Error&) {
    return 0;
  }
}

}  // namespace

DeviceFacts queryDeviceFacts(const DeviceInfo& info) {
  DeviceFacts f;
  f.cpu = (info.type & CL_DEVICE_TYPE_CPU) != 0;
  f.pocl = info.platform.find("Portable Computing Language") != std::string::npos;
  f.computeUnits = std::max(1u, info.computeUnits);
  f.localMemBytes = info.localMemBytes;
  f.maxWorkGroupSize = std::max<std::size_t>(1, info.maxWorkGroupSize);
  f.maxAllocBytes = info.maxAllocBytes;
  const cl::Device& d = info.device;
  clCall("clGetDeviceInfo(" + info.name + ")", [&] {
    f.vendor = vendorOf(d.getInfo<CL_DEVICE_VENDOR_ID>());
    f.littleEndian = d.getInfo<CL_DEVICE_ENDIAN_LITTLE>() != CL_FALSE;
    f.hostUnifiedMemory = d.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>() != CL_FALSE;
    const std::string ext = d.getInfo<CL_DEVICE_EXTENSIONS>();
    f.nvidiaCc = extensionQuery<CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV>(
        d, ext, "cl_nv_device_attribute_query");
    f.subGroupSize = f.vendor == Vendor::Nvidia ? extensionQuery<CL_DEVICE_WARP_SIZE_NV>(
                                                      d, ext, "cl_nv_device_attribute_query")
                                                : extensionQuery<CL_DEVICE_WAVEFRONT_WIDTH_AMD>(
                                                      d, ext, "cl_amd_device_attribute_query");
  });
  return f;
}

}  // namespace vf
