// Damaged inputs, with ffmpeg as the reference for what can be read: one frame a decoder cannot
// read (a PNG or JPEG frame with bad bytes, whatever error its decoder gives) is skipped and
// counted as ffmpeg skips it; a read that fails part way keeps every frame read before it (those
// the decoder still held included) and names what the demuxer said; a header cut short is the
// file's fault (exit 2, the demuxer's reason), not the system's; a stream without timestamps
// (raw H.264) is trimmed by --ss and --to as ffmpeg trims it.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

std::vector<char> readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void writeAll(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// Frames ffmpeg decodes from `path` (those it can: it skips what fails).
long readableFrames(const std::string& path, const std::string& before = "",
                    const std::string& after = "") {
  const std::string n = shellOutput("ffmpeg -nostdin -v quiet " + before + " -i " + q(path) + " " +
                                    after + " -f framecrc - 2>/dev/null | grep -vc '^#'");
  return std::stol(n);
}

}  // namespace

TEST(ReliabilityDamage, AFrameTheDecoderCannotReadIsSkippedAsFfmpegSkipsIt) {
  TempDir dir("damage_frame");
  // Twenty PNG frames in Matroska, the tenth's compressed data changed (its decoder's error is
  // zlib's, not "invalid data"); and the same with JPEG frames in AVI.
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10 -t 2 " + q(dir / "p_%03d.png"));
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10 -t 2 " + q(dir / "j_%03d.jpg"));
  std::vector<char> png = readAll(dir / "p_010.png");
  const std::string text(png.begin(), png.end());
  const auto idat = text.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  png[idat + 10] = static_cast<char>(png[idat + 10] ^ 0xff);
  writeAll(dir / "p_010.png", png);
  std::vector<char> jpg = readAll(dir / "j_010.jpg");
  for (std::size_t i = 200; i < jpg.size() - 2; i += 37) jpg[i] = static_cast<char>(0xff);
  writeAll(dir / "j_010.jpg", jpg);
  ffmpeg("-framerate 10 -i " + q(dir / "p_%03d.png") + " -c:v copy " + q(dir / "png.mkv"));
  ffmpeg("-framerate 10 -i " + q(dir / "j_%03d.jpg") + " -c:v copy " + q(dir / "jpg.avi"));
  for (const std::string& in : {dir / "png.mkv", dir / "jpg.avi"}) {
    SCOPED_TRACE(in);
    const long readable = readableFrames(in);
    ASSERT_GE(readable, 18);
    ASSERT_LT(readable, 20);  // the damage is real: ffmpeg skips what it cannot read
    const std::string out = dir / "out.mkv";
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "blur", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(std::to_string(20 - readable) + " frame(s) failed to decode"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(countFrames(out), readable);
    EXPECT_EQ(decodeErrors(out), "");
  }
}

TEST(ReliabilityDamage, AReadFailingPartWayKeepsEveryFrameReadBeforeIt) {
  TempDir dir("damage_read");
  // Ten frames with B-frames (the decoder holds some back), then a list entry that is not there.
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10 -t 1 -c:v libx264 -bf 3 " + q(dir / "a.mp4"));
  std::ofstream(dir / "list.ffconcat") << "ffconcat version 1.0\nfile 'a.mp4'\nfile 'gone.mp4'\n";
  const std::string in = dir / "list.ffconcat", out = dir / "out.mkv";
  ASSERT_EQ(readableFrames(in), 10);
  const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string e = lastLine(r.err);
  EXPECT_NE(e.find("reading " + in + " failed"), std::string::npos) << e;
  EXPECT_NE(e.find("gone.mp4"), std::string::npos) << e;  // what the demuxer said
  EXPECT_EQ(countFrames(out), 10);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilityDamage, AHeaderCutShortIsTheFilesFault) {
  TempDir dir("damage_header");
  const std::string whole = dir / "whole.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10 -t 1 -c:v libx264 " + q(whole));
  std::vector<char> bytes = readAll(whole);
  bytes.resize(100);
  const std::string cut = dir / "cut.mkv";
  writeAll(cut, bytes);
  // ffmpeg cannot read it either.
  EXPECT_NE(shellOutput("ffprobe -v error " + q(cut) + " 2>&1"), "");
  // The demuxer's EIO is the data's, not the disk's: exit 2, the file named as damaged.
  expectOneError(runVidfilter({"-i", cut, "--chain", "blur", "-o", dir / "out.mkv"}), 2,
                 "is not a video FFmpeg can read (wrong format or damaged; its demuxer: ");
  // A y4m header whose frame size is impossible (FFmpeg's demuxer says EBUSY).
  const std::string y4m = dir / "huge.y4m";
  std::ofstream(y4m) << "YUV4MPEG2 W99999 H99999 F25:1 Ip A1:1 C420jpeg\nFRAME\n";
  expectOneError(runVidfilter({"-i", y4m, "--chain", "blur", "-o", dir / "out.mkv"}), 2,
                 "is not a video FFmpeg can read (wrong format or damaged");
}

TEST(ReliabilityDamage, AStreamWithoutTimestampsIsTrimmedAsFfmpegTrimsIt) {
  // Raw H.264 carries no timestamps: its frames are timed by their order at its rate (10 fps),
  // and it cannot seek by time (the attempt would read it all and fail), so --ss decodes from
  // its start.
  TempDir dir("damage_untimed");
  const std::string in = dir / "a.h264";
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10 -t 1 -c:v libx264 " + q(in));
  for (const std::vector<std::string>& span :
       {std::vector<std::string>{"--ss", "0.5"}, {"--to", "0.3"}, {"--ss", "0.2", "-t", "0.5"}}) {
    std::string ff;
    for (const std::string& s : span) ff += (s == "--ss" ? "-ss" : s == "--to" ? "-to" : s) + " ";
    SCOPED_TRACE(ff);
    const std::string out = dir / "out.mkv";
    std::vector<std::string> args = {"-y", "-i", in, "--chain", "blur", "-o", out};
    args.insert(args.end(), span.begin(), span.end());
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("could not seek"), std::string::npos) << r.err;
    EXPECT_EQ(countFrames(out), readableFrames(in, "", ff));
  }
}
