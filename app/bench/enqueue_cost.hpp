#pragma once

#include "pipeline/cl/context.hpp"

namespace vf::bench {

// Host time per OpenCL call for the calls the engine makes per frame (see enqueue_cost.cpp);
// prints a table, returns 0.
int benchEnqueueCost(ClContext& cl);

}  // namespace vf::bench
