#pragma once
// What a user can do about an OpenCL error, appended to its message: memory, or a kernel missing
// from the developer's kernel directory; "" for the others.
#include <string>

namespace vf::app {

std::string clHint(int code);

}  // namespace vf::app
