// Ctrl-C while the OpenCL CPU device (PoCL) is still building the chain's kernels, as a user
// meets it on a first run: the terminal sends SIGINT to the whole process group, the linker
// PoCL runs for each kernel included. The run stops as any stop does (exit 130, the output
// absent or playable with the frames done), never with the driver's abort or a build error.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

// Nothing cached yet, as on a first run: every kernel is built (and linked) in the run.
ProcOptions coldBuild(const TempDir& dir, int attempt) {
  ProcOptions o;
  const std::string pocl = dir / ("pocl" + std::to_string(attempt));
  const std::string ours = dir / ("cache" + std::to_string(attempt));
  std::filesystem::create_directory(pocl);
  std::filesystem::create_directory(ours);
  o.setEnv = {"POCL_CACHE_DIR=" + pocl, "VIDFILTER_CACHE_DIR=" + ours};
  o.ownProcessGroup = true;
  o.timeoutSec = 120;
  return o;
}

}  // namespace

TEST(ReliabilityBuildSignals, CtrlCWhileTheKernelsBuildIsAStop) {
  TempDir dir("build_signals");
  const auto args = [&](const std::string& out) {
    return std::vector<std::string>{"-i",           kVideo, "--chain", "blur=sigma=7,sobel=ksize=5",
                                    "--no-preview", "-y",   "-o",      out,
                                    "--device",     "cpu"};
  };
  // The device line comes once the program has its signal handlers and opens the device; the
  // build lasts from there to the first frame.
  const auto saw = [](const char* what) {
    return [what](const std::string& err) { return err.find(what) != std::string::npos; };
  };
  std::vector<std::string> progress = args(dir / "whole.mp4");
  progress.push_back("--progress");
  Child whole(vidfilterBinary(), progress, coldBuild(dir, 0));
  ASSERT_TRUE(whole.readUntil(saw("OpenCL device"), 60)) << whole.errSoFar();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(whole.readUntil(saw("frame="), 110)) << whole.errSoFar();
  const double build =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  whole.signal(SIGTERM);
  EXPECT_EQ(whole.wait().status, 143);
  // Ctrl-C at points through the build, each run from nothing cached.
  for (int k = 1; k <= 6; ++k) {
    SCOPED_TRACE("Ctrl-C after " + std::to_string(k) + "/7 of the build");
    const std::string out = dir / ("out" + std::to_string(k) + ".mp4");
    Child run(vidfilterBinary(), args(out), coldBuild(dir, k));
    ASSERT_TRUE(run.readUntil(saw("OpenCL device"), 60)) << run.errSoFar();
    std::this_thread::sleep_for(std::chrono::duration<double>(build * k / 7));
    run.signalGroup(SIGINT);
    const ProcResult r = run.wait();
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_NE(r.err.find("stopped by SIGINT"), std::string::npos) << r.err;
    if (std::filesystem::exists(out)) {
      EXPECT_GE(countFrames(out), 0) << "unplayable: " << r.err;
    }
  }
}
