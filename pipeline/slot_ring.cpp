#include "pipeline/slot_ring.hpp"

namespace vf {

void Slot::countEvents() {
  heldEvents_ = (upload() ? 1 : 0) + (download() ? 1 : 0) + (run.done() ? 1 : 0);
  for (const auto& st : run.stages) heldEvents_ += (st.first() ? 1 : 0) + (st.last() ? 1 : 0);
  detail::countEngineEvents(heldEvents_);
}

void Slot::releaseEvents() {
  upload = cl::Event();
  download = cl::Event();
  run = ChainRun();
  detail::countEngineEvents(-heldEvents_);
  heldEvents_ = 0;
}

SlotRing::SlotRing(int slots) {
  for (int i = 0; i < slots; ++i) slots_.push_back(std::make_unique<Slot>());
  reset();
}

void SlotRing::reset() {
  free_.clear();
  ready_.clear();
  inFlight_.clear();
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i]->state = SlotState::Free;
    free_.push_back(static_cast<int>(i));
  }
}

int SlotRing::pop(std::deque<int>& q) {
  if (q.empty()) return -1;
  const int s = q.front();
  q.pop_front();
  return s;
}

int SlotRing::takeFree() {
  const int s = pop(free_);
  if (s >= 0) (*this)[s].state = SlotState::Filling;
  return s;
}

int SlotRing::takeOldestReady() {
  const int s = pop(ready_);
  if (s >= 0) (*this)[s].state = SlotState::Filling;
  return s;
}

void SlotRing::markReady(int s) {
  (*this)[s].state = SlotState::Ready;
  ready_.push_back(s);
}

int SlotRing::takeReady() {
  const int s = pop(ready_);
  if (s >= 0) (*this)[s].state = SlotState::Submitted;
  return s;
}

void SlotRing::pushInFlight(int s) { inFlight_.push_back(s); }

int SlotRing::takeInFlight() { return pop(inFlight_); }

void SlotRing::release(int s) {
  (*this)[s].state = SlotState::Free;
  free_.push_back(s);
}

}  // namespace vf
