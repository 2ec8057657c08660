// Media I/O through FFmpeg's libraries, end to end with the real binary, on media the ffmpeg
// command makes at test time; ffprobe and ffmpeg read the results back (the reference):
// trimming, pipes, encoder defaults, network output, live recordings, and bench's file job over
// the same media. (Audio, timestamps and tags kept: tests/test_app_media_io.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

// --- trimming -----------------------------------------------------------------------------------

namespace {

void expectOk(const vf::test::ProcResult& r) { ASSERT_EQ(r.status, 0) << r.err; }

// Our gray frames of `out` against ffmpeg's decode of `in` with the same trim (after -i: the
// accurate, frame-exact seek).
void expectSameFrames(const std::string& out, const std::string& in, const std::string& trim) {
  const auto got = ffmpegFrames(out, "gray");
  const auto want = ffmpegFrames(in, "gray", "", trim);
  ASSERT_EQ(got.size(), want.size()) << trim;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(vf::test::maxAbsDiff(got[i], want[i]), 1) << trim << " frame " << i;
}

}  // namespace

TEST(MediaIo, TrimIsFrameExact) {
  TempDir dir("media_trim");
  const std::string in = dir / "in.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 5 -c:v libx264 -g 50 " + q(in));
  // --ss 1 -t 2: exactly the 50 frames presented in [1, 3), the first at 0.
  const std::string out = dir / "a.mkv";
  expectOk(runVidfilter(
      {"-i", in, "--chain", "gray", "--ss", "1", "-t", "2", "-o", out, "--codec", "ffv1"}));
  EXPECT_EQ(countFrames(out), 50);
  EXPECT_NEAR(frameTimes(out).front(), 0.0, 1e-6);
  expectSameFrames(out, in, "-ss 1 -t 2");
  // Between frames, and the end given as --to (ffmpeg's spelling -to, and -ss): [0.52, 1.47).
  expectOk(runVidfilter({"-i", in, "-vf", "gray", "-ss", "0.52", "-to", "1.47", "-o", dir / "b.mkv",
                         "--codec", "ffv1"}));
  EXPECT_EQ(countFrames(dir / "b.mkv"), 24);  // frames 13..36 (13 is at 0.52 s)
  expectSameFrames(dir / "b.mkv", in, "-ss 0.52 -to 1.47");
  // An image sequence trims on its --rate: frames 6..15 of 20 at 10 fps.
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 20 " + q(dir / "img_%03d.png"));
  expectOk(runVidfilter({"-i", dir / "img_%03d.png", "--rate", "10", "--ss", "0:00.5", "-t", "1",
                         "--chain", "gray", "-o", dir / "seq_%02d.png"}));
  for (int i = 1; i <= 10; ++i) {
    const auto a = ffmpegFrames(
        dir / ("seq_" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".png"), "gray");
    const std::string src =
        "img_" + std::string(i + 5 < 10 ? "00" : "0") + std::to_string(i + 5) + ".png";
    const auto b = ffmpegFrames(dir / src, "gray");
    ASSERT_EQ(a.size(), 1u) << i;
    EXPECT_LE(vf::test::maxAbsDiff(a[0], b[0]), 1) << i;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "seq_11.png"));
}

// --- pipes and outputs ------------------------------------------------------------------------

TEST(MediaIo, PipeRoundTripEqualsTheFilePath) {
  TempDir dir("media_pipe");
  const std::string in = dir / "in.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 2 -c:v libx264 " + q(in));
  const std::string bin = vf::test::vidfilterBinary();
  // ffmpeg | vidfilter -i - -o - | ffmpeg, against vidfilter on the file.
  const std::string piped = dir / "piped.mkv";
  const std::string log =
      shellOutput("ffmpeg -nostdin -v error -i " + q(in) + " -f yuv4mpegpipe - | " + q(bin) +
                  " -i - --chain blur,sobel -o - 2>" + q(dir / "err.txt") +
                  " | ffmpeg -v error -y -i - -c:v ffv1 " + q(piped) + " 2>&1");
  const std::string file = dir / "file.mkv";
  expectOk(runVidfilter(
      {"-i", in, "--chain", "blur,sobel", "-o", file, "--codec", "ffv1", "--pix-fmt", "yuv420p"}));
  const auto a = frameHashes(piped), b = frameHashes(file);
  EXPECT_EQ(a.size(), 50u) << log;
  EXPECT_EQ(a, b);
  // Only video on stdout: the summary went to stderr.
  std::ifstream err(dir / "err.txt");
  const std::string errText((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(errText.find("frames: 50 in, 50 out"), std::string::npos) << errText;
  // Raw video on stdin (--size, --input-pix-fmt, --rate; or ffmpeg's -s, -pix_fmt, -r before
  // -i), and any container to stdout with -f: gray frames pass through a gray chain unchanged.
  const std::string raw = dir / "raw.mkv";
  shellOutput("ffmpeg -nostdin -v error -i " + q(in) + " -f rawvideo -pix_fmt gray - | " + q(bin) +
              " -s 160x120 -pix_fmt gray -r 25 -i - --chain gray -o - -f matroska --codec ffv1 "
              "2>/dev/null > " +
              q(raw));
  const auto got = ffmpegFrames(raw, "gray"), want = ffmpegFrames(in, "gray");
  ASSERT_EQ(got.size(), 50u);
  ASSERT_EQ(want.size(), 50u);
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(vf::test::maxAbsDiff(got[i], want[i]), 0) << i;
}

// -f names the container whatever the name looks like: a name with %d is no image pattern then,
// and the file read back after writing is read as that container.
TEST(MediaIo, FormatOptionNamesTheContainerWhateverTheName) {
  TempDir dir("media_format_name");
  const std::string in = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v ffv1 " + q(in));
  for (const auto& [name, format] : std::vector<std::pair<std::string, std::string>>{
           {"z_%03d.png", "mp4"}, {"v%d.mkv", "matroska"}, {"n%02d.y4m", "yuv4mpegpipe"}}) {
    SCOPED_TRACE(name);
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-f", format, "-o", dir / name});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(shellOutput("ffprobe -v error -f " + format +
                          " -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                          "-of default=noprint_wrappers=1:nokey=1 " +
                          q(dir / name)),
              "25\n");
  }
}

TEST(MediaIo, DefaultEncodersAreFfmpegs) {
  TempDir dir("media_codec");
  const std::string in = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v ffv1 " + q(in));
  auto codec = [&](const std::string& name, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"-i", in, "--chain", "blur", "-o", dir / name};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return probeValue(dir / name, "-select_streams v", "stream=codec_name,pix_fmt");
  };
  EXPECT_EQ(codec("a.mp4"), "h264\nyuv420p");
  EXPECT_EQ(codec("a.mkv"), "h264\nyuv420p");
  EXPECT_EQ(codec("a.mov"), "h264\nyuv420p");
  EXPECT_EQ(codec("a.webm"), "vp9\nyuv420p");
  EXPECT_EQ(codec("b.mp4", {"-c:v", "libx265", "-crf", "30"}), "hevc\nyuv420p");
  EXPECT_EQ(codec("c.mkv", {"--codec", "ffv1", "--pix-fmt", "yuv444p"}), "ffv1\nyuv444p");
  // --crf means what it says: a higher value, a smaller file.
  codec("q18.mp4", {"--crf", "18"});
  codec("q40.mp4", {"--crf", "40"});
  EXPECT_LT(std::filesystem::file_size(dir / "q40.mp4"),
            std::filesystem::file_size(dir / "q18.mp4"));
  EXPECT_EQ(countFrames(dir / "q40.mp4"), 25);
}

TEST(MediaIo, NetworkOutput) {
  TempDir dir("media_udp");
  const std::string in = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 2 -c:v ffv1 " + q(in));
  const int port = 21000 + static_cast<int>(::getpid() % 20000);
  const std::string url = "udp://127.0.0.1:" + std::to_string(port);
  vf::test::Child receiver(
      "/usr/bin/env", {"ffmpeg", "-nostdin", "-v", "error", "-y", "-i", url + "?timeout=8000000",
                       "-c", "copy", dir / "got.ts"});
  ::usleep(500 * 1000);
  const auto r = runVidfilter({"-i", in, "--chain", "sobel", "-o", url, "-f", "mpegts"});
  expectOk(r);
  EXPECT_NE(r.err.find("wrote 50 frames to " + url), std::string::npos) << r.err;
  receiver.wait();
  EXPECT_EQ(countFrames(dir / "got.ts"), 50);
}

TEST(MediaIo, LiveRecordingLastsAsLongAsTheCapture) {
  // A live source at 30 fps recorded for 60 frames: 2 s, stamped by the source's clock.
  TempDir dir("media_live");
  const std::string out = dir / "live.mkv";
  const auto r =
      runVidfilter({"-i",
                    "videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! "
                    "videoconvert ! appsink",
                    "--chain", "gray,blur", "-o", out, "--frames", "60"});
  expectOk(r);
  EXPECT_EQ(countFrames(out), 60);
  EXPECT_NEAR(durationOf(out), 2.0, 1.0 / 30 + 1e-6);
  EXPECT_EQ(shellOutput("ffmpeg -nostdin -v error -i " + q(out) + " -f null - 2>&1"), "");
}

TEST(MediaIo, BenchInputReportsEveryPartAndTheFfmpegJob) {
  TempDir dir("media_bench");
  const std::string in = dir / "in.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25 -t 1 -c:v libx264 " + q(in));
  const auto r = runVidfilter({"bench", "--input", in, "--frames", "20", "--preset", "ultrafast",
                               "--json", dir / "b.json"});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  for (const char* row :
       {"decode only", "chain only (resident frames)", "encode only (resident filtered frames)",
        "whole job", "ffmpeg -vf format=gray,gblur=sigma=1.5,sobel", "whole job / slowest"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  std::ifstream j(dir / "b.json");
  const auto json = nlohmann::json::parse(j);
  EXPECT_GT(json.at("overlap").get<double>(), 0.0) << json;
  ASSERT_GE(json.at("parts").size(), 4u) << json;
  for (const auto& part : json.at("parts")) {
    EXPECT_GT(part.at("frames").get<int>(), 0) << part;
    EXPECT_GT(part.at("fps").get<double>(), 0.0) << part;
  }
}
