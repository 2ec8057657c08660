// Media fidelity of file jobs (`vidfilter -i IN --chain ... -o OUT`) on inputs that trip
// naive demuxing: MPEG-TS that starts late with open GOPs and B-frames, rotated phone video.
// Every input is made by the ffmpeg command at test time; ffprobe and ffmpeg read the results
// back (the reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// The first packet time of each kind of stream ("v", "a"), in seconds.
double firstPacketTime(const std::string& path, const std::string& stream) {
  const std::string v = shellOutput("ffprobe -v error -select_streams " + stream +
                                    " -show_entries packet=pts_time -of csv=p=0 " + q(path) +
                                    " 2>/dev/null | grep -v -e N/A -e '^$' | sort -g | head -1");
  return v.empty() ? -1e9 : std::stod(v);
}

}  // namespace

TEST(MediaFidelity, TrimInsideTheLastGopOfAnMpegTs) {
  // 6 s at 25 fps, a keyframe every second, open GOPs and B-frames, AAC beside it; MPEG-TS
  // starts its clock at 1.4 s. MPEG-TS seeks land on any packet, and the decoder waits for a
  // keyframe: inside the last GOP there was none after it, and the run ended with "no video
  // frame in the span asked for" (ffmpeg -ss 5.5 -i gives no frame at all there).
  TempDir dir("fidelity_ts");
  const std::string in = dir / "in.ts";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=6 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=6 -c:v libx264 -bf 3 -g 25 "
      "-x264opts open-gop=1 -c:a aac " +
      q(in));
  const double start = std::stod(probeValue(in, "", "format=start_time"));
  ASSERT_GT(start, 1.0);
  const std::vector<double> times = frameTimes(in);
  ASSERT_EQ(times.size(), 150u);
  const auto all = ffmpegFrames(in, "gray", "", "-fps_mode passthrough");
  ASSERT_EQ(all.size(), 150u);
  for (const double ss : {5.5, 5.2, 4.9}) {
    SCOPED_TRACE("--ss " + std::to_string(ss));
    // The frames presented at or after --ss on the input's timeline (from its start).
    std::size_t first = 0;
    while (first < times.size() && times[first] - start < ss - 1e-6) ++first;
    ASSERT_LT(first, times.size());
    const std::string out = dir / "out.mkv";
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "--ss", std::to_string(ss),
                                 "--codec", "ffv1", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto got = ffmpegFrames(out, "gray", "", "-fps_mode passthrough");
    ASSERT_EQ(got.size(), times.size() - first);
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_LE(maxAbsDiff(got[i], all[first + i]), 1) << "frame " << i;
    // The audio comes along, cut where the video starts: its first packet holds the sample
    // played with the first frame, so it starts at most one packet (1024 samples) earlier.
    const double v = firstPacketTime(out, "v"), a = firstPacketTime(out, "a");
    const double lead = times[first] - start - ss;  // the first frame after --ss
    EXPECT_GE(v - a, lead - 0.002) << v << " " << a;
    EXPECT_LE(v - a, lead + 1024.0 / 48000 + 0.002) << v << " " << a;
  }
  // Past the end: one clear error, at once.
  const auto r =
      runVidfilter({"-y", "-i", in, "--chain", "gray", "--ss", "100", "-o", dir / "none.mkv"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no video frame in the span"), std::string::npos) << r.err;
}

TEST(MediaFidelity, RotationIsKeptOrItsLossIsSaid) {
  // A phone video (display matrix: -90 degrees). .mp4/.mov keep it; a container that has no
  // place for it in this FFmpeg (Matroska before 6.1, AVI) lost it without a word.
  TempDir dir("fidelity_rot");
  const std::string plain = dir / "plain.mp4", in = dir / "rot.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 " + q(plain));
  ffmpeg("-i " + q(plain) + " -c copy -metadata:s:v:0 rotate=270 " + q(in));
  ASSERT_EQ(probeValue(in, "-select_streams v", "stream_side_data=rotation"), "-90");
  for (const char* ext : {"mov", "mkv", "avi"}) {
    SCOPED_TRACE(ext);
    const std::string out = dir / (std::string("out.") + ext);
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string kept = probeValue(out, "-select_streams v", "stream_side_data=rotation");
    const bool warned = r.err.find("rotation (-90 degrees) is not kept") != std::string::npos;
    if (std::string(ext) == "mov") {
      EXPECT_EQ(kept, "-90");
    }
    if (kept == "-90") {
      EXPECT_FALSE(warned) << r.err;
    } else {
      EXPECT_TRUE(warned) << "rotation lost without a warning: '" << kept << "'\n" << r.err;
    }
    EXPECT_EQ(countFrames(out), 25);
  }
}

TEST(MediaFidelity, VideoOnlyOutputsOfAnInputWithAudioAndSubtitles) {
  // `-o -` writes y4m, which holds the video alone (as -f rawvideo): the audio and subtitle
  // streams were handed to its muxer anyway, whose header then failed ("Input/output error",
  // exit 1, nothing on stdout) for any input with audio. ffmpeg -f yuv4mpegpipe selects the
  // video alone (its -vsync cfr also repeats a frame of this input, so it is no reference for
  // the count).
  TempDir dir("fidelity_y4m");
  const std::string srt = dir / "s.srt", in = dir / "in.mkv";
  std::ofstream(srt) << "1\n00:00:00,500 --> 00:00:01,500\nHello\n";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=2 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=2 -i " +
      q(srt) + " -map 0 -map 1 -map 2 -c:v libx264 -c:a aac -c:s srt " + q(in));
  const long frames = countFrames(in);
  ASSERT_EQ(frames, 50);
  const std::string file = dir / "out.y4m";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", file});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(file), frames);
  // y4m has no timestamps: its header's rate is the input's, so the frames last as long.
  EXPECT_EQ(probeValue(file, "-select_streams v:0", "stream=r_frame_rate"), "25/1");
  EXPECT_NEAR(durationOf(file), 2.0, 0.05);
  EXPECT_NE(r.err.find("audio stream #1 (aac) dropped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("subtitle stream #2 (subrip) dropped"), std::string::npos) << r.err;
  // Images hold the picture alone: what they leave out is named as well.
  std::filesystem::create_directories(dir / "png");
  const auto img =
      runVidfilter({"-i", in, "--chain", "gray", "--frames", "2", "-o", dir / "png/f_%03d.png"});
  ASSERT_EQ(img.status, 0) << img.err;
  EXPECT_NE(img.err.find("audio stream #1, subtitle stream #2 not written"), std::string::npos)
      << img.err;
  // To stdout, y4m and raw gray frames: the same pictures as the file.
  const std::vector<std::string> hashes = frameHashes(file);
  ASSERT_EQ(hashes.size(), 50u);
  // Raw frames into a file: read back as raw frames of the size written (no header to probe).
  const std::string rawFile = dir / "out.gray";
  const auto rr = runVidfilter({"-i", in, "--chain", "gray", "-o", rawFile, "-f", "rawvideo"});
  ASSERT_EQ(rr.status, 0) << rr.err;
  EXPECT_EQ(std::filesystem::file_size(rawFile), 50u * 160 * 120);
  EXPECT_EQ(shellOutput("md5sum < " + q(rawFile)),
            shellOutput("ffmpeg -nostdin -v error -i " + q(file) +
                        " -f rawvideo -pix_fmt gray - | md5sum"));
  for (const std::string f : {"yuv4mpegpipe", "rawvideo"}) {
    SCOPED_TRACE(f);
    const std::string piped = dir / ("piped." + f);
    const std::string log = shellOutput(q(vidfilterBinary()) + " -i " + q(in) +
                                        " --chain gray -o - -f " + f + " 2>&1 >" + q(piped));
    if (f == "yuv4mpegpipe") {
      EXPECT_EQ(frameHashes(piped), hashes) << log;
      EXPECT_EQ(probeValue(piped, "-select_streams v:0", "stream=r_frame_rate"), "25/1");
    } else {  // the gray planes of the file's frames, one after the other
      EXPECT_EQ(shellOutput("md5sum < " + q(piped)),
                shellOutput("ffmpeg -nostdin -v error -i " + q(file) +
                            " -f rawvideo -pix_fmt gray - | md5sum"))
          << log;
    }
  }
}

namespace {

// Two 1 s MPEG-TS clips (25 fps, AAC) joined with cat; `offset` starts the second one's clock
// that much later (0: both start at 1.4 s, the clock starts again).
std::string joinedTs(const TempDir& dir, const std::string& name, double offset) {
  const std::string a = dir / (name + "_a.ts"), b = dir / (name + "_b.ts"), ab = dir / name;
  const std::string clip =
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=1 -c:v libx264 -c:a aac ";
  ffmpeg(clip + q(a));
  ffmpeg(clip + "-output_ts_offset " + std::to_string(offset) + " " + q(b));
  shellOutput("cat " + q(a) + " " + q(b) + " > " + q(ab));
  return ab;
}

// The number of audio packets in `path`.
long audioPackets(const std::string& path) {
  const std::string v = shellOutput(
      "ffprobe -v error -select_streams a:0 -show_entries "
      "packet=pts -of csv=p=0 " +
      q(path) + " 2>/dev/null | grep -c '[0-9]'");
  return v.empty() ? -1 : std::stol(v);
}

}  // namespace

TEST(MediaFidelity, JoinedMpegTsKeepsItsTimelineAndAudio) {
  // The clock starts again in the middle (recordings joined with cat): the 25 frames after the
  // jump were stamped one tick apart at the end of the first second (the output lasted 1 s, not
  // 2), as ffmpeg mends it (a jump back of more than 0.1 s, or ahead of more than 10 s, in a
  // format that allows discontinuities, shifts every stream from there on).
  TempDir dir("fidelity_join");
  const std::string reset = joinedTs(dir, "reset.ts", 0);
  // The second clip's clock goes on where the first's ended, but its audio starts a little
  // before the first's last packet ends: the copied audio's timestamps stepped back and the
  // muxer refused them, ending the run with "Invalid argument" and no file (ffmpeg moves them
  // up to the last one).
  const std::string overlap = joinedTs(dir, "overlap.ts", 1.08);
  for (const std::string& in : {reset, overlap}) {
    for (const char* ext : {"mkv", "mp4"}) {
      SCOPED_TRACE(in + " -> " + ext);
      const std::string out = dir / (std::string("out.") + ext);
      const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out});
      ASSERT_EQ(r.status, 0) << r.err;
      const std::vector<double> t = frameTimes(out);
      ASSERT_EQ(t.size(), 50u);
      for (std::size_t i = 1; i < t.size(); ++i)
        EXPECT_NEAR(t[i] - t[i - 1], 0.04, 0.0025) << "frame " << i;
      EXPECT_NEAR(durationOf(out), 2.0, 0.1);
      EXPECT_EQ(audioPackets(out), audioPackets(in));
    }
  }
}

TEST(MediaFidelity, MatroskaAttachmentsAreKept) {
  // An ASS subtitle's fonts travel as attachments. Matroska into Matroska dropped them with
  // "the matroska container cannot hold ttf (.mkv holds almost anything)": its codec query
  // knows no attachment (ffmpeg -map 0 -c copy keeps them).
  TempDir dir("fidelity_attach");
  const std::string font = dir / "face.ttf", in = dir / "in.mkv";
  {
    std::ofstream f(font, std::ios::binary);
    for (int i = 0; i < 4096; ++i) f.put(static_cast<char>((i * 7919) >> 3));
  }
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -c:v libx264 -attach " + q(font) +
         " -metadata:s:t mimetype=application/x-truetype-font " + q(in));
  ASSERT_EQ(probeValue(in, "-select_streams t", "stream=codec_name"), "ttf");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams t", "stream_tags=filename"), "face.ttf");
  const std::string back = dir / "back.ttf";
  shellOutput("ffmpeg -nostdin -v error -dump_attachment:t:0 " + q(back) + " -i " + q(out) +
              " 2>/dev/null");
  EXPECT_EQ(shellOutput("cmp " + q(back) + " " + q(font) + " 2>&1 && echo same"), "same\n");
  EXPECT_EQ(countFrames(out), 25);
  // .mp4 has no place for them: dropped, and said so.
  const auto m = runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "out.mp4"});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.err.find("attachment stream #1 (ttf) dropped"), std::string::npos) << m.err;
}

TEST(MediaFidelity, ReencodedAudioKeepsItsGaps) {
  // PCM audio with no samples between 1 s and 2 s (its timestamps jump), re-encoded as AAC for
  // .mp4 and Opus for .webm: the samples after the gap were numbered on from before it, so the
  // rest of the audio played 1 s early. The gap is now silence and the tone comes back at 2 s.
  TempDir dir("fidelity_gap");
  const std::string in = dir / "gap.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=4 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=4 -af \"aselect='not(between(t,1,2))'\" "
      "-c:v libx264 -c:a pcm_s16le " +
      q(in));
  ASSERT_GT(audioLevel(in, 2.2, 0.6), 0.05);
  for (const char* ext : {"mp4", "webm"}) {
    SCOPED_TRACE(ext);
    const std::string out = dir / (std::string("out.") + ext);
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("re-encoded"), std::string::npos) << r.err;
    EXPECT_GT(audioLevel(out, 0.2, 0.6), 0.05);  // the tone before the gap
    EXPECT_LT(audioLevel(out, 1.2, 0.6), 0.01);  // silence where the input has none
    EXPECT_GT(audioLevel(out, 2.2, 0.6), 0.05);  // the tone after it, on time
    EXPECT_GT(audioLevel(out, 3.5, 0.4), 0.05);  // and to the end
  }
}

TEST(MediaFidelity, TrimmedReencodedAudioIsCutToTheSample) {
  // --ss/-t with audio re-encoded (AAC into .webm: Opus): whole AAC frames at both cuts gave
  // 31 ms too much. The same samples as ffmpeg's -ss before -i and -t, which cuts to the sample.
  TempDir dir("fidelity_trim_audio");
  const std::string in = dir / "in.mp4";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=4 -f lavfi -i "
      "sine=frequency=440:sample_rate=48000:duration=4 -c:v libx264 -c:a aac " +
      q(in));
  const std::string out = dir / "out.webm", ref = dir / "ref.webm";
  const auto r = runVidfilter({"-i", in, "--ss", "1.3", "-t", "1.1", "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  ffmpeg("-ss 1.3 -i " + q(in) + " -t 1.1 -vn -c:a libopus " + q(ref));
  const auto samples = [](const std::string& path) {
    return shellOutput("ffmpeg -nostdin -v error -i " + q(path) +
                       " -map 0:a -f s16le -ac 1 - | wc -c");
  };
  EXPECT_EQ(samples(out), samples(ref));
  EXPECT_NEAR(firstPacketTime(out, "a"), firstPacketTime(ref, "a"), 0.001);  // Opus pre-skip
}

TEST(MediaFidelity, TimecodeTrackIsKeptAsTheVideosTimecode) {
  // A QuickTime timecode track is a data stream FFmpeg has no codec for: its timecode goes on as
  // the video stream's tag (.mkv) or a new timecode track (.mov, .mp4), as with ffmpeg, and the
  // log says so (no warning of a loss).
  TempDir dir("fidelity_tmcd");
  const std::string in = dir / "in.mov";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -c:v libx264 -timecode "
      "01:02:03:04 " +
      q(in));
  ASSERT_EQ(probeValue(in, "-select_streams d", "stream=codec_tag_string"), "tmcd");
  const std::string mkv = dir / "out.mkv", mov = dir / "out.mov", mp4 = dir / "out.mp4";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", mkv});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("data stream #1 (tmcd, eng) kept as the video's timecode 01:02:03:04"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("warn"), std::string::npos) << r.err;
  EXPECT_EQ(probeValue(mkv, "-select_streams v", "stream_tags=timecode"), "01:02:03:04");
  for (const std::string& out : {mov, mp4}) {
    ASSERT_EQ(runVidfilter({"-i", in, "--chain", "gray", "-o", out}).status, 0);
    EXPECT_EQ(probeValue(out, "-select_streams d", "stream_tags=timecode"), "01:02:03:04") << out;
  }
  // A container without a timecode: dropped and said so, no unreadable data stream.
  const std::string ts = dir / "out.ts";
  const auto t = runVidfilter({"-i", in, "--chain", "gray", "-o", ts});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.err.find("(tmcd, eng) dropped: the mpegts container holds no timecode"),
            std::string::npos)
      << t.err;
  EXPECT_EQ(probeValue(ts, "-select_streams d", "stream=index"), "");
}

TEST(MediaFidelity, ASecondVideoStreamIsNamedWhenDropped) {
  // The output holds the chain's video stream; any other is named in a warning, not lost quietly.
  TempDir dir("fidelity_two_video");
  const std::string in = dir / "in.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -f lavfi -i "
      "testsrc=size=96x64:rate=10:duration=1 -map 0 -map 1 -c:v libx264 " +
      q(in));
  ASSERT_EQ(probeValue(in, "-select_streams v", "stream=index"), "0\n1");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("video stream #1 (h264) dropped"), std::string::npos) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams v", "stream=width"), "160");
  EXPECT_EQ(countFrames(out), 25);
}

TEST(MediaFidelity, TextSubtitlesAreConvertedToTheContainersTextFormat) {
  // SubRip cannot go into .mp4/.mov/.webm as it is, mov_text not into .mkv: as ffmpeg does, the
  // events are written in the container's own text format, with their text and times (read back
  // by ffmpeg as SubRip, against the input's).
  TempDir dir("fidelity_subtitles");
  const std::string srt = dir / "s.srt";
  std::ofstream(srt) << "1\n00:00:00,500 --> 00:00:01,500\nHello <i>world</i>\n\n"
                        "2\n00:00:02,000 --> 00:00:03,250\nSecond line\nwith two rows\n\n";
  const std::string subrip = dir / "subrip.mkv", movText = dir / "mov_text.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=4 -i " + q(srt) +
         " -c:v libx264 -c:s srt " + q(subrip));
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=4 -i " + q(srt) +
         " -c:v libx264 -c:s mov_text " + q(movText));
  const auto events = [](const std::string& path) {
    return shellOutput("ffmpeg -nostdin -v error -i " + q(path) + " -map 0:s -f srt - 2>&1");
  };
  const std::string want = events(subrip);
  ASSERT_NE(want.find("with two rows"), std::string::npos) << want;
  for (const auto& [in, out, codec] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {subrip, "out.mp4", "mov_text"},
           {subrip, "out.mov", "mov_text"},
           {subrip, "out.webm", "webvtt"},
           {movText, "out.mkv", "ass"}}) {
    SCOPED_TRACE(out);
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", dir / out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("converted to"), std::string::npos) << r.err;
    EXPECT_EQ(probeValue(dir / out, "-select_streams s", "stream=codec_name"), codec);
    EXPECT_EQ(events(dir / out), want);
  }
}

TEST(MediaFidelity, SamplesOfMoreThanEightBitsAreSaidToBeFilteredInEight) {
  TempDir dir("fidelity_10bit");
  const std::string in = dir / "in.mkv";
  makeClip(in, "testsrc2=size=160x120:rate=25", "-frames:v 5 -pix_fmt yuv420p10le -c:v ffv1");
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "out.mkv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("10 bits (yuv420p10le)"), std::string::npos) << r.err;
  EXPECT_EQ(countFrames(dir / "out.mkv"), 5);
  // 16-bit PNG images too.
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 3 -pix_fmt rgb48be " +
         q(dir / "f_%03d.png"));
  const auto png = runVidfilter({"-i", dir / "f_%03d.png", "--chain", "gray", "-o", dir / "p.mkv"});
  ASSERT_EQ(png.status, 0) << png.err;
  EXPECT_NE(png.err.find("16 bits (rgb48be)"), std::string::npos) << png.err;
}
