// What a container holds, with the real binary and ffprobe/ffmpeg as the reference: FLV (and
// RTMP through it) takes one audio stream, the input's default; Matroska takes the codecs it
// writes through their Video for Windows and ACM tags (Ut Video, pcm_mulaw), copied as they
// are; an Ogg Theora output whose encoder repeats frames as empty packets, which Ogg does not
// store, is written whole and reported so; SWF is written at the input's frame rate; MXF's
// audio at its one rate, and a muxer's reason for refusing a header in the error; a colour
// description the output has no place for is named.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

TEST(MediaContainers, FlvKeepsTheDefaultAudioTrackOfSeveral) {
  TempDir dir("containers_flv");
  const std::string in = dir / "two_audio.mkv", out = dir / "out.flv";
  // Two tracks told apart by their sample rate; the second is the default.
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=2 -f lavfi -i "
      "sine=frequency=440:sample_rate=44100:duration=2 -f lavfi -i "
      "sine=frequency=880:sample_rate=22050:duration=2 -map 0 -map 1 -map 2 -c:v libx264 "
      "-c:a aac -disposition:a:0 0 -disposition:a:1 default " +
      q(in));
  ASSERT_EQ(probeValue(in, "-select_streams a", "stream=sample_rate"), "44100\n22050");
  const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("audio stream #1 (aac) dropped"), std::string::npos) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams a", "stream=sample_rate"), "22050");
  EXPECT_EQ(countFrames(out), 50);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(MediaContainers, MatroskaTakesItsVfwAndAcmCodecs) {
  TempDir dir("containers_mkv");
  const std::string in = dir / "in.avi";
  ffmpeg(
      "-f lavfi -i testsrc2=size=64x48:rate=25:duration=1 -f lavfi -i "
      "sine=duration=1:sample_rate=8000 -c:v mpeg4 -c:a pcm_mulaw " +
      q(in));
  const std::string copied = dir / "copied.mkv";
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-c:a", "copy", "-o", copied});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(copied, "-select_streams a", "stream=codec_name"), "pcm_mulaw");
  // The samples as the input's, decoded by ffmpeg.
  const auto audioHash = [](const std::string& path) {
    return shellOutput("ffmpeg -nostdin -v error -i " + q(path) + " -map 0:a -f md5 - 2>&1");
  };
  EXPECT_EQ(audioHash(copied), audioHash(in));
  EXPECT_EQ(countFrames(copied), 25);
  const std::string ut = dir / "ut.mkv";
  const auto u = runVidfilter({"-i", in, "--chain", "gray", "--codec", "utvideo", "-o", ut});
  ASSERT_EQ(u.status, 0) << u.err;
  EXPECT_EQ(probeValue(ut, "-select_streams v", "stream=codec_name"), "utvideo");
  EXPECT_EQ(countFrames(ut), 25);
  EXPECT_EQ(decodeErrors(ut), "");
}

TEST(MediaContainers, TheoraOfAStillPictureIsWrittenWhole) {
  TempDir dir("containers_theora");
  const std::string in = dir / "still.mp4", out = dir / "still.ogv";
  makeClip(in, "color=c=blue:size=160x120:rate=25", "-t 2 -c:v libx264");
  const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams v", "stream=codec_name"), "theora");
  EXPECT_EQ(decodeErrors(out), "");
  const std::string seconds = probeValue(out, "", "format=duration");
  ASSERT_FALSE(seconds.empty());
  EXPECT_NEAR(std::stod(seconds), 2.0, 0.1);
}

TEST(MediaContainers, SwfIsWrittenAtTheInputsRate) {
  // SWF's header holds the video's time base as its frame rate: an MP4's 1/12800 is no rate.
  TempDir dir("containers_swf");
  const std::string in = dir / "in.mp4", out = dir / "out.swf";
  makeClip(in, "testsrc2=size=160x120:rate=25", "-t 2 -c:v libx264");
  const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams v", "stream=r_frame_rate"), "25/1");
  EXPECT_EQ(countFrames(out), 50);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(MediaContainers, MxfAudioIsWrittenAtItsOnlyRateAndAMuxersRefusalSaysWhy) {
  // MXF's PCM is 48 kHz alone (ffmpeg itself fails: "only 48khz is implemented"): 44.1 kHz audio
  // is resampled, the whole second of it kept.
  TempDir dir("containers_mxf");
  const std::string in = dir / "in.mp4", out = dir / "out.mxf";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -f lavfi -i "
      "sine=frequency=440:sample_rate=44100:duration=1 -c:v libx264 -pix_fmt yuv420p -c:a aac " +
      q(in));
  const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams a", "stream=codec_name,sample_rate"),
            "pcm_s16le\n48000");
  EXPECT_EQ(countFrames(out), 25);
  EXPECT_EQ(decodeErrors(out), "");
  // The samples ffmpeg decodes from it, mono: one second's.
  const std::string bytes = shellOutput("ffmpeg -nostdin -v error -i " + q(out) +
                                        " -map 0:a -f s16le -ac 1 - 2>/dev/null | wc -c");
  EXPECT_NEAR(std::stod(bytes) / 2 / 48000, 1.0, 0.05) << bytes;
  // A header the muxer refuses for a reason it logs (GXF takes PAL and NTSC sizes only): the
  // reason is in the one error, and nothing is left.
  const std::string gxf = dir / "out.gxf";
  const auto g = runVidfilter({"-i", in, "--chain", "blur", "-o", gxf});
  EXPECT_EQ(g.status, 1) << g.err;
  EXPECT_NE(g.err.find("PAL or NTSC"), std::string::npos) << g.err;
  EXPECT_FALSE(std::filesystem::exists(gxf));
}

TEST(MediaContainers, AColourDescriptionTheOutputCannotHoldIsNamed) {
  // A full-range BT.709 input: Matroska and an H.264 stream (in AVI too) say BT.709 as the input
  // does; AVI's MPEG-4 part 2 and y4m have no place for the matrix, and say so. HDR into images:
  // the transfer and primaries are named.
  TempDir dir("containers_colour");
  const std::string in = dir / "in.mp4", hdr = dir / "hdr.mp4";
  makeClip(in, "testsrc2=size=64x48:rate=25",
           "-t 0.2 -c:v libx264 -pix_fmt yuvj420p -color_range pc -colorspace bt709 "
           "-color_primaries bt709 -color_trc bt709");
  const std::string space = "stream=color_space";
  for (const auto& [name, codec, lost] :
       std::vector<std::tuple<std::string, std::string, bool>>{{"out.mkv", "", false},
                                                               {"h264.avi", "libx264", false},
                                                               {"mpeg4.avi", "", true},
                                                               {"out.y4m", "", true}}) {
    SCOPED_TRACE(name);
    const std::string out = dir / name;
    std::vector<std::string> args{"-i", in, "--chain", "brightness", "-o", out};
    if (!codec.empty()) args.insert(args.end(), {"-c:v", codec});
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const bool warned =
        r.err.find("colour description (bt709 matrix) has no place in") != std::string::npos;
    EXPECT_EQ(warned, lost) << r.err;
    // What a reader finds: BT.709 where it is kept, nothing where the warning said so.
    EXPECT_EQ(probeValue(out, "-select_streams v", space), lost ? "unknown" : "bt709");
  }
  // Where nothing is lost, nothing is said: a gray y4m has no matrix, MJPEG's range is full.
  for (const std::vector<std::string>& quiet :
       {std::vector<std::string>{"--chain", "gray", "-o", dir / "gray.y4m"},
        {"--chain", "brightness", "-c:v", "mjpeg", "-o", dir / "mjpeg.avi"}}) {
    std::vector<std::string> args{"-i", in};
    args.insert(args.end(), quiet.begin(), quiet.end());
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("full range"), std::string::npos) << r.err;
    if (quiet[1] == "gray") {
      EXPECT_EQ(r.err.find("colour description"), std::string::npos) << r.err;
    }
  }
  makeClip(hdr, "testsrc2=size=64x48:rate=25",
           "-t 0.2 -c:v libx264 -pix_fmt yuv420p10le -colorspace bt2020nc -color_primaries "
           "bt2020 -color_trc smpte2084");
  const auto images =
      runVidfilter({"-i", hdr, "--chain", "gray", "--frames", "1", "-o", dir / "f_%02d.png"});
  ASSERT_EQ(images.status, 0) << images.err;
  EXPECT_NE(images.err.find("bt2020 primaries, smpte2084 transfer are not kept"), std::string::npos)
      << images.err;
}
