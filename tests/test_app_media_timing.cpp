// Frames and audio in time: a variable-rate input written where the video is timed in whole
// frames of its rate (AVI, MPEG-1/2, Theora) keeps in time with its audio, frames that come
// faster than the rate left out as ffmpeg leaves them; MPEG-1, which takes a few rates only,
// says so; a start before the video's first frame keeps the audio that comes before it; frames
// whose times would go back at a join are left out; a span's audio stored behind its video in
// the file (MPEG-TS) is kept to the span's end. Inputs are made by the ffmpeg command at test
// time; ffprobe and ffmpeg read the results back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// A time ffprobe printed (-1: none, or N/A).
double seconds(const std::string& text) {
  return text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) ? -1 : std::stod(text);
}

// The first sample of the first audio stream, as a float (mono).
float firstSample(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(
      popen(("ffmpeg -nostdin -v error -i " + q(path) + " -map 0:a:0 -ac 1 -f f32le - 2>/dev/null")
                .c_str(),
            "r"),
      pclose);
  float v = -1;
  if (std::fread(&v, sizeof v, 1, p.get()) != 1) return -1;
  return v;
}

}  // namespace

TEST(MediaTiming, VariableRateInContainersTimedInWholeFramesStaysInTime) {
  // 1 s at 10 fps, 1 s at 30 fps, 1 s at 10 fps (50 frames, FFV1, joined by ffmpeg's concat),
  // with 3 s of audio: the nominal rate is the first part's, 10, and the 30 fps second has 10
  // ticks for its 30 frames.
  TempDir dir("timing_vfr");
  const std::string slow = dir / "slow.mkv", fast = dir / "fast.mkv", list = dir / "parts.txt";
  makeClip(slow, "testsrc2=size=160x120:rate=10:duration=1", "-c:v ffv1");
  makeClip(fast, "testsrc2=size=160x120:rate=30:duration=1", "-c:v ffv1");
  std::ofstream(list) << "file '" << slow << "'\nfile '" << fast << "'\nfile '" << slow << "'\n";
  const std::string in = dir / "vfr.mkv";
  ffmpeg("-f concat -safe 0 -i " + q(list) +
         " -f lavfi -i sine=frequency=440:sample_rate=48000:duration=3 -map 0:v -map 1:a -c:v "
         "copy -c:a pcm_s16le " +
         q(in));
  ASSERT_EQ(probeValue(in, "-select_streams v:0", "stream=r_frame_rate"), "10/1");
  const std::vector<double> want = frameTimes(in);
  ASSERT_EQ(want.size(), 50u);
  for (const auto& [name, codec] : std::vector<std::pair<std::string, std::string>>{
           {"out.avi", ""}, {"out.ts", ""}, {"out.mpg", "mpeg2video"}}) {
    SCOPED_TRACE(name);
    const std::string out = dir / name;
    std::vector<std::string> args = {"-i", in, "--chain", "gray", "-o", out};
    if (!codec.empty()) args.insert(args.end(), {"--codec", codec});
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<double> got = frameTimes(out);
    // One frame a tick in the fast second: 10 + 10 + 10 (ffmpeg writes 30 too).
    EXPECT_GE(got.size(), 29u);
    EXPECT_LE(got.size(), 31u);
    ASSERT_FALSE(got.empty());
    // Each frame at the time of an input frame, within half a tick: none pushed late.
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double t = got[i] - got[0];
      const double nearest = *std::min_element(want.begin(), want.end(), [&](double a, double b) {
        return std::abs(a - want[0] - t) < std::abs(b - want[0] - t);
      });
      EXPECT_NEAR(t, nearest - want[0], 0.051) << "frame " << i;
    }
    EXPECT_NEAR(got.back() - got.front(), want.back() - want.front(), 0.051);
    // The audio lasts as long as the video, as in the input.
    const double video = seconds(probeValue(out, "-select_streams v:0", "stream=duration"));
    const double audio = seconds(probeValue(out, "-select_streams a:0", "stream=duration"));
    if (video > 0 && audio > 0) {  // MPEG-TS and MPEG-PS give no stream durations
      EXPECT_NEAR(video, audio, 0.15);
    }
  }
}

// A rate above what a camera gives (300 and 1000 fps) is the input's as ffmpeg takes it:
// containers without timestamps (y4m) and AVI keep every frame at it, the others the frames'
// times and the length.
TEST(MediaTiming, HighFrameRatesAreKept) {
  TempDir dir("timing_high_rate");
  for (const std::string rate : {"300", "1000"}) {
    SCOPED_TRACE(rate);
    const std::string in = dir / ("r" + rate + ".mp4");
    ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=" + rate +
           " -t 0.5 -c:v libx264 -preset ultrafast " + q(in));
    const long frames = countFrames(in);
    ASSERT_GT(frames, 100);
    for (const char* ext : {"y4m", "avi", "mkv", "mp4"}) {
      SCOPED_TRACE(ext);
      const std::string out = dir / ("out_" + rate + "." + ext);
      const ProcResult r = runVidfilter({"-y", "-i", in, "--chain", "brightness", "-o", out});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(r.err.find("frame rate unknown"), std::string::npos) << r.err;
      EXPECT_EQ(countFrames(out), frames);
      EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=r_frame_rate"), rate + "/1");
      EXPECT_NEAR(durationOf(out), 0.5, 0.5 / double(frames));
    }
  }
}

// A variable-rate stream with no step in common has its clock for a base rate (90000 in MP4 and
// MPEG-TS with a 90 kHz time base): its rate is its average (MP4: about 120 here), else unknown
// (MPEG-TS gives none); a y4m of it holds about as many frames as it has, not one per tick.
TEST(MediaTiming, AVariableRatesClockIsNotItsFrameRate) {
  TempDir dir("timing_clock_rate");
  for (const char* ext : {"mp4", "ts"}) {
    SCOPED_TRACE(ext);
    const std::string in = dir / (std::string("vfr.") + ext);
    ffmpeg(
        "-f lavfi -i testsrc2=size=64x48:rate=120 -t 0.5 -vf "
        "\"settb=1/90000,setpts='(N/120+0.003*sin(N*1.7))/TB'\" -fps_mode passthrough "
        "-enc_time_base:v 1/90000 -c:v libx264 -preset ultrafast " +
        q(in));
    // (ffprobe prints an MPEG-TS program's streams again: the first line is the stream's.)
    const std::string base = probeValue(in, "-select_streams v:0", "stream=r_frame_rate");
    ASSERT_EQ(base.substr(0, base.find('\n')), "90000/1");
    const long frames = countFrames(in);
    ASSERT_GT(frames, 50);
    const std::string out = dir / (std::string("out_") + ext + ".y4m");
    const ProcResult r = runVidfilter({"-y", "-i", in, "--chain", "brightness", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    const long written = countFrames(out);
    EXPECT_GE(written, std::string(ext) == "mp4" ? frames - 2 : 1) << r.err;
    EXPECT_LE(written, std::string(ext) == "mp4" ? frames + 2 : 2 * frames) << r.err;
    EXPECT_NE(probeValue(out, "-select_streams v:0", "stream=r_frame_rate"), "90000/1");
  }
}

TEST(MediaTiming, MpegOneAtARateItDoesNotTakeNamesWhatDoes) {
  TempDir dir("timing_mpeg1");
  const std::string in = dir / "in.mkv";
  makeClip(in, "testsrc2=size=160x120:rate=10", "-frames:v 20 -c:v ffv1");
  const std::string out = dir / "out.mpg";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("mpeg2video"), std::string::npos) << r.err;  // what takes 10 fps
  EXPECT_FALSE(std::filesystem::exists(out));
  // MPEG-2 takes it.
  ASSERT_EQ(runVidfilter({"-i", in, "--chain", "gray", "--codec", "mpeg2video", "-o", out}).status,
            0);
  EXPECT_EQ(countFrames(out), 20);
  // A rate next to one of MPEG-1's (2997/100 for 30000/1001) is written at that one, as ffmpeg
  // writes it.
  const std::string near = dir / "near.mkv", mpg = dir / "near.mpg";
  makeClip(near, "testsrc2=size=160x120:rate=2997/100", "-frames:v 20 -c:v ffv1");
  const auto r2 = runVidfilter({"-i", near, "--chain", "gray", "-o", mpg});
  ASSERT_EQ(r2.status, 0) << r2.err;
  EXPECT_EQ(countFrames(mpg), 20);
  EXPECT_EQ(probeValue(mpg, "-select_streams v:0", "stream=r_frame_rate"), "30000/1001");
}

TEST(MediaTiming, AStartBeforeTheVideosFirstFrameKeepsTheAudioBeforeIt) {
  // The audio (a ramp: each sample is its time / 4) from 0 s, the video from 1 s.
  TempDir dir("timing_late_video");
  const std::string in = dir / "in.mkv";
  ffmpeg(
      "-f lavfi -i 'aevalsrc=t/4:s=8000:d=3' -itsoffset 1 -f lavfi -i "
      "testsrc2=size=160x120:rate=25:duration=2 -map 1:v -map 0:a -c:v libx264 -preset ultrafast "
      "-c:a pcm_s16le " +
      q(in));
  ASSERT_NEAR(seconds(probeValue(in, "-select_streams v:0", "stream=start_time")), 1.0, 0.01);
  for (const double start : {0.001, 0.5}) {
    SCOPED_TRACE(start);
    const std::string out = dir / "out.mkv";
    const auto r = runVidfilter(
        {"-i", in, "--chain", "blur", "--ss", std::to_string(start), "-t", "2", "-o", out, "-y"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Copied audio starts at the packet that holds the start (as ffmpeg copies it): at most a
    // packet (1024 samples, 0.128 s) early, never after it.
    const double from = 4 * firstSample(out);
    EXPECT_LE(from, start + 0.001);
    EXPECT_GE(from, start - 0.129);
    // And the video stays in time with it: its first frame (1 s in the input) as far after the
    // audio's first sample as in the input.
    const double v = seconds(probeValue(out, "-select_streams v:0", "stream=start_time"));
    const double a = seconds(probeValue(out, "-select_streams a:0", "stream=start_time"));
    EXPECT_NEAR(v - a, 1.0 - from, 0.002);
  }
}

// MPEG-TS streams joined where the first was cut inside a group of B-frames (its packets in
// decoding order stop after a P-frame whose B-frames never came): the second part's first
// frames would show at or before the first part's last; they are left out and said, and the
// output's frame times only go forward.
TEST(MediaTiming, AJoinAfterACutGroupOfBFramesKeepsTimeGoingForward) {
  TempDir dir("timing_join_cut");
  const std::string whole = dir / "whole.ts", a = dir / "a.ts", b = dir / "b.ts",
                    ab = dir / "ab.ts", out = dir / "out.mkv";
  const std::string x264 = "-c:v libx264 -g 25 -bf 2 -pix_fmt yuv420p";
  makeClip(whole, "testsrc2=size=160x120:rate=25", "-t 3 " + x264);
  ffmpeg("-i " + q(whole) + " -c copy -frames:v 52 " + q(a));  // 52 packets in decoding order
  makeClip(b, "testsrc2=size=160x120:rate=25", "-t 2 " + x264);
  ASSERT_EQ(shell("cat " + q(a) + " " + q(b) + " > " + q(ab)).status, 0);
  const auto r = runVidfilter({"-i", ab, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<double> t = frameTimes(out);
  ASSERT_GT(t.size(), 90u);
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_GT(t[i], t[i - 1]) << "frame " << i;
  EXPECT_NE(r.err.find("left out whose times went back"), std::string::npos) << r.err;
  EXPECT_EQ(decodeErrors(out), "");
}

// MPEG-TS stores audio behind the video of the same time (here 3 s behind, as -muxdelay sets): a
// span's end (--to, -t) reached by the video still takes the audio up to it, as ffmpeg does
// (before, 2.05 s of the 3 s span's audio).
TEST(MediaTiming, ASpansAudioStoredBehindItsVideoIsKeptToTheEnd) {
  TempDir dir("timing_ts_audio");
  const std::string in = dir / "in.ts", out = dir / "out.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=10 -f lavfi -i "
      "anoisesrc=r=48000:d=10 -c:v libx264 -g 50 -c:a aac -muxdelay 3 -pes_payload_size 60000 "
      "-f mpegts " +
      q(in));
  const auto r = runVidfilter({"-i", in, "--ss", "2.5", "-t", "3", "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(out), 75);
  // The samples ffmpeg decodes: the span's 3 s, to within one AAC frame.
  const std::string bytes = shellOutput("ffmpeg -nostdin -v error -i " + q(out) +
                                        " -map 0:a -f s16le -ac 1 -ar 48000 - 2>/dev/null | wc -c");
  EXPECT_NEAR(std::stod(bytes) / 2 / 48000, 3.0, 0.03) << bytes;
}
