// How a run of several inputs ends, with the real binary: -n keeps an incomplete output a batch
// would make again; a stop that comes once an input has been read whole keeps its output whole
// and under its name; each input's own --stats path is checked before anything runs; inputs
// given as -i that all fail for what the user gave exit as one input does (2); a second task
// given an input another task is making fails it without reading it; one input's error is said
// once; a stale partial file beside a complete output is removed. ffprobe counts the frames.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/json_file.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

long lines(const std::string& path) {
  std::ifstream in(path);
  long n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

}  // namespace

TEST(AppBatchOutcomes, NoOverwriteKeepsAnIncompleteOutput) {
  TempDir dir("outcomes_keep");
  fs::create_directories(dir / "out");
  const std::string a = dir / "a.mp4", b = dir / "b.mp4";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 20 -c:v libx264");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 20 -c:v libx264");
  std::ofstream(dir / "list.txt") << a << "\n" << b << "\n";
  // Not a video at all, and one cut in half.
  std::ofstream(dir / "out/a.mkv") << "a note of the user's\n";
  makeClip(dir / "whole.mkv", "testsrc2=size=96x64:rate=25", "-frames:v 50 -c:v ffv1");
  const std::string whole = contents(dir / "whole.mkv");
  std::ofstream(dir / "out/b.mkv", std::ios::binary) << whole.substr(0, whole.size() / 2);
  const std::string before_a = contents(dir / "out/a.mkv"), before_b = contents(dir / "out/b.mkv");
  const auto r = runVidfilter({"batch", "-n", "--inputs", dir / "list.txt", "--chain", "gray", "-o",
                               dir / "out/{name}.mkv", "--json", dir / "run.json"});
  EXPECT_EQ(r.status, 1) << r.err;  // a batch task with a failed input
  EXPECT_EQ(contents(dir / "out/a.mkv"), before_a);
  EXPECT_EQ(contents(dir / "out/b.mkv"), before_b);
  const auto doc = readJson(dir / "run.json");
  ASSERT_EQ(doc["inputs"].size(), 2u);
  for (const auto& job : doc["inputs"]) EXPECT_EQ(job["status"], "failed") << job.dump();
  // Without -n they are made again.
  const auto again = runVidfilter(
      {"batch", "--inputs", dir / "list.txt", "--chain", "gray", "-o", dir / "out/{name}.mkv"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(countFrames(dir / "out/a.mkv"), 20);
  EXPECT_EQ(countFrames(dir / "out/b.mkv"), 20);
}

TEST(AppBatchOutcomes, AStopOnceAnInputIsReadWholeKeepsItsOutputWhole) {
  // x264 at veryslow holds its lookahead's frames until the end: every frame has gone through
  // the chain (its --stats line written) long before the file is done. SIGTERM then. The input
  // ends by itself (60 frames), or --frames 60 of 80 ends it.
  TempDir dir("outcomes_whole");
  for (const int frames : {60, 80}) {
    SCOPED_TRACE(frames);
    const std::string out = dir / ("out" + std::to_string(frames));
    fs::create_directories(out);
    const std::string in = dir / ("in" + std::to_string(frames) + ".mp4");
    makeClip(in, "testsrc2=size=640x480:rate=25",
             "-frames:v " + std::to_string(frames) + " -c:v libx264 -preset ultrafast");
    const std::string list = dir / ("list" + std::to_string(frames) + ".txt");
    std::ofstream(list) << in << "\n";
    std::vector<std::string> args = {"batch",
                                     "--inputs",
                                     list,
                                     "--chain",
                                     "gray",
                                     "--preset",
                                     "veryslow",
                                     "-o",
                                     out + "/{name}.mkv",
                                     "--stats",
                                     out + "/{name}.jsonl",
                                     "--json",
                                     out + "/run.json",
                                     "--no-progress"};
    if (frames > 60) args.insert(args.end(), {"--frames", "60"});
    const std::string name = "in" + std::to_string(frames);
    Child c(vidfilterBinary(), args);
    ASSERT_TRUE(c.readUntil(
        [&](const std::string&) { return lines(out + "/" + name + ".jsonl") >= 60; }, 120))
        << c.errSoFar();
    c.signal(SIGTERM);
    const auto r = c.wait();
    EXPECT_EQ(r.status, 143) << r.err;
    const auto doc = readJson(out + "/run.json");
    EXPECT_EQ(doc["inputs"][0]["status"], "done") << doc.dump();
    EXPECT_EQ(countFrames(out + "/" + name + ".mkv"), 60);
    EXPECT_FALSE(fs::exists(out + "/." + name + ".partial.mkv"));
  }
}

TEST(AppBatchOutcomes, EachInputsStatsPathIsCheckedFirst) {
  TempDir dir("outcomes_stats");
  const std::string a = dir / "a.mp4", b = dir / "b.mp4";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v libx264");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v libx264");
  // A directory for each input: taken.
  fs::create_directories(dir / "o/a");
  fs::create_directories(dir / "o/b");
  const auto ok = runVidfilter({"-i", a, "-i", b, "--chain", "gray", "-o", dir / "o/{name}/v.mkv",
                                "--stats", dir / "o/{name}/s.jsonl"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(lines(dir / "o/a/s.jsonl"), 10);
  EXPECT_EQ(lines(dir / "o/b/s.jsonl"), 10);
  // Their directories missing: refused before anything is written.
  fs::create_directories(dir / "p");
  const auto r = runVidfilter({"-i", a, "-i", b, "--chain", "gray", "-o", dir / "p/{name}.mkv",
                               "--stats", dir / "o/{name}2/s.jsonl"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(dir / "o/a2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "p/a.mkv"));
}

TEST(AppBatchOutcomes, EveryInputFailingForTheUsersSettingIsAUsageError) {
  TempDir dir("outcomes_usage");
  const std::string a = dir / "a.mp4", b = dir / "b.mp4";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v libx264");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v libx264");
  std::ofstream(dir / "c.toml") << "preset = \"bogus\"\n";
  const auto r = runVidfilter(
      {"--config", dir / "c.toml", "-i", a, "-i", b, "--chain", "gray", "-o", dir / "{name}.mkv"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("c.toml:1:"), std::string::npos) << r.err;  // where it was set
  // One input fails for a file that is not a video, the other is written: 1.
  std::ofstream(dir / "bad.mp4") << "not a video\n";
  const auto mixed = runVidfilter(
      {"-i", a, "-i", dir / "bad.mp4", "--chain", "gray", "-o", dir / "out_{name}.mkv"});
  EXPECT_EQ(mixed.status, 1) << mixed.err;
  EXPECT_EQ(countFrames(dir / "out_a.mkv"), 10);
}

// A task run again that fails before any input starts (no OpenCL device here) replaces the
// report the first run left: a job array's script reading it must not see that run's success.
TEST(AppBatchOutcomes, ARunThatFailsBeforeAnyInputReplacesTheLastReport) {
  TempDir dir("outcomes_unstarted");
  TempDir icd("outcomes_noicd");  // an empty vendor directory: the ICD loader finds no platform
  const std::string a = dir / "a.mkv", b = dir / "b.mkv";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 5 -c:v ffv1");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 5 -c:v ffv1");
  fs::create_directory(dir / "out");
  const std::vector<std::string> args = {
      "-i",           a,   "-i", b, "--chain", "gray", "-o", dir / "out/{name}.mkv", "--json",
      dir / "r.json", "-y"};
  ASSERT_EQ(runVidfilter(args).status, 0);
  EXPECT_EQ(readJson(dir / "r.json")["exit_status"], 0);
  ProcOptions noDevice;
  noDevice.setEnv = {"OCL_ICD_VENDORS=" + icd.path().string()};
  const auto r = runVidfilter(args, noDevice);
  EXPECT_EQ(r.status, 1) << r.err;
  const nlohmann::json report = readJson(dir / "r.json");
  EXPECT_EQ(report["exit_status"], 1);
  ASSERT_EQ(report["inputs"].size(), 2u);
  for (const auto& input : report["inputs"]) {
    EXPECT_EQ(input["status"], "failed");
    EXPECT_NE(input["error"].get<std::string>().find("no OpenCL device found"), std::string::npos);
  }
}

// One input with --json: its error is said once (the summary's row gives its status), and the
// report holds it. Two inputs: each error is said as it happens and again in the summary.
TEST(AppBatchOutcomes, OneInputsErrorIsSaidOnce) {
  TempDir dir("outcomes_once");
  std::ofstream(dir / "bad.mp4") << "not a video\n";
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string why = "is not a video";
  const auto one = runVidfilter(
      {"-i", dir / "bad.mp4", "--chain", "gray", "-o", dir / "o.mkv", "--json", dir / "one.json"});
  EXPECT_EQ(one.status, 2) << one.err;
  EXPECT_EQ(count(one.err, why), 1) << one.err;
  EXPECT_NE(readJson(dir / "one.json")["inputs"][0]["error"].get<std::string>().find(why),
            std::string::npos);
  std::ofstream(dir / "worse.mp4") << "not a video either\n";
  const auto two = runVidfilter({"-i", dir / "bad.mp4", "-i", dir / "worse.mp4", "--chain", "gray",
                                 "-o", dir / "o_{name}.mkv", "--json", dir / "two.json"});
  EXPECT_EQ(two.status, 2) << two.err;
  EXPECT_EQ(count(two.err, why), 4) << two.err;
}

TEST(AppBatchOutcomes, AJobArrayTaskThatIsNoBatchIsToldItTakesEveryInput) {
  // A plain run of several inputs inside a task of a job array writes every output in every
  // task: it says so, and names what takes the task's share.
  TempDir dir("outcomes_array");
  const std::string a = dir / "a.mp4", b = dir / "b.mp4";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 4 -c:v libx264");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 4 -c:v libx264");
  for (const char* var : {"SLURM_ARRAY_TASK_ID=1", "JOB_COMPLETION_INDEX=0"}) {
    SCOPED_TRACE(var);
    ProcOptions o;
    o.setEnv = {var};
    const auto r =
        runVidfilter({"-i", a, "-i", b, "--chain", "gray", "-o", dir / "o_{name}.mkv", "-y"}, o);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("vidfilter batch takes the task's share"), std::string::npos) << r.err;
    EXPECT_EQ(countFrames(dir / "o_a.mkv"), 4);
    EXPECT_EQ(countFrames(dir / "o_b.mkv"), 4);
  }
}

TEST(AppBatchOutcomes, TheSummaryCarriesWhatEachInputsEndSaid) {
  // A file cut short and a whole one: the warning of the first is in its entry, the other's is
  // empty.
  TempDir dir("outcomes_warnings");
  const std::string whole = dir / "whole.mkv", cut = dir / "cut.mkv";
  makeClip(whole, "testsrc2=size=96x64:rate=25", "-frames:v 100 -c:v ffv1");
  {
    const std::string bytes = contents(whole);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 5);
  }
  const auto r = runVidfilter({"-i", whole, "-i", cut, "--chain", "gray", "-o",
                               dir / "o_{name}.mkv", "--json", dir / "run.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = readJson(dir / "run.json");
  ASSERT_EQ(doc["inputs"].size(), 2u);
  EXPECT_TRUE(doc["inputs"][0]["warnings"].empty()) << doc.dump();
  ASSERT_FALSE(doc["inputs"][1]["warnings"].empty()) << doc.dump();
  bool truncated = false;
  for (const std::string said : doc["inputs"][1]["warnings"]) {
    EXPECT_NE(r.err.find(said), std::string::npos) << said << "\n" << r.err;  // as warned
    truncated = truncated || said.find("truncated") != std::string::npos;
  }
  EXPECT_TRUE(truncated) << doc.dump();
  EXPECT_LT(countFrames(dir / "o_cut.mkv"), 100);
}

// Two tasks given the same input at once (an index run twice): the one that comes second fails
// that input, naming the output and the temporary name the first holds, and reads nothing of
// it (the input is a FIFO: a frame it took would be missing from the first's output); the first
// finishes with every frame.
TEST(AppBatchOutcomes, ASecondTaskMakingTheSameOutputFailsAndLeavesItToTheFirst) {
  TempDir dir("outcomes_claim");
  fs::create_directories(dir / "out");
  const std::string whole = dir / "whole.y4m", fifo = dir / "in.y4m";
  makeClip(whole, "testsrc2=size=96x64:rate=25", "-frames:v 40 -f yuv4mpegpipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(dir / "list.txt") << fifo << "\n";
  const std::vector<std::string> args = {
      "batch", "--inputs", dir / "list.txt",       "--chain",
      "gray",  "-o",       dir / "out/{name}.mkv", "--no-progress"};
  vf::test::Child first(vf::test::vidfilterBinary(), args);
  // The first task reads the first half, and waits for the rest while the second runs.
  const std::string bytes = contents(whole);
  const int fd = ::open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const auto put = [&](std::size_t from, std::size_t n) {
    for (std::size_t done = 0; done < n;) {
      const ssize_t w = ::write(fd, bytes.data() + from + done, n - done);
      ASSERT_GT(w, 0);
      done += std::size_t(w);
    }
  };
  put(0, bytes.size() / 2);
  ASSERT_TRUE(first.readUntil(
      [](const std::string& err) { return err.find("writing ") != std::string::npos; }, 120))
      << first.wait().err;
  ProcOptions briefly;
  briefly.timeoutSec = 90;  // a second task that reads the FIFO would wait for the rest forever
  const auto second = runVidfilter(args, briefly);
  put(bytes.size() / 2, bytes.size() - bytes.size() / 2);
  ::close(fd);
  const auto r = first.wait();
  EXPECT_EQ(second.status, 1) << second.err;
  EXPECT_NE(second.err.find("'" + std::string(dir / "out/in.mkv") + "' is being made by another"),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find(".in.partial.mkv"), std::string::npos) << second.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "out/in.mkv"), 40);
  EXPECT_FALSE(fs::exists(dir / "out/.in.partial.mkv"));
}

// A complete output skipped with a partial file beside it (a `batch -y` stopped while it made the
// output again): the partial file, which nothing would replace, is removed; one a task holds
// (locked) is left to it.
TEST(AppBatchOutcomes, AStalePartialFileBesideACompleteOutputIsRemoved) {
  TempDir dir("outcomes_stale");
  fs::create_directories(dir / "out");
  const std::string in = dir / "a.mp4", partial = dir / "out/.a.partial.mkv";
  makeClip(in, "testsrc2=size=96x64:rate=25", "-frames:v 20 -c:v libx264");
  const auto batch = [&] {
    return runVidfilter({"batch", "-i", in, "--chain", "gray", "-o", dir / "out/{name}.mkv"});
  };
  ASSERT_EQ(batch().status, 0);
  ASSERT_EQ(countFrames(dir / "out/a.mkv"), 20);
  const auto plant = [&] { std::ofstream(partial) << "half of an earlier run's frames\n"; };
  plant();
  const int held = ::open(partial.c_str(), O_RDONLY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(batch().status, 0);
  EXPECT_TRUE(fs::exists(partial));  // a task's
  ::close(held);
  const auto r = batch();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(partial)) << r.err;
  EXPECT_NE(r.err.find("a stopped run left beside it is removed"), std::string::npos) << r.err;
  EXPECT_EQ(countFrames(dir / "out/a.mkv"), 20);
}

// A task stopped for want of room (here ulimit -f) closes its partial file and then removes it,
// to give the space back: the error says so, not that the file plays.
TEST(AppBatchOutcomes, ATaskOutOfRoomSaysItsPartialFileIsRemoved) {
  TempDir dir("outcomes_room");
  fs::create_directories(dir / "out");
  const std::string in = dir / "a.mkv";
  makeClip(in, "testsrc2=size=320x240:rate=25", "-frames:v 100 -c:v ffv1");
  ProcOptions small;
  small.fileSizeLimit = 60000;
  const auto r = runVidfilter(
      {"batch", "-i", in, "--chain", "gray", "--codec", "ffv1", "-o", dir / "out/{name}.mkv"},
      small);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("the partial file is removed to give its space back"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("which plays"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/.a.partial.mkv"));
  EXPECT_FALSE(fs::exists(dir / "out/a.mkv"));
}
