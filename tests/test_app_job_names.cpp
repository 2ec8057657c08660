// What the inputs and outputs of several-input runs are named, with the real binary: {name} never
// names a directory, and ffmpeg's spellings (file:NAME, pipe:1) are the names they stand for
// before any output is checked against the inputs or expanded.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

TEST(AppJobNames, ANameOfDotsStaysInItsDirectory) {
  // {name} of "...mkv" was "..": -o 'deep/{name}/{index}.mkv' wrote deep/../0.mkv, outside the
  // directory the pattern names. A name of dots only becomes underscores.
  TempDir dir("jobs_dots");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(dir / "...mkv"));
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(dir / "b.mkv"));
  fs::create_directories(dir / "deep/__");
  fs::create_directories(dir / "deep/b");
  const auto r = runVidfilter({"-i", dir / "...mkv", "-i", dir / "b.mkv", "--chain", "sobel", "-o",
                               dir / "deep/{name}/{index}.mkv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "deep/__/0.mkv"), 3);
  EXPECT_EQ(countFrames(dir / "deep/b/1.mkv"), 3);
  EXPECT_FALSE(fs::exists(dir / "0.mkv"));
}

TEST(AppJobNames, FfmpegsSpellingsAreCheckedAsTheNamesTheyStandFor) {
  // With several inputs (or one with --json: the same runner) "file:NAME" outputs were checked
  // as the names "file:NAME" while NAME was written: an input taken for an output was not
  // refused, and batch renamed its temporary file to "file:NAME".
  TempDir dir("jobs_spellings");
  const std::string a = dir / "a.mkv", b = dir / "b.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(a));
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -c:v ffv1 " + q(b));
  const std::string pattern = "file:" + (dir / "{name}.mkv");  // the inputs themselves
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-i", a, "-i", b, "-o", pattern},
           {"-i", "file:" + a, "-o", "file:" + a, "--json", dir / "one.json"},
           {"batch", "-i", a, "-i", b, "-o", pattern}}) {
    SCOPED_TRACE(args.back());
    auto all = args;
    all.insert(all.end(), {"--chain", "sobel", "-y"});
    const auto r = runVidfilter(all);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("would destroy what is read"), std::string::npos) << r.err;
    EXPECT_EQ(countFrames(a), 3);
    EXPECT_EQ(countFrames(b), 3);
  }
  const auto ok = runVidfilter(
      {"batch", "-i", a, "-i", b, "--chain", "sobel", "-o", "file:" + (dir / "{name}_e.mkv")});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(countFrames(dir / "a_e.mkv"), 3);
  EXPECT_EQ(countFrames(dir / "b_e.mkv"), 3);
  EXPECT_FALSE(fs::exists(dir / "file:a_e.mkv"));
}
