// vidfilter: the program. Errors from anywhere below become one line on stderr here.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>

#include "pipeline/chain.hpp"
#include "pipeline/cl/device.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/registry.hpp"

int main(int argc, char** argv) {
  CLI::App app{"vidfilter: real-time video filtering with OpenCL"};
  bool listDevices = false, listStages = false;
  app.add_flag("--list-devices", listDevices, "list OpenCL platforms and devices");
  app.add_flag("--list-stages", listStages, "list stages and their parameters");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (listDevices) {
      std::cout << vf::formatDeviceTable(vf::listDevices());
      return 0;
    }
    if (listStages) {
      std::cout << vf::formatStageList();
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vidfilter: %s\n", e.what());
    return 1;
  }
  return 0;
}
