// What a batch re-run takes for a complete output (skipped) and what it makes again: files
// written by ffmpeg, whole in the containers a batch writes, and broken the ways a run, a copy
// or a disk leaves them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/media/complete_output.hpp"
#include "tests/support/media.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;
namespace fs = std::filesystem;

namespace {

// 3 s of video (96x64, 25 fps) and 4 s of audio, with `extra` ffmpeg options, into `path`.
std::string clip(const TempDir& dir, const std::string& name, const std::string& extra) {
  const std::string path = dir / name;
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=25:duration=3 -f lavfi -i sine=duration=4 " + extra +
         " " + q(path));
  return path;
}

}  // namespace

TEST(CompleteOutput, WholeFilesAreComplete) {
  TempDir dir("complete_whole");
  const std::string h264 = "-c:v libx264 -c:a aac ";
  for (const std::string& f :
       {clip(dir, "plain.mkv", h264), clip(dir, "plain.mp4", h264),
        clip(dir, "late.mkv", h264 + "-output_ts_offset 5"),
        clip(dir, "late.mp4", h264 + "-output_ts_offset 5"),
        clip(dir, "one_frame.mkv", h264 + "-frames:v 1 -t 0.04"),
        clip(dir, "video_only.webm", "-an -c:v libvpx-vp9 -deadline realtime"),
        clip(dir, "stream.ts", h264), clip(dir, "old.avi", "-c:v mpeg4"),
        clip(dir, "faststart.mp4", h264 + "-movflags +faststart")})
    EXPECT_EQ(vf::media::incompleteVideo(f), "") << f;
}

TEST(CompleteOutput, BrokenFilesAreNot) {
  TempDir dir("complete_broken");
  const std::string h264 = "-c:v libx264 -c:a aac ";
  // Emptied; cut to half after it was whole (no index left, or clusters missing).
  const std::string empty = dir / "empty.mkv";
  std::ofstream(empty).close();
  EXPECT_NE(vf::media::incompleteVideo(empty), "");
  for (const std::string name : {"cut.mkv", "cut.mp4"}) {
    const std::string f = clip(dir, name, h264);
    fs::resize_file(f, fs::file_size(f) / 2);
    EXPECT_NE(vf::media::incompleteVideo(f), "") << f;
  }
  // A killed run's Matroska file: clusters, no duration (written when the muxer closes).
  const std::string live = clip(dir, "live.mkv", h264 + "-f matroska -live 1");
  EXPECT_EQ(vf::media::incompleteVideo(live), "it was not closed");
  // Audio only; a directory and a FIFO at the name (never opened: a FIFO would block).
  EXPECT_EQ(vf::media::incompleteVideo(clip(dir, "audio.mka", "-vn -c:a flac")), "it has no video");
  fs::create_directories(dir / "dir.mkv");
  EXPECT_EQ(vf::media::incompleteVideo(dir / "dir.mkv"), "it is not a regular file");
  ASSERT_EQ(::mkfifo((dir / "fifo.mkv").c_str(), 0600), 0);
  EXPECT_EQ(vf::media::incompleteVideo(dir / "fifo.mkv"), "it is not a regular file");
}
