#pragma once
// toml++ 3.3 (Debian 12) reaches __builtin_unreachable() -- undefined behaviour -- when it asks
// whether some non-ASCII code points are whitespace (upstream marzer/tomlplusplus#190, #295;
// found here by fuzz_config). It asks only outside strings and comments, and in a """ string
// right after a backslash. Non-ASCII is never valid TOML outside strings and comments, so those
// places are checked here first, with an error of our own; text inside strings and comments is
// untouched. The first non-blank character after a line-ending backslash in a """ string is the
// one valid case refused (rare in a config file; the message says how to write it).
#include <string>

namespace vf::app {

// Throws UsageError ("file:line:col: ...") where the text would reach that bug.
void checkTomlPlusPlusSafe(const std::string& text, const std::string& file);

}  // namespace vf::app
