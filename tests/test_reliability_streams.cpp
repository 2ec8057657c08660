// Reliability of the standard streams and links as paths: stdin redirected from the file a run
// would write, side files (--stats, --json) that are stdout while -o - writes the video there,
// --json - while stdout is redirected into a file the run reads or writes, and a --json path
// that is a symbolic link (to a file, or to stdout itself); Ctrl-C in a terminal, which stops the
// reader of -o - too.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

std::string md5(const std::string& path) { return shellOutput("md5sum < " + q(path)); }

std::string y4mClip(const TempDir& dir) {
  const std::string path = dir / "in.y4m";
  ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 10 " + q(path));
  return path;
}

// vidfilter with `args` run by the shell, its stderr into `errFile`, then `tail` (redirections,
// a pipe); the shell's exit status.
int runShell(const std::string& args, const std::string& errFile, const std::string& tail = "") {
  return shell(q(vidfilterBinary()) + " " + args + " 2>" + q(errFile) + tail).status;
}

std::string fileText(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(ReliabilityStreams, StdinRedirectedFromTheOutputIsRefused) {
  TempDir dir("streams_stdin");
  const std::string in = y4mClip(dir);
  const std::string before = md5(in);
  const std::string err = dir / "err.txt";
  EXPECT_EQ(runShell("-y -i - --chain sobel -o " + q(in) + " < " + q(in), err), 2);
  EXPECT_NE(fileText(err).find("is the input - (stdin, redirected from that file)"),
            std::string::npos)
      << fileText(err);
  EXPECT_EQ(md5(in), before);
  // Another output than the redirected file is written as always.
  EXPECT_EQ(runShell("-y -i - --chain sobel -o " + q(dir / "out.y4m") + " < " + q(in), err), 0)
      << fileText(err);
  EXPECT_EQ(countFrames(dir / "out.y4m"), 10);
}

// `--inputs - < list.txt`: the list is a file read, whatever writes would land in it.
TEST(ReliabilityStreams, InputListRedirectedIntoStdinIsNeverWritten) {
  TempDir dir("streams_list");
  const std::string in = y4mClip(dir);
  const std::string list = dir / "list.txt";
  std::ofstream(list) << in << "\n";
  const std::string before = md5(list);
  const std::string err = dir / "err.txt";
  const std::string run = "-y --inputs - --chain sobel ";
  for (const std::string& writes :
       {"-o " + q(dir / "o{index}.mkv") + " --json " + q(list),
        "-o " + q(dir / "o{index}.mkv") + " --stats " + q(list), "-f matroska -o " + q(list)}) {
    SCOPED_TRACE(writes);
    EXPECT_EQ(runShell(run + writes + " < " + q(list), err), 2) << fileText(err);
    EXPECT_NE(fileText(err).find("is the input list - (stdin, redirected from that file)"),
              std::string::npos)
        << fileText(err);
    EXPECT_EQ(md5(list), before);
  }
  // Writes elsewhere go ahead: the list's one input, processed.
  EXPECT_EQ(runShell(run + "-o " + q(dir / "o{index}.y4m") + " < " + q(list), err), 0)
      << fileText(err);
  EXPECT_EQ(countFrames(dir / "o0.y4m"), 10);
}

TEST(ReliabilityStreams, SideFilesThatAreStdoutAreRefusedWithDashO) {
  TempDir dir("streams_stdout");
  const std::string in = y4mClip(dir);
  const std::string err = dir / "err.txt", out = dir / "out.y4m";
  for (const char* side : {"--stats", "--json"}) {
    SCOPED_TRACE(side);
    // Into a file and into a pipe: either way the side file would land in the video.
    for (const std::string& tail : {" > " + q(out), " | cat > " + q(out)}) {
      const int status =
          runShell("-y -i " + q(in) + " --chain sobel -o - " + side + " /dev/stdout", err, tail);
      if (tail[1] == '>') {  // through the pipe, the shell's status is cat's
        EXPECT_EQ(status, 2);
      }
      EXPECT_NE(fileText(err).find(std::string(side) + " '/dev/stdout' is also stdout (-o -)"),
                std::string::npos)
          << fileText(err);
    }
  }
}

TEST(ReliabilityStreams, JsonToStdoutRedirectedIntoTheInputIsRefused) {
  // --json - prints the summary on stdout: appended to the input, it would damage it.
  TempDir dir("streams_json_dash");
  const std::string in = y4mClip(dir);
  const std::string before = md5(in);
  const std::string err = dir / "err.txt", out = dir / "o.y4m";
  EXPECT_EQ(
      runShell("-y -i " + q(in) + " --chain sobel -o " + q(out) + " --json - >> " + q(in), err), 2)
      << fileText(err);
  EXPECT_NE(fileText(err).find("--json - writes to stdout, which is redirected into input 0"),
            std::string::npos)
      << fileText(err);
  EXPECT_EQ(md5(in), before);
  EXPECT_FALSE(std::filesystem::exists(out));
  // Into the output file it would be written into the video: refused too.
  EXPECT_EQ(
      runShell("-y -i " + q(in) + " --chain sobel -o " + q(out) + " --json - > " + q(out), err), 2)
      << fileText(err);
  // Into another file it is the summary.
  const std::string summary = dir / "summary.json";
  EXPECT_EQ(
      runShell("-y -i " + q(in) + " --chain sobel -o " + q(out) + " --json - > " + q(summary), err),
      0)
      << fileText(err);
  EXPECT_FALSE(nlohmann::json::parse(fileText(summary), nullptr, false).is_discarded());
}

TEST(ReliabilityStreams, JsonThroughALinkWritesTheLinksTarget) {
  TempDir dir("streams_link");
  const std::string in = y4mClip(dir);
  const std::string err = dir / "err.txt";
  // A link to an existing file: the file gets the summary, the link stays a link.
  { std::ofstream(dir / "real.json") << "old"; }
  std::filesystem::create_symlink("real.json", dir / "link.json");
  EXPECT_EQ(runShell("-y -i " + q(in) + " --chain sobel -o " + q(dir / "o.y4m") + " --json " +
                         q(dir / "link.json"),
                     err),
            0)
      << fileText(err);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  const auto real = nlohmann::json::parse(fileText(dir / "real.json"), nullptr, false);
  ASSERT_FALSE(real.is_discarded()) << fileText(dir / "real.json");
  // A link to stdout (as /dev/stdout is): the summary reaches what stdout is redirected into.
  std::filesystem::create_symlink("/proc/self/fd/1", dir / "mystdout");
  const std::string got = dir / "got.json";
  EXPECT_EQ(runShell("-y -i " + q(in) + " --chain sobel -o " + q(dir / "o.y4m") + " --json " +
                         q(dir / "mystdout") + " > " + q(got),
                     err),
            0)
      << fileText(err);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "mystdout"));
  const auto printed = nlohmann::json::parse(fileText(got), nullptr, false);
  EXPECT_FALSE(printed.is_discarded()) << fileText(got);
  // A link to a file not made yet: the file is made, the link stays.
  std::filesystem::create_symlink("later.json", dir / "dangling.json");
  EXPECT_EQ(runShell("-y -i " + q(in) + " --chain sobel -o " + q(dir / "o.y4m") + " --json " +
                         q(dir / "dangling.json"),
                     err),
            0)
      << fileText(err);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.json"));
  EXPECT_FALSE(nlohmann::json::parse(fileText(dir / "later.json"), nullptr, false).is_discarded());
}

// Ctrl-C in a terminal signals the whole pipeline: the reader of `vidfilter -o - | cat` stops
// with it, and the writes after that fail with EPIPE. That is the stop (exit 130, its one
// warning), not a failed write (exit 1, "Broken pipe").
TEST(ReliabilityStreams, CtrlCThatStopsThePipesReaderTooIsAStop) {
  TempDir dir("streams_ctrlc");
  const std::string in = dir / "in.mkv", st = dir / "status", err = dir / "err.txt";
  ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25 -t 60 -c:v ffv1 " + q(in));
  // bash runs the pipeline with SIGINT as its default (a trap, not an ignore) and keeps
  // vidfilter's status when the signal ends the pipeline.
  const std::string cmd = "trap : INT; " + q(vidfilterBinary()) + " -i " + q(in) +
                          " --chain blur,sobel --progress -f matroska -o - 2>" + q(err) +
                          " | cat > " + q(dir / "out.mkv") + "; echo ${PIPESTATUS[0]} > " + q(st);
  ProcOptions opt;
  opt.ownProcessGroup = true;
  Child c("/bin/bash", {"-c", cmd}, opt);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (fileText(err).find("frame=") == std::string::npos &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NE(fileText(err).find("frame="), std::string::npos) << fileText(err);
  c.signalGroup(SIGINT);
  c.wait();
  const std::string e = fileText(err);
  EXPECT_EQ(fileText(st), "130\n") << e;
  EXPECT_NE(e.find("stopped by SIGINT after "), std::string::npos) << e;
  EXPECT_EQ(e.find("Broken pipe"), std::string::npos) << e;
  EXPECT_EQ(e.find("may not play"), std::string::npos) << e;
}
