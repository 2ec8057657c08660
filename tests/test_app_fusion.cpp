// Fusion as the program shows it: the same frames fused and with --no-fuse (or [engine] fuse =
// false), the run summary naming a fused pass by its stages joined with '+', and each stage
// alone without fusion.
#include <gtest/gtest.h>

#include <fstream>
#include <opencv2/imgcodecs.hpp>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// Two point-wise stages and a histogram between them: one fused pass on BGR frames.
const std::string kChain = "brightness=gain=1.4:bias=-12,hist,brightness=gain=0.8:bias=9";
constexpr int kFrames = 4;

// Runs the chain into PNGs under `dir` with `extra` options; returns stderr (the summary).
std::string runInto(const TempDir& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"-i",       kVideo,
                                   "--chain",  kChain,
                                   "--frames", std::to_string(kFrames),
                                   "-o",       dir / "f_%03d.png"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = runVidfilter(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.err;
}

}  // namespace

TEST(AppFusion, NoFuseGivesTheSameFramesAndTimesEachStage) {
  TempDir fused("fuse_on"), plain("fuse_off"), cfg("fuse_cfg");
  const std::string onErr = runInto(fused, {"--fuse"});  // fused on a CPU device too
  const std::string offErr = runInto(plain, {"--no-fuse"});
  // The summary: one row for the fused pass; every stage alone without fusion.
  EXPECT_NE(onErr.find("1 brightness+hist+brightness"), std::string::npos) << onErr;
  EXPECT_EQ(onErr.find("2 hist"), std::string::npos) << onErr;
  EXPECT_NE(offErr.find("1 brightness"), std::string::npos) << offErr;
  EXPECT_NE(offErr.find("2 hist"), std::string::npos) << offErr;
  EXPECT_NE(offErr.find("3 brightness"), std::string::npos) << offErr;
  EXPECT_EQ(offErr.find('+'), std::string::npos) << offErr;

  // The config key says the same as --no-fuse.
  {
    std::ofstream f(cfg / "c.toml");
    f << "[engine]\nfuse = false\n";
  }
  const std::string cfgErr = runInto(cfg, {"--config", cfg / "c.toml"});
  EXPECT_NE(cfgErr.find("2 hist"), std::string::npos) << cfgErr;

  for (int i = 1; i <= kFrames; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "f_%03d.png", i);
    const cv::Mat a = cv::imread(fused / name, cv::IMREAD_UNCHANGED);
    const cv::Mat b = cv::imread(plain / name, cv::IMREAD_UNCHANGED);
    const cv::Mat c = cv::imread(cfg / name, cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(a.empty()) << name;
    ASSERT_FALSE(b.empty()) << name;
    ASSERT_FALSE(c.empty()) << name;
    EXPECT_EQ(maxAbsDiff(a, b), 0) << name;
    EXPECT_EQ(maxAbsDiff(a, c), 0) << name;
    // Not a frame the brightness left flat: the chain changed the picture.
    double lo = 0, hi = 0;
    cv::minMaxLoc(a.reshape(1), &lo, &hi);
    EXPECT_LT(lo, hi) << name;
  }
}

TEST(AppFusion, ConfigFuseMustBeABoolean) {
  TempDir dir("fuse_bad");
  {
    std::ofstream f(dir / "c.toml");
    f << "input = \"" << kVideo << "\"\nchain = \"gray\"\n[engine]\nfuse = \"no\"\n";
  }
  const auto r = runVidfilter({"--config", dir / "c.toml", "--frames", "1"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("engine.fuse"), std::string::npos) << r.err;
}
