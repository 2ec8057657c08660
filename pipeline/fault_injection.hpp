#pragma once
// Fault injection for the reliability tests (docs/RELIABILITY.md): a device that fails in the
// middle of a stream, as a decorator around a chain's last stage, so the library's per-frame
// path carries no test hook.
#include <string>

#include "pipeline/chain.hpp"

namespace vf {

// Makes the n-th enqueue (from 1) of `chain`'s last stage throw ClError(CL_OUT_OF_RESOURCES)
// naming that stage's kernel launch and `label`, after the frame's earlier stages are enqueued.
// The chain must be configured again (Chain::wrapStage).
void injectEnqueueFault(Chain& chain, long n, const std::string& label);

// VIDFILTER_FAULT=enqueue:N in the environment: injectEnqueueFault(chain, N, ...). Nothing when
// it is unset or says something else. Read where the program builds its chain, once.
void injectFaultsFromEnvironment(Chain& chain);

}  // namespace vf
