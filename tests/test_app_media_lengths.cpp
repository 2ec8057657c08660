// What an output says of its length, and what a run says of its input's: a cut Matroska written
// to a pipe (whose header cannot be written again at the end) has the cut's length, not its
// input's, and keeps no statistics of the input's streams; inputs whose end is where their
// container says are not called truncated, whatever their timestamps do on the way (a wrap of
// MPEG-TS's 33-bit clock, a video of a frame or two under a long audio, an AVI written to a pipe
// with its muxer's placeholder count); chapters end where a run that stops early ends; an input
// whose source
// delivered no video for a while (an HLS segment missing) says where, and the output keeps that
// time without frames. Inputs are made by the ffmpeg command at test time; ffprobe reads the
// results back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

double seconds(const std::string& text) { return text.empty() ? -1 : std::stod(text); }

}  // namespace

TEST(MediaLengths, ACutMatroskaOnAPipeHasTheCutsLength) {
  TempDir dir("lengths_pipe");
  const std::string in = dir / "in.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=10 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=10 -map 0 -map 1 -c:v libx264 -preset "
      "ultrafast -c:a aac " +
      q(in));
  // The input's streams carry DURATION tags of 10 s (FFmpeg's Matroska muxer writes them).
  ASSERT_NE(probeValue(in, "-select_streams v:0", "stream_tags=DURATION"), "");
  for (const auto& [span, length] :
       std::vector<std::pair<std::vector<std::string>, double>>{{{"-t", "4"}, 4.0},
                                                                {{"--to", "3"}, 3.0},
                                                                {{"--ss", "6"}, 4.0},
                                                                {{"--ss", "2", "-t", "5"}, 5.0}}) {
    std::vector<std::string> args{"-i", in, "--chain", "gray", "-f", "matroska", "-o", "-"};
    args.insert(args.end(), span.begin(), span.end());
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string out = dir / "piped.mkv";
    std::ofstream(out, std::ios::binary) << r.out;
    const long frames = probe(out).frames;
    EXPECT_EQ(frames, static_cast<long>(length * 25)) << span[0];
    // The container's length is the cut's (within a frame and the audio's last packet).
    EXPECT_NEAR(seconds(probeValue(out, "", "format=duration")), length, 0.05) << span[0];
    // No stream says it lasts as long as the input's did.
    for (const std::string stream : {"v:0", "a:0"})
      EXPECT_EQ(probeValue(out, "-select_streams " + stream, "stream_tags=DURATION"), "")
          << span[0] << " " << stream;
  }
  // --frames: where the output ends is not known when its header is written; it does not say
  // the input's length.
  const auto r =
      runVidfilter({"-i", in, "--chain", "gray", "--frames", "50", "-f", "matroska", "-o", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string out = dir / "frames.mkv";
  std::ofstream(out, std::ios::binary) << r.out;
  EXPECT_EQ(probe(out).frames, 50);
  const std::string length = probeValue(out, "", "format=duration");
  EXPECT_TRUE(length == "N/A" || seconds(length) < 2.5) << length;
  for (const std::string stream : {"v:0", "a:0"})
    EXPECT_EQ(probeValue(out, "-select_streams " + stream, "stream_tags=DURATION"), "") << stream;
}

TEST(MediaLengths, ChaptersEndWhereTheOutputEnds) {
  // Chapters 0-1.5 s and 1.5-3 s; a run that stops after 10 frames (0.4 s) keeps the first,
  // cut to what was written, and the file is as long as that, in MP4 (whose chapter track
  // gave the file the input's length) and Matroska (whose header held the chapters).
  TempDir dir("lengths_chapters");
  const std::string meta = dir / "chapters.txt", in = dir / "in.mkv";
  std::ofstream(meta) << ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=One\n"
                         "[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Two\n";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=3 -f lavfi -i sine=duration=3 -i " +
         q(meta) + " -map 0 -map 1 -map_chapters 2 -c:v libx264 -preset ultrafast -c:a aac " +
         q(in));
  ASSERT_EQ(probeValue(in, "", "chapter=end_time"), "1.500000\n3.000000");
  for (const std::string name : {"out.mp4", "out.mkv"}) {
    const std::string out = dir / name;
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "--frames", "10", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(probe(out).frames, 10) << name;
    EXPECT_EQ(probeValue(out, "", "chapter_tags=title"), "One") << name;
    EXPECT_EQ(seconds(probeValue(out, "", "chapter=start_time")), 0) << name;
    // The video's 0.4 s and the audio's last packet.
    const double end = seconds(probeValue(out, "", "chapter=end_time"));
    EXPECT_GE(end, 0.4) << name;
    EXPECT_LT(end, 0.5) << name;
    EXPECT_LT(seconds(probeValue(out, "", "format=duration")), 0.5) << name;
  }
}

TEST(MediaLengths, StatisticsOfTheInputsStreamsAreNotCopied) {
  // mkvmerge's statistics (bit rate, frames, bytes of each stream, and the list naming them),
  // written here by hand as it writes them: they describe the input's encoding.
  TempDir dir("lengths_stats");
  const std::string in = dir / "stats.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=2 -c:v libx264 -preset ultrafast " +
         std::string("-metadata:s:v:0 BPS=123456 -metadata:s:v:0 NUMBER_OF_FRAMES=999 ") +
         "-metadata:s:v:0 NUMBER_OF_BYTES=777 -metadata:s:v:0 "
         "\"_STATISTICS_TAGS=BPS NUMBER_OF_FRAMES NUMBER_OF_BYTES\" -metadata:s:v:0 title=kept " +
         q(in));
  ASSERT_EQ(probeValue(in, "-select_streams v:0", "stream_tags=NUMBER_OF_FRAMES"), "999");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", in, "--chain", "sobel", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string tag : {"BPS", "NUMBER_OF_FRAMES", "NUMBER_OF_BYTES", "_STATISTICS_TAGS"})
    EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream_tags=" + tag), "") << tag;
  EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream_tags=title"), "kept");
}

TEST(MediaLengths, WholeInputsWhoseTimestampsDoOddThingsAreNotCalledTruncated) {
  TempDir dir("lengths_whole");
  // MPEG-TS whose 33-bit clock wraps 1.3 s in (FFmpeg counts the part before the wrap from
  // below 0), and Matroska holding one or two video frames under 10 s of audio (the video
  // stream's length there is FFmpeg's estimate, the file's).
  const std::string wrap = dir / "wrap.ts";
  ffmpeg(
      "-f lavfi -i testsrc=size=160x120:rate=25:duration=4 -output_ts_offset 95441 -c:v "
      "mpeg2video " +
      q(wrap));
  std::vector<std::pair<std::string, long>> inputs{{wrap, 100}};
  for (const int frames : {1, 2}) {
    const std::string path = dir / ("short" + std::to_string(frames) + ".mkv");
    ffmpeg("-f lavfi -i sine=d=10 -f lavfi -i testsrc2=s=64x48:r=25:d=" +
           std::to_string(frames * 0.04) + " -c:v libx264 -c:a aac " + q(path));
    inputs.emplace_back(path, frames);
  }
  // An AVI its muxer wrote to a pipe: 2^30 as its frame count, and a length made from it.
  const std::string piped = dir / "piped.avi";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=25:duration=2 "
                  "-c:v mpeg4 -f avi - > " +
                  q(piped))
                .status,
            0);
  inputs.emplace_back(piped, 50);
  for (const auto& [in, frames] : inputs) {
    const std::string out = dir / "out.mkv";
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("truncated"), std::string::npos) << in << "\n" << r.err;
    EXPECT_EQ(probe(out).frames, frames) << in;
  }
  ProcOptions fromStdin;  // the same AVI on stdin
  fromStdin.stdinPath = piped;
  const std::string out = dir / "stdin.mkv";
  const auto r = runVidfilter({"-y", "-i", "-", "--chain", "gray", "-o", out}, fromStdin);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_EQ(probe(out).frames, 50);
}

// An HLS playlist of 1 s segments (25 frames each) with segments missing: the run goes on (exit
// 0), the frames around the holes keep their times, and the end says where the video was
// missing; the whole playlist says nothing of the kind.
TEST(MediaLengths, HolesWhereTheSourceDeliveredNoVideoAreSaid) {
  TempDir dir("lengths_holes");
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=frequency=440 -t 6 "
      "-c:v libx264 -preset ultrafast -g 25 -c:a aac -f hls -hls_time 1 -hls_list_size 0 "
      "-hls_playlist_type vod " +
      q(dir / "pl.m3u8"));
  const std::string said = "the source delivered no frames there";
  const auto whole = runVidfilter(
      {"-i", dir / "pl.m3u8", "--chain", "gray", "-o", dir / "whole.mp4", "--no-progress"});
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(whole.err.find(said), std::string::npos) << whole.err;
  EXPECT_EQ(probe(dir / "whole.mp4").frames, 150);

  std::filesystem::remove(dir / "pl2.ts");
  const auto one = runVidfilter(
      {"-i", dir / "pl.m3u8", "--chain", "gray", "-o", dir / "one.mp4", "--no-progress"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.err.find("no video from 2.00 s to 3.00 s (1.00 s): " + said), std::string::npos)
      << one.err;
  EXPECT_EQ(probe(dir / "one.mp4").frames, 125);
  // The frame after the hole is shown 3 s after the first.
  const std::vector<double> t = frameTimes(dir / "one.mp4");
  ASSERT_EQ(t.size(), 125u);
  EXPECT_NEAR(t[50] - t[0], 3.0, 0.005);
  EXPECT_NEAR(t[49] - t[0], 1.96, 0.005);

  std::filesystem::remove(dir / "pl4.ts");
  const auto two = runVidfilter(
      {"-i", dir / "pl.m3u8", "--chain", "gray", "-o", dir / "two.mp4", "--no-progress"});
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_NE(two.err.find("2 holes in the video, 2.00 s in all (the first from 2.00 s to 3.00 s)"),
            std::string::npos)
      << two.err;
  EXPECT_EQ(probe(dir / "two.mp4").frames, 100);
}

// With B-frames a packet is decoded before it is shown: an MPEG-TS with a third of its bytes cut
// out of the middle says the hole where the output shows it, from the end of the last frame
// before it to the first frame after it.
TEST(MediaLengths, AHoleInAStreamWithBFramesIsSaidInDisplayTimes) {
  TempDir dir("lengths_hole_b");
  const std::string whole = dir / "b.ts", cut = dir / "cut.ts";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 4 -c:v libx264 -bf 3 " + q(whole));
  const auto size = std::filesystem::file_size(whole);
  ASSERT_EQ(shell("head -c " + std::to_string(size / 3) + " " + q(whole) + " > " + q(cut) +
                  " && tail -c " + std::to_string(size / 3) + " " + q(whole) + " >> " + q(cut))
                .status,
            0);
  const auto r = runVidfilter({"-i", cut, "--chain", "gray", "-o", dir / "o.mkv", "--no-progress"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<double> t = frameTimes(dir / "o.mkv");
  ASSERT_GT(t.size(), 10u);
  std::size_t k = 1;  // the first frame after the largest step
  for (std::size_t i = 2; i < t.size(); ++i)
    if (t[i] - t[i - 1] > t[k] - t[k - 1]) k = i;
  ASSERT_GT(t[k] - t[k - 1], 0.5);
  char said[96];
  std::snprintf(said, sizeof said, "no video from %.2f s to %.2f s (%.2f s)",
                t[k - 1] + 0.04 - t[0], t[k] - t[0], t[k] - t[k - 1] - 0.04);
  EXPECT_NE(r.err.find(said), std::string::npos) << said << "\n" << r.err;
}
