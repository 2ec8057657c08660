// Config files: every key read, [[stage]] tables turned into a chain, the command line over the
// file, and every error naming the file, the line (and column) and the key.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "app/config.hpp"
#include "pipeline/chain.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

namespace {

std::string sourceDir() {
  // The source tree (config/ and tests/), as CMake compiled it in.
  return VIDFILTER_SOURCE_DIR;
}

}  // namespace

TEST(AppConfig, ReadsTheMediaKeys) {
  const Settings s = parseConfig(R"(
overwrite = true
format = "matroska"
start = "1:30"
duration = 2.5
rate = "30000/1001"
size = "640x480"
input_pix_fmt = "gray"
pix_fmt = "yuv444p"
codec = "libx265"
crf = 28
preset = "fast"
audio_codec = "aac"
audio = false
hwdec = "auto"
threads = 2
drop = "never"
quiet = true
)",
                                 "t.toml");
  EXPECT_EQ(s.overwrite, std::optional<bool>(true));
  EXPECT_EQ(s.format.value_or(""), "matroska");
  EXPECT_DOUBLE_EQ(s.start.value_or(-1), 90);
  EXPECT_DOUBLE_EQ(s.duration.value_or(-1), 2.5);
  EXPECT_NEAR(s.rate.value_or(-1), 29.97, 0.001);
  EXPECT_EQ(s.size.value_or(""), "640x480");
  EXPECT_EQ(s.inputPixFmt.value_or(""), "gray");
  EXPECT_EQ(s.pixFmt.value_or(""), "yuv444p");
  EXPECT_EQ(s.codec.value_or(""), "libx265");
  EXPECT_DOUBLE_EQ(s.crf.value_or(-1), 28);
  EXPECT_EQ(s.preset.value_or(""), "fast");
  EXPECT_EQ(s.audioCodec.value_or(""), "aac");
  EXPECT_EQ(s.audio, std::optional<bool>(false));
  EXPECT_EQ(s.hwdec.value_or(""), "auto");
  EXPECT_EQ(s.threads, std::optional<int>(2));
  EXPECT_EQ(s.drop.value_or(""), "never");
  EXPECT_EQ(s.quiet, std::optional<bool>(true));
  EXPECT_EQ(parseConfig("bitrate = \"4M\"\nto = 90\n", "t.toml").bitrate,
            std::optional<std::int64_t>(4000000));
}

TEST(AppConfig, ReadsEveryKey) {
  const Settings s = parseConfig(R"(
input = "in.mp4"
output = "out/x.mkv"
device = "cpu"
chain = "gray,brightness=gain=2"
frames = 50
codec = "FFV1"
log_level = "warn"
progress = true
[preview]
enabled = false
compare = true
overlay = false
snapshot_dir = "shots"
title = "demo"
[engine]
slots = 4
stats = "s.jsonl"
)",
                                 "t.toml");
  EXPECT_EQ(s.input.value_or(""), "in.mp4");
  EXPECT_EQ(s.output.value_or(""), "out/x.mkv");
  EXPECT_EQ(s.device.value_or(""), "cpu");
  EXPECT_EQ(s.chain.value_or(""), "gray,brightness=gain=2");
  EXPECT_EQ(s.frames, std::optional<std::int64_t>(50));
  EXPECT_EQ(s.codec.value_or(""), "FFV1");
  EXPECT_EQ(s.logLevel.value_or(""), "warn");
  EXPECT_EQ(s.progress, std::optional<bool>(true));
  EXPECT_EQ(s.preview, std::optional<bool>(false));
  EXPECT_EQ(s.compare, std::optional<bool>(true));
  EXPECT_EQ(s.overlay, std::optional<bool>(false));
  EXPECT_EQ(s.snapshotDir.value_or(""), "shots");
  EXPECT_EQ(s.title.value_or(""), "demo");
  EXPECT_EQ(s.slots, std::optional<int>(4));
  EXPECT_EQ(s.statsPath.value_or(""), "s.jsonl");
}

TEST(AppConfig, StageTablesBecomeAChain) {
  const Settings s = parseConfig(R"(
[[stage]]
name = "gray"
[[stage]]
name = "brightness"
gain = 1.5
bias = -20
)",
                                 "t.toml");
  ASSERT_TRUE(s.chain);
  EXPECT_EQ(*s.chain, "gray,brightness=gain=1.5:bias=-20");
  // And it is a chain the parser takes, with those values.
  Chain c = Chain::parse(*s.chain);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c.stage(1).params().number("gain"), 1.5);
  EXPECT_DOUBLE_EQ(c.stage(1).params().number("bias"), -20);
}

TEST(AppConfig, ChainAsAnArrayOfStrings) {
  const Settings s = parseConfig("chain = [\"gray\", \"brightness=gain=2\"]\n", "t.toml");
  EXPECT_EQ(s.chain.value_or(""), "gray,brightness=gain=2");
}

TEST(AppConfig, CommandLineOverridesTheFile) {
  Settings file = parseConfig("input = \"a.mp4\"\nchain = \"gray\"\nframes = 10\n", "t.toml");
  Settings cli;
  cli.frames = 3;
  cli.fillFrom(file);
  EXPECT_EQ(cli.frames, std::optional<std::int64_t>(3));
  EXPECT_EQ(cli.input.value_or(""), "a.mp4");
  EXPECT_EQ(cli.chain.value_or(""), "gray");
}

// Several inputs from a config file: the list, how many at once, the summary; an input given on
// the command line replaces the file's list, and a file cannot give both.
TEST(AppConfig, SeveralInputsKeys) {
  const Settings file =
      parseConfig("inputs = \"list.txt\"\njobs = 2\njson = \"run.json\"\n", "t.toml");
  EXPECT_EQ(file.inputsList.value_or(""), "list.txt");
  EXPECT_EQ(file.jobs, std::optional<int>(2));
  EXPECT_EQ(file.jsonPath.value_or(""), "run.json");
  Settings none;
  none.fillFrom(file);
  EXPECT_EQ(none.inputsList.value_or(""), "list.txt");
  Settings one;
  one.input = "a.mp4";
  one.fillFrom(file);
  EXPECT_FALSE(one.inputsList.has_value());
  EXPECT_EQ(one.jobs, std::optional<int>(2));
  EXPECT_NE(
      configError("input = \"a.mp4\"\ninputs = \"l.txt\"\n").find("t.toml:2:10: inputs: give "),
      std::string::npos);
  EXPECT_EQ(configError("jobs = 0\n").rfind("t.toml:1:8: jobs: ", 0), 0u);
}

// Options that say the same thing two ways (-t and --to, --crf and --bitrate): the command
// line's one wins over the file's other.
TEST(AppConfig, CommandLineWinsOverTheFilesAlternative) {
  {
    Settings cli;
    cli.bitrate = 1000000;
    cli.fillFrom(parseConfig("crf = 18\n", "t.toml"));
    EXPECT_EQ(cli.bitrate, std::optional<std::int64_t>(1000000));
    EXPECT_FALSE(cli.crf.has_value());
  }
  {
    Settings cli;
    cli.crf = 30;
    cli.fillFrom(parseConfig("bitrate = \"1M\"\n", "t.toml"));
    EXPECT_EQ(cli.crf, std::optional<double>(30));
    EXPECT_FALSE(cli.bitrate.has_value());
  }
  {
    Settings cli;
    cli.to = 4;
    cli.fillFrom(parseConfig("duration = 2\n", "t.toml"));
    EXPECT_EQ(cli.to, std::optional<double>(4));
    EXPECT_FALSE(cli.duration.has_value());
  }
}

TEST(AppConfig, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(configError("input = \"a\"\n[engine]\nslots = 10\n"),
            "t.toml:3:9: engine.slots: must be in [1, 8] (frames in flight: 2 = ping-pong, more "
            "absorbs jitter), got 10");
  EXPECT_EQ(configError("frames = \"ten\"\n"),
            "t.toml:1:10: frames: must be an integer, got a string");
  EXPECT_EQ(configError("frames = 0\n"),
            "t.toml:1:10: frames: must be a positive number of frames, got 0");
  EXPECT_EQ(
      configError("input = \"a\"\ninptu = \"b\"\n").rfind("t.toml:2:1: inptu: unknown key", 0), 0u);
  EXPECT_EQ(configError("[preview]\ncompare = \"yes\"\n"),
            "t.toml:2:11: preview.compare: must be true or false, got a string");
  EXPECT_EQ(configError("[engine]\nslot = 2\n").rfind("t.toml:2:1: engine.slot: unknown key", 0),
            0u);
  // A key of another table says which holds it: a top-level key after a [table] is in that table.
  EXPECT_EQ(configError("slots = 3\n")
                .rfind("t.toml:1:1: slots: unknown key ([engine] holds "
                       "slots); keys here are: input, output",
                       0),
            0u);
  EXPECT_EQ(configError("[engine]\ncompare = true\n")
                .rfind("t.toml:2:1: engine.compare: unknown key ([preview] holds compare)", 0),
            0u);
  EXPECT_EQ(configError("[preview]\nchain = \"gray\"\n")
                .rfind("t.toml:2:1: preview.chain: unknown key (the top level holds chain, before "
                       "any [table])",
                       0),
            0u);
  EXPECT_EQ(configError("codec = \"lib x264\"\n").rfind("t.toml:1:9: codec: must be a name", 0),
            0u);
  EXPECT_EQ(configError("start = \"1:75\"\n").rfind("t.toml:1:9: start: must be a time", 0), 0u);
  EXPECT_EQ(configError("duration = true\n"),
            "t.toml:1:12: duration: must be a string or a number, got a boolean");
  EXPECT_EQ(configError("crf = 70\n").rfind("t.toml:1:7: crf: must be in [0, 63]", 0), 0u);
  EXPECT_EQ(configError("bitrate = \"fast\"\n").rfind("t.toml:1:11: bitrate: must be bits", 0), 0u);
  EXPECT_EQ(configError("drop = \"some\"\n").rfind("t.toml:1:8: drop: must be never", 0), 0u);
  EXPECT_EQ(configError("overwrite = \"yes\"\n"),
            "t.toml:1:13: overwrite: must be true or false, got a string");
  EXPECT_EQ(configError("duration = 2\nto = 3\n").rfind("t.toml:2:6: to: duration and to", 0), 0u);
  EXPECT_EQ(
      configError("log_level = \"loud\"\n").rfind("t.toml:1:13: log_level: must be one of", 0), 0u);
  EXPECT_EQ(configError("preview = 3\n"),
            "t.toml:1:11: preview: must be a table ([preview]), got an integer");
  EXPECT_EQ(configError("input = \"\"\n"), "t.toml:1:9: input: must not be empty");
  // As --device '' is: an empty device is a mistake, never "the default device".
  EXPECT_EQ(configError("device = \"\"\n"), "t.toml:1:10: device: must not be empty");
}

TEST(AppConfig, MalformedTomlAndDuplicateKeys) {
  const std::string dup = configError("input = \"a\"\ninput = \"b\"\n");
  EXPECT_EQ(dup.rfind("t.toml:2:", 0), 0u) << dup;
  EXPECT_NE(dup.find("not valid TOML"), std::string::npos) << dup;
  const std::string open = configError("input = \"a\"\nchain = \"gray,\n");
  EXPECT_EQ(open.rfind("t.toml:2:", 0), 0u) << open;
  const std::string junk = configError("input = \"a\"\n\n= 3\n");
  EXPECT_EQ(junk.rfind("t.toml:3:", 0), 0u) << junk;
}

TEST(AppConfig, ChainErrorsKeepTheCaret) {
  EXPECT_EQ(configError("input = \"a\"\n\nchain = \"gray,blr\"\n"),
            "t.toml:3:9: chain: unknown stage 'blr'; stages: gray, blur, sobel, hist, brightness, "
            "resize, crop, "
            "equalize, threshold, color, kernel\n"
            "  gray,blr\n"
            "       ^^^");
  EXPECT_EQ(
      configError("chain = 5\n"),
      "t.toml:1:9: chain: must be a string such as \"blur,sobel\" or an array of strings, got "
      "an integer");
  // An array names the element that is not a stage name, at that element.
  EXPECT_EQ(configError("chain = [\"blur\", 5]\n"),
            "t.toml:1:18: chain: element 2 must be a stage name in quotes, got an integer");
  EXPECT_EQ(configError("chain = [\"gray\", [\"blur\"]]\n"),
            "t.toml:1:18: chain: element 2 must be a stage name in quotes, got an array");
}

TEST(AppConfig, StageTableErrorsPointAtTheKey) {
  EXPECT_EQ(configError("[[stage]]\nname = \"brightness\"\ngain = 99\n"),
            "t.toml:3:1: stage[1].gain: brightness: gain must be in [-16, 16], got 99");
  EXPECT_EQ(configError("[[stage]]\nname = \"gray\"\n[[stage]]\nname = \"blr\"\n")
                .rfind("t.toml:4:8: stage[2].name: unknown stage 'blr'", 0),
            0u);
  EXPECT_EQ(configError("[[stage]]\ngain = 2\n").rfind("t.toml:1:1: stage[1]: needs name = ", 0),
            0u);
  const std::string unknown = configError("[[stage]]\nname = \"brightness\"\ngian = 2\n");
  EXPECT_EQ(unknown.rfind("t.toml:3:1: stage[1].gian: brightness: ", 0), 0u) << unknown;
  EXPECT_EQ(configError("[[stage]]\nname = \"brightness\"\nmode = \"a:b\"\n"),
            "t.toml:3:8: stage[1].mode: a value cannot contain , : or =");
  EXPECT_NE(configError("chain = \"gray\"\n[[stage]]\nname = \"gray\"\n").find("not both"),
            std::string::npos);
  // A boolean is never a number (gain = false is not gain 0) nor a name.
  EXPECT_EQ(configError("[[stage]]\nname = \"brightness\"\ngain = false\n"),
            "t.toml:3:8: stage[1].gain: brightness: gain must be a number in [-16, 16], got a "
            "boolean");
  EXPECT_EQ(configError("[[stage]]\nname = \"sobel\"\nksize = true\n"),
            "t.toml:3:9: stage[1].ksize: sobel: ksize must be a number in [1, 7], got a boolean");
  EXPECT_EQ(configError("[[stage]]\nname = \"blur\"\nborder = true\n")
                .rfind("t.toml:3:10: stage[1].border: blur: border must be one of constant|", 0),
            0u);
}

TEST(AppConfig, MissingFile) {
  try {
    loadConfigFile("/nonexistent/vidfilter.toml");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "config file '/nonexistent/vidfilter.toml' not found; see config/*.toml for "
                 "examples");
  }
}

TEST(AppConfig, ShippedExamplesAreValid) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(sourceDir() + "/config")) {
    if (e.path().extension() != ".toml") continue;
    SCOPED_TRACE(e.path().string());
    Settings s;
    ASSERT_NO_THROW(s = loadConfigFile(e.path().string()));
    EXPECT_TRUE(s.input);
    ASSERT_TRUE(s.chain);
    EXPECT_NO_THROW(Chain::parse(*s.chain));
    ++n;
  }
  EXPECT_GE(n, 3);
}

// The binary: the same message, one line, exit status 2; the command line wins over the file.
TEST(AppConfigBinary, BadConfigFileNamesTheLine) {
  TempDir dir("cfg_bad");
  const std::string path = dir / "bad.toml";
  {
    std::ofstream f(path);
    f << "# a comment\ninput = \"" << kVideo << "\"\n"
      << "chain = \"gray\"\n[engine]\nslots = \"two\"\n";
  }
  const auto r = runVidfilter({"--config", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(errorLines(r.err),
            "vidfilter: " + path + ":5:9: engine.slots: must be an integer, got a string\n");
  const auto missing = runVidfilter({"--config", dir / "none.toml"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("config file '" + (dir / "none.toml") + "' not found"),
            std::string::npos);
}

TEST(AppConfigBinary, CommandLineOverridesTheFile) {
  TempDir dir("cfg_override");
  const std::string path = dir / "c.toml";
  {
    std::ofstream f(path);
    f << "input = \"" << kVideo << "\"\n"
      << "chain = \"gray\"\nframes = 100\noutput = \"" << (dir / "from_file.mkv") << "\"\n";
  }
  const auto r =
      runVidfilter({"--config", path, "--frames", "3", "-o", dir / "from_cli.mkv", "--no-preview"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "from_cli.mkv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "from_file.mkv"));
  EXPECT_NE(r.err.find("frames: 3 in, 3 out, 0 dropped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 gray"), std::string::npos) << r.err;  // the chain came from the file
}

// Values checked only when the run starts (an encoder, a container, a device) name the line of
// the file that set them; the same value on the command line names the option alone.
TEST(AppConfigBinary, ValuesCheckedAtTheStartNameTheirLine) {
  TempDir dir("cfg_origin");
  const std::string path = dir / "g.toml";
  for (const auto& [line, option, key] :
       std::vector<std::array<std::string, 3>>{{"codec = \"nosuch\"", "--codec", "codec"},
                                               {"preset = \"nosuch\"", "--preset", "preset"},
                                               {"format = \"nosuch\"", "-f", "format"},
                                               {"crf = 52", "--crf", "crf"},
                                               {"device = \"nosuchdevice\"", "--device", "device"},
                                               {"duration = 0", "-t", "duration"},
                                               {"to = 0", "--to", "to"}}) {
    std::ofstream(path) << "input = \"" << kVideo << "\"\nchain = \"gray\"\n"
                        << "output = \"" << (dir / "o.mkv") << "\"\n"
                        << line << "\n";
    const auto r = runVidfilter({"--config", path});
    EXPECT_EQ(r.status, 2) << r.err;
    const std::string err = errorLines(r.err);
    EXPECT_EQ(err.rfind("vidfilter: " + option, 0), 0u) << err;
    EXPECT_NE(err.find("(" + key + " at " + path + ":4:"), std::string::npos) << err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  }
  // Given on the command line over the file's: no line of the file is named.
  const auto cli = runVidfilter({"--config", path, "--device", "nosuchdevice2"});
  EXPECT_EQ(cli.status, 2) << cli.err;
  EXPECT_EQ(cli.err.find(path + ":"), std::string::npos) << cli.err;
}

// Paths are checked when the run starts as well: one the file set that does not work names its
// line; the command line's own path over it names no line.
TEST(AppConfigBinary, PathsThatDoNotWorkNameTheirLine) {
  TempDir dir("cfg_path_origin");
  const std::string path = dir / "p.toml";
  const std::string missing = dir / "no_such_input.mkv";
  const std::string noDir = dir / "no_such_dir/o.mkv";
  for (const auto& [body, start, key, line] : std::vector<std::array<std::string, 4>>{
           {"chain = \"gray\"\ninput = \"" + missing + "\"\noutput = \"" + (dir / "o.mkv") + "\"\n",
            "input file", "input", "2"},
           {"chain = \"gray\"\ninput = \"" + std::string(kVideo) + "\"\n\noutput = \"" + noDir +
                "\"\n",
            "output directory", "output", "4"},
           {"chain = \"gray\"\ninputs = \"" + missing + "\"\n", "--inputs", "inputs", "2"}}) {
    std::ofstream(path) << body;
    const auto r = runVidfilter({"--config", path, "--frames", "2"});
    EXPECT_EQ(r.status, 2) << r.err;
    const std::string err = errorLines(r.err);
    EXPECT_EQ(err.rfind("vidfilter: " + start, 0), 0u) << err;
    EXPECT_NE(err.find("(" + key + " at " + path + ":" + line + ":"), std::string::npos) << err;
  }
  // The output given on the command line over the file's missing directory: no line named.
  std::ofstream(path) << "chain = \"gray\"\ninput = \"" << missing << "\"\n";
  const auto cli =
      runVidfilter({"--config", path, "-i", dir / "also_missing.mkv", "-o", dir / "o.mkv"});
  EXPECT_EQ(cli.status, 2) << cli.err;
  EXPECT_NE(errorLines(cli.err).find("also_missing.mkv"), std::string::npos) << cli.err;
  EXPECT_EQ(cli.err.find(path + ":"), std::string::npos) << cli.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
}
