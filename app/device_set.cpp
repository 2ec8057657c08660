#include "app/device_set.hpp"

#include <algorithm>
#include <cctype>

#include "pipeline/cl/device.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// Every device one selector matches: "P:D" one, a type or a name all that match it.
std::vector<DeviceInfo> matching(const std::vector<DeviceInfo>& all, const std::string& sel) {
  if (deviceIndexes(sel)) return {selectDevice(all, sel)};
  std::vector<DeviceInfo> found;
  for (const DeviceInfo& d : all) {
    try {
      found.push_back(selectDevice({d}, sel));
    } catch (const UserError&) {
    }
  }
  if (found.empty()) selectDevice(all, sel);  // throws, naming the devices there are
  return found;
}

}  // namespace

bool namesSeveralDevices(const std::string& selector) {
  std::string s = trim(selector);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s == "all" || s.find(',') != std::string::npos;
}

std::vector<std::shared_ptr<ClContext>> openDevices(const std::string& selector) {
  const std::string sel = trim(selector);
  if (sel.empty() && !selector.empty())
    throw UserError("--device " + quote(selector) +
                    " is blank; give P:D, gpu, cpu or part of a device's name, or leave it out");
  if (sel.empty()) return {ClContext::open("")};
  const std::vector<DeviceInfo> all = listDevices();
  std::vector<DeviceInfo> chosen;
  std::string lowered = sel;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  // "all": every GPU, else every device.
  const auto everyDevice = [&] {
    if (all.empty()) selectDevice(all, "");  // throws: no device at all
    std::vector<DeviceInfo> gpus;
    for (const DeviceInfo& d : all)
      if (d.type & CL_DEVICE_TYPE_GPU) gpus.push_back(d);
    return gpus.empty() ? all : gpus;
  };
  if (lowered == "all") {
    chosen = everyDevice();
  } else {
    // Every part checked before any is looked up (looking one up reports the device it chose).
    std::vector<std::string> parts;
    for (std::size_t a = 0; a <= sel.size();) {
      const std::size_t b = std::min(sel.find(',', a), sel.size());
      parts.push_back(trim(sel.substr(a, b - a)));
      if (parts.back().empty())
        throw UserError("--device " + printable(selector) +
                        ": an empty part in the list; give e.g. --device 0:0,0:1");
      a = b + 1;
    }
    for (const std::string& part : parts) {
      std::string p = part;
      std::transform(p.begin(), p.end(), p.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      for (DeviceInfo& d : p == "all" ? everyDevice() : matching(all, part))
        chosen.push_back(std::move(d));
    }
  }
  std::vector<std::shared_ptr<ClContext>> contexts;
  std::vector<std::string> seen;
  for (const DeviceInfo& d : chosen) {
    if (std::find(seen.begin(), seen.end(), d.index()) != seen.end()) continue;
    seen.push_back(d.index());
    contexts.push_back(std::make_shared<ClContext>(d));
  }
  return contexts;
}

}  // namespace vf::app
