#pragma once
// The sobel's parameters: their table (--list-stages, the chain, config files), the checks
// across them, and the schedule values given that the plan for this device and frame cannot take.
#include <string>
#include <vector>

#include "pipeline/frame.hpp"
#include "pipeline/params.hpp"
#include "pipeline/stages/sobel_plan.hpp"

namespace vf {

std::vector<ParamSpec> sobelParams();

// Throws ParamError for values each in range but not a sobel's (ksize 2, vec 12, wg 0x4).
void checkSobelParams(const Params& p);

// One line per schedule value given (not auto) that `plan` runs without, naming what it
// applies to: "load=local: ..." ; empty when every given value takes effect. `slab`: the slab
// kernel is planned too (SobelSlabPlan::use).
std::vector<std::string> sobelParamsWithoutEffect(const Params& p, const SobelPlan& plan,
                                                  bool slab = false);

}  // namespace vf
