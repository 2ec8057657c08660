#include "pipeline/cl/device_activity.hpp"

#include <algorithm>
#include <iterator>

namespace vf {

void DeviceActivity::add(std::uint64_t startNs, std::uint64_t endNs) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t start = std::max(startNs, horizon_), end = endNs;
  if (end <= start) return;
  // Merge with the interval before it when they touch, then with every one it reaches.
  auto it = open_.upper_bound(start);
  if (it != open_.begin()) {
    const auto prev = std::prev(it);
    if (prev->second >= start) {
      start = prev->first;
      end = std::max(end, prev->second);
      open_.erase(prev);
    }
  }
  while (it != open_.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = open_.erase(it);
  }
  open_.emplace(start, end);
  if (open_.size() <= kKeep) return;
  for (std::size_t k = 0; k < kKeep / 2; ++k) {
    const auto first = open_.begin();
    settled_ += first->second - first->first;
    horizon_ = first->second;
    open_.erase(first);
  }
}

std::uint64_t DeviceActivity::busyNs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t total = settled_;
  for (const auto& [start, end] : open_) total += end - start;
  return total;
}

std::size_t DeviceActivity::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_.size();
}

}  // namespace vf
