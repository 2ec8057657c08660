#include "app/version.hpp"

namespace vf::app {
const char* versionString() { return "vidfilter " VIDFILTER_VERSION; }
}  // namespace vf::app
