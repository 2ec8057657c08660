// vidfilter batch with the real binary: the share of a list each task of a job array takes
// (--shard I/N, Slurm's SLURM_ARRAY_TASK_ID/COUNT, Kubernetes' JOB_COMPLETION_INDEX with
// --shards), complete outputs skipped on a re-run, a partial output left by a stopped task
// redone, SIGTERM while four outputs are written (partial names only, each plays), outputs that
// are inputs refused, Slurm's variables, frame counts by ffprobe.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

namespace {

struct Batch {
  TempDir dir{"batch"};
  std::vector<std::string> names;
  std::vector<long> frames;

  explicit Batch(std::vector<std::string> n = {"a", "b", "c", "d", "e"},
                 std::vector<long> f = {4, 6, 5, 7, 3})
      : names(std::move(n)), frames(std::move(f)) {
    std::ofstream list(dir / "list.txt");
    for (std::size_t k = 0; k < names.size(); ++k) {
      ffmpeg("-f lavfi -i testsrc2=size=" + std::to_string(64 + 2 * k) + "x" +
             std::to_string(47 + k) + ":rate=25 -frames:v " + std::to_string(frames[k]) +
             " -c:v libx264 " + q(dir / (names[k] + ".mp4")));
      list << dir / (names[k] + ".mp4") << "\n";
    }
    fs::create_directories(dir / "out");
  }
  std::string out(std::size_t k) const { return dir / ("out/" + names[k] + ".mkv"); }
  vf::test::ProcResult run(std::vector<std::string> extra, const ProcOptions& o = {}) const {
    std::vector<std::string> args = {"batch",
                                     "--inputs",
                                     dir / "list.txt",
                                     "--chain",
                                     "gray,sobel",
                                     "-o",
                                     dir / "out/{name}.mkv",
                                     "--json",
                                     dir / "out/report_{shard}.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runVidfilter(args, o);
  }
  nlohmann::json report(int shard) const {
    std::ifstream in(dir / ("out/report_" + std::to_string(shard) + ".json"));
    return nlohmann::json::parse(in);
  }
};

}  // namespace

// A task that fails mid-way (here the device, through VIDFILTER_FAULT) leaves no hidden partial
// file behind: it would only hold space (on a full disk, the space the next task needs); the
// re-run makes the output.
TEST(AppBatch, AFailedTaskLeavesNoPartialFile) {
  Batch b({"a", "b"}, {6, 7});
  ProcOptions fault;
  fault.setEnv = {"VIDFILTER_FAULT=enqueue:3"};
  const auto r = b.run({"--shard", "0/1"}, fault);
  EXPECT_EQ(r.status, 1) << r.err;
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_FALSE(fs::exists(b.out(k))) << b.names[k];
    EXPECT_FALSE(fs::exists(b.dir / ("out/." + b.names[k] + ".partial.mkv"))) << b.names[k];
    EXPECT_EQ(b.report(0)["inputs"][k]["status"], "failed") << r.err;
  }
  const auto again = b.run({"--shard", "0/1"});
  ASSERT_EQ(again.status, 0) << again.err;
  for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(countFrames(b.out(k)), b.frames[k]) << k;
}

TEST(AppBatch, EachShareTakesEveryNthInputAndCompleteOutputsAreSkipped) {
  Batch b;
  const auto r0 = b.run({"--shard", "0/2"});
  ASSERT_EQ(r0.status, 0) << r0.err;
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_EQ(fs::exists(b.out(k)), k % 2 == 0) << b.names[k] << "\n" << r0.err;
  // Slurm's array variables give the other share.
  ProcOptions slurm;
  slurm.setEnv = {"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_COUNT=2"};
  const auto r1 = b.run({}, slurm);
  ASSERT_EQ(r1.status, 0) << r1.err;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(countFrames(b.out(k)), b.frames[k]) << k;
  EXPECT_EQ(b.report(1)["shard"], "1/2 (SLURM_ARRAY_TASK_ID)");
  ASSERT_EQ(b.report(1)["inputs"].size(), 2u);
  EXPECT_EQ(b.report(1)["inputs"][1]["index"], 3);
  EXPECT_EQ(b.report(1)["inputs"][1]["frames_out"], 7);

  // A re-run of share 0 after its task was stopped while writing c: a and e are complete and
  // skipped (untouched), c's partial file is replaced and renamed when complete.
  const auto before = fs::last_write_time(b.out(0));
  fs::remove(b.out(2));
  std::ofstream(b.dir / "out/.c.partial.mkv") << "half a file";
  const auto again = b.run({"--shard", "0/2"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(fs::last_write_time(b.out(0)), before);
  EXPECT_EQ(countFrames(b.out(2)), 5);
  EXPECT_FALSE(fs::exists(b.dir / "out/.c.partial.mkv"));
  const auto doc = b.report(0);
  ASSERT_EQ(doc["inputs"].size(), 3u);
  EXPECT_EQ(doc["inputs"][0]["status"], "skipped");
  EXPECT_EQ(doc["inputs"][1]["status"], "done");
  EXPECT_EQ(doc["inputs"][1]["frames_out"], 5);
  EXPECT_EQ(doc["inputs"][2]["status"], "skipped");
}

// An output at the final name that is not a complete video is made again, not skipped: empty,
// cut short after it was complete, or left by a run killed before it closed the file.
TEST(AppBatch, IncompleteOutputsAreMadeAgain) {
  Batch b({"whole", "empty", "cut", "killed"}, {50, 50, 50, 50});
  const auto first = b.run({});
  ASSERT_EQ(first.status, 0) << first.err;
  const auto whole = fs::last_write_time(b.out(0));
  std::ofstream(b.out(1), std::ios::trunc).close();
  fs::resize_file(b.out(2), fs::file_size(b.out(2)) / 2);
  // What a killed run leaves: the header and clusters, no duration, no index.
  ffmpeg("-i " + q(b.dir / "killed.mp4") + " -c copy -f matroska -live 1 " + q(b.out(3)));
  const auto again = b.run({});
  ASSERT_EQ(again.status, 0) << again.err;
  for (std::size_t k = 1; k < 4; ++k)
    EXPECT_NE(again.err.find("out/" + b.names[k] + ".mkv' exists but is not a complete video"),
              std::string::npos)
        << b.names[k] << "\n"
        << again.err;
  EXPECT_EQ(fs::last_write_time(b.out(0)), whole);
  const auto doc = b.report(0);
  ASSERT_EQ(doc["inputs"].size(), 4u);
  EXPECT_EQ(doc["inputs"][0]["status"], "skipped");
  for (std::size_t k = 1; k < 4; ++k) {
    EXPECT_EQ(doc["inputs"][k]["status"], "done") << b.names[k];
    EXPECT_EQ(countFrames(b.out(k)), 50) << b.names[k];
  }
}

TEST(AppBatch, ALinkAtThePartialNameIsRemovedNotWrittenThrough) {
  // In a shared output directory someone leaves a symbolic link at the temporary name a task
  // writes: the task removes it and writes a file of its own; the link's target is untouched.
  Batch b;
  // Links at two tasks' names to one file, and one to an input: none is a reason to refuse.
  const std::string victim = b.dir / "victim.txt";
  std::ofstream(victim) << "not to be written";
  fs::create_symlink(victim, b.dir / "out/.a.partial.mkv");
  fs::create_symlink(victim, b.dir / "out/.b.partial.mkv");
  fs::create_symlink(b.dir / "c.mp4", b.dir / "out/.d.partial.mkv");
  const std::string input = shellOutput("md5sum < " + q(b.dir / "c.mp4"));
  const auto r = b.run({"--shard", "0/1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(shellOutput("cat " + q(victim)), "not to be written");
  EXPECT_EQ(shellOutput("md5sum < " + q(b.dir / "c.mp4")), input);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_FALSE(fs::is_symlink(b.out(k))) << k;
    EXPECT_EQ(countFrames(b.out(k)), b.frames[k]) << k;
  }
  for (const char* name : {"a", "b", "d"})
    EXPECT_FALSE(
        fs::exists(fs::symlink_status(b.dir / ("out/." + std::string(name) + ".partial.mkv"))))
        << name;
}

TEST(AppBatch, EachTasksSummaryHasItsOwnName) {
  Batch b;
  auto run = [&](const std::string& shard, const std::string& json) {
    return runVidfilter({"batch", "--inputs", b.dir / "list.txt", "--chain", "gray", "-o",
                         b.dir / "out/{name}.mkv", "--shard", shard, "--json", json});
  };
  // {shard} wherever it is; a name without it is one file for every task: a warning says so.
  const std::string json = b.dir / "out/{shard}/r{shard}.json";
  EXPECT_EQ(run("1/2", json).status, 2);  // out/1/ does not exist: checked first
  fs::create_directories(b.dir / "out/1");
  const auto ok = run("1/2", json);
  ASSERT_EQ(ok.status, 0) << ok.err;
  std::ifstream in(b.dir / "out/1/r1.json");
  EXPECT_EQ(nlohmann::json::parse(in)["shard"], "1/2 (--shard)");
  EXPECT_EQ(ok.err.find("has no {shard}"), std::string::npos) << ok.err;
  const auto one = run("0/2", b.dir / "out/all.json");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.err.find("has no {shard}: each task of the job array writes it"), std::string::npos)
      << one.err;
}

// A task run again replaces its own summary and --stats lines; another file under those names
// only with -y, and nothing at all with -n.
TEST(AppBatch, ReportsReplaceOnlyTheirOwnKind) {
  Batch b;
  const std::string notes = b.dir / "out/report_0.json", stats = b.dir / "out/a.jsonl";
  std::ofstream(notes) << "precious\n";
  const std::vector<std::string> statsArgs = {"--stats", b.dir / "out/{name}.jsonl"};
  auto refused = b.run({"--shard", "0/3"});
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("no report of vidfilter's"), std::string::npos) << refused.err;
  EXPECT_EQ(b.run({"--shard", "0/3", "-n"}).status, 2);
  std::ifstream kept(notes);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>()),
            "precious\n");
  fs::remove(notes);
  std::vector<std::string> args = {"--shard", "0/3"};
  args.insert(args.end(), statsArgs.begin(), statsArgs.end());
  ASSERT_EQ(b.run(args).status, 0);
  ASSERT_TRUE(fs::exists(stats));
  const auto again = b.run(args);  // its own report and stats: replaced
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(b.report(0)["inputs"][0]["status"], "skipped");
  args.push_back("-n");
  EXPECT_EQ(b.run(args).status, 2);  // -n: not even its own
}

TEST(AppBatch, KubernetesIndexNeedsTheNumberOfShares) {
  Batch b;
  ProcOptions k8s;
  k8s.setEnv = {"JOB_COMPLETION_INDEX=1"};
  const auto bad = b.run({}, k8s);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--shards"), std::string::npos) << bad.err;
  const auto r = b.run({"--shards", "2"}, k8s);
  ASSERT_EQ(r.status, 0) << r.err;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(fs::exists(b.out(k)), k % 2 == 1) << k;
  EXPECT_EQ(countFrames(b.out(3)), 7);
}

// batch's help says what batch takes before the options; without inputs it names --inputs.
TEST(AppBatch, HelpAndAMissingListSayWhatBatchTakes) {
  const auto help = runVidfilter({"batch", "--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_EQ(help.out.rfind("vidfilter batch: ", 0), 0u) << help.out;
  EXPECT_NE(help.out.find("Usage: vidfilter batch --inputs LIST"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--shard"), std::string::npos);
  const auto none = runVidfilter({"batch", "--chain", "gray", "-o", "out/{name}.mp4"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no inputs: vidfilter batch takes a list, --inputs LIST"),
            std::string::npos)
      << none.err;
  // A task whose share is one input that fails exits 1, as any task with a failed input.
  TempDir dir("batch_one_missing");
  std::ofstream(dir / "list.txt") << dir / "missing.mp4"
                                  << "\n";
  fs::create_directories(dir / "out");
  const auto one = runVidfilter(
      {"batch", "--inputs", dir / "list.txt", "--chain", "gray", "-o", dir / "out/{name}.mp4"});
  EXPECT_EQ(one.status, 1) << one.err;
  // stdout cannot be renamed when complete: -o - (or pipe:1) wrote a file named "-" with exit 0
  // (and a rerun skipped it).
  const std::string clip = dir / "clip.mkv";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 2 "
                  "-c:v ffv1 '" +
                  clip + "'")
                .status,
            0);
  for (const char* out : {"-", "pipe:1"}) {
    const auto piped = runVidfilter({"batch", "-i", clip, "--chain", "gray", "-o", out});
    EXPECT_EQ(piped.status, 2) << piped.err;
    EXPECT_NE(piped.err.find("vidfilter batch writes video files"), std::string::npos) << piped.err;
  }
}

TEST(AppBatch, AnOutputThatIsAnInputIsRefusedNotSkipped) {
  Batch b;
  // Outputs named as the inputs themselves: they exist, but they are what is read, not
  // complete outputs.
  const std::string in = b.dir / "a.mp4";
  const auto before = shellOutput("md5sum < " + q(in));
  for (const char* y : {"-n", "-y"}) {
    const auto r = runVidfilter({"batch", "--inputs", b.dir / "list.txt", "--chain", "gray", "-o",
                                 b.dir / "{name}.mp4", y});
    EXPECT_EQ(r.status, 2) << y << "\n" << r.err;
    EXPECT_NE(r.err.find("would destroy what is read"), std::string::npos) << r.err;
  }
  // An output that is an input of another share (which another task reads meanwhile).
  const auto other = runVidfilter({"batch", "-i", in, "-i", b.dir / "c.mp4", "--shard", "1/2",
                                   "--chain", "gray", "-o", b.dir / "out/a.mkv", "-o", in, "-y"});
  EXPECT_EQ(other.status, 2) << other.err;
  EXPECT_NE(other.err.find("is input 0"), std::string::npos) << other.err;
  EXPECT_EQ(shellOutput("md5sum < " + q(in)), before);
  EXPECT_EQ(countFrames(in), 4);
  // An output that is another output's temporary name (an input named ".a.partial.mp4" next to
  // "a.mp4"): the rename would take it away.
  fs::create_directories(b.dir / "odd");
  fs::copy_file(in, b.dir / "odd/.a.partial.mp4");
  const auto taken = runVidfilter({"batch", "-i", in, "-i", b.dir / "odd/.a.partial.mp4", "--shard",
                                   "0/1", "--chain", "gray", "-o", b.dir / "out/{name}.mp4"});
  EXPECT_EQ(taken.status, 2) << taken.err;
  EXPECT_NE(taken.err.find("temporary name"), std::string::npos) << taken.err;
}

TEST(AppBatch, SlurmArraysWithAStepAndMalformedVariables) {
  Batch b;
  // --array=1-5:2 runs tasks 1, 3, 5; real Slurm (22.05) sets these for task 3: share 1 of 3.
  ProcOptions stepped;
  stepped.setEnv = {"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=5",
                    "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=3"};
  const auto r = b.run({}, stepped);
  ASSERT_EQ(r.status, 0) << r.err;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(fs::exists(b.out(k)), k % 3 == 1) << k;
  EXPECT_EQ(countFrames(b.out(4)), 3);
  EXPECT_EQ(b.report(1)["shard"], "1/3 (SLURM_ARRAY_TASK_ID)");
  // Values that are not numbers (empty, spaced), or past any array's size, are named as given.
  const std::string id = "SLURM_ARRAY_TASK_ID=1", count = "SLURM_ARRAY_TASK_COUNT=2";
  for (const auto& [env, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"SLURM_ARRAY_TASK_ID=99999999999999999999", count},
            "SLURM_ARRAY_TASK_ID=99999999999999999999"},
           {{id, "SLURM_ARRAY_TASK_COUNT=4294967298"}, "SLURM_ARRAY_TASK_COUNT=4294967298"},
           {{id, count, "SLURM_ARRAY_TASK_STEP=x"}, "SLURM_ARRAY_TASK_STEP=x"},
           {{"SLURM_ARRAY_TASK_ID=", count}, "SLURM_ARRAY_TASK_ID="},
           {{"SLURM_ARRAY_TASK_ID= 1", count}, "SLURM_ARRAY_TASK_ID= 1"},
           {{"SLURM_ARRAY_TASK_ID=1 ", count}, "SLURM_ARRAY_TASK_ID=1 "}}) {
    ProcOptions bad;
    bad.setEnv = env;
    const auto e = b.run({}, bad);
    EXPECT_EQ(e.status, 2) << e.err;
    EXPECT_NE(e.err.find(named + " is not a number"), std::string::npos) << e.err;
  }
  EXPECT_FALSE(fs::exists(b.out(0)));
  // With --shards N the task IDs are the shares: a re-submission of the failed task 3 alone
  // (sbatch --array=3) takes share 3 of 5, not 0 of 1.
  ProcOptions resubmitted;
  resubmitted.setEnv = {"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_MAX=3",
                        "SLURM_ARRAY_TASK_COUNT=1"};
  const auto again = b.run({"--shards", "5"}, resubmitted);
  ASSERT_EQ(again.status, 0) << again.err;
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(fs::exists(b.out(k)), k % 3 == 1 || k == 3) << k;
  EXPECT_EQ(countFrames(b.out(3)), 7);
  resubmitted.setEnv[0] = "SLURM_ARRAY_TASK_ID=5";
  const auto past = b.run({"--shards", "5"}, resubmitted);
  EXPECT_EQ(past.status, 2) << past.err;
  EXPECT_NE(past.err.find("SLURM_ARRAY_TASK_ID=5 is not below --shards 5"), std::string::npos)
      << past.err;
}

TEST(AppBatch, SigtermLeavesOnlyPartialNamesThatPlayAndARerunCompletesThem) {
  TempDir dir("batch_sigterm");
  fs::create_directories(dir / "out");
  std::ofstream list(dir / "list.txt");
  for (int k = 0; k < 4; ++k) {
    const std::string clip = dir / ("c" + std::to_string(k) + ".avi");
    fs::create_symlink(kVideo, clip);
    list << clip << "\n";
  }
  list.close();
  const std::vector<std::string> args = {"batch",
                                         "--inputs",
                                         dir / "list.txt",
                                         "--chain",
                                         "blur,sobel",
                                         "--frames",
                                         "120",
                                         "-o",
                                         dir / "out/{name}.mkv",
                                         "--json",
                                         dir / "out/run.json",
                                         "--no-progress"};
  vf::test::Child child(vf::test::vidfilterBinary(), args);
  const bool writing = child.readUntil(
      [](const std::string& err) {
        int n = 0;
        for (auto at = err.find("writing "); at != std::string::npos;
             at = err.find("writing ", at + 1))
          ++n;
        return n >= 4;
      },
      60);
  ASSERT_TRUE(writing);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  child.signal(SIGTERM);
  const auto r = child.wait();
  ASSERT_EQ(r.status, 143) << r.err;
  std::ifstream in(dir / "out/run.json");
  const auto doc = nlohmann::json::parse(in);
  for (int k = 0; k < 4; ++k) {
    const std::string name = "c" + std::to_string(k);
    const auto& job = doc["inputs"][k];
    EXPECT_EQ(job["status"], "stopped") << job.dump();
    // Nothing under the final name; the partial file plays, every frame said written.
    EXPECT_FALSE(fs::exists(dir / ("out/" + name + ".mkv"))) << name;
    const long frames = job["frames_out"].get<long>();
    EXPECT_GT(frames, 0) << name;
    EXPECT_LT(frames, 120) << name;
    EXPECT_EQ(countFrames(dir / ("out/." + name + ".partial.mkv")), frames) << name;
  }
  // The re-run redoes them: every output complete, no partial file left.
  const auto again = runVidfilter(args);
  ASSERT_EQ(again.status, 0) << again.err;
  for (int k = 0; k < 4; ++k) {
    const std::string name = "c" + std::to_string(k);
    EXPECT_EQ(countFrames(dir / ("out/" + name + ".mkv")), 120) << name;
    EXPECT_FALSE(fs::exists(dir / ("out/." + name + ".partial.mkv"))) << name;
  }
}
