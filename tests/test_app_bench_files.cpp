// What `vidfilter bench` writes and reads: its --json never replaces an input, a kernel file or
// (without -y) any file, and a full disk leaves none; the file job (--input) checks its numbers
// and leaves no scratch file when a signal stops it. No timing assertions.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_errors.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/test_bench_util.hpp"

using namespace vf::test;

TEST(BenchCommand, JsonNeverReplacesWhatItReadsNorAFileWithoutY) {
  TempDir dir("bench_json_safety");
  const std::string video = dir / "in.mp4";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 '" +
                  video + "'")
                .status,
            0);
  const std::string before = shellOutput("md5sum < '" + video + "'");
  // The file job's --json over its own input; an existing file without -y (no terminal).
  expectUsageError(runBench({"--input", video, "--frames", "2", "--json", video}), "is the input");
  // Nor a kernel file a chain reads: the file job's, the table's, one chain's.
  const std::string kernel = dir / "k.cl";
  std::filesystem::copy_file(std::string(VIDFILTER_SOURCE_DIR) + "/samples/kernels/invert.cl",
                             kernel);
  const std::string kernelBefore = shellOutput("md5sum < '" + kernel + "'");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--input", video, "--chain", "gray,kernel=" + kernel, "--frames", "2", "--no-ffmpeg"},
           {"--table", "--chains", "gray;kernel=" + kernel, "--sizes", "64x48", "--formats", "bgr",
            "--frames", "2"},
           {"--chain", "kernel=" + kernel, "--size", "64x48", "--frames", "2", "--no-engine"}}) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--json", kernel, "-y"});
    expectUsageError(runBench(all), "is a kernel file");
  }
  EXPECT_EQ(shellOutput("md5sum < '" + kernel + "'"), kernelBefore);
  const std::string old = dir / "old.json";
  std::ofstream(old) << "kept";
  expectUsageError(runBench(kBenchArgs + std::vector<std::string>{"--json", old}), "give -y");
  EXPECT_EQ(shellOutput("md5sum < '" + video + "'"), before);
  EXPECT_EQ(shellOutput("cat '" + old + "'"), "kept");
  // A directory that does not exist is named before anything is measured.
  expectUsageError(runBench(kBenchArgs + std::vector<std::string>{"--json", dir / "no/x.json"}),
                   "does not exist");
  // -y replaces it.
  const ProcResult r = runBench(kBenchArgs + std::vector<std::string>{"--json", old, "-y"});
  expectGoodReport("vidfilter-bench", r, readJson(old));
}

// A --json file that cannot be written whole: exit 1 with the reason, and no part of it left.
TEST(BenchCommand, JsonOnAFullDiskFailsAndLeavesNoFile) {
  TempDir dir("bench_json_full");
  const std::string mounted =
      shellOutput("mount -t tmpfs -o size=4k tmpfs '" + dir.path().string() + "' 2>&1 && echo ok");
  if (mounted.find("ok") == std::string::npos)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << mounted;
  shellOutput("head -c 1M /dev/zero > '" + (dir / "fill") + "' 2>/dev/null; true");
  const std::string json = dir / "b.json";
  const ProcResult r = runBench(kBenchArgs + std::vector<std::string>{"--json", json});
  const bool left = std::filesystem::exists(json);  // on the full disk, before it goes
  shellOutput("umount '" + dir.path().string() + "' 2>&1");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(errorLines(r.err).find("No space left on device"), std::string::npos) << r.err;
  EXPECT_FALSE(left);
}

TEST(BenchCommand, FileJobNumbersAreCheckedAndItsSetupLineIsPrintable) {
  TempDir dir("bench_job_args");
  const std::string video = dir / "in.mkv";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 "
                  "-c:v ffv1 '" +
                  video + "'")
                .status,
            0);
  const std::vector<std::string> job = {"--input", video, "--frames", "3", "--no-ffmpeg"};
  for (const char* crf : {"abc", "1e999", "20abc", "nan", "-5", "64"}) {
    SCOPED_TRACE(crf);
    expectUsageError(runBench(job + std::vector<std::string>{"--crf", crf}), "--crf");
  }
  for (const char* n : {"-5", "0"}) {
    SCOPED_TRACE(n);
    expectUsageError(runBench(kBenchArgs + std::vector<std::string>{"--engine-frames", n}),
                     "--engine-frames");
  }
  // Any encoder its own scratch files' container holds (ffv1 goes in no MP4).
  const ProcResult ffv1 = runBench(job + std::vector<std::string>{"--codec", "ffv1"});
  EXPECT_EQ(ffv1.status, 0) << ffv1.err;
  // A file shorter than --frames: said, and every part times the frames it holds.
  const ProcResult shortFile = runBench(
      {"--input", video, "--frames", "8", "--no-ffmpeg", "--json", dir / "short.json", "-y"});
  ASSERT_EQ(shortFile.status, 0) << shortFile.err;
  EXPECT_NE(shortFile.out.find("holds 5 frames, fewer than --frames 8"), std::string::npos)
      << shortFile.out;
  std::ifstream shortJson(dir / "short.json");
  const auto doc = Json::parse(shortJson);
  ASSERT_FALSE(doc["parts"].empty());
  for (const auto& part : doc["parts"]) EXPECT_EQ(part["frames"], 5) << part.dump();
  // A file name with an escape sequence and a carriage return: shown escaped.
  const std::string odd = dir / "a\x1b[31mb\rc.mkv";
  std::filesystem::copy_file(video, odd);
  const ProcResult r = runBench({"--input", odd, "--frames", "3", "--no-ffmpeg", "--crf", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find_first_of("\x1b\r"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a\\x1b[31mb\\rc.mkv"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fewer than --frames"), std::string::npos) << r.out;
  // The ffmpeg command it prints can be pasted into a shell: a name with a space and a ';' is one
  // quoted word.
  const std::string spaced = dir / "a b;touch x.mkv";
  std::filesystem::copy_file(video, spaced);
  const ProcResult withPeer = runBench({"--input", spaced, "--frames", "3", "--chain", "gray"});
  ASSERT_EQ(withPeer.status, 0) << withPeer.err;
  if (withPeer.out.find("ffmpeg command:") != std::string::npos)
    EXPECT_NE(withPeer.out.find(" -i '" + spaced + "' "), std::string::npos) << withPeer.out;
  else
    EXPECT_NE(withPeer.out.find("ffmpeg peer: not run"), std::string::npos) << withPeer.out;
  // Its scratch files go to a new directory of its own under TMPDIR, removed after it; what was
  // there before stays.
  const std::string tmp = dir / "tmp";
  std::filesystem::create_directory(tmp);
  std::ofstream(tmp + "/keep.txt") << "kept";
  ProcOptions underTmp;
  underTmp.setEnv = {"TMPDIR=" + tmp};
  const ProcResult scratch = runBench(job, underTmp);
  ASSERT_EQ(scratch.status, 0) << scratch.err;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp))
    left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"keep.txt"});
  underTmp.setEnv = {"TMPDIR=" + (dir / "missing")};
  expectUsageError(runBench(job, underTmp), "TMPDIR");
}

TEST(BenchCommand, FileJobStoppedBySignalRemovesItsScratchFiles) {
  // SIGTERM or SIGINT killed `bench --input` by their default action: its scratch directory
  // (the encoded files of each part) stayed in TMPDIR. Now the stop removes it and the status is
  // 128 + the signal.
  TempDir dir("bench_job_signal");
  const std::string video = dir / "in.mp4";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=1280x720:rate=25 -t 4 "
                  "-c:v libx264 '" +
                  video + "'")
                .status,
            0);
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string tmp = dir / ("tmp" + std::to_string(sig));
    std::filesystem::create_directory(tmp);
    ProcOptions o;
    o.setEnv = {"TMPDIR=" + tmp};
    o.timeoutSec = 120;
    Child c(vidfilterBinary(), {"bench", "--input", video, "--frames", "100", "--no-ffmpeg"}, o);
    // Stopped once its scratch directory holds a part's file.
    const auto holdsAFile = [&] {
      for (const auto& d : std::filesystem::directory_iterator(tmp))
        if (!std::filesystem::is_empty(d.path())) return true;
      return false;
    };
    for (int i = 0; i < 1200 && !holdsAFile(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(holdsAFile()) << c.errSoFar();
    c.signal(sig);
    const ProcResult r = c.wait();
    EXPECT_EQ(r.status, 128 + sig) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(tmp)) << r.err;
  }
  // Stopped while its ffmpeg command runs: the command is stopped too (it went on encoding into
  // the removed directory).
  const std::string tmp = dir / "tmp_ffmpeg";
  std::filesystem::create_directory(tmp);
  ProcOptions o;
  o.setEnv = {"TMPDIR=" + tmp};
  o.timeoutSec = 180;
  const std::string json = dir / "r.json";
  Child c(vidfilterBinary(), {"bench", "--input", video, "--frames", "100", "--json", json}, o);
  const std::string children =
      "/proc/" + std::to_string(c.pid()) + "/task/" + std::to_string(c.pid()) + "/children";
  std::string child;  // the ffmpeg command, once it runs
  for (int i = 0; i < 6000 && child.empty(); ++i) {
    std::ifstream list(children);
    for (std::string pid; child.empty() && list >> pid;) {
      std::string comm;
      std::ifstream("/proc/" + pid + "/comm") >> comm;
      if (comm == "ffmpeg") child = pid;
    }
    if (child.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(child.empty()) << c.errSoFar();
  c.signal(SIGTERM);
  const ProcResult r = c.wait();
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << r.err;
  EXPECT_FALSE(std::filesystem::exists("/proc/" + child + "/exe")) << "ffmpeg " << child;
  // No results: neither the table (its stopped command called "failed") nor the JSON file.
  EXPECT_EQ(r.out.find("whole job /"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ffmpeg peer"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// --check's histogram comparison: OpenCV's calcHist counts are floats, so a bin past 2^24 (one
// bin of a 7680x4320 frame can hold 33 million) reads as the nearest float; the device's exact
// count is compared as that float, and any other difference still counts.
