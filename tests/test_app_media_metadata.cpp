// What a file job keeps besides the pixels, and what it reads of its input's length, on
// containers and encoders whose rules differ from the usual ones: FLV's stream order, Theora's
// rate, audio encoders' layouts, formats and bit rates, MPEG program streams'
// audio, Matroska's start times, MP4's edit lists and GIF's coarse time base. Every input is made
// by the ffmpeg command at test time; ffprobe and ffmpeg read the results back and make the
// reference outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// A 4 s testsrc2 clip at 25 fps (100 frames) with a 440 Hz tone; `codecs`: its codec options,
// `audio`: a filter for the tone (a channel layout).
std::string avClip(const TempDir& dir, const std::string& name, const std::string& codecs,
                   const std::string& audio = "anull") {
  const std::string path = dir / name;
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=frequency=440:sample_rate="
      "48000 -t 4 -af " +
      audio + " " + codecs + " " + q(path));
  return path;
}

std::string audioEntry(const std::string& path, const std::string& entry) {
  return probeValue(path, "-select_streams a:0", "stream=" + entry);
}

// The bytes of the first audio stream's packets.
long audioBytes(const std::string& path) {
  const std::string out =
      shellOutput("ffprobe -v error -select_streams a:0 -show_entries packet=size -of csv=p=0 " +
                  q(path) + " 2>/dev/null");
  long sum = 0;
  std::size_t a = 0;
  while (a < out.size()) {
    std::size_t b = out.find('\n', a);
    if (b == std::string::npos) b = out.size();
    if (b > a) sum += std::atol(out.substr(a, b - a).c_str());
    a = b + 1;
  }
  return sum;
}

}  // namespace

TEST(MediaMetadata, FlvWithAudioFirstReadsBackEveryFrame) {
  // FLV numbers its streams in the order of their first packets: the audio's may come first,
  // and the read-back counts the video stream's packets, wherever it is.
  TempDir dir("meta_flv");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.flv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(out), 100);
  EXPECT_FALSE(audioEntry(out, "codec_name").empty());
}

TEST(MediaMetadata, TheoraKeepsEveryFrameAtTheInputsRate) {
  // libtheora takes the time base for the frame rate: with the input's (1/12800) the .ogv
  // declared 12800 fps and read back 9 of its 100 frames.
  TempDir dir("meta_theora");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.ogv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const Probe p = probe(out);
  EXPECT_EQ(p.codec, "theora");
  EXPECT_EQ(p.frames, 100);
  EXPECT_EQ(p.rate, "25/1");
  const std::vector<double> want = frameTimes(in), got = frameTimes(out);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i] - got[0], want[i] - want[0], 0.001) << "frame " << i;
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(MediaMetadata, AudioTakesALayoutAndFormatTheEncoderHas) {
  // 5.1 into MP3 (.avi's audio) or MP2, which take mono and stereo: the encoder did not open
  // ("Invalid argument"). ffmpeg downmixes to stereo; float into FLAC is 24-bit there, not 16.
  TempDir dir("meta_layout");
  const std::string in =
      avClip(dir, "in51.mkv", "-c:v libx264 -c:a libopus", "aformat=channel_layouts=5.1");
  ASSERT_EQ(audioEntry(in, "channel_layout"), "5.1");
  struct Case {
    const char* out;
    std::vector<std::string> extra;
  };
  for (const Case& k : {Case{"out.avi", {}}, Case{"mp2.mkv", {"-c:a", "mp2"}},
                        Case{"flac.mkv", {"-c:a", "flac"}}, Case{"aac.mkv", {"-c:a", "aac"}}}) {
    SCOPED_TRACE(k.out);
    const std::string out = dir / k.out, ref = dir / (std::string("ref_") + k.out);
    std::string refCodec;
    for (const std::string& e : k.extra) refCodec += q(e) + " ";
    ffmpeg("-i " + q(in) + " " + refCodec + q(ref));
    std::vector<std::string> args = {"-i", in, "--chain", "gray", "-o", out};
    args.insert(args.end(), k.extra.begin(), k.extra.end());
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* entry : {"codec_name", "channel_layout", "sample_rate", "sample_fmt"})
      EXPECT_EQ(audioEntry(out, entry), audioEntry(ref, entry)) << entry;
  }
}

TEST(MediaMetadata, SurroundLayoutsOpusTakesNotAreMappedToTheNearest) {
  // Opus (.webm) takes surround only in Vorbis channel order: 5.1(side), as AC-3 5.1 decodes,
  // failed with "the opus (libopus) audio encoder did not open". A tone in one channel of each
  // layout: the output has the nearest layout Opus takes, each channel as loud as in ffmpeg's
  // own Opus of the input converted to that layout (the reference), the tone in one of them.
  TempDir dir("fidelity_opus_layouts");
  const struct {
    const char* in;   // the input's layout
    int channels;     // its count, the tone in the last but one channel (side left; 2.1: right)
    const char* out;  // the layout expected in .webm
  } cases[] = {{"5.1(side)", 6, "5.1"}, {"5.0(side)", 5, "5.0"}, {"2.1", 3, "stereo"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    std::string exprs;
    for (int i = 0; i < c.channels; ++i)
      exprs += std::string(i ? "|" : "") + (i == c.channels - 2 ? "0.5*sin(440*2*PI*t)" : "0");
    const std::string in = dir / "in.mkv", out = dir / "out.webm", ref = dir / "ref.webm";
    ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -f lavfi -i " +
           q("aevalsrc=exprs=" + exprs + ":channel_layout=" + c.in + ":sample_rate=48000:d=1") +
           " -c:v libx264 -c:a flac " + q(in));
    ffmpeg("-i " + q(in) + " -vn -af aformat=channel_layouts=" + c.out + " -c:a libopus " + q(ref));
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(probeValue(out, "-select_streams a:0", "stream=channel_layout"), c.out);
    double loudest = 0;
    for (int ch = 0; ch < std::stoi(probeValue(ref, "-select_streams a:0", "stream=channels"));
         ++ch) {
      SCOPED_TRACE(ch);
      const double level = audioLevel(out, 0.2, 0.6, ch);
      EXPECT_NEAR(level, audioLevel(ref, 0.2, 0.6, ch), 0.02);
      loudest = std::max(loudest, level);
    }
    EXPECT_GT(loudest, 0.2);  // the tone is there
  }
}

TEST(MediaMetadata, AudioBitRateIsTheEncodersDefault) {
  // A fixed bit rate (128k for mono) was set on every encoder: libvorbis refused it for mono at
  // 22050 Hz. Without -b:a, ffmpeg leaves each encoder its own default: the same bytes here.
  TempDir dir("meta_bitrate");
  const std::string in = dir / "mono.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i "
      "sine=frequency=440:sample_rate=22050 -t 2 -af aformat=channel_layouts=mono -c:v libx264 "
      "-c:a pcm_s16le " +
      q(in));
  for (const char* codec : {"libvorbis", "libmp3lame", "aac", "libopus", "mp2", "flac"}) {
    SCOPED_TRACE(codec);
    const std::string out = dir / (std::string("out_") + codec + ".mkv");
    const std::string ref = dir / (std::string("ref_") + codec + ".mkv");
    ffmpeg("-i " + q(in) + " -c:v libx264 -c:a " + codec + " " + q(ref));
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-c:a", codec, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(audioEntry(out, "sample_rate"), audioEntry(ref, "sample_rate"));
    const long got = audioBytes(out), want = audioBytes(ref);
    ASSERT_GT(want, 0);
    EXPECT_NEAR(double(got) / double(want), 1.0, 0.03) << got << " bytes, ffmpeg " << want;
  }
}

TEST(MediaMetadata, AacIntoAnMpegProgramStreamIsReencoded) {
  // The MPEG-PS muxer (.mpg, .vob) checks its codecs when it writes its header: AAC passed the
  // trial and the real header refused it. ffmpeg writes MP2 there.
  TempDir dir("meta_mpg");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  for (const char* ext : {"mpg", "vob"}) {
    SCOPED_TRACE(ext);
    const std::string out = dir / (std::string("out.") + ext);
    const std::string ref = dir / (std::string("ref.") + ext);
    ffmpeg("-i " + q(in) + " " + q(ref));
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(audioEntry(out, "codec_name"), audioEntry(ref, "codec_name"));
    EXPECT_EQ(countFrames(out), 100);
  }
}

TEST(MediaMetadata, WholeFilesAreNotCalledTruncated) {
  // Matroska that starts at 10 s declares its end (14 s), not its length; an MP4 whose edit list
  // starts mid-GOP holds frames it never shows, and its frame count has them ("decoded 67 of
  // 100 frames"). A Matroska file that starts late and is cut short is still named.
  TempDir dir("meta_whole");
  const std::string late = dir / "late.mkv", full = dir / "full.mp4", edit = dir / "edit.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 4 -c:v libx264 -output_ts_offset 10 " +
         q(late));
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 4 -c:v libx264 -g 50 " + q(full));
  ffmpeg("-ss 1.3 -i " + q(full) + " -c copy " + q(edit));
  ASSERT_EQ(probeValue(edit, "-select_streams v", "stream=nb_frames"), "100");
  for (const std::string& in : {late, edit}) {
    SCOPED_TRACE(in);
    const std::string out = in + ".out.mkv";
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("truncated"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("could not be read"), std::string::npos) << r.err;
    EXPECT_EQ(countFrames(out), countFrames(in));
  }
  const std::string cut = dir / "cut.mkv";
  std::filesystem::copy_file(late, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(late) * 4 / 10);
  const auto r = runVidfilter({"-i", cut, "--chain", "gray", "-o", dir / "cut.out.mkv"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("its container declares; the file may be truncated"), std::string::npos)
      << r.err;
}

// Odd frame sizes stay odd where the encoder stores any size (y4m, raw video, FFV1, VP9), as
// ffmpeg writes them; H.264 pads them to even, saying so.
TEST(MediaMetadata, OddSizesStayOddWhereTheEncoderTakesThem) {
  TempDir dir("media_odd_sizes");
  const std::string in = dir / "odd.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 10 -vf scale=321:241 "
      "-pix_fmt yuv444p -c:v ffv1 " +
      q(in));
  for (const std::string out : {"o.y4m", "o.mkv", "o.nut", "o.webm"}) {
    SCOPED_TRACE(out);
    std::vector<std::string> args = {"-y", "-i",     in, "--chain", "brightness=gain=1",
                                     "-o", dir / out};
    if (out == "o.mkv") args.insert(args.end(), {"--codec", "ffv1"});
    if (out == "o.nut") args.insert(args.end(), {"--codec", "rawvideo", "--pix-fmt", "yuv420p"});
    if (out == "o.webm") args.insert(args.end(), {"--crf", "4"});
    const ProcResult r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("is odd"), std::string::npos) << r.err;
    EXPECT_EQ(probeValue(dir / out, "-select_streams v:0", "stream=width"), "321");
    EXPECT_EQ(probeValue(dir / out, "-select_streams v:0", "stream=height"), "241");
    EXPECT_EQ(countFrames(dir / out), 10);
    // The picture is what ffmpeg makes of the input through 8-bit BGR, as vidfilter's frames
    // are, in the output's pixel format: PSNR by ffmpeg's filter.
    const std::string pix = probeValue(dir / out, "-select_streams v:0", "stream=pix_fmt");
    const std::string ref = dir / ("ref_" + out + ".mkv");
    ffmpeg("-i " + q(in) + " -vf format=bgr24,format=" + pix + " -c:v ffv1 " + q(ref));
    const std::string psnr =
        shellOutput("ffmpeg -nostats -i " + q(dir / out) + " -i " + q(ref) +
                    " -lavfi psnr -f null - 2>&1 | grep -o 'average:[0-9.inf]*'");
    ASSERT_NE(psnr.find("average:"), std::string::npos) << psnr;
    const double db = psnr.find("inf") != std::string::npos ? 100.0 : std::atof(psnr.c_str() + 8);
    EXPECT_GT(db, out == "o.webm" ? 34.0 : 38.0) << psnr;  // VP9 is lossy
  }
  // H.264 in 4:2:0 (an .mp4's default) needs even sizes: padded; in 4:4:4, kept.
  const ProcResult r =
      runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-o", dir / "o.mp4"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(dir / "o.mp4", "-select_streams v:0", "stream=width"), "322");
  EXPECT_EQ(probeValue(dir / "o.mp4", "-select_streams v:0", "stream=height"), "242");
  const ProcResult r444 = runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "--pix-fmt",
                                        "yuv444p", "-o", dir / "o444.mp4"});
  ASSERT_EQ(r444.status, 0) << r444.err;
  EXPECT_EQ(probeValue(dir / "o444.mp4", "-select_streams v:0", "stream=width"), "321");
  EXPECT_EQ(probeValue(dir / "o444.mp4", "-select_streams v:0", "stream=height"), "241");
}

// An image sequence ends at its first missing number, as ffmpeg's; images numbered past the gap
// make the run say which file is missing and which are left unread.
TEST(MediaMetadata, AGapInAnImageSequenceIsNamed) {
  TempDir dir("media_seq_gap");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 10 -start_number 1 " +
         q(dir / "f_%04d.png"));
  const auto run = [&] {
    const ProcResult r = runVidfilter(
        {"-y", "-i", dir / "f_%04d.png", "--chain", "brightness=gain=1", "-o", dir / "out.mkv"});
    EXPECT_EQ(r.status, 0) << r.err;
    return r;
  };
  ProcResult r = run();
  EXPECT_EQ(countFrames(dir / "out.mkv"), 10);
  EXPECT_EQ(r.err.find("is missing"), std::string::npos) << r.err;
  std::filesystem::remove(dir / "f_0008.png");
  r = run();
  EXPECT_EQ(countFrames(dir / "out.mkv"), 7);
  const std::size_t warning = r.err.find("f_0008.png");
  ASSERT_NE(warning, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("f_0009.png", warning), std::string::npos) << r.err;
}

// A sequence numbered from past 4 (a camera's, a cut from a longer one) starts at its lowest
// number, where ffmpeg's image2 needs -start_number; files of other names beside it do not count,
// and a pattern nothing matches names where it looked.
TEST(MediaMetadata, AnImageSequenceNumberedFromPastFourStartsAtItsLowestNumber) {
  TempDir dir("media_seq_start");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -start_number 120 " +
         q(dir / "f_%04d.png"));
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -start_number 120 " +
         q(dir / "ref_%04d.png"));
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 1 " + q(dir / "f_12.png"));
  std::filesystem::create_directory(dir / "f_0007.png");  // a directory is no member
  const ProcResult r = runVidfilter({"-y", "-i", dir / "f_%04d.png", "--chain", "brightness=gain=1",
                                     "--codec", "ffv1", "-o", dir / "o.mkv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "o.mkv"), 6);
  // The same images read by a glob, in name order.
  const ProcResult g = runVidfilter({"-y", "-i", dir / "ref_*.png", "--chain", "brightness=gain=1",
                                     "--codec", "ffv1", "-o", dir / "ref.mkv"});
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(frameHashes(dir / "o.mkv"), frameHashes(dir / "ref.mkv"));
  expectOneError(
      runVidfilter({"-y", "-i", dir / "g_%04d.png", "--chain", "gray", "-o", dir / "g.mkv"}), 2,
      "no image found (looked for " + (dir / "g_0000.png") + " to " + (dir / "g_0004.png") +
          ", and for any number in '" + dir.path().string() + "/')");
}

// A subtitle shown across --ss is shown from the cut on: the output starts at zero and lasts as
// long as the cut, in Matroska (which would move its time zero back to the cue) and in MP4 (where
// the cue, converted to mov_text, would stay on screen for its whole length from the start).
TEST(MediaMetadata, SubtitleShownAcrossTheCutStartsAtTheCut) {
  TempDir dir("meta_sub_cut");
  const std::string srt = dir / "s.srt", in = dir / "in.mkv";
  std::ofstream(srt) << "1\n00:00:01,000 --> 00:00:04,500\nFIRST\n\n"
                        "2\n00:00:05,000 --> 00:00:05,500\nSECOND\n";
  // One keyframe: the seek lands at the start, so the first cue is read before the cut.
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=25:duration=6 -i " + q(srt) +
         " -c:v libx264 -g 250 -c:s srt " + q(in));
  for (const std::string name : {"cut.mkv", "cut.mp4"}) {
    SCOPED_TRACE(name);
    const std::string out = dir / name;
    const auto r =
        runVidfilter({"-y", "-i", in, "--chain", "gray", "--ss", "4", "-t", "1", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_LT(std::stod(probeValue(out, "", "format=duration")), 1.2);
    EXPECT_LT(std::stod(probeValue(out, "-select_streams v", "stream=start_time")), 0.1);
    const std::string events =
        shellOutput("ffmpeg -nostdin -v error -i " + q(out) + " -map 0:s -f srt - 2>&1");
    // FIRST from the cut (0 s) to its end at 4.5 s of the input, 0.5 s into the output.
    EXPECT_NE(events.find("00:00:00,0"), std::string::npos) << events;
    EXPECT_NE(events.find("--> 00:00:00,5"), std::string::npos) << events;
    EXPECT_NE(events.find("FIRST"), std::string::npos) << events;
    EXPECT_EQ(events.find("SECOND"), std::string::npos) << events;
  }
}

// Music with a cover image: the picture is the video, one frame, and the audio is copied whole;
// the container's length is the audio's, so nothing is said about a short video.
TEST(MediaMetadata, ACoverImageIsOneFrameWithTheWholeAudioAndNoWarning) {
  TempDir dir("meta_cover");
  const std::string cover = dir / "cover.png", song = dir / "song.mp3", out = dir / "song.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=64x64 -frames:v 1 " + q(cover));
  ffmpeg("-f lavfi -i sine=duration=3 -i " + q(cover) +
         " -map 0 -map 1 -c:a libmp3lame -c:v png -disposition:v attached_pic " + q(song));
  const auto r = runVidfilter({"-y", "-i", song, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(countFrames(out), 1);
  EXPECT_GT(std::stod(probeValue(out, "-select_streams a", "stream=duration")), 2.9);
}

// GIF counts time in 1/100 s: two frames 0.01 ms apart (an input of variable rate) fall on one
// tick, which the muxer refuses ("Invalid argument" after 2 frames); the later one moves to the
// next tick, as ffmpeg's muxing does, and every frame is written, each after the one before.
TEST(MediaMetadata, FramesCloserThanTheContainersTickAreAllWritten) {
  TempDir dir("meta_tick");
  const std::string in = dir / "close.mp4", out = dir / "out.gif";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 7 -vf "
      "'settb=1/100000,setpts=if(eq(N\\,2)\\,4001\\,N*4000)' -fps_mode passthrough "
      "-video_track_timescale 100000 -c:v libx264 " +
      q(in));
  const std::vector<double> times = frameTimes(in);
  ASSERT_EQ(times.size(), 7u);
  ASSERT_NEAR(times[2] - times[1], 0.00001, 1e-7);
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<double> got = frameTimes(out);
  ASSERT_EQ(got.size(), 7u);
  for (std::size_t i = 1; i < got.size(); ++i) EXPECT_GT(got[i], got[i - 1]) << "frame " << i;
  EXPECT_EQ(shellOutput("ffmpeg -nostdin -v error -i " + q(out) + " -f null - 2>&1"), "");
  // Frames 0.5 ms apart into Matroska (1 ms) through x264, which reorders them: moved apart
  // before they are encoded, every frame shows once, in order.
  const std::string fast = dir / "fast.nut", mkv = dir / "fast.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=2000 -frames:v 20 -c:v ffv1 " + q(fast));
  const auto m = runVidfilter({"-i", fast, "--chain", "blur", "-o", mkv});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.err.find("frames closer together than its time base (1/1000 s)"), std::string::npos)
      << m.err;
  const std::vector<double> shown = frameTimes(mkv);
  ASSERT_EQ(shown.size(), 20u);
  for (std::size_t i = 1; i < shown.size(); ++i) EXPECT_GT(shown[i], shown[i - 1]) << "frame " << i;
  EXPECT_EQ(shellOutput("ffmpeg -nostdin -v error -i " + q(mkv) + " -f null - 2>&1"), "");
}
