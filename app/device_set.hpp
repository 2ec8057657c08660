#pragma once
// The devices a run with several inputs spreads them over: --device all (every GPU, else every
// device), a comma-separated list ("0:0,0:1"), or one selector, a type or part of a name
// matching several ("nvidia", "gpu": every device it matches). Each device gets its own
// context, queues, program cache and slots.
#include <memory>
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"

namespace vf::app {

// True when `selector` may name more than one device ("all" or a list).
bool namesSeveralDevices(const std::string& selector);

// Opens every device `selector` names, each once, in the order named. "" (the default) opens
// the first GPU, else the first device, as a run with one input does. Throws UserError when a
// part of the selector matches nothing (naming the devices that exist).
std::vector<std::shared_ptr<ClContext>> openDevices(const std::string& selector);

}  // namespace vf::app
