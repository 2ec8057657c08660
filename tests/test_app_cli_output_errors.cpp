// The real binary's errors about its outputs: directories that are missing, read-only or
// unwritable, encoder options out of range, containers that refuse a codec, an output over the
// input. Each is one line naming what is wrong, with the exit status (2 for usage, 1 at run
// time). (The inputs, chain, options and devices: tests/test_app_cli_errors.cpp.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf;
using namespace vf::test;
TEST(AppCliBinary, MissingOutputDirectory) {
  TempDir dir("cli_nodir");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "sub/out.mp4"}), 2,
                 "output directory '" + (dir / "sub") + "' does not exist; create it first");
}
TEST(AppCliBinary, OutputLinkToAMissingDirectory) {
  // A link to a file not made yet is written through; one into a missing directory is refused.
  TempDir dir("cli_link");
  std::filesystem::create_directory(dir / "real");
  std::filesystem::create_symlink("real/made.mkv", dir / "through.mkv");
  std::filesystem::create_symlink("nowhere/x.mkv", dir / "broken.mkv");
  const auto ok =
      runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "3", "-o", dir / "through.mkv"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(countFrames(dir / "real/made.mkv"), 3);
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "broken.mkv"}), 2,
                 "the output '" + (dir / "broken.mkv") +
                     "' is a symbolic link to 'nowhere/x.mkv', whose directory does not exist");
}
TEST(AppCliBinary, UnwritableOutputDirectory) {
  TempDir dir("cli_ro");
  std::filesystem::create_directory(dir / "ro");
  std::filesystem::permissions(
      dir / "ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                      std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                      std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  // Root writes anywhere, so as root the check runs as nobody (the temp dir is world-readable).
  test::ProcOptions opt;
  opt.asNobody = geteuid() == 0;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all,
                               std::filesystem::perm_options::add);
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "ro/out.mp4"}, opt);
  expectOneError(r, 2,
                 "output directory '" + (dir / "ro") + "' is not writable (permission denied)");
  const auto seq =
      runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "ro/f_%03d.png"}, opt);
  expectOneError(seq, 2, "is not writable");
}
TEST(AppCliBinary, ReadOnlyFileSystemIsNamed) {
  // Not "permission denied": changing permissions would not help there.
  TempDir dir("cli_rofs");
  const std::string ro = dir / "ro";
  std::filesystem::create_directory(ro);
  if (::mount("tmpfs", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0)
    GTEST_SKIP() << "mounting a read-only tmpfs needs CAP_SYS_ADMIN: " << std::strerror(errno);
  for (const std::string& out : {ro + "/out.mkv", ro + "/f_%03d.png"})
    expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", out}), 2,
                   "'" + ro + "' is not writable (read-only file system)");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--stats", ro + "/s.json"}), 2,
                 "directory '" + ro + "' is not writable (read-only file system)");
  ::umount(ro.c_str());
}
TEST(AppCliBinary, X264PresetAndCrfOutOfItsRange) {
  // x264 printed its own error line for an unknown preset and clamped a crf past 51.
  TempDir dir("cli_x264");
  const std::string out = dir / "o.mp4";
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--preset", "warp", "-o", out}), 2,
                 "--preset 'warp': libx264 takes ultrafast, superfast, veryfast");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--crf", "60", "-o", out}), 2,
                 "--crf 60: libx264 takes 0 to 51");
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto ok = runVidfilter({"-i", kVideo, "--chain", "gray", "--crf", "51", "--preset",
                                "ultrafast", "--frames", "3", "-o", out});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(countFrames(out), 3);
}
TEST(AppCliBinary, QualityOptionsOnLosslessOutputsAreIgnoredWithAWarning) {
  // y4m with --crf was refused pointing at --bitrate, which y4m ignored in silence; ffv1 the same;
  // an image sequence took both in silence. Each given option is now one warning naming it, and
  // the frames are written.
  TempDir dir("cli_lossless");
  struct Case {
    std::string out;
    std::vector<std::string> options, warned;
  };
  for (const Case& c :
       {Case{"o.y4m", {"--crf", "20"}, {"--crf"}},
        Case{"o.mkv",
             {"--codec", "ffv1", "--bitrate", "2M", "--preset", "fast"},
             {"--bitrate", "--preset"}},
        Case{"f_%03d.png", {"--crf", "18", "--preset", "slow"}, {"--crf", "--preset"}}}) {
    SCOPED_TRACE(c.out);
    std::vector<std::string> args = {"-i", kVideo, "--chain", "gray", "--frames", "3"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    args.insert(args.end(), {"-o", dir / c.out});
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    int warnings = 0;
    for (std::size_t at = 0; (at = r.err.find(": warning: ", at)) != std::string::npos; ++at)
      ++warnings;
    EXPECT_EQ(warnings, static_cast<int>(c.warned.size())) << r.err;
    for (const std::string& w : c.warned)
      EXPECT_NE(r.err.find(w + " is ignored"), std::string::npos) << w << "\n" << r.err;
  }
  EXPECT_EQ(countFrames(dir / "o.y4m"), 3);
  EXPECT_EQ(countFrames(dir / "o.mkv"), 3);
  for (const char* f : {"f_001.png", "f_002.png", "f_003.png"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
}
TEST(AppCliBinary, OutputFramesPastTheEncodersLimit) {
  // Was: "the h264 (libx264) encoder could not start at 0x0" (exit 1).
  TempDir dir("cli_huge");
  const std::string out = dir / "o.mkv";
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray,resize=size=16384x16384", "--frames",
                               "1", "-o", out}),
                 2, "16384x16384 frames are past what FFmpeg's encoders take");
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string images = dir / "f_%03d.png";  // image sequences the same, exit 2
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray,resize=size=16384x16384", "--frames",
                               "1", "-o", images}),
                 2, "16384x16384 frames are past what FFmpeg's encoders take");
  EXPECT_FALSE(std::filesystem::exists(dir / "f_001.png"));
}
TEST(AppCliBinary, UnknownContainer) {
  TempDir dir("cli_ext");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "out.xyz"}), 2,
                 "unknown container '.xyz'");
}

// Audio files whose one picture is a cover (an ID3 or FLAC picture) take no frames: refused
// before anything is written, as .wav is.
TEST(AppCliBinary, AnAudioFileWithACoverPictureTakesNoVideo) {
  TempDir dir("cli_cover_only");
  for (const char* ext : {"mp3", "flac", "aiff"}) {
    const std::string out = dir / (std::string("out.") + ext);
    expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", out}), 2,
                   "container takes no video");
    EXPECT_FALSE(std::filesystem::exists(out)) << out;
  }
}

TEST(AppCliBinary, OutputOverInputIsRefused) {
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", kVideo}), 2,
                 "is the input '" + kVideo + "' (the same file)");
}
TEST(AppCliBinary, StatsFileInAMissingDirectory) {
  expectOneError(
      runVidfilter({"-i", kVideo, "--chain", "gray", "--stats", "/nonexistent/dir/s.jsonl"}), 2,
      "--stats '/nonexistent/dir/s.jsonl': directory '/nonexistent/dir' does not exist; create it "
      "first (mkdir -p /nonexistent/dir)");
}
TEST(AppCliBinary, CodecTheContainerRefuses) {
  TempDir dir("cli_codec");
  expectOneError(
      runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "a.mp4", "--codec", "ffv1"}), 2,
      "cannot write '" + (dir / "a.mp4") + "' with codec ffv1 in a mp4 container");
  expectOneError(
      runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "a.mp4", "--codec", "ZZZZ"}), 2,
      "--codec ZZZZ: no such video encoder");
  EXPECT_FALSE(std::filesystem::exists(dir / "a.mp4"));
}
