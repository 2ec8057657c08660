#include "pipeline/cl/device.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>
#include <sstream>

#include "pipeline/cl/pocl_cache.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
    s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}
std::string mib(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / 1024.0);
  return buf;
}
const char* kNoDeviceHelp =
    "no OpenCL device found. Install a GPU driver with OpenCL support, or the CPU device: "
    "`sudo apt-get install pocl-opencl-icd` (check with `clinfo -l`)";

// Why there is no device: PoCL's cache directory when PoCL is installed but cannot start,
// else the packages to install.
std::string noDeviceMessage() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error&) {
  }
  for (const auto& p : platforms) {
    std::string name;
    try {
      name = p.getInfo<CL_PLATFORM_NAME>();
    } catch (const cl::Error&) {
    }
    if (name.find("Portable Computing Language") != std::string::npos)
      if (std::string why = poclCacheProblem(); !why.empty()) return "no OpenCL device: " + why;
  }
  return kNoDeviceHelp;
}
// NVIDIA's cl_nv_device_attribute_query (cl_ext.h names only its first attributes).
constexpr cl_device_info kNvPciBus = 0x4008;
constexpr cl_device_info kNvPciSlot = 0x4009;
constexpr cl_device_info kNvPciDomain = 0x400A;

// Where the device sits on PCI (DeviceInfo::pciAddresses), or "" where its driver does not tell.
std::string pciAddressesOf(const cl::Device& dev) {
  std::string extensions;
  try {
    extensions = dev.getInfo<CL_DEVICE_EXTENSIONS>();
  } catch (const cl::Error&) {
    return "";
  }
  auto has = [&](const char* name) { return extensions.find(name) != std::string::npos; };
  if (has("cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr info{};
    if (clGetDeviceInfo(dev(), CL_DEVICE_PCI_BUS_INFO_KHR, sizeof info, &info, nullptr) ==
        CL_SUCCESS)
      return pciAddressName(info.pci_domain, info.pci_bus, info.pci_device);
  }
  if (has("cl_nv_device_attribute_query")) {
    cl_uint bus = 0, slot = 0, domain = 0;  // the domain: 0 where the driver predates it
    if (clGetDeviceInfo(dev(), kNvPciBus, sizeof bus, &bus, nullptr) != CL_SUCCESS ||
        clGetDeviceInfo(dev(), kNvPciSlot, sizeof slot, &slot, nullptr) != CL_SUCCESS)
      return "";
    if (clGetDeviceInfo(dev(), kNvPciDomain, sizeof domain, &domain, nullptr) != CL_SUCCESS)
      domain = 0;
    // The slot is the device number on some drivers, device << 3 | function on others: a
    // device number has 5 bits, so a larger slot is the second reading alone.
    std::string both = slot < 32 ? pciAddressName(domain, bus, slot) : "";
    if ((slot >> 3) != slot)
      both += (both.empty() ? "" : ",") + pciAddressName(domain, bus, slot >> 3);
    return both;
  }
  return "";
}
}  // namespace

std::string pciAddressName(unsigned domain, unsigned bus, unsigned device) {
  return fmt::format("{:04x}:{:02x}:{:02x}", domain, bus, device);
}

std::string DeviceInfo::index() const {
  return std::to_string(platformIndex) + ":" + std::to_string(deviceIndex);
}

std::string DeviceInfo::typeName() const {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  return "OTHER";
}

std::vector<DeviceInfo> listDevices() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    // The ICD loader reports "no platform" as -1001 (CL_PLATFORM_NOT_FOUND_KHR).
    spdlog::debug("clGetPlatformIDs: {}", clErrorName(e.err()));
    return {};
  }
  std::vector<DeviceInfo> out;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& e) {
      if (e.err() == CL_DEVICE_NOT_FOUND) continue;
      throw ClError(e.err(), "clGetDeviceIDs");
    }
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const cl::Device& dev = devices[d];
      DeviceInfo info;
      info.platformIndex = static_cast<int>(p);
      info.deviceIndex = static_cast<int>(d);
      clCall("clGetDeviceInfo", [&] {
        info.platform = trim(platforms[p].getInfo<CL_PLATFORM_NAME>());
        info.name = trim(dev.getInfo<CL_DEVICE_NAME>());
        info.vendor = trim(dev.getInfo<CL_DEVICE_VENDOR>());
        info.version = trim(dev.getInfo<CL_DEVICE_VERSION>());
        info.driverVersion = trim(dev.getInfo<CL_DRIVER_VERSION>());
        info.type = dev.getInfo<CL_DEVICE_TYPE>();
        info.computeUnits = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
        info.globalMemBytes = dev.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
        info.localMemBytes = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
        info.maxAllocBytes = dev.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
        info.maxWorkGroupSize = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
      });
      info.pciAddresses = pciAddressesOf(dev);
      info.device = dev;
      out.push_back(std::move(info));
    }
  }
  return out;
}

std::string formatDeviceTable(const std::vector<DeviceInfo>& devices) {
  std::ostringstream os;
  if (devices.empty()) {
    os << noDeviceMessage() << "\n";
    return os.str();
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-28s %-44s %-6s %-22s %4s %10s %9s\n", "P:D", "platform",
                "device", "type", "OpenCL", "CUs", "global", "local");
  os << line;
  for (const auto& d : devices) {
    std::snprintf(line, sizeof line, "%-5s %-28.28s %-44.44s %-6s %-22.22s %4u %10s %9s\n",
                  d.index().c_str(), d.platform.c_str(), d.name.c_str(), d.typeName().c_str(),
                  d.version.c_str(), d.computeUnits, mib(d.globalMemBytes).c_str(),
                  mib(d.localMemBytes).c_str());
    os << line;
  }
  return os.str();
}

namespace {

// A device or platform index as "P:D" writes it: decimal digits only. One past what an int
// holds is -1, an index no device has.
std::optional<int> indexOf(const std::string& t) {
  if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int v = -1;  // from_chars leaves it so when the number is out of range
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

}  // namespace

std::optional<std::pair<int, int>> deviceIndexes(const std::string& selector) {
  const auto colon = selector.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto p = indexOf(selector.substr(0, colon)), d = indexOf(selector.substr(colon + 1));
  if (!p || !d) return std::nullopt;
  return std::make_pair(*p, *d);
}

DeviceInfo selectDevice(const std::vector<DeviceInfo>& devices, const std::string& selectorIn) {
  if (devices.empty()) throw RuntimeError(noDeviceMessage());
  const std::string sel = lower(trim(selectorIn));
  auto chosen = [&](const DeviceInfo& d, const char* how) {
    spdlog::info("OpenCL device {} {} ({}, {}) selected {}", d.index(), d.name, d.platform,
                 d.version, how);
    return d;
  };
  if (sel.empty() && !selectorIn.empty())
    throw UserError("--device " + quote(selectorIn) +
                    " is blank; give P:D, gpu, cpu or part of a device's name, or leave it out");
  if (sel.empty() || sel == "default") {
    for (const auto& d : devices)
      if (d.type & CL_DEVICE_TYPE_GPU) return chosen(d, "as the first GPU");
    return chosen(devices.front(), "as the first device (no GPU found)");
  }
  auto listing = [&] {
    std::string s;
    for (const auto& d : devices)
      s += "\n  " + d.index() + "  " + d.name + " (" + d.platform + ", " + d.typeName() + ")";
    return s;
  };
  // "P:D"
  if (const auto index = deviceIndexes(sel)) {
    for (const auto& d : devices)
      if (d.platformIndex == index->first && d.deviceIndex == index->second)
        return chosen(d, "by index");
    throw UserError("--device " + printable(selectorIn) +
                    ": no device with that index; devices are:" + listing());
  }
  // A bare number is not read as part of a name (the 1 of "avx512"): what it means is unclear.
  if (std::all_of(sel.begin(), sel.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw UserError("--device " + printable(selectorIn) +
                    ": a device is P:D, its platform and its index there (0:1 is the first "
                    "platform's second device), gpu, cpu or part of a name; devices are:" +
                    listing());
  cl_device_type want = 0;
  if (sel == "gpu") want = CL_DEVICE_TYPE_GPU;
  if (sel == "cpu") want = CL_DEVICE_TYPE_CPU;
  if (sel == "accelerator" || sel == "acc") want = CL_DEVICE_TYPE_ACCELERATOR;
  if (want) {
    for (const auto& d : devices)
      if (d.type & want) return chosen(d, "by type");
    throw UserError("--device " + printable(selectorIn) + ": no " + sel +
                    " device; devices are:" + listing());
  }
  // Digits and colons that are not P:D ("0:0:0", "1:"): an index written wrong.
  if (sel.find(':') != std::string::npos && std::all_of(sel.begin(), sel.end(), [](char c) {
        return c == ':' || (c >= '0' && c <= '9');
      }))
    throw UserError("--device " + printable(selectorIn) +
                    ": a device's index is P:D, its platform's and its own (e.g. 0:0); devices "
                    "are:" +
                    listing());
  // Part of a name: two characters at least, a letter among them (never "x" or "." alone).
  if (sel.size() < 2 ||
      std::none_of(sel.begin(), sel.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
    throw UserError("--device " + printable(selectorIn) +
                    ": too little to name a device; give P:D, gpu, cpu or at least two "
                    "characters of its name, a letter among them; devices are:" +
                    listing());
  for (const auto& d : devices)
    if (lower(d.name).find(sel) != std::string::npos ||
        lower(d.platform).find(sel) != std::string::npos ||
        lower(d.vendor).find(sel) != std::string::npos ||
        lower(d.version).find(sel) != std::string::npos)  // PoCL says so only in its version
      return chosen(d, "by name");
  throw UserError(
      "--device " + printable(selectorIn) +
      ": matches no device (use P:D, gpu, cpu, or part of a name); devices are:" + listing());
}

DeviceInfo selectDevice(const std::string& selector) {
  return selectDevice(listDevices(), selector);
}

}  // namespace vf
