// Reliability of media I/O, one class of fault per test, each with the reported example and
// variants (docs/RELIABILITY.md lists them): format strings in patterns, side files over
// inputs, existing outputs, write failures, interrupted images, bad images in a sequence, and
// file names that look like something else.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <sstream>
#include <thread>

#include "app/sinks.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

std::string md5(const std::string& path) { return shellOutput("md5sum < " + q(path)); }

// The error a failed run ends with: its last "vidfilter: " line that is not a log line (the
// sanitizers may print their statistics after it).
std::string errorLine(const std::string& err) {
  std::string found, line;
  for (std::size_t i = 0; i <= err.size(); ++i) {
    if (i < err.size() && err[i] != '\n' && err[i] != '\r') {
      line += err[i];
      continue;
    }
    if (line.rfind("vidfilter: ", 0) == 0 && line.find(": info: ") == std::string::npos &&
        line.find(": warning: ") == std::string::npos)
      found = line;
    line.clear();
  }
  return found;
}

// A short clip to read from (copied: tests may point outputs at it).
std::string clip(const TempDir& dir, const std::string& name = "in.mkv") {
  const std::string path = dir / name;
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v ffv1 " + q(path));
  return path;
}

}  // namespace

// --- format strings --------------------------------------------------------------------------

TEST(ReliabilityMedia, PrintfConversionsInPatternsAreOneClearError) {
  TempDir dir("relm_fmt");
  const std::string in = clip(dir);
  // The reported crashes and heap writes, and more of the family: one line, exit 2, no file.
  for (const char* pattern : {"x_%.5s_%05d.png", "x_%3$n.png", "x_%5$p_%d.png", "x_%*d.png",
                              "x_%.3d.png", "x_%n%n%n%n.png", "x_%99999999d.png"}) {
    SCOPED_TRACE(pattern);
    const auto r = runVidfilter({"-i", in, "--chain", "gray", "-o", dir / pattern});
    expectOneError(r, 2, "output '" + (dir / pattern) + "': ");
    EXPECT_NE(r.err.find("(at column"), std::string::npos) << r.err;
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // in.mkv
  // The same through a config file's output key.
  const std::string cfg = dir / "c.toml";
  {
    std::ofstream f(cfg);
    f << "input = \"" << in << "\"\nchain = \"gray\"\noutput = \"" << (dir / "y_%3$n.png")
      << "\"\n";
  }
  expectOneError(runVidfilter({"--config", cfg}), 2, "'%3$n' is not a frame number");
  // And in an input pattern (a name that is not a file).
  expectOneError(runVidfilter({"-i", dir / "in_%.5s_%d.png", "--chain", "gray"}), 2,
                 "is not a file, and not a valid image pattern: '%.5s' is not a frame number");
}

// --- nothing read is written over --------------------------------------------------------------

TEST(ReliabilityMedia, SideFilesAndOutputsNeverOverwriteAnInput) {
  TempDir dir("relm_clobber");
  const std::string in = clip(dir);
  const std::string before = md5(in);
  // The reported case: --stats naming the input video.
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "--stats", in, "-y"}), 2,
                 "--stats '" + in + "' is the input '" + in + "' (the same file)");
  // The config file, through the stats path, even with -y.
  const std::string cfg = dir / "c.toml";
  {
    std::ofstream f(cfg);
    f << "chain = \"gray\"\n";
  }
  const std::string cfgBefore = md5(cfg);
  expectOneError(runVidfilter({"--config", cfg, "-i", in, "--stats", cfg, "-y"}), 2,
                 "is the config file");
  // A user kernel's source, as the output, --stats or --json, alone or with other inputs.
  const std::string kernel = dir / "k.cl";
  {
    std::ofstream f(kernel);
    f << "uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) { return px; }\n";
  }
  const std::string kernelBefore = md5(kernel);
  const std::string chain = "kernel=" + kernel;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"-o", kernel, "-f", "matroska"},
        {"-o", dir / "k.mkv", "--stats", kernel},
        {"-o", dir / "k.mkv", "--json", kernel},
        {"-i", in, "-o", dir / "k.mkv", "-o", kernel, "-f", "matroska"}}) {
    std::vector<std::string> args{"-i", in, "--chain", chain, "-y"};
    args.insert(args.end(), extra.begin(), extra.end());
    expectOneError(runVidfilter(args), 2, "is a kernel file");
  }
  // Stdout redirected into the input (`-o - >> in.mkv`).
  const std::string appended =
      shellOutput(q(vf::test::vidfilterBinary()) + " -i " + q(in) + " --chain gray -o - >> " +
                  q(in) + " 2>" + q(dir / "err.txt") + "; echo $?");
  EXPECT_EQ(appended, "2\n");
  EXPECT_NE(shellOutput("cat " + q(dir / "err.txt")).find("which is redirected into the input"),
            std::string::npos);
  // The output through a symbolic link and through a hard link to the input.
  std::filesystem::create_symlink(in, dir / "link.mkv");
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "link.mkv", "-y"}), 2,
                 "(the same file, through a link)");
  std::filesystem::create_hard_link(in, dir / "hard.mkv");
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "hard.mkv", "-y"}), 2,
                 "is the input");
  // An image output whose pattern names the input's own frames.
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 " + q(dir / "f_%03d.png"));
  const std::string frameBefore = md5(dir / "f_003.png");
  expectOneError(
      runVidfilter({"-i", dir / "f_%03d.png", "--chain", "gray", "-o", dir / "f_%03d.png", "-y"}),
      2, "is the input image");
  // --stats and the output are the same file.
  expectOneError(
      runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "o.mkv", "--stats", dir / "o.mkv"}), 2,
      "give each output its own name");
  EXPECT_EQ(md5(in), before);
  EXPECT_EQ(md5(cfg), cfgBefore);
  EXPECT_EQ(md5(kernel), kernelBefore);
  EXPECT_EQ(md5(dir / "f_003.png"), frameBefore);
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
}

TEST(ReliabilityMedia, ImagePatternsThatCanNameTheSameFilesAreRefused) {
  // 'a%d.png' and 'a1%d.png' both name a11.png (frame 11 of one, frame 1 of the other); so do
  // 'x%d.png' and 'x%d1.png'. Patterns that cannot meet run side by side.
  TempDir dir("relm_patterns");
  const std::string a = clip(dir, "a.mkv"), a1 = clip(dir, "a1.mkv");
  expectOneError(runVidfilter({"-i", a, "-i", a1, "--chain", "gray", "--frames", "12", "-o",
                               dir / "{name}%d.png"}),
                 2, "can name the same files");
  expectOneError(runVidfilter({"-i", a, "-i", a1, "--chain", "gray", "-o", dir / "x%d.png", "-o",
                               dir / "./x%d1.png"}),
                 2, "can name the same files");
  EXPECT_FALSE(std::filesystem::exists(dir / "a11.png"));
  const auto r = runVidfilter(
      {"-i", a, "-i", a1, "--chain", "gray", "--frames", "12", "-o", dir / "{name}_%d.png"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "a_12.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "a1_12.png"));
}

TEST(ReliabilityMedia, ExistingOutputsAreReplacedOnlyWithY) {
  TempDir dir("relm_exists");
  const std::string in = clip(dir);
  const std::string out = dir / "out.mp4";
  { std::ofstream(out) << "precious bytes\n"; }
  const std::string before = md5(out);
  // No terminal, neither -y nor -n: refused, naming -y; the file is byte-identical.
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "-o", out}), 2,
                 "the output '" + out + "' already exists; give -y to overwrite");
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "-o", out, "-n"}), 2,
                 "-n says never overwrite");
  EXPECT_EQ(md5(out), before);
  // Image patterns and --stats count too.
  { std::ofstream(dir / "img_0003.png") << "x"; }
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "img_%04d.png"}), 2,
                 "already has 1 file (" + (dir / "img_0003.png") + ")");
  { std::ofstream(dir / "s.jsonl") << "{}\n"; }
  expectOneError(runVidfilter({"-i", in, "--chain", "gray", "--stats", dir / "s.jsonl"}), 2,
                 "--stats '" + (dir / "s.jsonl") + "' already exists");
  // -y replaces (config: overwrite = true).
  const auto r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(out), 25);
}

// --- write failures ---------------------------------------------------------------------------

TEST(ReliabilityMedia, WriteFailuresAreNeverReportedAsSuccess) {
  TempDir dir("relm_write");
  const std::string in = dir / "in.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25 -t 8 -c:v ffv1 " + q(in));
  // The kernels are built (PoCL and the program cache write files of their own) before the runs
  // under a file size limit, so that the limit meets the output alone.
  for (const char* chain : {"sobel", "blur", "brightness=gain=1"})
    ASSERT_EQ(runVidfilter({"-i", in, "--chain", chain, "--frames", "2", "-o",
                            dir / (std::string("warm_") + chain + ".mkv")})
                  .status,
              0);
  // The reported case: ulimit -f 300 (KiB). The run stops with room for the index: exit 1
  // naming the cause, and the file plays with the frames it says.
  vf::test::ProcOptions lim;
  lim.fileSizeLimit = 300 * 1024;
  const std::string out = dir / "lim.mp4";
  auto r = runVidfilter({"-i", in, "--chain", "sobel", "-o", out}, lim);
  EXPECT_EQ(r.status, 1) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex("the file size limit \\(ulimit -f, 300 KiB\\) leaves too little room for "
                 "more frames and the file's index; stopped after ([0-9]+) frames")))
      << r.err;
  EXPECT_EQ(countFrames(out), std::stol(m[1]));
  EXPECT_EQ(decodeErrors(out), "");
  EXPECT_EQ(r.err.find("wrote "), std::string::npos) << r.err;
  // A run stopped by the limit: exit 1, and the frames it says it kept (-1: it said none).
  const auto stoppedAfter = [&](const std::string& input, const std::string& chain,
                                const std::string& output, long limitKiB) {
    lim.fileSizeLimit = limitKiB * 1024;
    r = runVidfilter({"-i", input, "--chain", chain, "-o", output}, lim);
    EXPECT_EQ(r.status, 1) << r.err;
    std::smatch said;
    const bool found = std::regex_search(
        r.err, said, std::regex("the file's index; stopped after ([0-9]+) frames"));
    EXPECT_TRUE(found) << r.err;
    return found ? std::stol(said[1]) : -1L;
  };
  // Matroska holds its open cluster (up to 5 s) in memory, out of the file's size so far: the
  // limit counts it too, and the file holds the frames it says.
  const std::string mkv = dir / "lim.mkv";
  const long mkvFrames = stoppedAfter(in, "sobel", mkv, 200);
  ASSERT_GE(mkvFrames, 0);
  EXPECT_EQ(countFrames(mkv), mkvFrames);
  EXPECT_EQ(decodeErrors(mkv), "");
  // y4m's packets carry their frames by reference: the room counts the frames' own bytes (it
  // counted the packets', and a file with part of one frame was said to play its 1 frame).
  const std::string y4m = dir / "lim.y4m";
  const long y4mFrames = stoppedAfter(in, "sobel", y4m, 1000);
  ASSERT_GE(y4mFrames, 0);
  EXPECT_EQ(countFrames(y4m), y4mFrames);
  EXPECT_GT(y4mFrames, 0);
  // With audio: the file stopped short ends its audio with its video (the frames the encoder
  // still held were never written; the audio of their time was not either).
  const std::string av = dir / "av.mp4";
  ffmpeg(
      "-f lavfi -i testsrc2=size=320x240:rate=25 -f lavfi -i sine=f=440 -t 8 -c:v libx264 "
      "-c:a aac " +
      q(av));
  const std::string avOut = dir / "lim_av.mp4";
  ASSERT_GE(stoppedAfter(av, "brightness=gain=1", avOut, 200), 0);
  const double videoEnd = std::stod(probeValue(avOut, "-select_streams v", "stream=duration"));
  const double audioEnd = std::stod(probeValue(avOut, "-select_streams a", "stream=duration"));
  EXPECT_GT(videoEnd, 0.5);
  EXPECT_LT(videoEnd, 7.5);
  EXPECT_NEAR(audioEnd, videoEnd, 0.1);  // within a few AAC frames (23 ms each at 44.1 kHz)
  // A file that fits under the limit with the room its index is given (16 KiB, 48 bytes a
  // packet, twice the largest packet, and this one) is written whole: exit 0, every frame and
  // the whole audio, not stopped short for a limit it never met.
  const std::string whole = dir / "whole.mp4";
  ASSERT_EQ(runVidfilter({"-i", av, "--chain", "brightness=gain=1", "-o", whole}).status, 0);
  const std::string sizes =
      shellOutput("ffprobe -v error -show_entries packet=size -of csv=p=0 " + q(whole));
  long packets = 0, largest = 0;
  std::istringstream lines(sizes);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) ++packets, largest = std::max(largest, std::stol(l));
  ASSERT_GT(packets, 200);  // 200 frames and the audio's
  const long fits =
      long(std::filesystem::file_size(whole)) + 16 * 1024 + 3 * largest + 48 * packets + 8192;
  lim.fileSizeLimit = fits;
  const std::string underLimit = dir / "under_limit.mp4";
  r = runVidfilter({"-i", av, "--chain", "brightness=gain=1", "-o", underLimit}, lim);
  EXPECT_EQ(r.status, 0) << "limit " << fits << " for a file of "
                         << std::filesystem::file_size(whole) << ": " << r.err;
  EXPECT_EQ(countFrames(underLimit), countFrames(whole));
  EXPECT_NEAR(std::stod(probeValue(underLimit, "-select_streams a", "stream=duration")),
              std::stod(probeValue(whole, "-select_streams a", "stream=duration")), 0.03);
  // A limit below the room the index needs: nothing kept, and said so (no file "which plays").
  lim.fileSizeLimit = 20 * 1024;
  const std::string none = dir / "none.mp4";
  r = runVidfilter({"-i", in, "--chain", "sobel", "-o", none}, lim);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(errorLine(r.err).find("the file's index; stopped before the first frame"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("which plays"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(none));
  // Images (colour PNGs of some 20 KiB) under an 8 KiB limit: the image that does not fit
  // fails with EFBIG, named.
  vf::test::ProcOptions small;
  small.fileSizeLimit = 8 * 1024;
  r = runVidfilter({"-i", in, "--chain", "blur", "-o", dir / "big_%03d.png"}, small);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(errorLine(r.err).find(": File too large; the "), std::string::npos) << r.err;
  // A device that is always full: /dev/full takes nothing.
  r = runVidfilter({"-i", in, "--chain", "gray", "-o", "/dev/full", "-f", "matroska"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(std::regex_match(
      errorLine(r.err),
      std::regex("vidfilter: (writing|finishing) /dev/full failed: No space left on device")))
      << r.err;
  // mp4 writes at its header: the disk is named, not the codec or the container.
  r = runVidfilter({"-i", in, "--chain", "gray", "-o", "/dev/full", "-f", "mp4"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(errorLine(r.err),
            "vidfilter: cannot write /dev/full: No space left on device (at the start of the mp4 "
            "container); nothing was written")
      << r.err;
  // stdout closed by its reader (a pipe into head): not a success either.
  const std::string rc =
      shellOutput("bash -c " + q(q(vf::test::vidfilterBinary()) + " -i " + q(in) +
                                 " --chain gray -o - 2>/dev/null | head -c 1000 >/dev/null;"
                                 " echo ${PIPESTATUS[0]}"));
  EXPECT_NE(rc, "0\n");
}

// --- images whole or not at all
// -------------------------------------------------------------------

TEST(ReliabilityMedia, SigkillNeverLeavesATruncatedImageUnderItsName) {
  TempDir dir("relm_kill");
  const std::string in = dir / "in.mkv";
  // 300 frames: more than a run gets through before the last kill on a fast machine (all 100 of
  // a 4 s clip were written within 1.6 s on PoCL on 2 cores).
  ffmpeg("-f lavfi -i testsrc2=size=1280x720:rate=25 -t 12 -c:v ffv1 " + q(in));
  for (const int delayMs : {400, 900, 1600}) {
    SCOPED_TRACE(delayMs);
    const std::string sub = dir / ("k" + std::to_string(delayMs));
    std::filesystem::create_directory(sub);
    Child c(vf::test::vidfilterBinary(), {"-i", in, "--chain", "blur", "-o", sub + "/f_%04d.png"});
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    c.signal(SIGKILL);
    c.wait();
    int whole = 0;
    for (const auto& e : std::filesystem::directory_iterator(sub)) {
      const std::string name = e.path().filename().string();
      if (name[0] == '.') continue;  // a temporary name: never an image's final name
      const cv::Mat img = cv::imread(e.path().string(), cv::IMREAD_UNCHANGED);
      ASSERT_FALSE(img.empty()) << name << " is under its final name but does not decode";
      EXPECT_EQ(img.size(), cv::Size(1280, 720)) << name;
      ++whole;
    }
    EXPECT_LT(whole, 300) << "the run was not interrupted";
  }
}

// --- bad images in a sequence
// ---------------------------------------------------------------------

TEST(ReliabilityMedia, UnreadableImageInASequenceStopsTheRunNamingIt) {
  TempDir dir("relm_seq");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 20 " + q(dir / "in_%03d.png"));
  // The reported case: a 0-byte image in the middle.
  std::filesystem::resize_file(dir / "in_010.png", 0);
  auto r = runVidfilter({"-i", dir / "in_%03d.png", "--chain", "gray", "-o", dir / "out_%03d.png"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(errorLine(r.err), "vidfilter: image sequence '" + (dir / "in_%03d.png") +
                                  "': frame 10 (" + (dir / "in_010.png") +
                                  ") is empty (0 bytes); stopped there, after 9 frames");
  for (int i = 1; i <= 9; ++i)
    EXPECT_FALSE(cv::imread(vf::app::sequenceFileName(dir / "out_%03d.png", i - 1)).empty()) << i;
  EXPECT_FALSE(std::filesystem::exists(dir / "out_010.png"));
  // Text where an image should be, and an unreadable image, through a glob.
  { std::ofstream(dir / "in_005.png") << "not an image\n"; }
  r = runVidfilter({"-i", dir / "in_*.png", "--chain", "gray", "-o", dir / "g_%03d.png"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(errorLine(r.err).find("frame 5 (" + (dir / "in_005.png") + ") does not decode"),
            std::string::npos)
      << r.err;
  if (::geteuid() == 0) {
    vf::test::ProcOptions nobody;
    nobody.asNobody = true;  // PoCL's cache in a place nobody may write
    nobody.setEnv = {"POCL_CACHE_DIR=" + (dir / "pocl"), "VIDFILTER_CACHE_DIR=off",
                     "HOME=" + dir.path().string()};
    std::filesystem::permissions(dir.path(), std::filesystem::perms::all,
                                 std::filesystem::perm_options::add);
    std::filesystem::copy_file(dir / "in_004.png", dir / "in_005.png",
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::permissions(dir / "in_003.png", std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::replace);
    r = runVidfilter({"-i", dir / "in_%03d.png", "--chain", "gray"}, nobody);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(errorLine(r.err).find("frame 3 (" + (dir / "in_003.png") +
                                    ") could not be read (Permission denied)"),
              std::string::npos)
        << r.err;
  }
}

// --- names that look like something else ---------------------------------------------------------

TEST(ReliabilityMedia, AnExistingPathIsAlwaysAFile) {
  TempDir dir("relm_names");
  const std::string src = clip(dir);
  // The reported case: '!' made the name a GStreamer pipeline.
  int n = 0;
  for (const char* name : {"a!b.mkv", "x ! appsink.mkv", "100%d.mkv", "take*2.mkv", "rtsp:x.mkv"}) {
    SCOPED_TRACE(name);
    std::filesystem::copy_file(src, dir / name);
    const auto r = runVidfilter(
        {"-i", dir / name, "--chain", "gray", "-o", dir / ("out" + std::to_string(++n) + ".mkv")});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("input: file " + (dir / name)), std::string::npos) << r.err;
  }
  // A name that is not there is still read as what it looks like.
  expectOneError(runVidfilter({"-i", "videotestsrc ! videoconvert", "--chain", "gray"}), 2,
                 "GStreamer pipeline must end in appsink");
}
