// Reliability: bad input, through the real binary. What tests/test_app_cli_errors.cpp,
// test_app_offline.cpp and test_app_live.cpp already cover (missing, unreadable, text-as-video,
// truncated, missing camera, stream end, resolution change, every output error) is not repeated;
// docs/RELIABILITY.md has the whole table.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <random>

#include "app/sinks.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// The chain gray,brightness=gain=2 done by OpenCV.
cv::Mat grayGain2(const cv::Mat& bgr) {
  cv::Mat g, out;
  cv::cvtColor(bgr, g, cv::COLOR_BGR2GRAY);
  g.convertTo(out, CV_8U, 2.0, 0);
  return out;
}

}  // namespace

TEST(ReliabilityInput, EmptyFile) {
  TempDir dir("rel_empty");
  { std::ofstream f(dir / "empty.mp4"); }
  expectOneError(runVidfilter({"-i", dir / "empty.mp4", "--chain", "gray", "-o", dir / "o.mkv"}), 2,
                 "input file '" + (dir / "empty.mp4") + "' is empty (0 bytes)");
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  // A file that says 0 bytes but reads some (procfs) is not called empty: it is no video.
  const auto proc =
      runVidfilter({"-i", "/proc/self/status", "--chain", "gray", "-o", dir / "p.mkv"});
  EXPECT_EQ(proc.status, 2) << proc.err;
  EXPECT_EQ(proc.err.find("is empty"), std::string::npos) << proc.err;
  EXPECT_NE(proc.err.find("is not a video FFmpeg can read"), std::string::npos) << proc.err;
}

TEST(ReliabilityInput, AudioOnlyFileIsNotAVideo) {
  TempDir dir("rel_audio");
  makeClip(dir / "tone.mp4", "sine=d=1", "-c:a aac");
  expectOneError(runVidfilter({"-i", dir / "tone.mp4", "--chain", "gray", "-o", dir / "o.mkv"}), 2,
                 "'" + (dir / "tone.mp4") + "' is not a video FFmpeg can read");
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
}

TEST(ReliabilityInput, DamageInTheMiddleIsSkippedAndCounted) {
  // 100 frames of MPEG-4 in AVI with 8 KiB of noise written over two places in the middle: what
  // decodes is processed, the rest is counted and reported, the run ends normally.
  TempDir dir("rel_corrupt");
  const std::string clip = dir / "damaged.avi";
  makeClip(clip, "testsrc=size=160x120:rate=25", "-t 4 -c:v mpeg4 -q:v 3 -g 10");
  const auto size = std::filesystem::file_size(clip);
  {
    std::fstream f(clip, std::ios::in | std::ios::out | std::ios::binary);
    std::mt19937 rng(7);
    for (const double at : {0.35, 0.65}) {
      f.seekp(static_cast<std::streamoff>(size * at));
      for (int i = 0; i < 8192; ++i) f.put(static_cast<char>(rng()));
    }
  }
  const std::string out = dir / "out.mkv";
  vf::test::ProcOptions opt;
  opt.timeoutSec = 60;
  const auto r = runVidfilter({"-i", clip, "--chain", "gray", "-o", out}, opt);
  ASSERT_EQ(r.status, 0) << r.err;
  const RunCounts c = runCounts(r.err);
  EXPECT_GT(c.out, 50) << r.err;
  EXPECT_LT(c.out, 100) << "the damage went unnoticed:\n" << r.err;
  EXPECT_NE(r.err.find("failed to decode"), std::string::npos) << r.err;
  EXPECT_EQ(probe(out).frames, c.out);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilityInput, DamageInAMatroskaFileCountsTheFramesLost) {
  // Matroska holds no frame count: 20 KiB of noise in the middle of 4 s of H.264 loses a run of
  // frames the demuxer skips over; the warning gives what decoded of what the length implies.
  TempDir dir("rel_corrupt_mkv");
  const std::string clip = dir / "damaged.mkv";
  makeClip(clip, "testsrc2=size=320x240:rate=25", "-t 4 -c:v libx264 -g 25");
  const auto size = std::filesystem::file_size(clip);
  {
    std::fstream f(clip, std::ios::in | std::ios::out | std::ios::binary);
    std::mt19937 rng(11);
    f.seekp(static_cast<std::streamoff>(size / 2));
    for (int i = 0; i < 20000; ++i) f.put(static_cast<char>(rng()));
  }
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", clip, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const RunCounts c = runCounts(r.err);
  EXPECT_LT(c.out, 95) << r.err;
  EXPECT_NE(r.err.find("decoded " + std::to_string(c.out) + " of about 100 frames"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(probe(out).frames, c.out);
}

TEST(ReliabilityInput, ADamagedCopiedAudioPacketIsLeftOutNotTheRestOfTheRun) {
  // MPEG-TS with ADTS AAC into Matroska: the copied packets pass FFmpeg's ADTS-to-AAC filter,
  // which refuses a header it cannot parse. One such header (the tenth, its sampling rate index
  // made 15, which names no rate) lost the whole run past it; now that packet alone is left out.
  TempDir dir("rel_adts");
  const std::string ts = dir / "in.ts";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=sample_rate=48000 -t 3 -c:v "
      "libx264 -c:a aac -ac 1 " +
      q(ts));
  {
    std::fstream f(ts, std::ios::in | std::ios::out | std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // ADTS, AAC LC at 48 kHz (index 3), mono: FF F1 4C 40.
    const std::string header("\xFF\xF1\x4C\x40", 4);
    std::size_t at = bytes.find(header);
    for (int k = 1; k < 10 && at != std::string::npos; ++k) at = bytes.find(header, at + 4);
    ASSERT_NE(at, std::string::npos) << "no tenth ADTS header";
    f.seekp(static_cast<std::streamoff>(at + 2));
    f.put(static_cast<char>(0x7C));  // profile LC, sampling rate index 15
  }
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", ts, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(out), 75) << r.err;  // every video frame
  const std::string audio =
      probeValue(out, "-count_frames -select_streams a:0", "stream=nb_read_frames");
  EXPECT_GT(std::atol(audio.c_str()), 130) << audio;  // 3 s of 1024-sample frames: 141
}

TEST(ReliabilityInput, CutShortFileWithoutAFrameCountIsNamed) {
  // Matroska keeps no frame count: a file cut short ends like a whole one, and only its
  // declared length tells. The frames there are kept (exit 0), with a warning; whole files, and
  // a video shorter than its audio, say nothing of it.
  TempDir dir("rel_cut");
  const std::string full = dir / "full.mkv", cut = dir / "cut.mkv", av = dir / "av.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25:duration=4 -c:v libx264 " + q(full));
  ffmpeg(
      "-f lavfi -i testsrc2=size=320x240:rate=25:duration=2 -f lavfi -i sine=duration=3 "
      "-c:v libx264 -c:a aac " +
      q(av));
  std::filesystem::copy_file(full, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(full) * 4 / 10);
  const auto r = runVidfilter({"-i", cut, "--chain", "gray", "-o", dir / "o_cut.mkv"});
  EXPECT_EQ(r.status, 0) << r.err;
  const long frames = countFrames(dir / "o_cut.mkv");
  EXPECT_GT(frames, 0);
  EXPECT_LT(frames, 100);
  EXPECT_NE(r.err.find("its container declares; the file may be truncated"), std::string::npos)
      << r.err;
  for (const std::string& whole : {full, av}) {
    const auto w = runVidfilter({"-i", whole, "--chain", "gray", "-o", whole + ".out.mkv"});
    EXPECT_EQ(w.status, 0) << w.err;
    EXPECT_EQ(w.err.find("may be truncated"), std::string::npos) << w.err;
  }
}

TEST(ReliabilityInput, RawStdinEndingInsideAFrameIsNamed) {
  // Raw video that ends inside a frame (cut short, or --size not the data's) ended with
  // "decoding failed: Invalid argument" (exit 1). The whole frames are kept, and one warning
  // names the bytes left over, the frame size expected, and the options to check.
  TempDir dir("rel_raw");
  const std::string raw = dir / "in.gray";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25:duration=0.4 -f rawvideo -pix_fmt gray " +
         q(raw));
  ASSERT_EQ(std::filesystem::file_size(raw), 10u * 19200u);
  // The file `in` on stdin as raw gray frames of `size`, written to `out` as FFV1.
  const auto runRaw = [](const std::string& in, const std::string& size, const std::string& out) {
    ProcOptions opt;
    opt.stdinPath = in;
    return runVidfilter({"-i", "-", "--size", size, "--input-pix-fmt", "gray", "--chain", "gray",
                         "--codec", "ffv1", "-o", out},
                        opt);
  };
  const std::string whole = dir / "whole.mkv";
  ASSERT_EQ(runRaw(raw, "160x120", whole).status, 0);
  std::ofstream(raw, std::ios::app) << std::string(5000, '\x55');
  const std::string cut = dir / "cut.mkv";
  const auto r = runRaw(raw, "160x120", cut);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("the last 5000 bytes are not a whole frame (160x120 gray frames are 19200 "
                       "bytes each); if every frame looks wrong, check --size and "
                       "--input-pix-fmt"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(frameHashes(cut), frameHashes(whole));
  EXPECT_EQ(countFrames(cut), 10);
  // Fewer bytes over than the frame has rows (the decoder's own check took those as damage).
  const std::string few = dir / "few.gray";
  std::filesystem::copy_file(dir / "in.gray", few);
  std::filesystem::resize_file(few, 2u * 19200u + 7u);
  const auto f = runRaw(few, "160x120", dir / "few.mkv");
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_NE(f.err.find("the last 7 bytes are not a whole frame"), std::string::npos) << f.err;
  EXPECT_EQ(f.err.find("failed to decode"), std::string::npos) << f.err;  // said once
  EXPECT_EQ(countFrames(dir / "few.mkv"), 2);
  // Less than one frame: no frame at all, said as such (not "not a video").
  const std::string tiny = dir / "tiny.gray";
  std::ofstream(tiny) << std::string(1000, '\x55');
  const auto t = runRaw(tiny, "160x120", dir / "tiny.mkv");
  EXPECT_EQ(t.status, 2) << t.err;
  EXPECT_NE(t.err.find("stdin holds no whole frame (160x120 gray frames are 19200 bytes each); "
                       "check --size and --input-pix-fmt"),
            std::string::npos)
      << t.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "tiny.mkv"));
  // The wrong width: 10 whole frames of 150x120 and 17000 bytes over.
  const auto w = runRaw(raw, "150x120", dir / "wrong.mkv");
  EXPECT_EQ(w.status, 0) << w.err;
  EXPECT_NE(w.err.find("the last 17000 bytes are not a whole frame (150x120 gray frames are "
                       "18000 bytes each)"),
            std::string::npos)
      << w.err;
}

TEST(ReliabilityInput, RawOptionsOnAContainerFileAreIgnoredWithAWarning) {
  // --size made any file read as raw video: an mp4 given --size gave "no video frame could be
  // decoded". A file that is a container keeps its own size, format and timing (a warning says
  // the options do not apply); a raw file is read with them.
  TempDir dir("rel_rawopts");
  const std::string mp4 = dir / "in.mp4", yuv = dir / "in.yuv";
  makeClip(mp4, "testsrc2=size=160x120:rate=25:duration=2", "-c:v libx264 -pix_fmt yuv420p");
  ffmpeg("-i " + q(mp4) + " -f rawvideo -pix_fmt yuv420p " + q(yuv));
  const std::string plain = dir / "plain.mkv", given = dir / "given.mkv";
  ASSERT_EQ(runVidfilter({"-i", mp4, "--chain", "gray", "--codec", "ffv1", "-o", plain}).status, 0);
  const auto r = runVidfilter({"-i", mp4, "--size", "320x240", "--rate", "30", "--chain", "gray",
                               "--codec", "ffv1", "-o", given});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("not raw video: --size and --input-pix-fmt do not apply to it"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--rate is for image sequences and raw video; this file keeps its own "
                       "timing"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(frameHashes(given), frameHashes(plain));
  EXPECT_EQ(frameTimes(given), frameTimes(plain));
  // y4m on stdin given --size keeps its own header, as a file does.
  const std::string y4m = dir / "in.y4m", piped = dir / "piped.mkv";
  ffmpeg("-i " + q(mp4) + " -f yuv4mpegpipe " + q(y4m));
  ProcOptions y4mIn;
  y4mIn.stdinPath = y4m;
  const auto p = runVidfilter(
      {"-i", "-", "--size", "320x240", "--chain", "gray", "--codec", "ffv1", "-o", piped}, y4mIn);
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.err.find("not raw video: --size and --input-pix-fmt do not apply to it"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(frameHashes(piped), frameHashes(plain));
  // Raw video needs its size: --input-pix-fmt alone on a raw file is refused naming --size.
  expectOneError(runVidfilter({"-i", yuv, "--input-pix-fmt", "nv12", "--chain", "gray", "-o",
                               dir / "nosize.mkv"}),
                 2, "raw video needs its frame size: give --size WxH");
  // A raw file given alone (nothing says it is raw: no header to read) is told the same.
  expectOneError(runVidfilter({"-i", yuv, "--chain", "gray", "-o", dir / "bare.mkv"}), 2,
                 "if it is raw video, give its frame size with --size WxH");
  // The same frames as raw video in a file, at --rate 50: 50 frames over 1 s, no warning.
  const std::string raw = dir / "raw.mkv";
  const auto w = runVidfilter({"-i", yuv, "--size", "160x120", "--rate", "50", "--chain", "gray",
                               "--codec", "ffv1", "-o", raw});
  ASSERT_EQ(w.status, 0) << w.err;
  EXPECT_EQ(w.err.find("warning"), std::string::npos) << w.err;
  EXPECT_EQ(frameHashes(raw), frameHashes(plain));
  EXPECT_NEAR(durationOf(raw), 1.0, 0.03);
}

TEST(ReliabilityInput, AnMp4OnAPipeWithItsIndexAtTheEndIsNamed) {
  // An MP4 whose index (moov) follows its frames cannot be read from a pipe: it failed with
  // FFmpeg's bare "Invalid data found when processing input". One error names the cause and the
  // ways out, and nothing is written; the same frames made streamable (faststart) go through.
  TempDir dir("rel_moov");
  const std::string mp4 = dir / "late_index.mp4", fast = dir / "faststart.mp4";
  makeClip(mp4, "testsrc2=size=640x360:rate=25:duration=6",
           "-f lavfi -i sine=d=6 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac");
  ASSERT_GT(std::filesystem::file_size(mp4), 1u << 20);  // more than the demuxer buffers
  ffmpeg("-i " + q(mp4) + " -c copy -movflags +faststart " + q(fast));
  ProcOptions late;
  late.stdinPath = mp4;
  expectOneError(runVidfilter({"-i", "-", "--chain", "gray", "-o", dir / "o.mkv"}, late), 2,
                 "stdin (-i -) holds an MP4/MOV whose index (moov) follows its frames");
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  ProcOptions streamable;
  streamable.stdinPath = fast;
  const auto r = runVidfilter({"-i", "-", "--chain", "gray", "-o", dir / "o.mkv"}, streamable);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "o.mkv"), 150);
}

TEST(ReliabilityInput, ImageSequenceStopsAtADamagedImage) {
  // Policy for image sequences: the run stops at the first image that cannot be read, with an
  // error naming the frame, the file and why (exit 1); every image before it is processed and
  // written whole. (A missing number ends the sequence, as ffmpeg's image2.)
  TempDir dir("rel_seq");
  makeClip(dir / "in_%03d.png", "testsrc=size=64x48:rate=10", "-t 2");
  std::filesystem::resize_file(dir / "in_010.png", 100);
  const auto r = runVidfilter(
      {"-i", dir / "in_%03d.png", "--chain", "gray,brightness=gain=2", "-o", dir / "out_%03d.png"});
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_NE(lastLine(r.err).find("frame 10 (" + (dir / "in_010.png") + ") does not decode"),
            std::string::npos)
      << r.err;
  EXPECT_NE(lastLine(r.err).find("stopped there, after 9 frames"), std::string::npos) << r.err;
  EXPECT_EQ(framesWritten(r.err), 9) << r.err;
  for (int i = 1; i <= 9; ++i) {
    const cv::Mat in = cv::imread(vf::app::sequenceFileName(dir / "in_%03d.png", i - 1));
    const cv::Mat out =
        cv::imread(vf::app::sequenceFileName(dir / "out_%03d.png", i - 1), cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(out.empty()) << i;
    EXPECT_LE(vf::test::maxAbsDiff(out, grayGain2(in)), 1) << i;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out_010.png"));
}

TEST(ReliabilityInput, OneByOneVideo) {
  TempDir dir("rel_1x1");
  const std::string clip = dir / "one.mkv";
  makeClip(clip, "testsrc=size=1x1:rate=10", "-t 1 -c:v ffv1");
  // The whole chain on 1x1 frames into a video: 4:2:0 (libx264's yuv420p) cannot hold 1x1, so
  // it is padded to 2x2 (with a warning) instead of failing.
  auto r = runVidfilter(
      {"-i", clip, "--chain", "gray,blur,sobel,hist,brightness", "-o", dir / "out.mkv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("1x1 is odd; written as 2x2"), std::string::npos) << r.err;
  const Probe p = probe(dir / "out.mkv");
  EXPECT_EQ(p.frames, 10);
  EXPECT_EQ(p.width, 2);
  EXPECT_EQ(p.height, 2);
  // Into images: exactly 1x1, and the value OpenCV computes.
  r = runVidfilter({"-i", clip, "--chain", "gray,brightness=gain=2", "-o", dir / "f_%02d.png"});
  ASSERT_EQ(r.status, 0) << r.err;
  cv::VideoCapture cap(clip, cv::CAP_FFMPEG);
  cv::Mat in;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(cap.read(in)) << i;
    const cv::Mat out =
        cv::imread(vf::app::sequenceFileName(dir / "f_%02d.png", i), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(out.size(), cv::Size(1, 1)) << i;
    EXPECT_LE(vf::test::maxAbsDiff(out, grayGain2(in)), 1) << i;
  }
}

TEST(ReliabilityInput, OddSizeIsPaddedNotCropped) {
  // A lossless gray output keeps the odd size exactly, and so does FFV1 in 4:2:0 (it stores any
  // size); libx264 in 4:2:0 needs even sizes, so the frame is padded by repeating the last
  // column and row (with a warning), never cropped. Both lossless: every pixel is checked.
  TempDir dir("rel_odd");
  const std::string clip = dir / "odd.mkv";
  makeClip(clip, "testsrc=size=17x13:rate=10", "-t 1 -c:v ffv1");
  cv::VideoCapture in(clip, cv::CAP_FFMPEG);
  std::vector<cv::Mat> refs;
  cv::Mat a;
  while (in.read(a)) refs.push_back(grayGain2(a));
  ASSERT_EQ(refs.size(), 10u);

  auto r = runVidfilter(
      {"-i", clip, "--chain", "gray,brightness=gain=2", "-o", dir / "gray.mkv", "--codec", "ffv1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("is odd"), std::string::npos) << r.err;
  const auto exact = vf::test::ffmpegFrames(dir / "gray.mkv", "gray");
  ASSERT_EQ(exact.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(exact[i].size(), cv::Size(17, 13)) << i;
    EXPECT_EQ(vf::test::maxAbsDiff(exact[i], refs[i]), 0) << i;
  }

  r = runVidfilter({"-i", clip, "--chain", "gray,brightness=gain=2", "-o", dir / "odd420.mkv",
                    "--codec", "ffv1", "--pix-fmt", "yuv420p"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Probe odd = probe(dir / "odd420.mkv");
  EXPECT_EQ(odd.width, 17);
  EXPECT_EQ(odd.height, 13);
  const auto luma = vf::test::ffmpegFrames(dir / "odd420.mkv", "gray");
  ASSERT_EQ(luma.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_LE(vf::test::maxAbsDiff(luma[i], refs[i]), 1) << i;

  r = runVidfilter({"-i", clip, "--chain", "gray,brightness=gain=2", "-o", dir / "padded.mkv",
                    "--codec", "libx264", "--crf", "0", "--pix-fmt", "yuv420p"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("17x13 is odd; written as 18x14"), std::string::npos) << r.err;
  const Probe p = probe(dir / "padded.mkv");
  EXPECT_EQ(p.frames, 10);
  ASSERT_EQ(p.width, 18);
  ASSERT_EQ(p.height, 14);
  const auto gray = vf::test::ffmpegFrames(dir / "padded.mkv", "gray");
  ASSERT_EQ(gray.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_LE(vf::test::maxAbsDiff(gray[i](cv::Rect(0, 0, 17, 13)), refs[i]), 1) << i;
    EXPECT_EQ(vf::test::maxAbsDiff(gray[i].col(17), gray[i].col(16)), 0) << i;
    EXPECT_EQ(vf::test::maxAbsDiff(gray[i].row(13), gray[i].row(12)), 0) << i;
  }
}

TEST(ReliabilityInput, ParameterGivenTwiceInTheChain) {
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray,brightness=gain=1:gain=2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(errorLines(r.err),
            "vidfilter: brightness: gain is given twice; keep one\n"
            "  gray,brightness=gain=1:gain=2\n"
            "                         ^^^^^^\n");
  // The shorthand counts too: "blur=2" is sigma=2.
  const auto s = runVidfilter({"-i", kVideo, "--chain", "blur=2:sigma=3"});
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("vidfilter: blur: sigma is given twice; keep one"), std::string::npos)
      << s.err;
}
