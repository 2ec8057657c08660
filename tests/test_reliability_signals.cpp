// Reliability: signals, sent to the real binary. SIGPIPE (a progress line or the summary into
// `| head`) never stops a run; SIGHUP stops it as SIGTERM does; SIGQUIT keeps its default; one
// SIGTERM, SIGINT or SIGHUP ends a run that is blocked opening or reading a FIFO nobody writes
// to (a config file, an input, an input list). SIGINT and SIGTERM during processing:
// test_reliability_faults.cpp, test_app_offline.cpp, test_app_live.cpp. docs/RELIABILITY.md lists
// them all.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

vf::test::ProcOptions within(double seconds) {
  vf::test::ProcOptions o;
  o.timeoutSec = seconds;
  return o;
}

bool seen(Child& c, const std::string& text, double seconds = 60) {
  return c.readUntil([&](const std::string& err) { return err.find(text) != std::string::npos; },
                     seconds);
}

// A FIFO in `dir`; nobody writes to it unless the test opens it.
std::string makeFifo(const TempDir& dir, const std::string& name) {
  const std::string path = dir / name;
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path;
}

// Starts `args`, waits until `ready` shows on stderr (when given) and the signal handlers are
// installed, lets it block, sends `sig`, and checks that the run ends within 10 s with
// 128 + sig and the start-up message.
void expectStopsBlocked(const std::vector<std::string>& args, const std::string& ready, int sig,
                        const std::string& name) {
  SCOPED_TRACE(name);
  Child c(vf::test::vidfilterBinary(), args, within(30));
  if (!ready.empty()) {
    ASSERT_TRUE(seen(c, ready)) << c.errSoFar();
  }
  // The handlers are in place (a signal before that would kill the process by its default
  // action, which is not what is tested), then nothing happens for a while: blocked.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!inMask(signalMask(c.pid(), "SigCgt"), sig) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(inMask(signalMask(c.pid(), "SigCgt"), sig)) << c.errSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_EQ(c.errSoFar().find("frame="), std::string::npos) << c.errSoFar();
  c.signal(sig);
  const auto start = std::chrono::steady_clock::now();
  const auto r = c.wait();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(r.status, 128 + sig) << r.err;
  EXPECT_NE(r.err.find(std::string("stopped by ") +
                       (sig == SIGTERM  ? "SIGTERM"
                        : sig == SIGHUP ? "SIGHUP"
                                        : "SIGINT") +
                       " before the first frame"),
            std::string::npos)
      << r.err;
}

// The bytes of a file.
std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `fifo` opened for reading and writing with `bytes` written into it (fewer than the pipe's
// buffer holds, so the write does not block): the descriptor keeps a silent writer on it; -1
// where it could not.
int fifoHolding(const std::string& fifo, const std::string& bytes) {
  const int w = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (w >= 0 && ::write(w, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    ::close(w);
    return -1;
  }
  return w;
}

// Once the run is writing its output and has had time to take the frames there are, one
// SIGTERM: the run must end within 10 s with 143.
ProcResult stopWithSigterm(Child& c) {
  EXPECT_TRUE(seen(c, "writing ")) << c.errSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  c.signal(SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  const auto r = c.wait();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(r.status, 143) << r.err;
  return r;
}

}  // namespace

// --- SIGPIPE ------------------------------------------------------------------------------------

TEST(ReliabilitySignals, ProgressIntoHeadDoesNotKillTheRun) {
  // `vidfilter ... --progress 2>&1 | head -c 60`: head exits after 60 bytes; every
  // later write (log lines, progress, summary) meets a closed pipe. The mp4 still gets its index.
  TempDir dir("sig_head");
  const std::string out = dir / "piped.mp4";
  const std::string cmd = "'" + vf::test::vidfilterBinary() + "' -i '" + kVideo +
                          "' --chain gray,blur -o '" + out +
                          "' --progress --frames 120 2>&1 | head -c 60 >/dev/null; "
                          "echo status=\\${PIPESTATUS[0]}";
  const std::string r = shellOutput("bash -c \"" + cmd + "\"");
  EXPECT_EQ(r, "status=0\n");
  EXPECT_EQ(probe(out).frames, 120);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilitySignals, ClosedStdoutDoesNotKillTheRun) {
  // The summary goes to stdout; its reader is gone before the end (`| head -1` of a listing).
  TempDir dir("sig_stdout");
  const std::string out = dir / "closed.mkv";
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray", "-o", out, "--frames", "60"}, within(60));
  c.closeStdout();
  const auto r = c.wait();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(framesWritten(r.err), 60) << r.err;
  EXPECT_EQ(probe(out).frames, 60);
}

TEST(ReliabilitySignals, StderrClosedMidRunDoesNotKillTheRun) {
  // The progress line's reader goes away while frames are being written.
  TempDir dir("sig_stderr");
  const std::string out = dir / "closed.mp4";
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray,blur", "-o", out, "--progress", "--frames", "150"},
          within(60));
  ASSERT_TRUE(seen(c, "frame=")) << c.errSoFar();
  c.closeStderr();
  c.closeStdout();
  const auto r = c.wait();
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(probe(out).frames, 150);
  EXPECT_EQ(decodeErrors(out), "");
}

// --- SIGHUP, SIGQUIT -----------------------------------------------------------------------------

TEST(ReliabilitySignals, SighupStopsCleanlyLikeSigterm) {
  TempDir dir("sig_hup");
  const std::string out = dir / "hup.mp4";
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray,blur", "-o", out, "--progress"}, within(60));
  ASSERT_TRUE(seen(c, "frame=")) << c.errSoFar();
  c.signal(SIGHUP);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 128 + SIGHUP) << r.err;
  EXPECT_NE(r.err.find("hung up: finishing the frames in flight and closing " + out +
                       " (another SIGHUP, a second from now, quits at once"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stopped by SIGHUP after"), std::string::npos) << r.err;
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 1) << r.err;
  EXPECT_LT(written, 795) << "the run was not stopped";
  EXPECT_EQ(probe(out).frames, written);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilitySignals, ASignalRepeatedAtOnceStopsCleanlyOnce) {
  // `timeout -s INT` and `kill -- -PGID` signal the process and then its group: two SIGINTs
  // microseconds apart are one request to stop (a playable file of the frames done), not the
  // second Ctrl-C that exits at once. So is a SIGTERM a few milliseconds after the SIGINT (a
  // wrapper that forwards its own signal after the terminal's Ctrl-C). So is a person's double
  // Ctrl-C, a fraction of a second apart.
  const std::pair<int, int> cases[] = {{SIGINT, 0}, {SIGTERM, 5}, {SIGINT, 300}};
  for (const auto& [second, delayMs] : cases) {
    SCOPED_TRACE((second == SIGINT ? "SIGINT, then SIGINT " : "SIGINT, then SIGTERM ") +
                 std::to_string(delayMs) + " ms later");
    TempDir dir("sig_twice");
    const std::string out = dir / "twice.mp4";
    Child c(vf::test::vidfilterBinary(),
            {"-i", kVideo, "--chain", "gray,blur", "-o", out, "--progress"}, within(60));
    ASSERT_TRUE(seen(c, "frame=")) << c.errSoFar();
    c.signal(SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    c.signal(second);
    const auto r = c.wait();
    EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
    EXPECT_EQ(r.err.find("interrupted again"), std::string::npos) << r.err;
    // A group's echo is no second press: nothing said of it.
    if (delayMs < 50) {
      EXPECT_EQ(r.err.find("already stopping"), std::string::npos) << r.err;
    }
    const long written = framesWritten(r.err);
    EXPECT_GE(written, 1) << r.err;
    EXPECT_EQ(probe(out).frames, written);
    EXPECT_EQ(decodeErrors(out), "");
  }
}

TEST(ReliabilitySignals, SighupIgnoredByTheParentStaysIgnored) {
  // Under nohup the user asked for the run to outlive the terminal: SIGHUP changes nothing.
  TempDir dir("sig_nohup");
  const std::string out = dir / "nohup.mkv";
  Child c("/usr/bin/nohup",
          {vf::test::vidfilterBinary(), "-i", kVideo, "--chain", "gray", "-o", out, "--progress",
           "--frames", "200"},
          within(60));
  ASSERT_TRUE(seen(c, "frame=")) << c.errSoFar();
  c.signal(SIGHUP);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("SIGHUP"), std::string::npos) << r.err;
  EXPECT_EQ(probe(out).frames, 200);
}

TEST(ReliabilitySignals, SigquitKeepsItsDefault) {
  // SIGINT, SIGTERM and SIGHUP are caught, SIGPIPE is ignored, SIGQUIT is neither, also after
  // the OpenCL device (whose compiler installs handlers of its own) is open; SIGQUIT then ends
  // the process at once, without the clean stop.
  struct rlimit noCore {
    0, 0
  };
  ASSERT_EQ(setrlimit(RLIMIT_CORE, &noCore), 0);  // no core file from the child
  TempDir dir("sig_quit");
  Child c(vf::test::vidfilterBinary(),
          {"-i", kVideo, "--chain", "gray,blur", "-o", dir / "quit.mkv", "--progress"}, within(60));
  ASSERT_TRUE(seen(c, "frame=")) << c.errSoFar();
  const auto caught = signalMask(c.pid(), "SigCgt");
  const auto ignored = signalMask(c.pid(), "SigIgn");
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) EXPECT_TRUE(inMask(caught, sig)) << sig;
  EXPECT_TRUE(inMask(ignored, SIGPIPE));
  EXPECT_FALSE(inMask(caught, SIGQUIT));
  EXPECT_FALSE(inMask(ignored, SIGQUIT));
  c.signal(SIGQUIT);
  const auto r = c.wait();
  EXPECT_EQ(r.status, 128 + SIGQUIT) << r.err;
  EXPECT_EQ(r.err.find("finishing the frames in flight"), std::string::npos) << r.err;
  // The benchmark too, once its device is open (it timed on, SIGQUIT taken by the compiler's
  // handler).
  Child b(
      vf::test::vidfilterBinary(),
      {"bench", "--chain", "blur,sobel", "--size", "640x480", "--frames", "100000", "--no-tapi"},
      within(60));
  ASSERT_TRUE(b.readUntil(
      [](const std::string& err) { return err.find("OpenCL device") != std::string::npos; }, 60))
      << b.errSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // building and timing its chain
  EXPECT_FALSE(inMask(signalMask(b.pid(), "SigCgt"), SIGQUIT));
  b.signal(SIGQUIT);
  EXPECT_EQ(b.wait().status, 128 + SIGQUIT);
}

// --- a signal while blocked opening or reading -------------------------------------------------

TEST(ReliabilitySignals, SignalWhileReadingAKernelFifoEndsTheRun) {
  // kernel=FIFO whose writer stays and sends nothing: the read ends at the signal.
  TempDir dir("sig_kernel_fifo");
  const std::string fifo = makeFifo(dir, "k.cl");
  Child writer("/bin/sh", {"-c", "exec sleep 60 > " + fifo}, within(90));
  expectStopsBlocked({"-i", kVideo, "--chain", "kernel=" + fifo, "-o", dir / "k.mkv"}, "", SIGTERM,
                     "a silent writer");
  writer.signal(SIGKILL);
  writer.wait();
}

TEST(ReliabilitySignals, SigtermWhileOpeningAConfigFifoEndsTheRun) {
  // --config names a FIFO nobody writes to; open() blocks. One signal ends the run.
  TempDir dir("sig_cfgfifo");
  const std::string fifo = makeFifo(dir, "config.toml");
  expectStopsBlocked({"--config", fifo}, "", SIGTERM, "SIGTERM");
  expectStopsBlocked({"--config", fifo}, "", SIGINT, "SIGINT");
  expectStopsBlocked({"--config", fifo}, "", SIGHUP, "SIGHUP");
}

TEST(ReliabilitySignals, SignalWhileReadingAConfigFifoEndsTheRun) {
  // A writer holds the FIFO open and writes nothing: open() returns, read() blocks.
  TempDir dir("sig_cfgread");
  const std::string fifo = makeFifo(dir, "config.toml");
  const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);  // does not block on Linux
  ASSERT_GE(writer, 0);
  expectStopsBlocked({"--config", fifo}, "", SIGTERM, "SIGTERM");
  expectStopsBlocked({"--config", fifo}, "", SIGINT, "SIGINT");
  ::close(writer);
}

TEST(ReliabilitySignals, SignalWhileOpeningAnInputFifoEndsTheRun) {
  // -i names a FIFO: FFmpeg blocks in open() with no writer, in read() with a silent one (and
  // retries a read that a signal interrupted). No output file is created either way.
  TempDir dir("sig_infifo");
  const std::string fifo = makeFifo(dir, "input.avi");
  const std::string out = dir / "never.mkv";
  const std::vector<std::string> args = {"-i", fifo, "--chain", "gray", "-o", out};
  expectStopsBlocked(args, "OpenCL device", SIGTERM, "no writer, SIGTERM");
  expectStopsBlocked(args, "OpenCL device", SIGINT, "no writer, SIGINT");
  const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  expectStopsBlocked(args, "OpenCL device", SIGTERM, "a silent writer, SIGTERM");
  ::close(writer);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ReliabilitySignals, SignalWhileReadingAnInputListFifoEndsTheRun) {
  // --inputs names a FIFO: blocked in open() with no writer, in read() with a silent one; a
  // signal ends the run as a stop (130/143), not as an unreadable list.
  TempDir dir("sig_listfifo");
  const std::string fifo = makeFifo(dir, "list.txt");
  const std::vector<std::string> args = {"--inputs", fifo, "--chain",
                                         "gray",     "-o", dir / "{index}.mkv"};
  expectStopsBlocked(args, "", SIGTERM, "no writer, SIGTERM");
  const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  expectStopsBlocked(args, "", SIGINT, "a silent writer, SIGINT");
  expectStopsBlocked(args, "", SIGHUP, "a silent writer, SIGHUP");
  ::close(writer);
}

TEST(ReliabilitySignals, SignalWhileOneOfSeveralInputsIsABlockedFifoEndsTheRun) {
  // Several inputs: a worker thread opens each, and the process's signal reaches another thread;
  // the one blocked on a FIFO (no writer; a silent writer) is woken too, without waiting for the
  // FIFO's writer to close. The other input finishes as it would.
  TempDir dir("sig_jobsfifo");
  const std::string fifo = makeFifo(dir, "live.y4m");
  const std::string clip = dir / "clip.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 8 -c:v ffv1 " + q(clip));
  for (const bool writer : {false, true}) {
    SCOPED_TRACE(writer ? "a silent writer" : "no writer");
    const int w = writer ? ::open(fifo.c_str(), O_RDWR | O_CLOEXEC) : -1;
    Child c(vf::test::vidfilterBinary(),
            {"-i", fifo, "-i", clip, "--chain", "sobel", "-o", dir / "{index}.mkv", "-y", "--json",
             dir / "run.json", "--no-progress"},
            within(60));
    ASSERT_TRUE(seen(c, "wrote 8 frames")) << c.errSoFar();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    c.signal(SIGTERM);
    const auto start = std::chrono::steady_clock::now();
    const auto r = c.wait();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
    EXPECT_EQ(r.status, 143) << r.err;
    std::ifstream in(dir / "run.json");
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(doc.is_discarded());
    EXPECT_EQ(doc["inputs"][0]["status"], "stopped");
    EXPECT_EQ(doc["inputs"][1]["status"], "done");
    EXPECT_EQ(countFrames(dir / "1.mkv"), 8);
    if (w >= 0) ::close(w);
  }
}

TEST(ReliabilitySignals, SignalWhileAFifoInputIsSilentMidRunEndsTheRun) {
  // A FIFO that sent 6 frames and then nothing, its writer still there: a stop ends the blocked
  // read (the writer need not close) and the output holds the 6 frames, with one input and with
  // several.
  TempDir dir("sig_fifosilent");
  const std::string fifo = makeFifo(dir, "live.y4m");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -pix_fmt yuv420p " +
         q(dir / "six.y4m"));
  const std::string bytes = fileBytes(dir / "six.y4m");
  ASSERT_LT(bytes.size(), 60000u);  // fits in the pipe's buffer
  const std::string clip = dir / "clip.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 8 -c:v ffv1 " + q(clip));
  for (const bool several : {false, true}) {
    SCOPED_TRACE(several ? "several inputs" : "one input");
    const int w = fifoHolding(fifo, bytes);
    ASSERT_GE(w, 0) << fifo;
    std::vector<std::string> args = {
        "-i", fifo, "--chain", "sobel", "-o", dir / "{index}.mkv", "-y", "--no-progress"};
    if (several) args.insert(args.begin() + 2, {"-i", clip});
    Child c(vf::test::vidfilterBinary(), args, within(60));
    const auto r = stopWithSigterm(c);
    EXPECT_EQ(countFrames(dir / "0.mkv"), 6);
    // The read returned: the run ended as usual, not by giving up on its input.
    EXPECT_EQ(r.err.find("has not returned from a read"), std::string::npos) << r.err;
    ::close(w);
  }
}

TEST(ReliabilitySignals, SignalWhileAGStreamerSourceIsSilentMidRunEndsTheRun) {
  // A GStreamer pipeline whose source sent 6 frames and then nothing (a FIFO whose writer stays:
  // GStreamer's read cannot be interrupted from outside): one SIGTERM closes the output with the
  // frames that came and ends the process with 143, a few seconds later, saying why it did not
  // wait for the input.
  TempDir dir("sig_gstsilent");
  const std::string fifo = makeFifo(dir, "live.bgr");
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=25 -frames:v 6 -pix_fmt bgr24 -f rawvideo " +
         q(dir / "six.bgr"));
  const std::string bytes = fileBytes(dir / "six.bgr");
  ASSERT_EQ(bytes.size(), 6u * 64 * 48 * 3);  // fits in the pipe's buffer
  const int w = fifoHolding(fifo, bytes);
  ASSERT_GE(w, 0) << fifo;
  const std::string out = dir / "out.mkv";
  Child c(vf::test::vidfilterBinary(),
          {"-i",
           "filesrc location=" + fifo +
               " ! rawvideoparse width=64 height=48 format=bgr framerate=25/1 ! appsink",
           "--chain", "sobel", "-o", out, "-y", "--no-progress"},
          within(60));
  const auto r = stopWithSigterm(c);
  EXPECT_NE(r.err.find("the input has not returned from a read"), std::string::npos) << r.err;
  // The file decodes to its end, with the frames the message counts: those the pipeline handed
  // over (its parser may hold back the last).
  const long frames = countFrames(out);
  EXPECT_GE(frames, 4);
  EXPECT_LE(frames, 6);
  EXPECT_NE(r.err.find("stopped by SIGTERM after " + std::to_string(frames) + " frames; " + out +
                       " is closed and plays"),
            std::string::npos)
      << r.err;
  ::close(w);
}
