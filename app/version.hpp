#pragma once
namespace vf::app {
const char* versionString();
}  // namespace vf::app
