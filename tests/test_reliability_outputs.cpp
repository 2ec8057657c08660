// Reliability of outputs that are not plain new files, through the real binary: a run that fails
// before its first frame removes only the regular file it made or replaced (never a device, a
// FIFO or a link); a pipe, a process substitution and what /proc holds are written without a
// free-space check of their own (whose figures there mean nothing); a side file never takes a
// name that an output pattern will make.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;
namespace fs = std::filesystem;

namespace {

std::string clip(const TempDir& dir) {
  const std::string path = dir / "in.mkv";
  makeClip(path, "testsrc2=size=64x48:rate=10", "-frames:v 6 -c:v ffv1");
  return path;
}

ProcOptions failingAtTheFirstFrame() {
  ProcOptions o;
  o.setEnv = {"VIDFILTER_FAULT=enqueue:1"};
  o.timeoutSec = 60;
  return o;
}

std::string fileText(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(ReliabilityOutputs, AFailureBeforeTheFirstFrameRemovesOnlyAFileTheRunWrote) {
  TempDir dir("out_first_fail");
  const std::string in = clip(dir);
  auto run = [&](const std::vector<std::string>& out) {
    std::vector<std::string> args = {"-y", "-i", in, "--chain", "gray"};
    args.insert(args.end(), out.begin(), out.end());
    const ProcResult r = runVidfilter(args, failingAtTheFirstFrame());
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("[injected by VIDFILTER_FAULT=enqueue:1]"), std::string::npos) << r.err;
    return r;
  };
  // A device node (the null device's numbers), written through the null muxer and through a
  // container: it stays.
  const std::string dev = dir / "mynull";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    for (const char* format : {"null", "matroska"}) {
      SCOPED_TRACE(format);
      run({"-o", dev, "-f", format});
      struct stat st {};
      EXPECT_EQ(::lstat(dev.c_str(), &st), 0);
      EXPECT_TRUE(S_ISCHR(st.st_mode));
    }
  }
  // A FIFO with a reader: it stays.
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread reader([&] { fileText(fifo); });
  run({"-o", fifo, "-f", "matroska"});
  // A reader still waiting for a writer (the run failed before opening the FIFO) lets go.
  if (const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); w >= 0) ::close(w);
  reader.join();
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  // A regular file the null muxer never opens: untouched.
  const std::string kept = dir / "kept.txt";
  std::ofstream(kept) << "data\n";
  run({"-o", kept, "-f", "null"});
  EXPECT_EQ(fileText(kept), "data\n");
  // A link to a file: the link stays; the file it names, emptied by -y, holds no unplayable
  // container (it is removed, as a file named directly would be).
  const std::string real = dir / "real.mkv", link = dir / "lnk.mkv";
  std::ofstream(real) << "data\n";
  fs::create_symlink("real.mkv", link);
  run({"-o", link});
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_FALSE(fs::exists(real));
  // A file named directly, made by the run: removed.
  run({"-o", dir / "new.mkv"});
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "new.mkv")));
}

// A header the container refuses (raw BGR video in Matroska) removes the file it began, and
// only a regular file: a device node and a link at the output's name stay.
TEST(ReliabilityOutputs, ARefusedHeaderRemovesOnlyAFileTheRunWrote) {
  TempDir dir("out_refused_header");
  const std::string in = clip(dir);
  const auto run = [&](const std::string& out) {
    const ProcResult r = runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", out, "-f",
                                       "matroska", "--codec", "rawvideo", "--pix-fmt", "bgr24"});
    EXPECT_EQ(r.status, 2) << r.err;  // the codec chosen: a usage error
    EXPECT_NE(r.err.find("did not start with"), std::string::npos) << r.err;
  };
  const std::string dev = dir / "mynull";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    run(dev);
    struct stat st {};
    EXPECT_EQ(::lstat(dev.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  const std::string real = dir / "real.mkv", link = dir / "lnk.mkv";
  std::ofstream(real) << "data\n";
  fs::create_symlink("real.mkv", link);
  run(link);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  run(dir / "new.mkv");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "new.mkv")));
}

TEST(ReliabilityOutputs, PipesAndProcFilesAreWrittenWithoutAFreeSpaceCheck) {
  TempDir dir("out_not_files");
  const std::string in = clip(dir);
  const std::string vf = q(vidfilterBinary()) + " -y -i " + q(in) + " --chain gray -f matroska";
  // A pipe through /proc/self/fd (procfs reports no free space), and a regular file reached the
  // same way: both written, every frame.
  const std::string piped = dir / "piped.mkv", status = dir / "status";
  EXPECT_EQ(shell("{ " + vf + " -o /proc/self/fd/1 2>" + q(dir / "e1") + "; echo $? >" + q(status) +
                  "; } | cat > " + q(piped))
                .status,
            0);
  EXPECT_EQ(fileText(status), "0\n") << fileText(dir / "e1");
  EXPECT_EQ(countFrames(piped), 6);
  const std::string viaFd = dir / "fd.mkv";
  EXPECT_EQ(shell(vf + " -o /proc/self/fd/3 3>" + q(viaFd) + " 2>" + q(dir / "e2")).status, 0)
      << fileText(dir / "e2");
  EXPECT_EQ(countFrames(viaFd), 6);
  // A process substitution (bash): its /dev/fd/N is a pipe.
  const std::string sub = dir / "sub.mkv";
  EXPECT_EQ(shell("bash -c " + q(vf + " -o >(cat > " + q(sub) + ") 2>" + q(dir / "e3"))).status, 0)
      << fileText(dir / "e3");
  for (int i = 0; i < 50 && countFrames(sub) != 6; ++i)  // cat may still be writing
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(countFrames(sub), 6);
  // A file of /proc that takes no writes: the OS's own error, not a full disk.
  const ProcResult proc =
      runVidfilter({"-y", "-i", in, "--chain", "gray", "-f", "matroska", "-o", "/proc/version"});
  EXPECT_NE(proc.status, 0) << proc.err;  // 2 as a user who may not write in /proc
  EXPECT_EQ(proc.err.find("No space left on device"), std::string::npos) << proc.err;
  EXPECT_TRUE(fs::exists("/proc/version"));
}

TEST(ReliabilityOutputs, ASideFileNamedAsAFrameOfAnOutputPatternIsRefused) {
  TempDir dir("out_side_pattern");
  const std::string in = clip(dir);
  fs::create_directory(dir / "out");
  const std::string pattern = dir / "out/f_%03d.png";
  for (const char* side : {"--json", "--stats"}) {
    SCOPED_TRACE(side);
    for (const std::string& name : {dir / "out/f_002.png", dir / "out/../out/f_010.png"}) {
      expectOneError(runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", pattern, side, name}),
                     2, "give each output its own name");
      EXPECT_TRUE(fs::is_empty(dir / "out"));
    }
  }
  // Names the pattern never makes are fine: frame 0, too few digits.
  for (const std::string& name : {dir / "out/f_000.png", dir / "out/f_02.png"}) {
    const ProcResult r =
        runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", pattern, "--json", name});
    EXPECT_EQ(r.status, 0) << r.err;
    fs::remove_all(dir / "out");
    fs::create_directory(dir / "out");
  }
  // A side file given before the pattern that makes it: input 0's --stats is input 1's frame 1.
  expectOneError(
      runVidfilter({"-y", "-i", in, "-i", in, "--chain", "gray", "-o", dir / "out/{index}_%03d.png",
                    "--stats", dir / "out/1_{index}01.png"}),
      2, "give each output its own name");
  EXPECT_TRUE(fs::is_empty(dir / "out"));
}

// --stats and --json on a FIFO nobody reads: the open waits for a reader (--stats before the
// first frame, --json after the run), and a signal ends that wait as the stop it is: 128 + the
// signal, the output playable.
TEST(ReliabilityOutputs, SignalWhileOpeningAStatsOrJsonFifoIsAStop) {
  TempDir dir("out_fifo");
  const std::string in = clip(dir);
  for (const std::string option : {"--stats", "--json"}) {
    SCOPED_TRACE(option);
    const std::string fifo = dir / (option.substr(2) + ".fifo");
    const std::string out = dir / (option.substr(2) + ".mkv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ProcOptions o;
    o.timeoutSec = 60;
    Child c(vidfilterBinary(), {"-i", in, "--chain", "gray", "-o", out, option, fifo}, o);
    ASSERT_TRUE(catches(c.pid(), SIGTERM)) << c.errSoFar();
    if (option == "--json") {  // the run is over: its summary is out
      ASSERT_TRUE(c.readUntil(
          [](const std::string& err) { return err.find("wrote 6 frames") != std::string::npos; },
          60))
          << c.errSoFar();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    c.signal(SIGTERM);
    const ProcResult r = c.wait();
    EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
    EXPECT_NE(lastLine(r.err).find("stopped by SIGTERM"), std::string::npos) << r.err;
    if (option == "--json") {
      EXPECT_EQ(probe(out).frames, 6);
    }
  }
}

// A write that fails (ulimit -f) loses what the encoder still held: the --json summary's
// frames_written is what the file holds (as ffprobe counts it), frames_out what reached it.
TEST(ReliabilityOutputs, JsonSummaryCountsTheFramesTheOutputHolds) {
  TempDir dir("out_written");
  const std::string in = dir / "long.mp4", out = dir / "cut.mp4", json = dir / "cut.json";
  makeClip(in, "testsrc2=size=320x240:rate=25", "-frames:v 200 -c:v libx264");
  ProcOptions limited;
  limited.fileSizeLimit = 60 * 1024;
  limited.timeoutSec = 120;
  const auto r = runVidfilter({"-i", in, "--chain", "sobel", "-o", out, "--json", json}, limited);
  EXPECT_EQ(r.status, 1) << r.err;
  std::ifstream text(json);
  const auto job = nlohmann::json::parse(text)["inputs"][0];
  EXPECT_EQ(job["status"], "failed");
  EXPECT_EQ(job["frames_written"].get<long>(), fs::exists(out) ? probe(out).frames : 0);
  EXPECT_LE(job["frames_written"].get<long>(), job["frames_out"].get<long>());
}

// An output FIFO whose reader opened it and stopped reading (a consumer that hung): the writer
// is blocked in the OS, where a stop cannot reach it, and one SIGTERM was a warning only, the
// run going on until a second signal. The run now waits 10 s for a packet to go through, then
// ends with 143 and says why.
TEST(ReliabilityOutputs, SigtermEndsARunWhoseOutputsReaderStoppedReading) {
  TempDir dir("out_stalled");
  const std::string in = dir / "in.mkv";
  makeClip(in, "testsrc2=size=320x240:rate=25", "-frames:v 400 -c:v ffv1");
  // One input alone, and through the runner of several inputs (--json takes it there).
  for (const bool json : {false, true}) {
    SCOPED_TRACE(json ? "--json" : "one input");
    const std::string fifo = dir / (json ? "json.y4m" : "out.y4m");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // never reads
    ASSERT_GE(reader, 0);
    ProcOptions o;
    o.timeoutSec = 60;
    std::vector<std::string> args = {"-i", in, "--chain", "gray", "-o", fifo, "--no-progress"};
    if (json) args.insert(args.end(), {"--json", dir / "run.json"});
    Child c(vidfilterBinary(), args, o);
    ASSERT_TRUE(c.readUntil(
        [](const std::string& err) { return err.find("writing ") != std::string::npos; }, 60))
        << c.errSoFar();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the pipe's buffer fills
    c.signal(SIGTERM);
    const auto start = std::chrono::steady_clock::now();
    const ProcResult r = c.wait();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(took, 20);
    EXPECT_GE(took, 9);  // the output had its time to take the frames in flight
    EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
    EXPECT_NE(lastLine(r.err).find("stopped by SIGTERM"), std::string::npos) << r.err;
    EXPECT_NE(lastLine(r.err).find(fifo), std::string::npos) << r.err;  // the output is named
    ::close(reader);
  }
}

// A frame past what the default encoder takes (libx264 at 20000 pixels across): the error says
// the size is the likely cause and names what takes it; an encoder of any size then writes it.
TEST(ReliabilityOutputs, AFrameTooWideForTheEncoderNamesWhatTakesIt) {
  TempDir dir("out_wide");
  const std::string wide = dir / "wide.png";
  ASSERT_EQ(shellOutput("ffmpeg -v error -f lavfi -i testsrc2=size=20000x32 -frames:v 1 " +
                        q(wide) + " 2>&1 && echo ok"),
            "ok\n");
  const auto r = runVidfilter({"-i", wide, "--chain", "gray", "-o", dir / "out.mkv"});
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string err = vf::test::errorLines(r.err);
  EXPECT_NE(err.find("could not start at 20000x32"), std::string::npos) << r.err;
  EXPECT_NE(err.find("resize=WxH"), std::string::npos) << r.err;
  EXPECT_NE(err.find("--codec ffv1"), std::string::npos) << r.err;
  const auto ffv1 =
      runVidfilter({"-i", wide, "--chain", "gray", "--codec", "ffv1", "-o", dir / "ffv1.mkv"});
  ASSERT_EQ(ffv1.status, 0) << ffv1.err;
  EXPECT_EQ(probe(dir / "ffv1.mkv").width, 20000);
}
