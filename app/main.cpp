// vidfilter: the program. Every error from below becomes one message on stderr here,
// "vidfilter: <what is wrong and how to fix it>", and a non-zero exit status, by its class
// (pipeline/error.hpp): UserError 2 (what the user wrote: options, config, chain, paths that
// do not exist or may not be used, device selector); everything else 1 (RuntimeError: the OS
// refused a read or write, no usable device; OpenCL errors, kernel builds, decode/encode);
// Interrupted 128 + the signal.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <opencv2/core.hpp>
#include <string>

#include "app/bench/bench.hpp"
#include "app/camera_list.hpp"
#include "app/cl_hint.hpp"
#include "app/interrupt.hpp"
#include "app/log_pattern.hpp"
#include "app/options.hpp"
#include "app/run.hpp"
#include "app/std_streams.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/cl/pocl_cache.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/quote.hpp"

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
  vf::app::setLogPattern("vidfilter: %^%l%$: %*");
  vf::app::setLogLevel("info");
}

}  // namespace

int main(int argc, char** argv) {
  vf::app::keepStandardStreamsOpen();
  vf::ignoreEmptyPoclCacheDir();
  if (argc >= 2 && std::strcmp(argv[1], "bench") == 0)
    return vf::bench::benchMain(argc - 1, argv + 1);

  try {
    setupLogging();
    const vf::app::CommandLine cl = vf::app::parseCommandLine(argc, argv, std::cout);
    if (cl.exitNow) return vf::app::kExitOk;
    if (cl.listCameras) {
      std::cout << vf::app::formatCameraList(vf::app::listCameras());
      return vf::app::kExitOk;
    }
    if (cl.settings.logLevel) vf::app::setLogLevel(*cl.settings.logLevel);
    return vf::app::runCommandLine(cl);
  } catch (const vf::app::Interrupted& e) {  // a signal while opening: nothing to finish
    spdlog::warn("{}", e.what());
    return 128 + e.signal();
  } catch (const vf::UserError& e) {  // a ChainError keeps its chain and caret lines
    // A wait a signal ended (a kernel file on a FIFO) is a stop, not the user's mistake.
    if (const int sig = vf::app::interruptSignal()) {
      spdlog::warn("{} ({})", vf::app::Interrupted(sig).what(), e.what());
      return 128 + sig;
    }
    return fail(vf::app::kExitUsage, e.what());
  } catch (const vf::RuntimeError& e) {
    // An open a signal ended (--stats or --json on a FIFO nobody reads): the stop it is.
    if (const int sig = vf::app::interruptSignal(); sig && e.errnum() == EINTR) {
      spdlog::warn("stopped by {} ({})", vf::app::signalName(sig), e.what());
      return 128 + sig;
    }
    return fail(vf::app::kExitRuntime, e.what());
  } catch (const vf::KernelBuildError& e) {
    // The compiler inside the OpenCL driver (LLVM) removes its temporary files on SIGINT,
    // SIGTERM and SIGHUP, so a build a signal came into fails: the stop it is.
    if (const int sig = vf::app::interruptSignal()) {
      spdlog::warn("{} (while building the OpenCL kernels)", vf::app::Interrupted(sig).what());
      return 128 + sig;
    }
    return fail(vf::app::kExitRuntime, e.what());
  } catch (const vf::ClError& e) {
    return fail(vf::app::kExitRuntime,
                std::string("OpenCL: ") + e.what() + vf::app::clHint(e.code()));
  } catch (const cv::Exception& e) {
    return fail(vf::app::kExitRuntime, "OpenCV: " + e.err + " (in " + e.func + ")");
  } catch (const std::exception& e) {
    return fail(vf::app::kExitRuntime, e.what());
  }
}
