// Several inputs in one process with the real binary: four inputs at once give, frame for frame,
// what four separate runs give (ffmpeg's framemd5 of lossless FFV1 outputs); a bad input among
// good ones fails alone; outputs that do not match the inputs are refused before anything runs;
// one input over two devices keeps its frames in order. (Stopping, the --json summary, input
// lists: tests/test_app_jobs_control.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "tests/support/json_file.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

namespace {

const std::string kChain = "blur=sigma=1.5,sobel,hist,brightness";

// Four different clips: real video at two sizes (one odd), two synthetic patterns (one odd
// size, one with motion and noise), 12 to 20 frames each.
std::vector<std::string> makeClips(const TempDir& dir) {
  std::vector<std::string> clips = {dir / "walk.mkv", dir / "walk_odd.mp4", dir / "bars.mkv",
                                    dir / "noise.avi"};
  ffmpeg("-i " + q(kVideo) + " -frames:v 20 -c:v ffv1 " + q(clips[0]));
  ffmpeg("-ss 3 -i " + q(kVideo) +
         " -frames:v 15 -vf scale=333:251 -c:v libx264 -pix_fmt yuv444p " + q(clips[1]));
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 12 -c:v ffv1 " + q(clips[2]));
  ffmpeg(
      "-f lavfi -i mandelbrot=size=211x97:rate=25 -vf noise=alls=40:allf=t -frames:v 17 "
      "-c:v mpeg4 -q:v 2 " +
      q(clips[3]));
  return clips;
}

}  // namespace

TEST(AppJobs, FourInputsAtOnceOnOneOrTwoDevicesEqualFourSeparateRuns) {
  TempDir dir("jobs_four");
  const auto clips = makeClips(dir);
  fs::create_directories(dir / "one");
  fs::create_directories(dir / "all");
  // The separate runs decode with one thread (--threads 1), the run of four with the cores
  // shared among them (several threads each): the frames are the same.
  for (const auto& c : clips) {
    const std::string out = (dir.path() / "one" / (fs::path(c).stem().string() + ".mkv")).string();
    const auto r =
        runVidfilter({"-i", c, "--chain", kChain, "--codec", "ffv1", "--threads", "1", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto r = runVidfilter({"-i", clips[0], "-i", clips[1], "-i", clips[2], "-i", clips[3],
                               "--chain", kChain, "--codec", "ffv1", "-o", dir / "all/{name}.mkv",
                               "--json", dir / "run.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = readJson(dir / "run.json");
  ASSERT_EQ(doc["inputs"].size(), 4u);
  EXPECT_EQ(doc["exit_status"], 0);
  EXPECT_EQ(doc["at_once"], 4);
  for (std::size_t k = 0; k < clips.size(); ++k) {
    const std::string name = fs::path(clips[k]).stem().string();
    const std::string single = (dir.path() / "one" / (name + ".mkv")).string();
    const std::string multi = (dir.path() / "all" / (name + ".mkv")).string();
    const long frames = countFrames(clips[k]);
    ASSERT_GT(frames, 10);
    EXPECT_EQ(countFrames(multi), frames) << multi;
    const auto a = frameHashes(single), b = frameHashes(multi);
    EXPECT_EQ(a.size(), static_cast<std::size_t>(frames));
    EXPECT_EQ(a, b) << name << ": the run with four inputs differs from the run with one";
    const auto& in = doc["inputs"][k];
    EXPECT_EQ(in["index"], k);
    EXPECT_EQ(in["input"], clips[k]);
    EXPECT_EQ(in["output"], multi);
    EXPECT_EQ(in["status"], "done");
    EXPECT_EQ(in["frames_out"], frames);
    EXPECT_EQ(in["frames_written"], frames);
    EXPECT_GT(in["fps"].get<double>(), 0);
  }
  EXPECT_NE(r.err.find("4 done"), std::string::npos) << r.err;

  // Two PoCL devices (--device all, here in a list that names one of them again: each device
  // once): the inputs spread over both, the frames are the same.
  fs::create_directories(dir / "two");
  ProcOptions two;
  two.setEnv = {"POCL_DEVICES=pthread pthread"};
  const auto r2 = runVidfilter(
      {"-i", clips[0], "-i", clips[1], "-i", clips[2], "-i", clips[3], "--chain", kChain, "--codec",
       "ffv1", "-o", dir / "two/{name}.mkv", "--device", "all,0:1", "--json", dir / "two.json"},
      two);
  ASSERT_EQ(r2.status, 0) << r2.err;
  const auto doc2 = readJson(dir / "two.json");
  std::set<std::string> used;
  for (std::size_t k = 0; k < clips.size(); ++k) {
    const std::string name = fs::path(clips[k]).stem().string();
    EXPECT_EQ(frameHashes((dir.path() / "one" / (name + ".mkv")).string()),
              frameHashes((dir.path() / "two" / (name + ".mkv")).string()))
        << name << ": two devices differ from one";
    used.insert(doc2["inputs"][k]["device"].get<std::string>());
  }
  EXPECT_EQ(used, (std::set<std::string>{"0:0", "0:1"})) << doc2.dump();
  // Each device's busy share: the time any of its commands ran over the run's time (the
  // device's clock and the host's may differ in rate by a little).
  for (const char* dev : {"0:0", "0:1"}) {
    EXPECT_GT(doc2["device_busy"][dev].get<double>(), 0) << doc2.dump();
    EXPECT_LE(doc2["device_busy"][dev].get<double>(), 1.01) << doc2.dump();
  }

  // One input at a time (--jobs 1) on two devices: each input's frames are shared between both
  // (none idles), the frames the same.
  fs::create_directories(dir / "seq");
  const auto r3 = runVidfilter(
      {"-i", clips[0], "-i", clips[3], "--jobs", "1", "--chain", kChain, "--codec", "ffv1", "-o",
       dir / "seq/{name}.mkv", "--device", "all", "--json", dir / "seq.json"},
      two);
  ASSERT_EQ(r3.status, 0) << r3.err;
  const auto doc3 = readJson(dir / "seq.json");
  for (std::size_t k : {0u, 1u}) {
    const std::string name = fs::path(clips[k == 0 ? 0 : 3]).stem().string();
    EXPECT_EQ(frameHashes((dir.path() / "one" / (name + ".mkv")).string()),
              frameHashes((dir.path() / "seq" / (name + ".mkv")).string()))
        << name << ": --jobs 1 on two devices differs from one device";
    EXPECT_EQ(doc3["inputs"][k]["device"], "0:0+0:1") << doc3.dump();
  }
  for (const char* dev : {"0:0", "0:1"}) EXPECT_GT(doc3["device_busy"][dev].get<double>(), 0);
}

TEST(AppJobs, ABadInputFailsAloneAndTheOthersFinish) {
  TempDir dir("jobs_bad");
  ffmpeg("-f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 14 -c:v libx264 " + q(dir / "a.mp4"));
  ffmpeg("-f lavfi -i testsrc=size=97x61:rate=25 -frames:v 9 -c:v libx264 " + q(dir / "b.mp4"));
  {  // bytes that are no video at all, under a video's name
    std::ofstream junk(dir / "junk.mp4", std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 50000; ++i) junk.put(static_cast<char>(rng()));
  }
  std::ofstream(dir / "list.txt") << "# inputs\n"
                                  << dir / "a.mp4"
                                  << "\n\n"
                                  << dir / "missing.mp4"
                                  << "\n"
                                  << dir / "junk.mp4"
                                  << "\n  " << dir / "b.mp4"
                                  << "  \n";
  fs::create_directories(dir / "out");
  const auto r =
      runVidfilter({"--inputs", dir / "list.txt", "--chain", "gray,sobel", "-o",
                    dir / "out/{index}_{name}.mp4", "--json", dir / "run.json", "--jobs", "2"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(countFrames(dir / "out/0_a.mp4"), 14);
  EXPECT_EQ(countFrames(dir / "out/3_b.mp4"), 9);
  EXPECT_FALSE(fs::exists(dir / "out/1_missing.mp4"));
  EXPECT_FALSE(fs::exists(dir / "out/2_junk.mp4"));
  EXPECT_NE(r.err.find("missing.mp4' not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("input 2"), std::string::npos) << r.err;
  const auto doc = readJson(dir / "run.json");
  ASSERT_EQ(doc["inputs"].size(), 4u);
  EXPECT_EQ(doc["exit_status"], 1);
  const char* want[] = {"done", "failed", "failed", "done"};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(doc["inputs"][k]["status"], want[k]) << k;
    EXPECT_EQ(doc["inputs"][k]["error"].is_null(), k == 0 || k == 3) << k;
  }
  EXPECT_EQ(doc["inputs"][3]["frames_out"], 9);
}

TEST(AppJobs, OutputsThatDoNotMatchTheInputsAreRefusedBeforeAnything) {
  TempDir dir("jobs_usage");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(dir / "a.mkv"));
  fs::create_directories(dir / "x");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(dir / "x/a.mkv"));
  const std::string a = dir / "a.mkv", xa = dir / "x/a.mkv";
  fs::create_directory_symlink(dir.path(), dir / "link");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"-i", a, "-i", xa, "-i", a, "-o", dir / "1.mkv", "-o", dir / "2.mkv"},
       "2 outputs (-o) for 3"},
      {{"-i", a, "-i", xa, "-o", dir / "o.mkv"}, "put {name}"},
      {{"-i", a, "-i", xa, "-o", dir / "o_{name}.mkv"}, "put {index} in the output name"},
      {{"-i", a, "-o", dir / "o_{nme}.mkv"}, "{nme} is not a field; the fields are {name}"},
      // With several inputs the typo is named too, not taken for a name without fields.
      {{"-i", a, "-i", xa, "-o", dir / "o_{nme}.mkv"}, "{nme} is not a field"},
      {{"-i", a, "-i", xa, "-o", dir / "o.mkv", "-o", xa}, "writing it would destroy what is read"},
      {{"-i", a, "-i", xa, "-o", dir / "o.mkv", "-o", dir / "o.mkv"},
       "would both write '" + dir / "o.mkv" + "'; give each input an output of its own"},
      {{"-i", a, "-i", xa, "-o", dir / "o.mkv", "-o", dir / "link/o.mkv"},
       "is also the output of input 0"},
      {{"-i", a, "-i", xa, "-o", "-", "-o", dir / "o.mkv"}, "stdout carries one video"},
      {{"-i", a, "-i", a, "-o", dir / "o_{index}.mkv", "--stats", dir / "s_{name}.jsonl"},
       "the --stats of input 1 '" + dir / "s_a.jsonl" + "' is also the --stats of input 0"},
      {{"-i", a, "--shard", "0/2", "-o", dir / "o.mkv"}, "vidfilter batch"},
      {{"-i", a, "-o", dir / "o.mkv", "--json", dir / "r{index}.json"},
       "{index} is not a field of --json"},
  };
  for (const auto& c : cases) {
    auto args = c.args;
    args.insert(args.end(), {"--chain", "sobel", "-y"});
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 2) << c.says << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "o.mkv"));
    EXPECT_FALSE(fs::exists(dir / "1.mkv"));
  }
  EXPECT_EQ(countFrames(a), 3);  // the inputs are untouched
  EXPECT_EQ(countFrames(xa), 3);
}

TEST(AppJobs, OneInputOverTwoDevicesKeepsItsFramesInOrder) {
  // Every frame differs (moving pattern, temporal noise): a frame out of place changes the list
  // of hashes.
  TempDir dir("jobs_split");
  ffmpeg(
      "-f lavfi -i testsrc2=size=199x147:rate=25 -vf noise=alls=30:allf=t -frames:v 60 "
      "-c:v ffv1 " +
      q(dir / "in.mkv"));
  const auto one = runVidfilter(
      {"-i", dir / "in.mkv", "--chain", kChain, "--codec", "ffv1", "-o", dir / "one.mkv"});
  ASSERT_EQ(one.status, 0) << one.err;
  ProcOptions two;
  two.setEnv = {"POCL_DEVICES=pthread pthread"};
  const auto r = runVidfilter(
      {"-i", dir / "in.mkv", "--chain", kChain, "--codec", "ffv1", "-o", dir / "two.mkv",
       "--device", "0:0,0:1", "--slots", "3", "--json", dir / "run.json"},
      two);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto a = frameHashes(dir / "one.mkv");
  ASSERT_EQ(a.size(), 60u);
  EXPECT_EQ(a, frameHashes(dir / "two.mkv"));
  const auto doc = readJson(dir / "run.json");
  const auto& in = doc["inputs"][0];
  EXPECT_EQ(in["device"], "0:0+0:1");
  EXPECT_EQ(in["frames_out"], 60);
  EXPECT_EQ(in["frames_per_device"]["0:0"].get<int>() + in["frames_per_device"]["0:1"].get<int>(),
            60);
  // Both devices took frames (each asks for the next one as soon as it has a free slot).
  EXPECT_GT(in["frames_per_device"]["0:0"].get<int>(), 0) << in.dump();
  EXPECT_GT(in["frames_per_device"]["0:1"].get<int>(), 0) << in.dump();
}
