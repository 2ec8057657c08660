#pragma once
// Packets of the input's other streams (audio, subtitles, data) on their way from the source,
// which demuxes them on the engine's capture thread, to the output's muxer thread. Timestamps
// are already on the output's timeline (the input's start and --ss taken off), in the input
// stream's time base.
#include <deque>
#include <mutex>
#include <set>

#include "app/media/av.hpp"

namespace vf::media {

class PacketRelay {
 public:
  // The output takes these input streams (before the first frame).
  void want(int inputIndex) {
    std::lock_guard<std::mutex> l(m_);
    wanted_.insert(inputIndex);
  }
  bool wanted(int inputIndex) const {
    std::lock_guard<std::mutex> l(m_);
    return wanted_.count(inputIndex) != 0;
  }
  void push(PacketPtr p) {
    std::lock_guard<std::mutex> l(m_);
    queue_.push_back(std::move(p));
  }
  // The next packet, or null when none is waiting.
  PacketPtr pop() {
    std::lock_guard<std::mutex> l(m_);
    if (queue_.empty()) return nullptr;
    PacketPtr p = std::move(queue_.front());
    queue_.pop_front();
    return p;
  }
  // The source read its input to the end: every packet of the wanted streams came through.
  void markComplete() {
    std::lock_guard<std::mutex> l(m_);
    complete_ = true;
  }
  bool complete() const {
    std::lock_guard<std::mutex> l(m_);
    return complete_;
  }

 private:
  mutable std::mutex m_;
  std::set<int> wanted_;
  std::deque<PacketPtr> queue_;
  bool complete_ = false;
};

}  // namespace vf::media
