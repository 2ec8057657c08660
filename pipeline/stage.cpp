#include "pipeline/stage.hpp"

#include <stdexcept>

#include "pipeline/error.hpp"

namespace vf {
namespace {
thread_local bool tEventsOff = false;
thread_local std::uint64_t tLaunched = 0;
}  // namespace

StageEventsOff::StageEventsOff(bool off) : previous_(tEventsOff) { tEventsOff = off; }
StageEventsOff::~StageEventsOff() { tEventsOff = previous_; }
std::uint64_t kernelsLaunched() { return tLaunched; }

void Stage::setPrologue(const std::vector<Stage*>& fns, const FrameDesc& /*in*/) {
  if (!fns.empty()) throw std::logic_error(name() + " cannot read through a prologue");
}

void Stage::setEpilogue(const std::vector<Stage*>& stages) {
  if (!stages.empty()) throw std::logic_error(name() + " cannot store through an epilogue");
}

void Stage::setFilter(SeparableFilter* filter) {
  if (filter) throw std::logic_error(name() + " cannot compute the filter before it");
}

cl::Event launchKernel(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                       const cl::NDRange& local, const std::vector<cl::Event>& wait) {
  cl::Event ev;
  std::vector<cl::Event> live;
  const std::vector<cl::Event>* deps = &wait;
  for (const cl::Event& e : wait) {
    if (!e()) {  // a command enqueued without an event: drop the nulls
      for (const cl::Event& f : wait)
        if (f()) live.push_back(f);
      deps = &live;
      break;
    }
  }
  try {
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, deps->empty() ? nullptr : deps,
                               tEventsOff ? nullptr : &ev);
  } catch (const cl::Error& e) {
    std::string name;
    try {
      name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
    } catch (const cl::Error&) {
      name = "?";
    }
    throw ClError(e.err(), "clEnqueueNDRangeKernel(" + name + ")");
  }
  ++tLaunched;
  return ev;
}

}  // namespace vf
