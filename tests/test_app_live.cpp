// A live source end to end with the real binary: GStreamer's videotestsrc, paced like a camera
// (is-live=true), through the chain into a lossless file; a stream that ends mid-run, and one
// an element's error ends; Ctrl-C twice while the engine waits on a slow live source.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#include <regex>
#include <thread>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

// `rate` as GStreamer writes it: "100/1", or "1/5" for one frame every five seconds.
std::string testSource(const std::string& rate, const std::string& extra = "") {
  return "videotestsrc is-live=true " + extra +
         " ! video/x-raw,width=320,height=240,framerate=" + rate + " ! videoconvert ! appsink";
}

struct Counts {
  long in = -1, out = -1, dropped = -1;
};

Counts summaryCounts(const std::string& out) {
  Counts c;
  std::smatch m;
  if (std::regex_search(out, m,
                        std::regex("frames: ([0-9]+) in, ([0-9]+) out, ([0-9]+) dropped"))) {
    c.in = std::stol(m[1]);
    c.out = std::stol(m[2]);
    c.dropped = std::stol(m[3]);
  }
  return c;
}

}  // namespace

class AppLive : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER))
        << "OpenCV here has no GStreamer backend";
  }
};

TEST_F(AppLive, GStreamerTestSourceThroughTheChainForHundredsOfFrames) {
  ASSERT_TRUE(haveFfprobe()) << "install ffmpeg (ffprobe)";
  TempDir dir("live_gst");
  const std::string out = dir / "live.mkv";  // FFV1 (lossless), so frames can be compared
  const int kFrames = 300;
  const std::string source = testSource("100/1", "pattern=colors");
  const auto r = runVidfilter({"-i", source, "--chain", "gray", "-o", out, "--codec", "ffv1",
                               "--frames", std::to_string(kFrames), "--no-preview"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Counts c = summaryCounts(r.err);
  EXPECT_EQ(c.in, kFrames) << r.err;
  EXPECT_EQ(c.out + c.dropped, kFrames) << r.err;  // a live source drops, never loses count
  EXPECT_GE(c.out, kFrames / 4) << r.err;

  const Probe p = probe(out);
  EXPECT_EQ(p.rate, "100/1");
  EXPECT_EQ(p.frames, c.out);

  // The test pattern (a hue/brightness sweep) is the same in every frame: each written frame
  // is OpenCV's gray of a frame taken from the same pipeline here.
  cv::VideoCapture ref(source, cv::CAP_GSTREAMER);
  cv::Mat refFrame, refGray;
  ASSERT_TRUE(ref.read(refFrame));
  cv::cvtColor(refFrame, refGray, cv::COLOR_BGR2GRAY);
  cv::VideoCapture got(out, cv::CAP_FFMPEG);
  ASSERT_TRUE(got.isOpened());
  cv::Mat f, g;
  long n = 0;
  while (got.read(f)) {
    cv::cvtColor(f, g, cv::COLOR_BGR2GRAY);
    ASSERT_EQ(vf::test::maxAbsDiff(g, refGray), 0) << "frame " << n;
    ++n;
  }
  EXPECT_EQ(n, c.out);
}

// A pipeline ends as its source ends: an info line, not a warning (OpenCV tells an end from a
// failure in neither case; GStreamer's own error line names a failure).
TEST_F(AppLive, PipelineThatEndsMidRunIsAnEnd) {
  const auto r = runVidfilter({"-i", testSource("100/1", "num-buffers=40"), "--chain", "gray",
                               "--frames", "1000", "--no-preview"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("ended after"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning:"), std::string::npos) << r.err;
  const Counts c = summaryCounts(r.err);
  EXPECT_GT(c.out, 0) << r.err;
  EXPECT_LE(c.in, 40) << r.err;
}

// An element's error mid-run (identity's error-after: a source losing its device, a decoder
// meeting damage) fails the run naming the element, where OpenCV's reads end as at an end; the
// frames before it are written and play.
TEST_F(AppLive, PipelineThatFailsMidRunIsAFailure) {
  TempDir dir("live_fails");
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i",
                               "videotestsrc num-buffers=100 ! video/x-raw,width=160,height=120,"
                               "framerate=25/1 ! identity name=broken error-after=20 ! "
                               "videoconvert ! appsink",
                               "--chain", "gray", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("failed after 19 frames: broken: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("ended after"), std::string::npos) << r.err;
  EXPECT_EQ(probe(out).frames, 19);
  EXPECT_EQ(decodeErrors(out), "");
}

// --ss, --to and -t take a span of a live source's time from its first frame, as of a file's:
// frames before --ss are skipped, the output starts at its first frame, and it ends at --to.
TEST_F(AppLive, SpanOptionsTakeAPartOfALiveSource) {
  ASSERT_TRUE(haveFfprobe()) << "install ffmpeg (ffprobe)";
  TempDir dir("live_span");
  const std::string source = testSource("50/1", "num-buffers=150");  // 3 s
  for (const auto& [span, seconds] : std::vector<std::pair<std::vector<std::string>, double>>{
           {{"--ss", "0.6", "--to", "1.4"}, 0.8}, {{"-t", "0.5"}, 0.5}, {{"--ss", "2"}, 1.0}}) {
    const std::string out = dir / "span.mkv";
    std::vector<std::string> args{"-y", "-i", source,    "--chain", "gray",
                                  "-o", out,  "--codec", "ffv1",    "--no-preview"};
    args.insert(args.end(), span.begin(), span.end());
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const Counts c = summaryCounts(r.err);
    const double want = seconds * 50;
    EXPECT_GE(c.in, want - 4) << span[0] << "\n" << r.err;  // a frame's jitter at either end
    EXPECT_LE(c.in, want + 2) << span[0] << "\n" << r.err;
    const std::vector<double> times = frameTimes(out);
    ASSERT_EQ(static_cast<long>(times.size()), c.out) << span[0];
    ASSERT_FALSE(times.empty());
    EXPECT_NEAR(times.front(), 0.0, 1e-6) << span[0];
    EXPECT_LE(times.back(), seconds) << span[0];
  }
}

// What reaches appsink must be raw video: audio, or compressed images, are named with what to
// put before appsink, once, without GStreamer's or OpenCV's own error lines.
TEST_F(AppLive, AppsinkGivenNoRawVideoSaysWhatItGets) {
  vf::test::ProcOptions quick;
  quick.timeoutSec = 30;
  for (const auto& [pipeline, named] : std::vector<std::pair<std::string, std::string>>{
           {"audiotestsrc num-buffers=5 ! appsink", "audio/x-raw"},
           {"videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! pngenc ! appsink",
            "image/png"},
           {"videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! jpegenc ! appsink",
            "jpegdec"}}) {
    const auto r = runVidfilter({"-i", pipeline, "--chain", "gray", "--no-preview"}, quick);
    EXPECT_EQ(r.status, 2) << r.err;
    const std::string err = vf::test::errorLines(r.err);
    EXPECT_NE(err.find(named), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("CRITICAL"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("[ERROR"), std::string::npos) << r.err;
  }
}

// Raw formats appsink does not hand over as BGR, BGRA or gray are converted before it: I420 and
// NV12 had come out as a frame half again as tall (the chroma planes under the luma), RGBA with
// red and blue swapped. The same picture as the BGR pipeline's, within YUV's rounding.
TEST_F(AppLive, AnyRawFormatBeforeAppsinkIsThePicture) {
  TempDir dir("live_formats");
  const auto pipeline = [](const std::string& format) {
    return "videotestsrc num-buffers=3 ! video/x-raw,width=160,height=120,format=" + format +
           " ! appsink";
  };
  const auto run = [&](const std::string& format) {
    const std::string out = dir / (format + ".mkv");
    const auto r =
        runVidfilter({"-y", "-i", pipeline(format), "--chain", "brightness=gain=1", "--no-preview",
                      "--codec", "ffv1", "--pix-fmt", "bgr0", "-o", out});
    EXPECT_EQ(r.status, 0) << r.err;
    return ffmpegFrames(out, "bgr24");
  };
  const auto want = run("BGR");
  ASSERT_EQ(want.size(), 3u);
  ASSERT_EQ(want[0].rows, 120);
  for (const char* format : {"RGBA", "RGB", "I420", "NV12", "YUY2"}) {
    SCOPED_TRACE(format);
    const auto got = run(format);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(got[0].size(), want[0].size());
    // RGB formats: the same bytes. YUV ones: videotestsrc draws them in YUV, the colours move
    // within rounding and chroma at the bars' edges, far less than red and blue swapped would.
    cv::Mat swapped;
    cv::cvtColor(want[0], swapped, cv::COLOR_BGR2RGB);
    const auto mean = [](const cv::Mat& a, const cv::Mat& b) {
      return cv::norm(a, b, cv::NORM_L1) / double(a.total() * 3);
    };
    if (std::string(format).rfind("RGB", 0) == 0)
      EXPECT_EQ(mean(got[0], want[0]), 0);
    else
      EXPECT_LT(3 * mean(got[0], want[0]), mean(got[0], swapped));
  }
}

// A source whose size changes mid-stream to one a stage cannot take (a crop past the new
// edge): the run's failure (exit 1, not the command's 2), saying so, the frames before it kept.
TEST_F(AppLive, ASizeChangeTheChainCannotTakeIsTheRunsFailure) {
  TempDir dir("live_size_change");
  const std::string out = dir / "c.mkv";
  const auto r = runVidfilter(
      {"-y", "-i",
       "videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240 ! c. videotestsrc "
       "num-buffers=5 ! video/x-raw,width=160,height=120 ! c. concat name=c ! videoconvert ! "
       "appsink",
       "--chain", "crop=200:150:100:80", "--no-preview", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(vf::test::errorLines(r.err).find(
                "vidfilter: the input changed to 160x120 bgr mid-stream and the chain cannot "
                "take it: crop: the corner (200,150) lies outside the 160x120 frame"),
            std::string::npos)
      << r.err;
  EXPECT_GE(countFrames(out), 5);
}

// An appsink the user named (OpenCV finds its sink by a name holding "appsink") runs as one that
// is not named.
TEST_F(AppLive, ANamedAppsinkRuns) {
  TempDir dir("live_named");
  const std::string out = dir / "named.mkv";
  const auto r = runVidfilter({"-i",
                               "videotestsrc num-buffers=6 ! video/x-raw,width=96,height=64 ! "
                               "videoconvert ! appsink name=mysink",
                               "--chain", "gray", "--no-preview", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(out).frames, 6);
}

// The error names the cause GStreamer gives, after the pipeline: the element it has not, the
// file a source cannot open, the caps that do not link, the device that does not exist.
// A pipeline whose source sends nothing (udpsrc with no sender) keeps the open waiting for its
// first frame: after 5 s one line says what it waits for; Ctrl-C ends it.
TEST_F(AppLive, APipelineWaitingForItsFirstFrameSaysSo) {
  TempDir dir("live_no_frame");
  const int port = 30000 + ::getpid() % 20000;
  Child c(vidfilterBinary(),
          {"-i",
           "udpsrc port=" + std::to_string(port) +
               " ! video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! videoconvert ! "
               "appsink",
           "--chain", "gray", "-o", dir / "o.mkv"},
          ProcOptions{});
  const bool said = c.readUntil(
      [](const std::string& err) {
        return err.find("no frame yet after 5 s") != std::string::npos;
      },
      20);
  c.signal(SIGINT);
  const ProcResult r = c.wait();
  EXPECT_TRUE(said) << r.err;
  EXPECT_NE(r.err.find("waiting for its source (Ctrl-C stops)"), std::string::npos) << r.err;
  EXPECT_EQ(r.status, 130) << r.err;
}

TEST_F(AppLive, PipelineThatDoesNotStart) {
  const auto r = runVidfilter(
      {"-i", "videotestsrc ! nosuchelement ! appsink", "--chain", "gray", "--no-preview"});
  EXPECT_EQ(r.status, 2);
  const std::string head =
      "vidfilter: GStreamer pipeline 'videotestsrc ! nosuchelement ! appsink' could not be "
      "started: ";
  const std::string lines = vf::test::errorLines(r.err);
  ASSERT_NE(lines.find(head), std::string::npos) << r.err;
  EXPECT_NE(lines.find("nosuchelement", lines.find(head) + head.size()), std::string::npos)
      << r.err;
  // A source element missing (OpenCV, handed the rest of the pipeline, waited for it forever)
  // and a camera device that does not exist are named before anything starts: the run ends at
  // once (the 20 s limit would kill a wait).
  vf::test::ProcOptions quick;
  quick.timeoutSec = 20;
  for (const auto& [pipeline, cause] : std::vector<std::pair<std::string, std::string>>{
           {"filesrc location=/nonexistent/in.mp4 ! decodebin ! videoconvert ! appsink",
            "/nonexistent/in.mp4"},
           {"videotestsrc ! video/x-raw,width=-5 ! appsink", "-5"},
           {"nosuchsource ! videoconvert ! appsink", "no element \"nosuchsource\""},
           {"videotestsrc nosuchproperty=1 ! videoconvert ! appsink",
            "no property \"nosuchproperty\""},
           {"v4l2src device=/dev/video-none ! videoconvert ! appsink",
            "v4l2src: device '/dev/video-none' does not exist"}}) {
    const auto bad = runVidfilter({"-i", pipeline, "--chain", "gray", "--no-preview"}, quick);
    EXPECT_EQ(bad.status, 2) << bad.err;
    const std::string err = vf::test::errorLines(bad.err);
    const auto started = err.find("could not be started: ");
    ASSERT_NE(started, std::string::npos) << bad.err;
    EXPECT_NE(err.find(cause, started), std::string::npos) << bad.err;
  }
}

TEST_F(AppLive, AFileAPipelineReadsIsNeverWritten) {
  // -o of the file a pipeline's filesrc reads, with -y, wrote the filtered frames over it (exit
  // 0), as it does not for the same file given as -i. The files GStreamer's sources name are
  // guarded as every file read: refused before anything opens, every byte kept.
  TempDir dir("live_reads");
  const std::string in = dir / "in.avi", other = dir / "other.avi";
  ffmpeg("-f lavfi -i testsrc=size=160x120:rate=25 -t 1 -c:v mjpeg " + q(in));
  ffmpeg("-f lavfi -i testsrc=size=160x120:rate=25 -t 1 -c:v mjpeg " + q(other));
  for (int i = 10; i < 13; ++i)  // numbered from 10: multifilesrc's start-index
    ffmpeg("-f lavfi -i testsrc=size=160x120 -frames:v 1 " +
           q(dir / ("img0" + std::to_string(i) + ".png")));
  const std::string percent = dir / "clip 100%.avi";  // a name, not a pattern, for filesrc
  std::filesystem::copy_file(in, percent);
  const auto bytes = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), {});
  };
  const std::string fromFile =
      "filesrc location=" + in + " ! avidemux ! jpegdec ! videoconvert ! appsink";
  const std::string fromImages = "multifilesrc location=" + (dir / "img%03d.png") +
                                 " start-index=10 caps=image/png,framerate=5/1 ! pngdec ! "
                                 "videoconvert ! appsink";
  const std::string fromPercent =
      "filesrc location=\"" + percent + "\" ! avidemux ! jpegdec ! videoconvert ! appsink";
  const std::string before = bytes(in), image = bytes(dir / "img011.png");
  ASSERT_FALSE(before.empty());
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-i", fromFile, "-o", in},
           {"-i", fromFile, "-o", dir / "link.avi"},  // a link to the input
           {"-i", other, "-i", fromFile, "-o", dir / "o.avi", "-o", in},
           {"-i", fromImages, "-o", dir / "img%03d.png"},
           {"-i", fromPercent, "-o", percent}}) {
    SCOPED_TRACE(args[1] + " -> " + args.back());
    std::filesystem::remove(dir / "link.avi");
    std::filesystem::create_symlink(in, dir / "link.avi");
    std::vector<std::string> all{"-y", "--chain", "blur", "--no-preview"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = runVidfilter(all);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(errorLines(r.err).find(std::filesystem::path(args.back()).filename().string()),
              std::string::npos)
        << r.err;
    EXPECT_EQ(bytes(in), before);
    EXPECT_EQ(bytes(dir / "img011.png"), image);
    EXPECT_EQ(bytes(percent), before);
  }
  // The pipeline's file written elsewhere: the run goes on.
  const auto ok = runVidfilter(
      {"-y", "--chain", "blur", "--no-preview", "-i", fromFile, "-o", dir / "filtered.mkv"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(countFrames(dir / "filtered.mkv"), 25);
}

TEST_F(AppLive, SecondSigintExitsAtOnce) {
  // One frame every three seconds: after the first Ctrl-C the engine waits for the source's
  // next frame (seconds away); the second Ctrl-C must not wait for it.
  TempDir dir("live_sigint");
  Child c(vf::test::vidfilterBinary(),
          {"-i", testSource("1/3"), "--chain", "gray", "-o", dir / "slow.mkv"});
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("writing ") != std::string::npos; }, 60))
      << c.errSoFar();
  c.signal(SIGINT);
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("interrupted:") != std::string::npos; }, 10))
      << c.errSoFar();
  // A second Ctrl-C a second or more after the first (one sooner is taken for the first one's
  // echo to the process group, or a double press).
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  const auto t0 = std::chrono::steady_clock::now();
  c.signal(SIGINT);
  const auto r = c.wait();
  const double afterSecond =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_LT(afterSecond, 2.0);  // the source's next frame is 3 s away: it did not wait for it
  EXPECT_NE(r.err.find("interrupted again; exiting at once"), std::string::npos) << r.err;
}

TEST_F(AppLive, SigintWhileOpeningEndsCleanlyWithoutAFile) {
  // The source takes three seconds to deliver its first frame; Ctrl-C comes before that.
  TempDir dir("live_early");
  Child c(vf::test::vidfilterBinary(),
          {"-i", testSource("1/3"), "--chain", "gray", "-o", dir / "early.mkv"});
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("OpenCL device") != std::string::npos; }, 60))
      << c.errSoFar();
  c.signal(SIGINT);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGINT before the first frame"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "early.mkv"));
}
