#pragma once
// The time a device spent running commands: the union of the intervals (device clock, from
// profiling) in which the commands of every engine on it ran. Commands of several inputs that
// overlap count once, so the busy share over a run never passes the run's time.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace vf {

class DeviceActivity {
 public:
  // Commands ran on the device from startNs to endNs (CL_PROFILING_COMMAND_START/END). Any
  // thread; intervals may come in any order and overlap.
  void add(std::uint64_t startNs, std::uint64_t endNs);
  // The ns covered by the intervals added so far.
  std::uint64_t busyNs() const;
  // The disjoint intervals held: at most kKeep.
  std::size_t held() const;
  // Past kKeep intervals the earliest half is folded into one total and forgotten: a later
  // interval is cut at the end of the last one folded, so memory stays bounded (about 100 KB)
  // over a long run. Intervals arrive as frames complete, a few a frame; engines sharing a device
  // are usually a few frames apart. One that lags a thousand intervals behind the others (a slow
  // encoder's input beside fast ones) has its intervals cut or dropped: the busy share then
  // misses the part of its device time that no other engine's commands overlapped.
  static constexpr std::size_t kKeep = 2048;

 private:
  // Disjoint intervals, start -> end; settled_: the ns of those folded, horizon_: where the last
  // one folded ended.
  mutable std::mutex mutex_;
  std::map<std::uint64_t, std::uint64_t> open_;
  std::uint64_t settled_ = 0, horizon_ = 0;
};

}  // namespace vf
