#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/cl/opencl.hpp"

namespace vf {

// One OpenCL device as --list-devices shows it. `index()` is the "P:D" a user passes to --device.
struct DeviceInfo {
  int platformIndex = 0;
  int deviceIndex = 0;
  std::string platform;
  std::string name;
  std::string vendor;
  std::string version;        // CL_DEVICE_VERSION
  std::string driverVersion;  // CL_DRIVER_VERSION
  cl_device_type type = 0;
  unsigned computeUnits = 0;
  std::uint64_t globalMemBytes = 0;
  std::uint64_t localMemBytes = 0;
  std::uint64_t maxAllocBytes = 0;
  std::size_t maxWorkGroupSize = 0;
  // Where the device sits on PCI, "dddd:bb:dd" (domain, bus, device: pciAddressName), where its
  // driver tells (cl_khr_pci_bus_info, or NVIDIA's attributes, whose device number drivers encode
  // two ways: then both readings, the likelier first, ','-separated); "" otherwise (CPU devices).
  std::string pciAddresses;
  cl::Device device;

  std::string index() const;
  std::string typeName() const;  // "GPU", "CPU", "ACCELERATOR", ...
};

// A PCI address as DeviceInfo::pciAddresses holds it: "dddd:bb:dd", lower-case hex.
std::string pciAddressName(unsigned domain, unsigned bus, unsigned device);

// Every device of every platform; empty when no OpenCL platform is installed.
std::vector<DeviceInfo> listDevices();

// Table for --list-devices (one line per device).
std::string formatDeviceTable(const std::vector<DeviceInfo>& devices);

// Picks a device. selector: "" (first GPU, else first device), "P:D", a type ("gpu", "cpu",
// "accelerator"), or a case-insensitive substring of the platform or device name.
// Throws UserError naming what exists when nothing matches; RuntimeError when there is no
// device at all, naming pocl-opencl-icd, or PoCL's cache directory when that is the cause.
DeviceInfo selectDevice(const std::vector<DeviceInfo>& devices, const std::string& selector);
DeviceInfo selectDevice(const std::string& selector);

// A selector of the form "P:D", each decimal digits only: the platform and device indexes (one
// past what an int holds is -1, an index no device has). Nothing for any other selector.
std::optional<std::pair<int, int>> deviceIndexes(const std::string& selector);

}  // namespace vf
