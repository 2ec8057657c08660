// Reliability: how a failure is reported, through the real binary. The exit status tells what
// the user wrote (2) from a run that could not go on (1, with the OS's reason); command-line
// errors are one line in the program's words (vidfilter and vidfilter bench), never CLI11's;
// a value the user wrote is echoed quoted, with control characters escaped and long values cut.
// docs/RELIABILITY.md lists them all.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipeline/quote.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

// What CLI11 says in its own words; none of it may reach a user.
void expectNoCli11Text(const std::string& err) {
  for (const char* raw :
       {"At Most", "required but received", "Could not convert", "The following argument",
        "Expected exactly", "required TEXT missing", "Run with --help"})
    EXPECT_EQ(err.find(raw), std::string::npos) << "CLI11's text '" << raw << "' in:\n" << err;
}

// `vidfilter bench ...`: exactly one line "vidfilter bench: ..." with `needle`, exit 2.
void expectBenchUsage(const std::vector<std::string>& args, const std::string& needle) {
  std::vector<std::string> all = {"bench"};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = runVidfilter(all);
  SCOPED_TRACE(args.front());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("vidfilter bench: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in " << r.err;
  expectNoCli11Text(r.err);
}

// The bytes of a file.
std::string fileBytesOf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Every byte of `s` printable, or a newline.
bool printableText(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
  return true;
}

}  // namespace

// --- exit status: 1 for a run that could not go on, 2 for what the user wrote --------------

TEST(ReliabilityExitStatus, StatsFileOnAFullDeviceIsARuntimeError) {
  // Every write to /dev/full fails with ENOSPC (at the flush or at the close).
  TempDir dir("exit_full");
  const std::string out = dir / "kept.mkv";
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "gray", "-o", out, "--frames", "40", "--stats", "/dev/full"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(lastLine(r.err),
            "vidfilter: cannot write the stats file '/dev/full': No space left on device");
  // The output is still closed properly, with every frame the log says it wrote.
  const long written = framesWritten(r.err);
  EXPECT_GE(written, 1) << r.err;
  EXPECT_EQ(probe(out).frames, written);
}

TEST(ReliabilityExitStatus, BenchJsonOnAFullDeviceIsARuntimeError) {
  const auto r = runVidfilter({"bench", "--chain", "gray", "--size", "32x24", "--frames", "1",
                               "--warmup", "0", "--no-tapi", "--no-engine", "--json", "/dev/full"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(lastLine(r.err), "vidfilter bench: --json /dev/full: No space left on device");
}

TEST(ReliabilityExitStatus, StatsPathThatIsADirectoryIsAUsageError) {
  // The same option, but the user named something that cannot be a stats file: 2, before the
  // device opens.
  TempDir dir("exit_statsdir");
  expectOneError(runVidfilter({"-i", kVideo, "--chain", "gray", "--stats", dir.path().string()}), 2,
                 "--stats '" + dir.path().string() + "' is a directory; give a file name");
}

// Names no file can be made under (longer than the file system takes, a link to itself), names of
// blank space only (a shell variable that was never set) and files that may not be written: 2,
// before anything runs, for -o, --json and --stats alike.
TEST(ReliabilityExitStatus, OutputNamesThatCannotBeWrittenAreUsageErrors) {
  TempDir dir("exit_names");
  const std::string longName = dir / (std::string(300, 'a') + ".mkv");
  const std::string loop = dir / "loop.mkv";
  ASSERT_EQ(::symlink("loop.mkv", loop.c_str()), 0);
  const std::string readOnly = dir / "ro.json";
  std::ofstream(readOnly) << "{}";
  std::filesystem::permissions(readOnly, std::filesystem::perms::owner_read |
                                             std::filesystem::perms::group_read |
                                             std::filesystem::perms::others_read);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all,
                               std::filesystem::perm_options::add);
  const std::vector<std::string> run = {"-i", kVideo, "--chain", "gray", "--frames", "2", "-y"};
  const std::string out = dir / "out.mkv";
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"-o", longName}, "bytes, over the"},
           {{"-o", out, "--json", longName + ".json"}, "bytes, over the"},
           {{"-o", out, "--stats", longName + ".jsonl"}, "bytes, over the"},
           {{"-o", loop}, "leads back to itself"},
           {{"-o", out, "--json", loop}, "leads back to itself"},
           {{"-f", "matroska", "-o", dir / " "}, "only blank space"},
           {{"-o", out, "--json", dir / "\t "}, "only blank space"},
           {{"-o", out, "--json", readOnly}, "exists and is not writable"},
           {{"-o", out, "--stats", readOnly}, "exists and is not writable"}}) {
    SCOPED_TRACE(args.back());
    std::vector<std::string> all = run;
    all.insert(all.end(), args.begin(), args.end());
    vf::test::ProcOptions opt;
    opt.asNobody = geteuid() == 0;  // root writes anything
    const auto r = runVidfilter(all, opt);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(lastLine(r.err).find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("frame="), std::string::npos) << "checked before the run: " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(fileBytesOf(readOnly), "{}");
}

TEST(ReliabilityExitStatus, ConfigFileThatCannotBeReadIsAUsageError) {
  // The user named something that is not a readable config file: 2, with the reason.
  TempDir dir("exit_config");
  const std::string secret = dir / "secret.toml";
  std::ofstream(secret) << "chain = \"gray\"\n";
  std::filesystem::permissions(secret, std::filesystem::perms::none);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all,
                               std::filesystem::perm_options::add);
  vf::test::ProcOptions nobody;
  nobody.asNobody = geteuid() == 0;  // root reads anything
  expectOneError(runVidfilter({"--config", secret}, nobody), 2,
                 "config file '" + secret + "' cannot be opened: Permission denied");
  expectOneError(runVidfilter({"--config", dir.path().string()}), 2,
                 "is a directory; give a .toml file");
  expectOneError(runVidfilter({"--config", "/dev/zero"}), 2,
                 "config file '/dev/zero' is larger than 1 MiB; is it the right file?");
}

// --- command-line errors ----------------------------------------------------------------------

// A good file the OS will not open (too many open files here) is never "not a video": the OS's
// reason, a run that could not go on (exit 1). Several limits, as how many descriptors the
// OpenCL driver holds varies: each run fails, none blames a file, and some input says why.
TEST(ReliabilityExitStatus, AnInputTheOsWillNotOpenIsNamedWithItsReason) {
#if defined(__SANITIZE_ADDRESS__)
  // Their runtime tests memory through a pipe of its own: out of descriptors, UBSan's type checks
  // report every object ("invalid vptr ... memory cannot be printed").
  GTEST_SKIP() << "the sanitizers need descriptors of their own";
#endif
  TempDir dir("rel_nofile");
  makeClip(dir / "a.mkv", "testsrc2=size=64x48:rate=25", "-frames:v 3 -c:v ffv1");
  std::ofstream list(dir / "list.txt");
  for (int i = 0; i < 12; ++i) {
    std::filesystem::copy_file(dir / "a.mkv", dir / ("in" + std::to_string(i) + ".mkv"));
    list << (dir / ("in" + std::to_string(i) + ".mkv")) << "\n";
  }
  list.close();
  std::filesystem::create_directory(dir / "out");
  int named = 0;
  for (int limit : {8, 10, 12}) {
    ProcOptions few;
    few.openFilesLimit = limit;
    const ProcResult r = runVidfilter({"--inputs", dir / "list.txt", "--chain", "gray", "--jobs",
                                       "8", "-y", "-o", dir / "out/{name}.mkv"},
                                      few);
    EXPECT_EQ(r.status, 1) << limit << "\n" << r.err;
    EXPECT_EQ(r.err.find("is not a video"), std::string::npos) << limit << "\n" << r.err;
    if (r.err.find("could not be opened: Too many open files (allow more with ulimit -n") !=
        std::string::npos)
      ++named;
  }
  EXPECT_GT(named, 0);
}

TEST(ReliabilityCli, TwoInputsAndOneOutputWithoutANameField) {
  // Two -i are two inputs; one plain -o cannot name both outputs.
  const auto r = runVidfilter({"-i", "a.mp4", "-i", "b.mp4", "--chain", "gray", "-o", "o.mp4"});
  expectOneError(r, 2, "vidfilter: one output 'o.mp4' for 2 inputs: put {name}");
  expectNoCli11Text(r.err);
}

TEST(ReliabilityCli, MainProgramErrorsNameTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-i", kVideo, "--chain", "gray", "--frames", "ten"},
       "--frames: 'ten' is not a whole number; see vidfilter --help"},
      {{"-i", kVideo, "--chain", "gray", "--slots"}, "--slots needs a value (a whole number)"},
      {{"-i", kVideo, "--chain"}, "--chain needs a value (CHAIN)"},
      {{"-i", kVideo, "--chain", "gray", "--frams", "3"},
       "unknown option --frams (did you mean --frames?); see vidfilter --help"},
      {{"-i", kVideo, "--chain", "gray", "extra.mp4"},
       "unexpected argument 'extra.mp4' (the output is given as -o OUT)"},
      {{"--chain", "gray", "extra.mp4"},
       "unexpected argument 'extra.mp4' (the input is given as -i SRC)"},
      {{"-i", kVideo, "--chain", "gray", "-o", "a.mkv", "-o", "b.mkv"},
       "2 outputs (-o) for 1 input: give one -o per input"},
      // A number past the type's range is named as typed, not as the range's end.
      {{"-i", kVideo, "--chain", "gray", "--slots", "99999999999999999999"},
       "--slots: '99999999999999999999' is too large"},
      {{"-i", kVideo, "--chain", "gray", "--jobs", "99999999999999999999"},
       "--jobs: '99999999999999999999' is too large"},
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(args.back());
    const auto r = runVidfilter(args);
    expectOneError(r, 2, needle);
    expectNoCli11Text(r.err);
  }
}

TEST(ReliabilityCli, BenchErrorsAreOneLineWithExitStatus2) {
  // CLI11's own handling prints its text and exits 104 (conversion), 109 (extras), 114 (count).
  expectBenchUsage({"--frames", "abc"}, "--frames: 'abc' is not a whole number");
  expectBenchUsage({"--nosuch"}, "unknown option --nosuch; see vidfilter bench --help");
  expectBenchUsage({"--chain", "gray", "--size"}, "--size needs a value");
  expectBenchUsage({"--chain", "gray", "--chain", "sobel"}, "--chain is given 2 times");
  expectBenchUsage({"stray"}, "unexpected argument 'stray'");
  expectBenchUsage({"--chain", "gray", "--size", "12"}, "--size must be WxH");
  expectBenchUsage({"--chain", "gray", "--size", "64x48", "--frames", "99999999999"},
                   "--frames: 99999999999 is too large");
  // Options the mode would leave unused, and a JSON that would mix into the tables on stdout.
  expectBenchUsage({"--enqueue-cost", "--json", "ec.json"},
                   "--enqueue-cost times single OpenCL calls (2000 of each) and prints a table; "
                   "leave out --json, --size, --format and --frames");
  expectBenchUsage({"--enqueue-cost", "--frames", "5"}, "leave out --json, --size");
  expectBenchUsage(
      {"--chain", "gray", "--size", "64x48", "--json", "-"},
      "--json -: the benchmark prints its tables on stdout; give the JSON a file name");
  expectBenchUsage({"--chain", "gray", "--size", "64x48", "--json", "/dev/stdout", "-y"},
                   "--json /dev/stdout: the benchmark prints its tables on stdout");
  expectBenchUsage({"--chain", "gray", "--no-peers"},
                   "--no-peers is for --table; add --table, or leave it out");
  expectBenchUsage({"--chain", "gray", "--packed-rows"}, "--packed-rows is for --table");
  expectBenchUsage({"--input", kVideo, "--resident", "0"}, "--resident must be at least 1; got 0");
  expectBenchUsage({"--input", kVideo, "--slots", "9"}, "--slots must be in [1, 8]; got 9");
  EXPECT_FALSE(std::filesystem::exists("-"));
  EXPECT_FALSE(std::filesystem::exists("ec.json"));
}

// --- the user's values in messages ------------------------------------------------------------

TEST(ReliabilityErrorText, ControlCharactersAreEscaped) {
  // An escape sequence in a value must not reach the terminal as is (clearing it,
  // recolouring it, setting its title).
  TempDir dir("text_ctrl");
  const std::string cfg = dir / "ctrl.toml";
  std::ofstream(cfg) << "input = \"x\"\nchain = \"gray\"\n\"k\\u001b[31m\" = 1\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-i", kVideo, "--chain", "gray,bl\x1b[2Jur"}, "unknown stage 'bl\\x1b[2Jur'"},
      {{"-i", kVideo, "--chain", "gray", "--log-level", "x\x1b]0;title\x07"},
       "got 'x\\x1b]0;title\\x07'"},
      {{"--config", cfg}, "k\\x1b[31m: unknown key"},
      {{"-i", kVideo, "--chain", "blur=sigma=1\n2"}, "sigma must be a number, got '1\\n2'"},
      {{"-i", kVideo, "--chain", "gray", "--codec",
        "\xe2\x80\xae"
        "4pm"},
       "got '\\u202e4pm'"},  // a right-to-left override
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(needle);
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_TRUE(printableText(r.err)) << r.err;
    EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << r.err;
  }
  // A run that works, whose file names carry escape sequences: its log lines name them escaped.
  const std::string out = dir / "t\x1b]0;title\x07\x1b[31m\nvidfilter: error: fake.mkv";
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "2", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  // A newline in a name cannot start a line that reads as another message.
  EXPECT_NE(r.err.find("t\\x1b]0;title\\x07\\x1b[31m\\x0avidfilter: error: fake.mkv"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("\nvidfilter: error: fake.mkv"), std::string::npos) << r.err;
  EXPECT_TRUE(printableText(r.err)) << r.err;
}

TEST(ReliabilityErrorText, LongValuesAreCut) {
  // A 300 KB value must not come back whole, let alone three times (message, chain, caret).
  TempDir dir("text_long");
  const std::string huge(300000, 'c'), big(120000, 'a');  // an argument is at most 128 KiB
  const std::string cfg = dir / "huge.toml";
  std::ofstream(cfg) << "input = \"x\"\nchain = \"gray," << huge << "\"\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--config", cfg}, "(300000 bytes); stages: gray"},
      {{"-i", kVideo, "--chain", "blur=sigma=" + big}, "sigma must be a number, got 'aaaa"},
      {{"-i", kVideo, "--chain", "gray", "--codec", big}, "(120000 bytes)"},
      {{"-i", kVideo, "--chain", "gray", "--device", big}, "--device aaaa"},
      {{"-i", kVideo, "--chain", "gray", "--stats", "/nonexistent/" + big}, "does not exist"},
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(needle);
    const auto r = runVidfilter(args);
    EXPECT_EQ(r.status, 2) << r.err.substr(0, 2000);
    EXPECT_NE(errorLines(r.err).find(needle), std::string::npos) << r.err.substr(0, 2000);
    EXPECT_LT(errorLines(r.err).size(), 2000u) << r.err.substr(0, 2000);
  }
}

TEST(ReliabilityErrorText, QuoteAndExcerptAround) {
  EXPECT_EQ(vf::quote("plain name.mp4"), "'plain name.mp4'");
  EXPECT_EQ(vf::quote("caf\xc3\xa9"), "'caf\xc3\xa9'");  // UTF-8 stays
  EXPECT_EQ(vf::quote("a\tb\rc\x7f"), "'a\\tb\\rc\\x7f'");
  EXPECT_EQ(vf::quote("bad \xff\xc3 utf8"), "'bad \\xff\\xc3 utf8'");
  EXPECT_EQ(vf::quote("\xc2\x9b"
                      "31m"),
            "'\\u009b31m'");  // C1 CSI
  // What shows as a space or as nothing is named.
  EXPECT_EQ(vf::quote("\xc2\xa0"
                      "blur"),
            "'\\u00a0blur'");  // a no-break space
  EXPECT_EQ(vf::quote("a\xe2\x80\x8b"
                      "b\xef\xbb\xbf"),
            "'a\\u200bb\\ufeff'");  // zero-width space, byte order mark
  EXPECT_EQ(vf::quote(std::string(10, 'x'), 4), "'xxxx...' (10 bytes)");
  EXPECT_EQ(vf::printable(std::string(10, 'x'), 4), "xxxx... (10 bytes)");
  // A cut never splits a character: 'é' is two bytes.
  EXPECT_EQ(vf::quote("\xc3\xa9\xc3\xa9\xc3\xa9", 3), "'\xc3\xa9\xc3\xa9...' (6 bytes)");

  // The caret stays under the marked part once control characters are escaped ...
  auto e = vf::excerptAround(
      "ab\x1b"
      "cd",
      3, 2);
  EXPECT_EQ(e.text, "ab\\x1bcd");
  EXPECT_EQ(e.caretPos, 6u);
  EXPECT_EQ(e.caretLen, 2u);
  e = vf::excerptAround("a\tb", 1, 1);  // the escape itself is marked
  EXPECT_EQ(e.caretPos, 1u);
  EXPECT_EQ(e.caretLen, 2u);
  // ... and a long line is cut around it, both ends marked.
  const std::string line = std::string(1000, 'x') + "BAD" + std::string(1000, 'y');
  e = vf::excerptAround(line, 1000, 3, 60);
  EXPECT_LE(e.text.size(), 66u);
  EXPECT_EQ(e.text.substr(0, 3), "...");
  EXPECT_EQ(e.text.substr(e.text.size() - 3), "...");
  EXPECT_EQ(e.text.substr(e.caretPos, 3), "BAD");
  EXPECT_EQ(e.caretLen, 3u);
  // A mark at the very end (an empty last stage) points past the last character.
  e = vf::excerptAround("gray,", 5, 1);
  EXPECT_EQ(e.text, "gray,");
  EXPECT_EQ(e.caretPos, 5u);
}

// Started without stdout and stderr (>&- 2>&-): the output does not take descriptor 2,
// so no log line is written into it, and it plays whole.
TEST(ReliabilityExitStatus, ClosedStandardStreamsNeverReceiveTheLogIntoTheOutput) {
  TempDir dir("closed_streams");
  const std::string out = dir / "out.mkv";
  const ShellResult r = shell("'" + vidfilterBinary() + "' -i '" + kVideo +
                              "' --chain gray --frames 5 -o '" + out + "' </dev/null >&- 2>&-");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(probe(out).frames, 5);
  EXPECT_EQ(fileBytesOf(out).find("vidfilter:"), std::string::npos);
  // What would go to stdout itself is refused then: it would be written nowhere.
  for (const std::string& args :
       std::vector<std::string>{"-o -", "-o '" + dir / "b.mkv" + "' --json -"}) {
    const ShellResult refused = shell("'" + vidfilterBinary() + "' -i '" + kVideo +
                                      "' --chain gray --frames 2 " + args + " 2>&1 >&-");
    EXPECT_EQ(refused.status, 2) << args;
    EXPECT_NE(refused.out.find("stdout closed"), std::string::npos) << refused.out;
  }
}
