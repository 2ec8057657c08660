// Several inputs in one process with the real binary: Ctrl-C stops every input and each output
// plays; the --json summary is checked before anything runs and counts what ffprobe counts;
// input lists from a file or stdin; one input names its output as several do. (Outputs equal
// to separate runs, a bad input alone, refused outputs: tests/test_app_jobs.cpp.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/json_file.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

namespace {

const std::string kChain = "blur=sigma=1.5,sobel,hist,brightness";

// Starts vidfilter with `args`, waits until `ready` appears on stderr (the outputs open), lets
// frames flow for a moment, sends SIGINT and returns the result.
vf::test::ProcResult interruptAfterStart(const std::vector<std::string>& args, int writing,
                                         const ProcOptions& opt = {}) {
  vf::test::Child child(vf::test::vidfilterBinary(), args, opt);
  const bool started = child.readUntil(
      [&](const std::string& err) {
        int n = 0;
        for (auto at = err.find("writing "); at != std::string::npos;
             at = err.find("writing ", at + 1))
          ++n;
        return n >= writing;
      },
      60);
  EXPECT_TRUE(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  child.signal(SIGINT);
  return child.wait();
}

}  // namespace

TEST(AppJobs, CtrlCStopsEveryInputAndEachOutputPlays) {
  TempDir dir("jobs_sigint");
  const std::string video = kVideo;
  const auto r =
      interruptAfterStart({"-i", video, "-i", video, "-i", video, "--jobs", "2", "--chain", kChain,
                           "-o", dir / "{index}.mkv", "--json", dir / "run.json"},
                          2);
  EXPECT_EQ(r.status, 130) << r.err;
  const auto doc = readJson(dir / "run.json");
  for (int k = 0; k < 2; ++k) {
    const auto& in = doc["inputs"][k];
    EXPECT_EQ(in["status"], "stopped") << in.dump();
    const long frames = in["frames_out"].get<long>();
    EXPECT_GT(frames, 0);
    EXPECT_LT(frames, 795);
    EXPECT_EQ(countFrames(dir / (std::to_string(k) + ".mkv")), frames);
  }
  EXPECT_EQ(doc["inputs"][2]["status"], "waiting");
  EXPECT_FALSE(fs::exists(dir / "2.mkv"));

  // One input over two devices: the output ends at the last frame in order, and plays.
  ProcOptions two;
  two.setEnv = {"POCL_DEVICES=pthread pthread"};
  const auto s = interruptAfterStart({"-i", video, "--device", "all", "--chain", kChain, "-o",
                                      dir / "split.mkv", "--json", dir / "split.json"},
                                     1, two);
  EXPECT_EQ(s.status, 130) << s.err;
  const long written = readJson(dir / "split.json")["inputs"][0]["frames_out"].get<long>();
  EXPECT_GT(written, 0);
  EXPECT_EQ(countFrames(dir / "split.mkv"), written);
}

TEST(AppJobs, JsonSummaryIsCheckedFirstAndNeverReplacesADevice) {
  TempDir dir("jobs_json");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -c:v ffv1 " + q(dir / "a.mkv"));
  ffmpeg("-f lavfi -i testsrc2=size=80x60:rate=25 -frames:v 4 -c:v ffv1 " + q(dir / "b.mkv"));
  fs::create_directories(dir / "out");
  const std::vector<std::string> two = {"-i",      dir / "a.mkv", "-i", dir / "b.mkv",
                                        "--chain", "sobel",       "-o", dir / "out/{name}.mkv"};
  // A --json that cannot be written is the user's, said before anything runs.
  for (const auto& [json, says] : std::vector<std::pair<std::string, std::string>>{
           {dir / "out", "is a directory"}, {dir / "nodir/r.json", "does not exist"}}) {
    auto args = two;
    args.insert(args.end(), {"--json", json});
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out/a.mkv"));
  }
  // A device or a FIFO is written as it is: /dev/full fails the run and stays a device; a
  // FIFO's reader gets the summary.
  auto full = two;
  full.insert(full.end(), {"--json", "/dev/full", "-y"});
  const auto f = runVidfilter(full);
  EXPECT_EQ(f.status, 1) << f.err;
  EXPECT_NE(f.err.find("No space left on device"), std::string::npos) << f.err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  const std::string fifo = dir / "summary.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  auto piped = two;
  piped.insert(piped.end(), {"--json", fifo, "-y", "--jobs", "8"});
  const auto p = runVidfilter(piped);
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  std::string text(1 << 16, '\0');
  const ssize_t n = ::read(reader, text.data(), text.size());
  ::close(reader);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << text;
  EXPECT_EQ(doc["inputs"][1]["frames_out"], 4);
  EXPECT_EQ(doc["at_once"], 2);  // --jobs 8 with two inputs runs two at once

  // One input: the summary too, as for several (frames as ffprobe counts them); with -o - it
  // needs a file of its own.
  const auto one = runVidfilter({"-i", dir / "a.mkv", "--chain", "sobel", "-o", dir / "out/one.mkv",
                                 "--json", dir / "one.json"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(readJson(dir / "one.json")["inputs"][0]["frames_out"],
            countFrames(dir / "out/one.mkv"));
  EXPECT_EQ(countFrames(dir / "out/one.mkv"), 6);
  // A fused pass is one entry named for its stages, as in the table; the stages it took in
  // have none of their own.
  const auto fused = runVidfilter({"-i", dir / "a.mkv", "--chain", "sobel,hist,brightness",
                                   "--fuse", "--json", dir / "fused.json"});
  ASSERT_EQ(fused.status, 0) << fused.err;
  const auto fusedDoc = readJson(dir / "fused.json");
  std::vector<std::string> timed;
  for (const auto& [name, ms] : fusedDoc["inputs"][0]["device_ms"].items()) {
    timed.push_back(name);
    EXPECT_GE(ms.get<double>(), 0) << name;
  }
  EXPECT_EQ(timed, (std::vector<std::string>{"1 sobel", "2 hist+brightness"}));
  const auto mixed =
      runVidfilter({"-i", dir / "a.mkv", "--chain", "sobel", "-o", "-", "--json", "-"});
  EXPECT_EQ(mixed.status, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("stdout carries the video"), std::string::npos) << mixed.err;
  EXPECT_TRUE(mixed.out.empty());
}

TEST(AppJobs, InputListsFromAFileOrStdinWithCommentsBlankLinesAndCrlf) {
  TempDir dir("jobs_list");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 5 -c:v ffv1 " + q(dir / "a.mkv"));
  ffmpeg("-f lavfi -i testsrc2=size=80x60:rate=25 -frames:v 3 -c:v ffv1 " + q(dir / "b b.mkv"));
  // A BOM and Windows line ends, a comment after spaces, blank and white lines, no final
  // newline.
  std::ofstream(dir / "list.txt") << "\xEF\xBB\xBF  " << dir / "a.mkv"
                                  << "  \r\n\r\n# clips\r\n"
                                  << " \t\n   # old\n"
                                  << dir / "b b.mkv";
  fs::create_directories(dir / "out");
  ProcOptions fromStdin;
  fromStdin.stdinPath = dir / "list.txt";
  for (const std::string& list : {std::string(dir / "list.txt"), std::string("-")}) {
    const auto r = runVidfilter({"--inputs", list, "--chain", "sobel", "-o",
                                 dir / "out/{index}_{name}.mkv", "-y", "--json", dir / "r.json"},
                                fromStdin);
    ASSERT_EQ(r.status, 0) << list << "\n" << r.err;
    EXPECT_EQ(countFrames(dir / "out/0_a.mkv"), 5) << list;
    EXPECT_EQ(countFrames(dir / "out/1_b_b.mkv"), 3) << list;
    EXPECT_EQ(readJson(dir / "r.json")["inputs"].size(), 2u) << list;
    fs::remove_all(dir / "out");
    fs::create_directories(dir / "out");
  }
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--inputs", dir / "out"}, "is a directory; give a file listing inputs"},
      {{"--inputs", dir / "none.txt"}, "No such file or directory"},
      {{"--inputs", "-", "-i", "-"}, "stdin carries the list of inputs"},
      {{"--inputs", dir / "a.mkv"}, "holds a NUL byte: this is not a text list of inputs"},
      // Never read whole: /dev/zero, and a line of 100 KB with no end.
      {{"--inputs", "/dev/zero"}, "line 1 holds a NUL byte"},
      {{"--inputs", dir / "long.txt"}, "line 2 is longer than 64 KiB"},
  };
  std::ofstream(dir / "long.txt") << "a.mkv\n" << std::string(100000, 'x');
  for (const auto& c : cases) {
    auto args = c.args;
    args.insert(args.end(), {"--chain", "sobel", "-o", dir / "out/{index}.mkv"});
    const auto r = runVidfilter(args, fromStdin);
    EXPECT_EQ(r.status, 2) << c.says << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(dir / "out"));
  }
}

TEST(AppJobs, OneInputExpandsNameAndIndexAsSeveralDo) {
  // The command a script runs for each file, one at a time: {name} is the file's name.
  TempDir dir("jobs_one_name");
  fs::create_directories(dir / "in");
  fs::create_directories(dir / "out");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 7 -c:v ffv1 " + q(dir / "in/clip.mkv"));
  const auto r = runVidfilter({"-i", dir / "in/clip.mkv", "--chain", "sobel", "-o",
                               dir / "out/{name}_edges.mkv", "--stats", dir / "out/{index}.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "out/clip_edges.mkv"), 7);
  EXPECT_TRUE(fs::is_regular_file(dir / "out/0.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "out/{name}_edges.mkv"));
  // Letters of any script stay; a space becomes '_'.
  fs::copy_file(dir / "in/clip.mkv", dir / "in/日本 é.mkv");
  ASSERT_EQ(
      runVidfilter({"-i", dir / "in/日本 é.mkv", "--chain", "sobel", "-o", dir / "out/{name}.mkv"})
          .status,
      0);
  EXPECT_EQ(countFrames(dir / "out/日本_é.mkv"), 7);
}
