// vidfilter: the program. Every error from below becomes one message on stderr here,
// "vidfilter: <what is wrong and how to fix it>", and a non-zero exit status:
// 2 for what the user wrote (options, config, chain, paths, device selector), 1 for failures
// while running (OpenCL, kernel build, decode/encode, disk).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <opencv2/core.hpp>
#include <string>

#include "app/bench/bench.hpp"
#include "app/options.hpp"
#include "app/run.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/cl/program_cache.hpp"

namespace {

int fail(int code, const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "vidfilter: %s\n", what.c_str());
  return code;
}

// Logs go to stderr (stdout carries the summary and listings), one prefix for every line.
void setupLogging() {
  auto logger = spdlog::stderr_color_mt("vidfilter");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("vidfilter: %^%l%$: %v");
  vf::app::setLogLevel("info");
}

// What a user can do about an OpenCL error that is about memory; nothing for the others.
std::string clHint(int code) {
  switch (code) {
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
      return "; the device ran out of memory or resources: try fewer --slots, a smaller frame, "
             "or another --device (--list-devices)";
    default:
      return "";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "bench") == 0)
    return vf::bench::benchMain(argc - 1, argv + 1);

  try {
    setupLogging();
    const vf::app::CommandLine cl = vf::app::parseCommandLine(argc, argv, std::cout);
    if (cl.exitNow) return vf::app::kExitOk;
    if (cl.settings.logLevel) vf::app::setLogLevel(*cl.settings.logLevel);
    return vf::app::runCommandLine(cl);
  } catch (const vf::ChainError& e) {
    return fail(vf::app::kExitUsage, e.what());  // keeps the chain and caret lines
  } catch (const vf::UserError& e) {
    return fail(vf::app::kExitUsage, e.what());
  } catch (const vf::KernelBuildError& e) {
    return fail(vf::app::kExitRuntime, e.what());
  } catch (const vf::ClError& e) {
    return fail(vf::app::kExitRuntime, std::string("OpenCL: ") + e.what() + clHint(e.code()));
  } catch (const cv::Exception& e) {
    return fail(vf::app::kExitRuntime, "OpenCV: " + e.err + " (in " + e.func + ")");
  } catch (const std::exception& e) {
    return fail(vf::app::kExitRuntime, e.what());
  }
}
