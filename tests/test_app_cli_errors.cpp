// The real binary's error paths: every error is one line naming what is wrong, with the exit
// status (2 for usage, 1 at run time, 0 for help and listings). (The outputs' errors:
// tests/test_app_cli_output_errors.cpp.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf;
using namespace vf::test;
TEST(AppCliBinary, HelpVersionAndListings) {
  auto r = runVidfilter({"--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  r = runVidfilter({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("vidfilter ", 0), 0u) << r.out;
  r = runVidfilter({"--list-stages"});
  EXPECT_EQ(r.status, 0);
  for (const char* stage : {"gray", "brightness"}) EXPECT_NE(r.out.find(stage), std::string::npos);
  r = runVidfilter({"--list-devices"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("P:D"), std::string::npos) << r.out;
  // Each listing asked for is printed; a run's options beside one are refused, never ignored.
  r = runVidfilter({"--list-stages", "--list-devices"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("P:D"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("brightness"), std::string::npos) << r.out;
  expectOneError(runVidfilter({"--list-stages", "-i", kVideo, "--chain", "bogus"}), 2,
                 "--list-stages prints and exits, and runs nothing: give it without -i, -o and "
                 "--chain, or leave it out to run them");
}
TEST(AppCliBinary, MissingInputFile) {
  expectOneError(runVidfilter({"-i", "/nonexistent/clip.mp4", "--chain", "gray"}), 2,
                 "input file '/nonexistent/clip.mp4' not found");
}
TEST(AppCliBinary, InputThatIsNotAVideo) {
  TempDir dir("cli_notvideo");
  {
    std::ofstream f(dir / "notes.mp4");
    f << "this is text, not a video\n";
  }
  expectOneError(runVidfilter({"-i", dir / "notes.mp4", "--chain", "gray", "--no-preview"}), 2,
                 "is not a video FFmpeg can read");
  expectOneError(runVidfilter({"-i", dir.path().string(), "--chain", "gray"}), 2, "is a directory");
}
TEST(AppCliBinary, CameraThatDoesNotExist) {
  expectOneError(runVidfilter({"-i", "cam99", "--chain", "gray", "--no-preview"}), 2,
                 "camera cam99 (index 99) could not be opened");
}
TEST(AppCliBinary, BadChainShowsTheCaret) {
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray,blr"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      errorLines(r.err),
      "vidfilter: unknown stage 'blr'; stages: gray, blur, sobel, hist, brightness, resize, crop, "
      "equalize, threshold, color, kernel\n"
      "  gray,blr\n"
      "       ^^^\n");
  const auto range = runVidfilter({"-i", kVideo, "--chain", "brightness=gain=99"});
  EXPECT_EQ(range.status, 2);
  EXPECT_NE(range.err.find("gain must be in [-16, 16], got 99"), std::string::npos) << range.err;
  EXPECT_NE(range.err.find("             ^^^^^^^"), std::string::npos) << range.err;
  // A stage that refuses the frame (known only once the input is open) is pointed at too.
  const auto crop = runVidfilter({"-i", kVideo, "--chain", "gray,crop=x=9999", "--no-preview"});
  EXPECT_EQ(crop.status, 2);
  EXPECT_EQ(errorLines(crop.err),
            "vidfilter: crop: the corner (9999,0) lies outside the 768x576 frame; give x < 768 "
            "and y < 576\n"
            "  gray,crop=x=9999\n"
            "       ^^^^^^^^^^^\n");
}
// A switch takes no value: --overwrite=false would have counted as --overwrite and replaced the
// file. Refused, and the existing output is left as it was.
TEST(AppCliBinary, ASwitchWithAValueIsRefusedAndReplacesNothing) {
  TempDir dir("cli_switch_value");
  const std::string out = dir / "keep.mkv";
  std::ofstream(out) << "kept";
  for (const char* sw : {"--overwrite=false", "--an=0", "--quiet=no", "--no-overwrite=true"}) {
    expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", out, sw}), 2,
                   "is a switch and takes no value");
    EXPECT_EQ(shellOutput("cat " + q(out)), "kept") << sw;
  }
}

// --crf is a decimal number: another base, spaces or letters after it are refused by name.
TEST(AppCliBinary, CrfIsADecimalNumber) {
  TempDir dir("cli_crf");
  for (const char* crf : {"0x10", "0x1p4", "23abc", "20 "})
    expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-o", dir / "c.mp4", "--crf", crf,
                                 "--frames", "2"}),
                   2, "--crf: '" + std::string(crf) + "' is not a decimal number");
  const ProcResult r = runVidfilter(
      {"-i", kVideo, "--chain", "gray", "-o", dir / "c.mp4", "--crf", "18.5", "--frames", "2"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(AppCliBinary, UnknownOption) {
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--frobnicate"}), 2,
                 "unknown option --frobnicate; see vidfilter --help");
}
TEST(AppCliBinary, BadDeviceSelectorListsTheDevices) {
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "--device", "no-such-device-xyz"});
  EXPECT_EQ(r.status, 2);
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter: --device no-such-device-xyz: matches no device", 0), 0u) << e;
  EXPECT_NE(e.find("devices are:\n  0:0"), std::string::npos) << e;
  const auto idx = runVidfilter({"-i", kVideo, "--chain", "gray", "--device", "7:7"});
  EXPECT_EQ(idx.status, 2);
  EXPECT_NE(idx.err.find("--device 7:7: no device with that index"), std::string::npos) << idx.err;
  // An index past what an int holds names no device (it never wraps round to 0:0).
  TempDir dir("cli_device_index");
  for (const std::string sel : {"4294967296:0", "0:4294967296", "99999999999999999999:0"}) {
    const auto big = runVidfilter(
        {"-i", kVideo, "--chain", "gray", "--frames", "1", "--device", sel, "-o", dir / "o.mkv"});
    EXPECT_EQ(big.status, 2) << big.err;
    EXPECT_NE(big.err.find("--device " + sel + ": no device with that index"), std::string::npos)
        << big.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  }
}
TEST(AppCliBinary, EmptySpansNameWhatWasGiven) {
  TempDir dir("cli_span");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "-t", "0", "-o", dir / "a.mp4"}), 2,
                 "-t 0 s: nothing to process; give a duration above 0");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--ss", "1.5", "--to", "1", "-o",
                               dir / "b.mp4"}),
                 2, "--to 1 s is not after --ss 1.5 s: nothing to process");
  EXPECT_FALSE(std::filesystem::exists(dir / "a.mp4"));
  EXPECT_FALSE(std::filesystem::exists(dir / "b.mp4"));
}
// --name= with nothing after '=' is named, not given the next word as its value.
TEST(AppCliBinary, AnOptionWithAnEmptyValueAfterEqualsIsNamed) {
  expectOneError(runVidfilter({"-i", kVideo, "--device=", "--frames", "3"}), 2,
                 "--device= has no value after '='");
  expectOneError(runVidfilter({"-i", kVideo, "--chain=", "--json", "j.json"}), 2,
                 "--chain= has no value after '='");
}
TEST(AppCliBinary, TimesPastWhatCanBeCountedAreOutOfRange) {
  // Never "the file has no video frame in the span": the time is what is wrong.
  TempDir dir("cli_time_range");
  const std::pair<const char*, const char*> cases[] = {{"--to", "153722867281:00"},
                                                       {"--to", "9223372036854775807ms"},
                                                       {"--ss", "9223372036854775807"},
                                                       {"-t", "1000000001"}};
  for (const auto& [option, value] : cases) {
    expectOneError(
        runVidfilter({"-i", kVideo, "--chain", "gray", option, value, "-o", dir / "o.mkv"}), 2,
        std::string(option) + " is out of range");
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  }
  const auto last = runVidfilter({"-i", kVideo, "--chain", "gray", "--to", "1000000000", "--frames",
                                  "2", "-o", dir / "o.mkv"});
  EXPECT_EQ(last.status, 0) << last.err;
}
TEST(AppCliBinary, StatsToADashIsRefused) {
  TempDir dir("cli_stats");
  expectOneError(
      runVidfilter({"-i", kVideo, "--chain", "gray", "--stats", "-", "-o", dir / "o.mp4"}), 2,
      "--stats -: the per-frame statistics go to a file; give a file name");
  EXPECT_FALSE(std::filesystem::exists("-"));
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mp4"));
}
TEST(AppCliBinary, StdinThatIsNoVideoNamesTheRawOptions) {
  TempDir dir("cli_stdin");
  const std::string junk = dir / "junk.txt";
  std::ofstream(junk) << "not a video\n";
  ProcOptions opt;
  opt.stdinPath = junk;
  expectOneError(runVidfilter({"-i", "-", "--chain", "gray", "-o", dir / "o.mp4"}, opt), 2,
                 "raw video with --size and --input-pix-fmt");
}
TEST(AppCliBinary, StdinThatSendsNothingSaysSo) {
  // A pipe whose writer failed: was "holds no video FFmpeg can read" or "no video frame could be
  // decoded", as for data that is not video.
  TempDir dir("cli_stdin_empty");
  const std::string empty = dir / "empty";
  { const std::ofstream created(empty); }  // an empty file
  ProcOptions opt;
  opt.stdinPath = empty;
  for (const std::vector<std::string>& raw :
       {std::vector<std::string>{}, std::vector<std::string>{"--size", "160x120"}}) {
    std::vector<std::string> args = {"-i", "-", "--chain", "gray", "-o", dir / "o.mkv"};
    args.insert(args.end(), raw.begin(), raw.end());
    expectOneError(runVidfilter(args, opt), 2,
                   "stdin (-i -) closed without sending any data; did the command writing into "
                   "it fail?");
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
}
TEST(AppCliBinary, StdinReadByTwoReadersIsRefused) {
  // -i - and -i /dev/stdin read one pipe: each input would get part of the stream.
  TempDir dir("cli_stdin_twice");
  const std::string fifo = dir / "in.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int keep = ::open(fifo.c_str(), O_RDWR);  // a writer, so the child's open does not wait
  ASSERT_GE(keep, 0);
  ProcOptions opt;
  opt.stdinPath = fifo;
  for (const char* second : {"-", "/dev/stdin", "/dev/fd/0"})
    expectOneError(
        runVidfilter({"-i", "-", "-i", second, "--chain", "gray", "-o", dir / "o{index}.mkv"}, opt),
        2, "stdin is read by more than one input (-i -, /dev/stdin)");
  // A config read from that pipe too: the list or the video would be read as TOML.
  expectOneError(runVidfilter({"--inputs", "-", "--config", "/dev/stdin", "--chain", "gray"}, opt),
                 2, "--config '/dev/stdin' reads stdin, which --inputs - reads too");
  for (const char* in : {"-", "pipe:0"})
    expectOneError(runVidfilter({"-i", in, "--config", "/dev/stdin", "-o", dir / "c.mkv"}, opt), 2,
                   "--config '/dev/stdin' reads stdin, which -i - reads too");
  ::close(keep);
  EXPECT_FALSE(std::filesystem::exists(dir / "o0.mkv"));
  // Stdin redirected from a file is no stream: a second input may read that file.
  ProcOptions file;
  file.stdinPath = kVideo;
  const auto r = runVidfilter({"-i", "-", "-i", "/dev/stdin", "--chain", "gray", "--frames", "2",
                               "-o", dir / "f{index}.mkv"},
                              file);
  EXPECT_EQ(r.status, 0) << r.err;
}
TEST(AppCliBinary, FramesZeroOrNegative) {
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "0"}), 2,
                 "--frames must be a positive number of frames, got 0");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "-4"}), 2,
                 "--frames must be a positive number of frames, got -4");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--frames=-4"}), 2,
                 "--frames must be a positive number of frames, got -4");
}
TEST(AppCliBinary, MissingInputOrChain) {
  expectOneError(runVidfilter({"--chain", "gray"}), 2, "no input: give -i SRC");
  expectOneError(runVidfilter({"-i", kVideo}), 2, "no chain: give --chain");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", ""}), 2, "--chain is empty");
}
TEST(AppCliBinary, PreviewWithoutADisplay) {
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--preview"}), 2,
                 "--preview needs a display");
}
TEST(AppCliBinary, GStreamerPipelineMustEndInAppsink) {
  expectOneError(runVidfilter({"-i", "videotestsrc ! videoconvert", "--chain", "gray"}), 2,
                 "GStreamer pipeline must end in appsink, e.g. 'videotestsrc ! videoconvert ! "
                 "appsink'");
  // An appsink before the end: the example ends there (it was "... ! appsink ! appsink").
  expectOneError(runVidfilter({"-i", "videotestsrc num-buffers=5 ! appsink ! videoconvert",
                               "--chain", "gray"}),
                 2, "e.g. 'videotestsrc num-buffers=5 ! appsink'");
}
TEST(AppCliBinary, BenchIsDispatched) {
  // `vidfilter bench` belongs to the benchmark; here only that the word reaches it: its own
  // --help answers (and not vidfilter's "unexpected argument 'bench'").
  const auto r = runVidfilter({"bench", "--help"});
  EXPECT_EQ(r.err.find("unexpected argument 'bench'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Sources (-i):"), std::string::npos) << r.out;
}
TEST(AppCliBinary, UnreadableInputFile) {
  TempDir dir("cli_unreadable");
  std::filesystem::copy_file(kVideo, dir / "secret.avi");
  std::filesystem::permissions(dir / "secret.avi", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all,
                               std::filesystem::perm_options::add);
  test::ProcOptions opt;
  opt.asNobody = geteuid() == 0;  // root reads anything
  expectOneError(runVidfilter({"-i", dir / "secret.avi", "--chain", "gray"}, opt), 2,
                 "input file '" + (dir / "secret.avi") + "' is not readable (permission denied)");
}
TEST(AppCliBinary, NoOpenCLDeviceNamesPocl) {
  TempDir icd("cli_noicd");  // an empty vendor directory: the ICD loader finds no platform
  test::ProcOptions opt;
  opt.setEnv = {"OCL_ICD_VENDORS=" + icd.path().string()};
  // Not something the user wrote: a runtime failure, exit status 1.
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray"}, opt), 1, "no OpenCL device found");
  const auto r = runVidfilter({"--list-devices"}, opt);
  EXPECT_NE((r.out + r.err).find("pocl-opencl-icd"), std::string::npos) << r.err << r.out;
}
TEST(AppCliBinary, KernelThatDoesNotBuildIsARuntimeError) {
  // The developer override loads kernels from a directory: a broken gray.cl there.
  TempDir kernels("cli_badkernel");
  const auto src = std::filesystem::path(VIDFILTER_SOURCE_DIR) / "kernels";
  for (const auto& e : std::filesystem::directory_iterator(src))
    std::filesystem::copy_file(e.path(), kernels.path() / e.path().filename());
  {
    std::ofstream f(kernels / "gray.cl", std::ios::app);
    f << "\nthis is not OpenCL C;\n";
  }
  test::ProcOptions opt;
  opt.setEnv = {"VIDFILTER_KERNEL_DIR=" + kernels.path().string(), "VIDFILTER_CACHE_DIR=off"};
  TempDir out("cli_badkernel_out");
  // gray first would take the video's luma and build no kernel: brightness first needs gray.cl.
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "brightness,gray", "-o", out / "never.mp4"}, opt);
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_NE(e.find("vidfilter: OpenCL kernel gray.cl failed to build"), std::string::npos) << e;
  // Kernels build before the output opens: no empty file is left behind.
  EXPECT_FALSE(std::filesystem::exists(out / "never.mp4"));
}
