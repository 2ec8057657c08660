// Media I/O through FFmpeg's libraries, end to end with the real binary, on media the ffmpeg
// command makes at test time; ffprobe and ffmpeg read the results back (the reference):
// nothing lost (audio packets, timestamps, tags, chapters, rotation). (Trimming, pipes, encoder
// defaults, network output, live recordings, bench's file job: tests/test_app_media_paths.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// A 4 s testsrc2 clip (25 fps) with a 440 Hz tone: `video`, `audio` are codec options.
std::string avClip(const TempDir& dir, const std::string& name, const std::string& codecs) {
  const std::string path = dir / name;
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=frequency=440:sample_rate="
      "48000 -t 4 " +
      codecs + " " + q(path));
  return path;
}

// The audio stream's packets as ffmpeg copies them (timestamps, sizes, payload hash).
std::string audioPackets(const std::string& path) {
  return shellOutput(
      "ffprobe -v error -select_streams a:0 -show_entries packet=pts,dts,duration,"
      "size -of csv " +
      q(path) + " 2>/dev/null; ffmpeg -nostdin -v error -i " + q(path) +
      " -map 0:a:0 -c copy -f md5 - 2>/dev/null");
}

void expectOk(const vf::test::ProcResult& r) { ASSERT_EQ(r.status, 0) << r.err; }

}  // namespace

// --- nothing lost ---------------------------------------------------------------------------

TEST(MediaIo, CopiedAudioPacketsEqualTheInputs) {
  TempDir dir("media_audio");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.mp4";
  const auto r = runVidfilter({"-i", in, "--chain", "blur,sobel", "-c:a", "copy", "-o", out});
  expectOk(r);
  EXPECT_NE(r.err.find("audio stream #1 (aac, und) copied"), std::string::npos) << r.err;
  const std::string a = audioPackets(in), b = audioPackets(out);
  ASSERT_GT(a.size(), 100u);
  EXPECT_EQ(a, b);
  EXPECT_NEAR(durationOf(out), durationOf(in), 0.04);
}

TEST(MediaIo, Ac3InAviIsCopiedIntoMp4) {
  // The reported case: an AVI with an AC3 track came out as video only.
  TempDir dir("media_ac3");
  const std::string in = avClip(dir, "in.avi", "-c:v mpeg4 -q:v 3 -c:a ac3");
  const std::string out = dir / "out.mp4";
  expectOk(runVidfilter({"-i", in, "--chain", "gray", "-o", out}));
  EXPECT_EQ(probeValue(out, "-select_streams a", "stream=codec_name"), "ac3");
  EXPECT_EQ(
      shellOutput("ffmpeg -nostdin -v error -i " + q(in) + " -map 0:a -c copy -f md5 - 2>&1"),
      shellOutput("ffmpeg -nostdin -v error -i " + q(out) + " -map 0:a -c copy -f md5 - 2>&1"));
}

TEST(MediaIo, AudioTheContainerCannotTakeIsReencodedAndAnDropsIt) {
  TempDir dir("media_pcm");
  const std::string in = avClip(dir, "in.mov", "-c:v libx264 -c:a pcm_s16le");
  const std::string out = dir / "out.mp4";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", out});
  expectOk(r);
  EXPECT_NE(r.err.find("re-encoded as aac"), std::string::npos) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams a", "stream=codec_name"), "aac");
  const std::string inDur = probeValue(in, "-select_streams a", "stream=duration");
  const std::string outDur = probeValue(out, "-select_streams a", "stream=duration");
  EXPECT_NEAR(std::stod(outDur), std::stod(inDur), 0.05);
  // -an (ffmpeg's spelling) drops it on purpose; --an is the same.
  expectOk(runVidfilter({"-i", in, "-vf", "gray", "-an", "-o", dir / "silent.mp4"}));
  EXPECT_EQ(probeValue(dir / "silent.mp4", "-select_streams a", "stream=codec_name"), "");
  EXPECT_EQ(countFrames(dir / "silent.mp4"), 100);
}

TEST(MediaIo, AudioAMuxerRefusesAsItIsIsReencoded) {
  // QuickTime .mov says it takes Opus and FLAC but its muxer refuses them at the start; MPEG-TS
  // would write FLAC as private data no player decodes: they are re-encoded to the container's
  // own audio codec, as ffmpeg does, and keep their length.
  TempDir dir("media_refused");
  for (const auto& [codec, container, audio] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"libopus", "mov", "aac"}, {"flac", "mov", "aac"}, {"flac", "ts", "mp2"}}) {
    SCOPED_TRACE(codec + " in ." + container);
    const std::string in = avClip(dir, codec + ".mkv", "-c:v libx264 -c:a " + codec);
    const std::string out = dir / ("out." + container);
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out});
    expectOk(r);
    const std::string got = probeValue(out, "-select_streams a", "stream=codec_name");
    EXPECT_EQ(got.substr(0, got.find('\n')), audio);  // a .ts lists it again in its program
    EXPECT_NEAR(durationOf(out), durationOf(in), 0.1);
    EXPECT_EQ(countFrames(out), 100);
  }
}

TEST(MediaIo, AnAudioCodecTheContainerCannotHoldIsRefused) {
  TempDir dir("media_acodec");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.webm";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-c:a", "aac", "-o", out});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("libopus"), std::string::npos) << r.err;  // what it takes
  EXPECT_FALSE(std::filesystem::exists(out));
}

// FLAC in .mp4 (experimental in FFmpeg 5.1's muxer) and an experimental encoder (vorbis) are
// refused before anything is written, naming what works.
TEST(MediaIo, AudioThatCannotBeWrittenIsRefusedUpFront) {
  TempDir dir("media_acodec_experimental");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const auto flac =
      runVidfilter({"-i", in, "--chain", "gray", "-c:a", "flac", "-o", dir / "f.mp4"});
  EXPECT_EQ(flac.status, 2) << flac.err;
  EXPECT_NE(flac.err.find("cannot hold flac"), std::string::npos) << flac.err;
  EXPECT_NE(flac.err.find("aac"), std::string::npos) << flac.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "f.mp4"));
  const auto vorbis =
      runVidfilter({"-i", in, "--chain", "gray", "-c:a", "vorbis", "-o", dir / "v.mkv"});
  EXPECT_EQ(vorbis.status, 2) << vorbis.err;
  EXPECT_NE(vorbis.err.find("-c:a libvorbis"), std::string::npos) << vorbis.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "v.mkv"));
  const auto ok =
      runVidfilter({"-i", in, "--chain", "gray", "-c:a", "libvorbis", "-o", dir / "ok.mkv"});
  expectOk(ok);
  EXPECT_EQ(probeValue(dir / "ok.mkv", "-select_streams a", "stream=codec_name"), "vorbis");
}

// -c:a takes a codec's name as ffmpeg does: mp3 is encoded by libmp3lame.
TEST(MediaIo, AnAudioCodecNamedByItsCodecFindsItsEncoder) {
  TempDir dir("media_acodec_family");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-c:a", "mp3", "-o", out});
  expectOk(r);
  EXPECT_EQ(probeValue(out, "-select_streams a", "stream=codec_name"), "mp3");
  EXPECT_NEAR(durationOf(out), durationOf(in), 0.1);
}

// .3gp's encoder (H.263) codes five sizes: another is refused, naming them and the way out.
TEST(MediaIo, H263TakesItsSizesOnly) {
  TempDir dir("media_h263");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const auto bad = runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "bad.3gp"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("176x144"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.3gp"));
  const auto ok = runVidfilter({"-i", in, "--chain", "gray,resize=176x144", "-o", dir / "ok.3gp"});
  expectOk(ok);
  EXPECT_EQ(probeValue(dir / "ok.3gp", "-select_streams v", "stream=codec_name"), "h263");
  EXPECT_EQ(countFrames(dir / "ok.3gp"), countFrames(in));
}

TEST(MediaIo, AContainerRefusingItsStreamsLeavesNoFile) {
  // Matroska takes raw video, but not of BGR pixels: the muxer refuses at its header.
  TempDir dir("media_header");
  const std::string in = avClip(dir, "in.mp4", "-c:v libx264 -c:a aac");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter(
      {"-i", in, "--chain", "blur", "--codec", "rawvideo", "--pix-fmt", "bgr24", "-o", out});
  EXPECT_EQ(r.status, 2) << r.err;  // the codec and pixel format chosen: a usage error
  EXPECT_NE(r.err.find("rawvideo"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(MediaIo, VariableFrameRateKeepsItsTimestamps) {
  // 75 frames at 25 fps with a 1 s gap after frame 50: 4.0 s long (FFV1: exact timestamps).
  TempDir dir("media_vfr");
  const std::string in = dir / "vfr.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -vf 'setpts=(N+25*gte(N\\,50))/25/TB' "
      "-frames:v 75 -fps_mode passthrough -c:v ffv1 " +
      q(in));
  const std::vector<double> want = frameTimes(in);
  ASSERT_EQ(want.size(), 75u);
  ASSERT_NEAR(want[50] - want[49], 1.04, 1e-6);
  for (const char* ext : {"mp4", "mkv", "mov"}) {
    SCOPED_TRACE(ext);
    const std::string out = dir / (std::string("out.") + ext);
    expectOk(runVidfilter({"-i", in, "--chain", "gray,sobel", "-o", out}));
    const std::vector<double> got = frameTimes(out);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i] - got[0], want[i] - want[0], 0.001) << "frame " << i;
    EXPECT_NEAR(durationOf(out), durationOf(in), 0.04);
  }
  // y4m keeps no timestamps: the gap is held by the frame before it, shown 26 times (its own
  // slot and the 25 of the gap), so the output lasts as long, as ffmpeg writes it.
  const std::string y4m = dir / "out.y4m";
  expectOk(runVidfilter({"-i", in, "--chain", "gray,sobel", "-o", y4m}));
  EXPECT_NEAR(durationOf(y4m), durationOf(in), 0.04);
  std::vector<std::string> hashes;
  std::istringstream lines(
      shellOutput("ffmpeg -nostdin -v error -i " + q(y4m) + " -f framemd5 - 2>&1"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') hashes.push_back(line.substr(line.rfind(',') + 1));
  ASSERT_EQ(hashes.size(), 100u);
  for (std::size_t i = 50; i < 75; ++i) EXPECT_EQ(hashes[i], hashes[49]) << "frame " << i;
  EXPECT_NE(hashes[48], hashes[49]);
  EXPECT_NE(hashes[75], hashes[49]);
  // Times that jitter around the grid (every other frame 0.45 of a frame late) keep every frame,
  // once each.
  const std::string jitter = dir / "jitter.mkv", jittery = dir / "jitter.y4m";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -vf 'setpts=(N+0.45*mod(N\\,2))/25/TB' "
      "-frames:v 40 -fps_mode passthrough -c:v ffv1 " +
      q(jitter));
  expectOk(runVidfilter({"-i", jitter, "--chain", "gray", "-o", jittery}));
  std::istringstream jittered(
      shellOutput("ffmpeg -nostdin -v error -i " + q(jittery) + " -f framemd5 - 2>&1"));
  std::vector<std::string> seen;
  for (std::string line; std::getline(jittered, line);)
    if (!line.empty() && line[0] != '#') seen.push_back(line.substr(line.rfind(',') + 1));
  ASSERT_EQ(seen.size(), 40u);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_NE(seen[i], seen[i - 1]) << "frame " << i;
}

TEST(MediaIo, TagsChaptersAndRotationAreCopied) {
  TempDir dir("media_tags");
  const std::string meta = dir / "chapters.txt";
  {
    std::ofstream f(meta);
    f << ";FFMETADATA1\ntitle=Harbour at dawn\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\n"
         "title=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=4000\ntitle=Two\n";
  }
  const std::string mkv = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -i " + q(meta) +
         " -map_metadata 1 -map_chapters 1 -t 4 -c:v libx264 " + q(mkv));
  expectOk(runVidfilter({"-i", mkv, "--chain", "gray", "-o", dir / "out.mkv"}));
  EXPECT_EQ(probeValue(dir / "out.mkv", "", "format_tags=title"), "Harbour at dawn");
  EXPECT_EQ(probeValue(dir / "out.mkv", "", "chapter=start_time,end_time"),
            "0.000000\n2.000000\n2.000000\n4.000000");
  // --ss 1 moves the chapters with the timeline and cuts what is left out; --to 3 too.
  expectOk(runVidfilter({"-i", mkv, "--chain", "gray", "--ss", "1", "-o", dir / "cut.mkv"}));
  EXPECT_EQ(probeValue(dir / "cut.mkv", "", "chapter=start_time,end_time"),
            "0.000000\n1.000000\n1.000000\n3.000000");
  expectOk(runVidfilter(
      {"-i", mkv, "--chain", "gray", "--ss", "1", "--to", "3", "-o", dir / "mid.mkv"}));
  EXPECT_EQ(probeValue(dir / "mid.mkv", "", "chapter=start_time,end_time"),
            "0.000000\n1.000000\n1.000000\n2.000000");
  // A phone video's rotation (display matrix) stays with the stream.
  const std::string plain = dir / "plain.mp4", mp4 = dir / "rot.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 " + q(plain));
  ffmpeg("-i " + q(plain) + " -c copy -metadata:s:v:0 rotate=90 " + q(mp4));
  ASSERT_EQ(probeValue(mp4, "-select_streams v", "stream_side_data=rotation"), "90");
  expectOk(runVidfilter({"-i", mp4, "--chain", "sobel", "-o", dir / "rot_out.mp4"}));
  EXPECT_EQ(probeValue(dir / "rot_out.mp4", "-select_streams v", "stream_side_data=rotation"),
            "90");
  // Where it has no place, the user is told: images, and a pipe in a container that does not
  // hold it (a pipe cannot be read back to see).
  for (const std::vector<std::string>& out :
       {std::vector<std::string>{"-o", dir / "rot_%03d.png"},
        std::vector<std::string>{"-f", "mpegts", "-o", "-"}}) {
    std::vector<std::string> args = {"-i", mp4, "--chain", "sobel", "--frames", "2"};
    args.insert(args.end(), out.begin(), out.end());
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("rotation (90 degrees) is not kept"), std::string::npos) << r.err;
  }
  const auto fragmented =
      runVidfilter({"-i", mp4, "--chain", "sobel", "--frames", "2", "-f", "mp4", "-o", "-"});
  EXPECT_EQ(fragmented.status, 0) << fragmented.err;
  EXPECT_EQ(fragmented.err.find("is not kept"), std::string::npos) << fragmented.err;
}
