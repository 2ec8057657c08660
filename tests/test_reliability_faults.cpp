// Reliability: device faults and interrupts, through the real binary. A CL error in the middle
// of a stream is injected with VIDFILTER_FAULT=enqueue:N (pipeline/fault_injection.cpp): the
// N-th enqueue of the chain's last stage throws ClError(CL_OUT_OF_RESOURCES). Covered elsewhere,
// not repeated: no device and a broken gray.cl (test_app_cli_errors.cpp), SIGINT offline
// (test_app_offline.cpp), a second SIGINT and SIGINT while opening (test_app_live.cpp), a signal
// while the preview is paused (test_app_preview.cpp). Every run here has a timeout: a deadlock
// fails, it does not hang.
#include <sys/stat.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <thread>

#include "app/sinks.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

std::string sourceDir() { return VIDFILTER_SOURCE_DIR; }

vf::test::ProcOptions withEnv(std::vector<std::string> env, double timeoutSec = 60) {
  vf::test::ProcOptions o;
  o.setEnv = std::move(env);
  o.timeoutSec = timeoutSec;
  return o;
}

bool onPocl() {
  return vf::test::context().info().platform.find("Portable Computing Language") !=
         std::string::npos;
}

}  // namespace

// --- device -------------------------------------------------------------------------------------

TEST(ReliabilityDevice, NoOpenCLDeviceNamesTheIcdPackage) {
  TempDir icd("rel_noicd");  // an empty vendor directory: the ICD loader finds no platform
  const auto opt = withEnv({"OCL_ICD_VENDORS=" + icd.path().string()});
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray"}, opt), 1,
                 "no OpenCL device found. Install a GPU driver with OpenCL support, or the CPU "
                 "device: `sudo apt-get install pocl-opencl-icd`");
  const auto bench = runVidfilter({"bench", "--chain", "gray", "--size", "64x64"}, opt);
  EXPECT_EQ(bench.status, 1) << bench.err;
  EXPECT_EQ(errorLines(bench.err).rfind("vidfilter bench: no OpenCL device found.", 0), 0u)
      << bench.err;
  EXPECT_NE(bench.err.find("pocl-opencl-icd"), std::string::npos) << bench.err;
}

TEST(ReliabilityDevice, BrokenBlurKernelPrintsTheBuildLog) {
  // blur builds its kernel with its own -D options: a broken blur_ring.cl (the CPU's default)
  // through the developer override is reported with the compiler's log, before any output.
  TempDir kernels("rel_badblur");
  for (const auto& e : std::filesystem::directory_iterator(sourceDir() + "/kernels"))
    std::filesystem::copy_file(e.path(), kernels.path() / e.path().filename());
  {
    std::ofstream f(kernels / "blur_ring.cl", std::ios::app);
    f << "\nkernel void broken(global uchar* p) { p[0] = undeclared_name; }\n";
  }
  TempDir out("rel_badblur_out");
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "gray,blur", "-o", out / "never.mp4"},
      withEnv({"VIDFILTER_KERNEL_DIR=" + kernels.path().string(), "VIDFILTER_CACHE_DIR=off"}));
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string e = errorLines(r.err);
  // PoCL's compiler also writes "1 error generated." to stderr itself, before our message.
  EXPECT_NE(e.find("vidfilter: OpenCL kernel blur_ring.cl failed to build (options: -DRADIUS="),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("undeclared_name"), std::string::npos) << "the build log is shown:\n" << e;
  EXPECT_FALSE(std::filesystem::exists(out / "never.mp4"));
}

TEST(ReliabilityDevice, FrameTooLargeForTheDeviceInBench) {
  // A square BGR frame just over the device's largest single allocation. The check comes when
  // the chain is configured, before any host or device memory for frames is taken.
  const std::uint64_t maxAlloc = vf::test::context().info().maxAllocBytes;
  if (maxAlloc > (std::uint64_t(4) << 30))
    GTEST_SKIP() << "the device allows " << (maxAlloc >> 20) << " MiB in one buffer";
  const int side = static_cast<int>(std::ceil(std::sqrt(double(maxAlloc) / 3))) + 1;
  const std::string size = std::to_string(side) + "x" + std::to_string(side);
  const auto r = runVidfilter(
      {"bench", "--chain", "gray,blur,sobel,hist,brightness", "--size", size, "--frames", "2"},
      withEnv({}, 60));
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter bench: frame " + size + " bgr is too large for ", 0), 0u) << e;
  EXPECT_NE(e.find("(CL_DEVICE_MAX_MEM_ALLOC_SIZE); scale the input down or choose a device"),
            std::string::npos)
      << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  EXPECT_LT(r.seconds, 30);
}

TEST(ReliabilityDevice, FrameTooLargeForTheDeviceFromAnImage) {
  // PoCL with POCL_MEMORY_LIMIT=1 (GiB) allows 256 MiB per buffer; one 8200x8200 RGBA PNG
  // (257 MiB decoded) is too large. Reported before the output is created.
  if (!onPocl()) GTEST_SKIP() << "needs PoCL (POCL_MEMORY_LIMIT)";
  TempDir dir("rel_huge");
  makeClip(dir / "huge_%02d.png", "color=c=0x336699:s=8200x8200", "-frames:v 1 -pix_fmt rgba");
  const auto r = runVidfilter(
      {"-i", dir / "huge_%02d.png", "--chain", "gray,blur", "-o", dir / "out_%02d.png"},
      withEnv({"POCL_MEMORY_LIMIT=1"}));
  expectOneError(r, 1,
                 "frame 8200x8200 bgra is too large for " + vf::test::context().info().name +
                     ": the input needs 257 MiB in one buffer, the device allows 256 MiB");
  EXPECT_FALSE(std::filesystem::exists(dir / "out_01.png"));
}

// A resize that asks for more than one buffer holds is the chain's mistake, named where it is
// written (exit 2), not the input's: a 1x3 input resized to 16384 wide (its height 49152 by
// -1) needs 768 MiB, where PoCL with POCL_MEMORY_LIMIT=1 allows 256 MiB.
TEST(ReliabilityDevice, AResizeTooLargeForTheDeviceIsTheChains) {
  if (!onPocl()) GTEST_SKIP() << "needs PoCL (POCL_MEMORY_LIMIT)";
  TempDir dir("rel_huge_resize");
  makeClip(dir / "tall.mkv", "testsrc=size=1x3:rate=5", "-t 1 -c:v ffv1");
  const auto r = runVidfilter({"-i", dir / "tall.mkv", "--chain", "gray,resize=16384x-1", "--codec",
                               "ffv1", "-o", dir / "out.mkv"},
                              withEnv({"POCL_MEMORY_LIMIT=1"}));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("resize: its output, 16384x49152 gray, needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ask for a smaller size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("^^^"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mkv"));
}

TEST(ReliabilityDevice, ClErrorMidStreamKeepsAPlayableFile) {
  TempDir dir("rel_clerr");
  const std::string out = dir / "out.mp4";
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "gray,blur,sobel,hist,brightness", "-o", out, "--frames", "40"},
      withEnv({"VIDFILTER_FAULT=enqueue:12"}));
  EXPECT_EQ(r.status, 1) << r.err;
  // The error is the last line; it names the call and the CL error, and what to try.
  EXPECT_EQ(lastLine(r.err),
            "vidfilter: OpenCL: clEnqueueNDRangeKernel(brightness) [injected by "
            "VIDFILTER_FAULT=enqueue:12]: CL_OUT_OF_RESOURCES; the device ran out of memory or "
            "resources: try fewer --slots, a smaller frame, or another --device (--list-devices)")
      << r.err;
  // The frames that reached the sink before the error are in the file, which plays. The engine
  // aborts at once on a chain error: the frames still in flight (at most --slots, 2 here) are
  // not written.
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 11 - 2) << r.err;
  EXPECT_LE(written, 11) << r.err;
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
  EXPECT_TRUE(r.out.empty()) << "no summary after a failed run:\n" << r.out;
}

TEST(ReliabilityDevice, ClErrorMidStreamOfSeveralInputsCountsWhatEachWrote) {
  // Each input fails alone with its playable file of the frames done; the --json summary says
  // how many frames each file has (what a batch tool reads), as ffprobe counts them.
  TempDir dir("rel_clerr_many");
  const std::string json = dir / "run.json";
  const auto r = runVidfilter({"-i", kVideo, "-i", kVideo, "--chain", "gray,blur", "-o",
                               dir / "out_{index}.mp4", "--frames", "40", "--json", json},
                              withEnv({"VIDFILTER_FAULT=enqueue:12"}));
  EXPECT_EQ(r.status, 1) << r.err;
  std::ifstream in(json);
  const auto doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["inputs"].size(), 2u);
  for (int k = 0; k < 2; ++k) {
    SCOPED_TRACE(k);
    const auto& job = doc["inputs"][k];
    EXPECT_EQ(job["status"], "failed");
    // The error says what to try, as one input's does.
    EXPECT_NE(job["error"].get<std::string>().find(
                  "CL_OUT_OF_RESOURCES; the device ran out of memory or resources: try fewer "
                  "--slots"),
              std::string::npos)
        << job["error"];
    const long written = job["frames_out"].get<long>();
    EXPECT_GE(written, 11 - 2);
    EXPECT_LE(written, 11);
    EXPECT_EQ(probe(dir / ("out_" + std::to_string(k) + ".mp4")).frames, written);
  }
}

TEST(ReliabilityDevice, ClErrorMidStreamIntoImages) {
  TempDir dir("rel_clerr_png");
  const std::string pattern = dir / "f_%03d.png";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray,brightness", "-o", pattern},
                              withEnv({"VIDFILTER_FAULT=enqueue:6"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(lastLine(r.err).find("CL_OUT_OF_RESOURCES"), std::string::npos) << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 5 - 2) << r.err;
  EXPECT_LE(written, 5) << r.err;
  for (long i = 0; i < written; ++i)
    EXPECT_FALSE(cv::imread(vf::app::sequenceFileName(pattern, i)).empty()) << i;
  EXPECT_FALSE(std::filesystem::exists(vf::app::sequenceFileName(pattern, written)));
}

TEST(ReliabilityDevice, ClErrorOnTheFirstFrameLeavesNoBrokenFile) {
  // A container with no frame has no stream and does not play: it is removed.
  TempDir dir("rel_clerr_first");
  const std::string out = dir / "out.mp4";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", out},
                              withEnv({"VIDFILTER_FAULT=enqueue:1"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(lastLine(r.err).find("clEnqueueNDRangeKernel(gray) [injected"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no frame reached " + out + "; the empty file was removed"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ReliabilityDevice, ClErrorInALiveStream) {
  // A live source keeps producing while the engine shuts down after the error: no deadlock.
  TempDir dir("rel_clerr_live");
  const std::string out = dir / "live.mkv";
  const auto r = runVidfilter(
      {"-i",
       "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=100/1 ! "
       "videoconvert ! appsink",
       "--chain", "gray,blur", "-o", out},
      withEnv({"VIDFILTER_FAULT=enqueue:30"}, 60));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(lastLine(r.err).find("[injected by VIDFILTER_FAULT=enqueue:30]: CL_OUT_OF_RESOURCES"),
            std::string::npos)
      << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 29 - 2) << r.err;
  EXPECT_LE(written, 29) << r.err;
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
}

// --- interrupts
// -----------------------------------------------------------------------------------

TEST(ReliabilityInterrupt, SigtermDuringOfflineProcessingLeavesAPlayableFile) {
  TempDir dir("rel_sigterm");
  const std::string out = dir / "partial.mkv";
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray,blur", "-o", out, "--progress"});
  const std::regex progressed("frame=\\s*([1-9][0-9]+)");
  ASSERT_TRUE(
      c.readUntil([&](const std::string& err) { return std::regex_search(err, progressed); }, 60))
      << c.errSoFar();
  c.signal(SIGTERM);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_NE(r.err.find("terminated: finishing the frames in flight and closing " + out),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM after"), std::string::npos) << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 10) << r.err;
  EXPECT_LT(written, 795) << "the run was not interrupted";
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilityInterrupt, SignalAtAnyMomentEndsCleanly) {
  // SIGTERM at moments from start-up (device, kernels, source opening) through running to the
  // drain at the end of the input. Each run ends within its timeout; a clean stop is 143 and
  // an uninterrupted one 0; whatever file exists plays and holds the frames the log says.
  TempDir dir("rel_sweep");
  int n = 0;
  for (const int delayMs : {0, 40, 120, 300, 600, 1000, 1600}) {
    SCOPED_TRACE("SIGTERM after " + std::to_string(delayMs) + " ms");
    const std::string out = dir / ("sweep" + std::to_string(n++) + ".mkv");
    vf::test::ProcOptions opt;
    opt.timeoutSec = 30;
    Child c(vf::test::vidfilterBinary(),
            {"-i", kVideo, "--chain", "gray,blur,sobel", "-o", out, "--frames", "30"}, opt);
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    c.signal(SIGTERM);
    const auto r = c.wait();
    EXPECT_LT(r.seconds, 25) << r.err;
    EXPECT_TRUE(r.status == 0 || r.status == 143) << r.status << "\n" << r.err;
    if (std::filesystem::exists(out)) {
      const long written = framesWritten(r.err);
      EXPECT_GE(written, 1) << r.err;
      EXPECT_EQ(probe(out).frames, written) << r.err;
      EXPECT_EQ(decodeErrors(out), "");
    }
  }
}

TEST(ReliabilityInterrupt, SignalWhileDrainingAtTheEndOfAStream) {
  // A live source that ends (num-buffers) with large frames and eight slots: after the source
  // has said it stopped, the engine drains the frames in flight for a few hundred ms (measured
  // 160-300 ms here). A SIGTERM then must not deadlock the drain, and the file must be closed.
  TempDir dir("rel_drain");
  const std::string out = dir / "drain.mkv";
  vf::test::ProcOptions opt;
  opt.timeoutSec = 60;
  Child c(vf::test::vidfilterBinary(),
          {"-i",
           "videotestsrc is-live=true num-buffers=40 ! "
           "video/x-raw,width=1280,height=720,framerate=100/1 ! videoconvert ! appsink",
           "--chain", "gray,blur=sigma=4,sobel", "--slots", "8", "-o", out},
          opt);
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("ended after") != std::string::npos; }, 60))
      << c.errSoFar();
  c.signal(SIGTERM);
  const auto r = c.wait();
  EXPECT_LT(r.seconds, 55);
  // 143 when the signal came during the drain, 0 when the drain had just finished.
  EXPECT_TRUE(r.status == 0 || r.status == 143) << r.status << "\n" << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 1) << r.err;
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilityDevice, AKernelThatNeverEndsIsNamedAndASignalEndsTheRun) {
  // A user's kernel that loops: the run says so once a frame has run for 10 s, and a single
  // SIGTERM ends the process 10 s later (the frames in flight cannot be taken off the device),
  // for one input and for several.
  TempDir dir("rel_endless");
  const std::string kernel = dir / "endless.cl";
  std::ofstream(kernel) << "uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) {\n"
                           "  volatile int k = 0;\n"
                           "  while (p.s0 < 1.0f) { k++; }\n"
                           "  return px;\n"
                           "}\n";
  const std::string video = kVideo;
  for (const std::vector<std::string>& inputs :
       {std::vector<std::string>{"-i", video},
        std::vector<std::string>{"-i", video, "-i", video}}) {
    std::vector<std::string> args = inputs;
    args.insert(args.end(), {"--chain", "kernel=" + kernel, "-o", dir / "out{index}.mkv", "-y"});
    vf::test::ProcOptions opt;
    opt.timeoutSec = 90;
    Child c(vf::test::vidfilterBinary(), args, opt);
    ASSERT_TRUE(c.readUntil(
        [](const std::string& err) {
          return err.find("finishing one frame for 10 s") != std::string::npos;
        },
        60))
        << c.errSoFar();
    c.signal(SIGTERM);
    const auto r = c.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    // The frame in flight gets 10 s from the stop on; the warning came once.
    EXPECT_LT(r.seconds, 60) << r.err;
    EXPECT_NE(r.err.find("not finished a frame for 2"), std::string::npos) << r.err;
    const auto said = r.err.find("finishing one frame for");
    EXPECT_EQ(r.err.find("finishing one frame for", said + 1), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("\n\n"), std::string::npos) << "blank lines:\n" << r.err;
  }
}
