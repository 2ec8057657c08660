#pragma once
// PoCL (the OpenCL CPU device) keeps compiled kernels in a cache directory it creates when it
// starts. When it cannot (HOME unwritable or missing, as for a service user or `nobody`), it
// reports no device at all, and the ICD loader's "no device" hides the cause. This finds it.
#include <string>

namespace vf {

// The directory PoCL uses, by its own rules: $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/kcache,
// else $HOME/.cache/pocl/kcache, else /tmp/pocl/kcache ("uncached" for "kcache" when
// POCL_KERNEL_CACHE=0). `from` receives the variable it came from.
std::string poclCacheDirectory(std::string* from = nullptr);

// "" when that directory exists and is writable, or can be created; else the complete
// message for the user: what PoCL cannot create, why, and how to set POCL_CACHE_DIR.
std::string poclCacheProblem();

// POCL_CACHE_DIR set to nothing is taken as not set, as XDG_CACHE_HOME is: PoCL itself stops
// the process on it (an assertion). Call before the first OpenCL call.
void ignoreEmptyPoclCacheDir();

}  // namespace vf
