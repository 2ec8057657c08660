// Offline processing end to end with the real binary on vtest.avi (opencv-doc): into a PNG
// sequence (every frame against the reference: ffmpeg's decoded luma through OpenCV's
// convertTo) and into an mp4 (frame count, rate and codec by ffprobe), and Ctrl-C in the
// middle of a run (a playable file).
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <regex>

#include "app/sinks.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

constexpr int kFrames = 40;

// The chain's reference for a colour frame: gray, then gain 1.5 and bias -20 (saturated), as
// convertTo.
cv::Mat reference(const cv::Mat& bgr) {
  cv::Mat gray, out;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  gray.convertTo(out, CV_8U, 1.5, -20);
  return out;
}

// The same from the video's gray as ffmpeg decodes it (its luma, full range): what a chain
// that begins with gray reads.
cv::Mat referenceFromGray(const cv::Mat& gray) {
  cv::Mat out;
  gray.convertTo(out, CV_8U, 1.5, -20);
  return out;
}

}  // namespace

TEST(AppOffline, PngSequenceMatchesTheReferenceFrameByFrame) {
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("offline_png");
  const std::string pattern = dir / "frame_%05d.png";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray,brightness=gain=1.5:bias=-20", "-o",
                               pattern, "--frames", std::to_string(kFrames)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("frames: 40 in, 40 out, 0 dropped"), std::string::npos) << r.err;
  // The summary names every stage with its device times.
  EXPECT_NE(r.err.find("1 gray"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 brightness"), std::string::npos) << r.err;
  // Logs stay clean without a terminal: one final progress line, no carriage returns.
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_NE(r.err.find("frame=   40 fps="), std::string::npos) << r.err;

  EXPECT_EQ(probe(pattern).frames, kFrames);
  EXPECT_FALSE(std::filesystem::exists(dir / "frame_00041.png"));
  EXPECT_FALSE(std::filesystem::exists(dir / "frame_00000.png"));

  // The input's gray as ffmpeg decodes it.
  const auto gray = vf::test::ffmpegFrames(kVideo, "gray", "", "-frames:v 40");
  ASSERT_EQ(gray.size(), std::size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    const cv::Mat out = cv::imread(vf::app::sequenceFileName(pattern, i), cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(out.empty()) << "frame " << i;
    ASSERT_EQ(out.type(), CV_8UC1) << "gray output is written as gray";
    const cv::Mat ref = referenceFromGray(gray[static_cast<std::size_t>(i)]);
    ASSERT_EQ(out.size(), ref.size());
    EXPECT_LE(vf::test::maxAbsDiff(out, ref), 1) << "frame " << i;
  }
}

// One frame to a plain image name (a thumbnail, ffmpeg's -frames:v 1 out.png): --frames 1
// writes that one file, the frame at --ss; the name is the output's, so an existing one is
// asked about; without --frames 1 a plain name is refused, naming both ways.
TEST(AppOffline, OneFrameToASingleImage) {
  TempDir dir("offline_single");
  const std::string thumb = dir / "thumb.png";
  const std::vector<std::string> args = {
      "-i", kVideo, "--chain", "gray,brightness=gain=1.5:bias=-20", "--ss", "2", "--frames",
      "1",  "-o",   thumb};
  const auto r = runVidfilter(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const cv::Mat out = cv::imread(thumb, cv::IMREAD_UNCHANGED);
  ASSERT_FALSE(out.empty());
  ASSERT_EQ(out.type(), CV_8UC1);
  const auto gray = vf::test::ffmpegFrames(kVideo, "gray", "-ss 2", "-frames:v 1");
  ASSERT_EQ(gray.size(), 1u);
  EXPECT_LE(vf::test::maxAbsDiff(out, referenceFromGray(gray[0])), 1);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"thumb.png"});
  const auto again = runVidfilter(args);
  EXPECT_EQ(again.status, 2) << again.err;
  EXPECT_NE(again.err.find("thumb.png"), std::string::npos) << again.err;
  const auto many = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "all.png"});
  EXPECT_EQ(many.status, 2) << many.err;
  EXPECT_NE(many.err.find("--frames 1"), std::string::npos) << many.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "all.png"));
  // A still image in, one image out, as ffmpeg writes it: no --frames 1 needed.
  const std::string still = dir / "still.jpg", filtered = dir / "filtered.png";
  vf::test::ffmpeg("-f lavfi -i testsrc2=size=160x96 -frames:v 1 " + vf::test::q(still));
  const auto one =
      runVidfilter({"-i", still, "--chain", "gray,brightness=gain=1.5:bias=-20", "-o", filtered});
  ASSERT_EQ(one.status, 0) << one.err;
  const cv::Mat image = cv::imread(filtered, cv::IMREAD_UNCHANGED);
  const auto stillGray = vf::test::ffmpegFrames(still, "gray");
  ASSERT_EQ(stillGray.size(), 1u);
  ASSERT_EQ(image.size(), stillGray[0].size());
  EXPECT_LE(vf::test::maxAbsDiff(image, referenceFromGray(stillGray[0])), 1);
}

// -y over a longer sequence replaces the images written; the earlier run's images past them,
// which ffmpeg and globs would read as part of this sequence, are named.
TEST(AppOffline, ImagesLeftFromALongerRunAreNamed) {
  TempDir dir("offline_stale");
  const std::string pattern = dir / "f_%03d.png";
  const auto five = runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "5", "-o", pattern});
  ASSERT_EQ(five.status, 0) << five.err;
  EXPECT_EQ(five.err.find("from before this run"), std::string::npos) << five.err;
  const auto two =
      runVidfilter({"-y", "-i", kVideo, "--chain", "blur", "--frames", "2", "-o", pattern});
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_NE(two.err.find("3 images after the 2 written, " + (dir / "f_003.png") + " to " +
                         (dir / "f_005.png") + ", are from before this run"),
            std::string::npos)
      << two.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "f_005.png"));  // named, not removed
  // A directory at one of the frames' names: refused before any image is replaced.
  std::filesystem::remove(dir / "f_004.png");
  std::filesystem::create_directory(dir / "f_004.png");
  const auto before = std::filesystem::last_write_time(dir / "f_001.png");
  const auto blocked =
      runVidfilter({"-y", "-i", kVideo, "--chain", "gray", "--frames", "5", "-o", pattern});
  EXPECT_EQ(blocked.status, 2) << blocked.err;
  EXPECT_NE(blocked.err.find("f_004.png', one of its frames' names, is a directory"),
            std::string::npos)
      << blocked.err;
  EXPECT_EQ(std::filesystem::last_write_time(dir / "f_001.png"), before);
}

TEST(AppOffline, Mp4HasTheInputsFrameCountAndRate) {
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("offline_mp4");
  const std::string out = dir / "out.mp4";
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray,brightness=gain=1.5:bias=-20", "-o", out,
                    "--frames", std::to_string(kFrames), "--stats", dir / "stats.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Probe p = probe(out);
  EXPECT_EQ(p.frames, kFrames);
  EXPECT_EQ(p.rate, "10/1");   // vtest.avi is 10 fps
  EXPECT_EQ(p.codec, "h264");  // .mp4 -> libx264 by default, as ffmpeg
  EXPECT_TRUE(std::filesystem::exists(dir / "stats.jsonl"));

  // The decoded frames are the filtered ones (lossy codec: compare the mean level only).
  cv::VideoCapture in(kVideo, cv::CAP_FFMPEG), res(out, cv::CAP_FFMPEG);
  cv::Mat a, b, bGray;
  ASSERT_TRUE(in.read(a));
  ASSERT_TRUE(res.read(b));
  cv::cvtColor(b, bGray, cv::COLOR_BGR2GRAY);
  EXPECT_NEAR(cv::mean(bGray)[0], cv::mean(reference(a))[0], 3.0);
}

TEST(AppOffline, CodecOptionAndContainerDefaults) {
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("offline_codec");
  auto r = runVidfilter(
      {"-i", kVideo, "--chain", "brightness=gain=1.2", "-o", dir / "a.avi", "--frames", "5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(dir / "a.avi").codec, "mpeg4");
  r = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "b.mkv", "--frames", "5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(dir / "b.mkv").codec, "h264");
  EXPECT_EQ(probe(dir / "b.mkv").frames, 5);
  r = runVidfilter(
      {"-i", kVideo, "--chain", "gray", "-o", dir / "c.mkv", "--codec", "mjpeg", "--frames", "5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(dir / "c.mkv").codec, "mjpeg");
}

TEST(AppOffline, SigintLeavesAPlayableFile) {
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("offline_sigint");
  const std::string out = dir / "partial.mp4";
  // The whole clip (795 frames), interrupted once a few frames are through.
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray,brightness", "-o", out, "--progress"});
  const std::regex progressed("frame=\\s*([0-9]+)");
  const bool started = c.readUntil(
      [&](const std::string& err) {
        std::smatch m;
        std::string::const_iterator from = err.begin();
        long last = 0;
        while (std::regex_search(from, err.end(), m, progressed)) {
          last = std::stol(m[1]);
          from = m[0].second;
        }
        return last >= 10;
      },
      120);
  ASSERT_TRUE(started) << c.errSoFar();
  c.signal(SIGINT);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted: finishing the frames in flight"), std::string::npos) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("wrote ([0-9]+) frames to"))) << r.err;
  const long written = std::stol(m[1]);
  EXPECT_GE(written, 10);
  EXPECT_LT(written, 795) << "the run was not interrupted";
  // Plays: ffprobe decodes every frame written, and ffmpeg decodes it without an error.
  EXPECT_EQ(probe(out).frames, written);
  const std::string decodeErrors = shellOutput("ffmpeg -v error -i '" + out + "' -f null - 2>&1");
  EXPECT_EQ(decodeErrors, "");
  // The summary still comes: the frames done were measured.
  EXPECT_NE(r.err.find("frames: "), std::string::npos) << r.err;
}

TEST(AppOffline, TruncatedFileDecodesWhatItCan) {
  // Half of vtest.avi: the index at the end is gone and the last frame is cut.
  TempDir dir("offline_trunc");
  const std::string cut = dir / "half.avi";
  const auto size = std::filesystem::file_size(kVideo);
  std::filesystem::copy_file(kVideo, cut);
  std::filesystem::resize_file(cut, size / 2);
  const auto r = runVidfilter({"-i", cut, "--chain", "gray", "--no-preview"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("frames: ([0-9]+) in, ([0-9]+) out")))
      << r.err;
  const long out = std::stol(m[2]);
  EXPECT_GT(out, 100);
  EXPECT_LT(out, 795);
  // The shortfall is reported, not hidden.
  EXPECT_NE(r.err.find("decoded " + std::to_string(out) + " of 795 frames"), std::string::npos)
      << r.err;
}

namespace {
// A 3 MiB tmpfs to fill up (needs root or CAP_SYS_ADMIN; unmounted by the destructor).
class SmallDisk {
 public:
  SmallDisk() : dir_("offline_full") {
    const std::string r = shellOutput("mount -t tmpfs -o size=3m tmpfs '" + dir_.path().string() +
                                      "' 2>&1 && echo ok");
    mounted_ = r.find("ok") != std::string::npos;
    why_ = r;
  }
  ~SmallDisk() {
    if (mounted_) shellOutput("umount '" + dir_.path().string() + "' 2>&1");
  }
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  std::string operator/(const std::string& name) const { return dir_ / name; }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string why_;
};
}  // namespace

TEST(AppOffline, DiskFullStopsWithAPlayableFile) {
  SmallDisk disk;
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.why();
  const std::string out = disk / "full.mp4";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", out});
  EXPECT_EQ(r.status, 1) << r.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.err, m,
                        std::regex("vidfilter: the disk holding .* has [0-9]+ KiB free, too "
                                   "little for more frames and the file's index; stopped after "
                                   "([0-9]+) frames")))
      << r.err;
  const long written = std::stol(m[1]);
  EXPECT_GT(written, 10);
  EXPECT_LT(written, 795);
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(shellOutput("ffmpeg -v error -i '" + out + "' -f null - 2>&1"), "");
}

// Another writer fills the disk while the run writes (its check before each packet saw room):
// the close fails too, and the error then says the file may not play; where it says the file
// plays, it does, with the frames it names.
TEST(AppOffline, DiskFilledByAnotherWriterSaysWhatTheCloseLeft) {
  SmallDisk disk;
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.why();
  const std::string out = disk / "filled.mp4";
  vf::test::Child run(vf::test::vidfilterBinary(), {"-i", kVideo, "--chain", "blur", "-o", out});
  // Filled once the file has frames on the disk (FFmpeg writes 256 KiB at a time; x264 holds
  // its first frames back).
  const auto written = [&] {
    std::error_code ec;
    const auto size = std::filesystem::file_size(out, ec);
    return ec ? 0 : size;
  };
  for (int i = 0; i < 3000 && written() < (1u << 20); ++i) ::usleep(20 * 1000);
  ASSERT_GE(written(), 1u << 20) << "the run wrote nothing";
  shellOutput("dd if=/dev/zero of='" + (disk / "filler") + "' bs=4k 2>/dev/null");
  const auto r = run.wait();
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string err = vf::test::errorLines(r.err);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err, m, std::regex("stopped after ([0-9]+) frames"))) << r.err;
  if (err.find("which plays") != std::string::npos) {
    EXPECT_EQ(probe(out).frames, std::stol(m[1])) << r.err;
    EXPECT_EQ(decodeErrors(out), "") << r.err;
  } else {
    EXPECT_NE(err.find("closing the file failed too"), std::string::npos) << r.err;
    EXPECT_NE(err.find("so it may not play"), std::string::npos) << r.err;
  }
}

TEST(AppOffline, DiskFullWithSmallPacketsKeepsWhatItSays) {
  // Packets far smaller than FFmpeg's 256 KiB file buffer (some 6 KiB each): what is still in
  // that buffer (.mp4), or in Matroska's open cluster (.mkv), is not on the disk yet.
  SmallDisk disk;
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.why();
  TempDir dir("offline_full_small");
  const std::string in = dir / "in.mp4";
  ASSERT_EQ(shellOutput("ffmpeg -v error -f lavfi -i testsrc2=size=640x480:rate=25 -t 40 "
                        "-c:v libx264 -preset ultrafast '" +
                        in + "' 2>&1 && echo ok"),
            "ok\n");
  for (const std::string ext : {"mp4", "mkv"}) {
    SCOPED_TRACE(ext);
    const std::string out = disk / ("small." + ext);
    const auto r = runVidfilter({"-i", in, "--chain", "sobel", "-o", out});
    EXPECT_EQ(r.status, 1) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.err, m,
        std::regex("vidfilter: the disk holding .* has [0-9]+ KiB free, too little for more "
                   "frames and the file's index; stopped after ([0-9]+) frames")))
        << r.err;
    const long written = std::stol(m[1]);
    EXPECT_GT(written, 100);
    EXPECT_EQ(probe(out).frames, written);
    EXPECT_EQ(shellOutput("ffmpeg -v error -i '" + out + "' -f null - 2>&1"), "");
    std::filesystem::remove(out);
  }
}

TEST(AppOffline, DiskFullDuringAnImageSequenceKeepsWholeImages) {
  SmallDisk disk;
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.why();
  const std::string pattern = disk / "f_%04d.png";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "-o", pattern});
  EXPECT_EQ(r.status, 1) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex("could not write .*: No space left on device; the ([0-9]+) images before it")))
      << r.err;
  const long written = std::stol(m[1]);
  EXPECT_GT(written, 3);
  for (long i = 0; i < written; ++i)
    EXPECT_FALSE(cv::imread(vf::app::sequenceFileName(pattern, i)).empty()) << i;
  EXPECT_FALSE(std::filesystem::exists(vf::app::sequenceFileName(pattern, written)));
}

TEST(AppOffline, ResolutionChangeMidStream) {
  // Two MPEG-TS pieces of different sizes, back to back: the decoder changes size at frame 10.
  TempDir dir("offline_res");
  const std::string a = dir / "a.ts", b = dir / "b.ts", ab = dir / "ab.ts";
  for (const auto& [file, size] : {std::pair{a, "320x240"}, std::pair{b, "160x120"}})
    ASSERT_EQ(shellOutput("ffmpeg -v error -y -f lavfi -i testsrc=size=" + std::string(size) +
                          ":rate=10 -t 1 -c:v mpeg2video -q:v 2 '" + file + "' 2>&1 && echo ok"),
              "ok\n");
  ASSERT_EQ(shellOutput("cat '" + a + "' '" + b + "' > '" + ab + "' && echo ok"), "ok\n");
  const long inFrames = probe(ab).frames;
  ASSERT_GT(inFrames, 15);
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-i", ab, "--chain", "gray,brightness=gain=2", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(out).frames, inFrames);  // every frame kept, at one output size
}

TEST(AppOffline, ReadmeMainChainRuns) {
  // The README's main job, on the first 20 frames: every stage in the summary, a playable mp4.
  ASSERT_TRUE(haveFfprobe()) << "ffprobe not found: install the ffmpeg package";
  TempDir dir("offline_readme");
  const std::string out = dir / "vtest_edges.mp4";
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "blur,sobel,hist,brightness", "-o", out, "--frames", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* row : {"1 blur", "2 sobel", "3 hist", "4 brightness", "upload", "download"})
    EXPECT_NE(r.err.find(row), std::string::npos) << row << "\n" << r.err;
  EXPECT_NE(r.err.find("frames: 20 in, 20 out, 0 dropped"), std::string::npos) << r.err;
  const Probe p = probe(out);
  EXPECT_EQ(p.frames, 20);
  EXPECT_EQ(p.rate, "10/1");
}
