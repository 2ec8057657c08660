// Reliability: chain and config-file errors not covered by tests/test_app_config.cpp and
// test_chain_parser.cpp, and config files that reach undefined behaviour inside toml++.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

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

std::string chainError(const std::string& text) {
  try {
    Chain::parse(text);
  } catch (const ChainError& e) {
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST(ReliabilityConfig, EmptyChainInAConfigFile) {
  EXPECT_EQ(configError("chain = \"\"\n")
                .rfind("t.toml:1:9: chain: empty chain: give at least one "
                       "stage",
                       0),
            0u)
      << configError("chain = \"\"\n");
  EXPECT_EQ(configError("input = \"a\"\nchain = []\n").rfind("t.toml:2:9: chain: empty chain", 0),
            0u);
  EXPECT_EQ(configError("stage = []\n"),
            "t.toml: [[stage]] is empty; add at least one [[stage]] with name = \"...\"");
  EXPECT_EQ(
      configError("chain = [\"gray\", 3]\n").rfind("t.toml:1:18: chain: element 2 must be", 0), 0u);
}

TEST(ReliabilityConfig, WrongTypesInStageTables) {
  EXPECT_EQ(configError("[[stage]]\nname = \"blur\"\nsigma = [1, 2]\n"),
            "t.toml:3:9: stage[1].sigma: must be a number, a string or a boolean, got an array");
  EXPECT_EQ(configError("[[stage]]\nname = \"blur\"\nsigma = \"wide\"\n"),
            "t.toml:3:1: stage[1].sigma: blur: sigma must be a number, got 'wide'");
  EXPECT_EQ(configError("[[stage]]\nname = 3\n").rfind("t.toml:1:1: stage[1]: needs name = ", 0),
            0u);
  EXPECT_EQ(configError("stage = 3\n"),
            "t.toml:1:9: stage: must be an array of tables: write each as [[stage]]");
  EXPECT_EQ(configError("stage = [1]\n").rfind("t.toml:1:10: stage[1]: must be a table", 0), 0u);
}

TEST(ReliabilityConfig, DuplicateKeysAndTables) {
  // toml++ refuses both; the message names the file and the line.
  const std::string table = configError("[engine]\nslots = 2\n[engine]\nstats = \"x\"\n");
  EXPECT_EQ(table.rfind("t.toml:3:", 0), 0u) << table;
  EXPECT_NE(table.find("not valid TOML"), std::string::npos) << table;
  const std::string inTable = configError("[[stage]]\nname = \"blur\"\nsigma = 1\nsigma = 2\n");
  EXPECT_EQ(inTable.rfind("t.toml:4:", 0), 0u) << inTable;
  // The chain syntax has no TOML parser in front of it: the chain parser refuses repeats itself.
  EXPECT_EQ(chainError("brightness=gain=1:bias=2:gain=3"),
            "brightness: gain is given twice; keep one");
  EXPECT_EQ(chainError("blur=2:sigma=2"), "blur: sigma is given twice; keep one");
  EXPECT_EQ(configError("chain = \"sobel=ksize=3:ksize=5\"\n"),
            "t.toml:1:9: chain: sobel: ksize is given twice; keep one\n"
            "  sobel=ksize=3:ksize=5\n"
            "                ^^^^^^^");
  // Still fine: the same stage twice, each with its own parameters.
  EXPECT_EQ(Chain::parse("blur=sigma=1,blur=sigma=2").str(), "blur=sigma=1,blur=sigma=2");
}

// Inputs that make toml++ 3.3 reach __builtin_unreachable() (undefined behaviour; UBSan aborts)
// when it asks whether a non-ASCII code point is whitespace are refused before toml++ sees them.
// These run under the sanitizer build in CI.
TEST(ReliabilityConfig, FuzzRegressionNonAsciiOutsideStrings) {
  // The crash as found: U+FEFE after "=".
  const std::string found =
      "[[stage]]\nnaoutputme = \xef\xbb\xbeinpu\"groupbrit' =ghtnes \"\\u00e9[U0 "
      "01F6s\"\ngain = 4900\n\"\n";
  EXPECT_EQ(configError(found),
            "t.toml:2:14: a non-ASCII character outside a string or comment (not valid TOML; "
            "quote text as \"...\")");
  EXPECT_EQ(configError("x = \xc3\xa9\n").rfind("t.toml:1:5: a non-ASCII character", 0), 0u);
  EXPECT_EQ(configError("\xcc\xaa").rfind("t.toml:1:1: a non-ASCII character", 0), 0u);
  // Found next: a quote inside a bare value is not a string to toml++, which reads on to U+0314.
  EXPECT_EQ(configError("frames = 92'23\xcc\x94 0Z\n2]\n").rfind("t.toml:1:15: a non-ASCII", 0),
            0u);
  EXPECT_EQ(configError("x = 1.\"\xc3\xa9\"\n").rfind("t.toml:1:8: a non-ASCII", 0), 0u);
  // Found next: a bracket and a quote inside a bare value ("184[\"") open nothing either.
  EXPECT_EQ(
      configError("frames = 46116860184[\"=St\xcb\x9c\x8b\n").rfind("t.toml:1:26: a non-ASCII", 0),
      0u);
  // Upstream #190: a line-ending backslash, then U+00A7 first on the next line.
  EXPECT_EQ(configError("title = \"\"\"\\\n\xc2\xa7\"\"\"\n"),
            "t.toml:2:1: a non-ASCII character first after a line-ending backslash in a \"\"\" "
            "string is not supported by the TOML parser here (toml++ 3.3); write it as \\uXXXX");
  EXPECT_EQ(configError("title = \"\"\"\\ \xc3\xa9\"\"\"\n")
                .rfind("t.toml:1:12: a backslash before a non-ASCII character", 0),
            0u);
}

TEST(ReliabilityConfig, NonAsciiInsideStringsAndCommentsStillWorks) {
  // The guard must not refuse what is valid: UTF-8 in every kind of string, in comments, in
  // quoted keys, after a byte order mark, and quotes inside multi-line strings.
  const Settings s = parseConfig(
      "\xef\xbb\xbf# caf\xc3\xa9 \xef\xbb\xbe\n"
      "input = \"d\xc3\xa9mo/\xe2\x80\x8b\xef\xbb\xbe.mp4\"  # \xc2\xa7\n"
      "output = 'sortie \xc2\xa7.mkv'\n"
      "[preview]\n"
      "title = \"\"\"\"T\xc3\xadtulo\" \\\n   \\u00e9 \xc3\xa9\"\"\"\"\n"
      "snapshot_dir = '''\n\xc3\xa9t\xc3\xa9'''\n",
      "t.toml");
  EXPECT_EQ(s.input.value_or(""), "d\xc3\xa9mo/\xe2\x80\x8b\xef\xbb\xbe.mp4");
  EXPECT_EQ(s.output.value_or(""), "sortie \xc2\xa7.mkv");
  EXPECT_EQ(s.title.value_or(""), "\"T\xc3\xadtulo\" \xc3\xa9 \xc3\xa9\"");
  EXPECT_EQ(s.snapshotDir.value_or(""), "\xc3\xa9t\xc3\xa9");
  // Quoted keys, dotted too, may hold any text: the reader, not the guard, answers.
  EXPECT_EQ(
      configError("\"pr\xc3\xa9view\" = 1\n").rfind("t.toml:1:1: pr\xc3\xa9view: unknown key", 0),
      0u);
  EXPECT_EQ(configError("a.\"\xc3\xa9\" = 1\n").rfind("t.toml:1:1: a: unknown key", 0), 0u);
  EXPECT_EQ(configError("[preview]\ntitle = \"x\"\n[\"\xc3\xa9\".\"b\"]\n")
                .rfind("t.toml:3:2: \xc3\xa9: unknown key", 0),
            0u);
  // Strings inside arrays and inline tables, after numbers, dates and booleans.
  EXPECT_EQ(configError("x = [1, \"\xc3\xa9\", {a = 2, \"\xc3\xa9\" = '\xc2\xa7'}, 1979-05-27, "
                        "true,\n  '\xc3\xa9']\n")
                .rfind("t.toml:1:1: x: unknown key", 0),
            0u);
  // After a string that ends in an escaped quote, code resumes: a stray é there is refused.
  EXPECT_EQ(configError("input = \"a\\\"\" \xc3\xa9\n").rfind("t.toml:1:15: a non-ASCII", 0), 0u);
}

TEST(ReliabilityConfig, EveryShippedSeedLoadsOrFailsWithTheFileName) {
  // The fuzz seed corpus (tests/fuzz/corpus/config): each file loads, or fails with one message
  // that starts with the file's name; never anything else.
  const auto corpus =
      std::filesystem::path(VIDFILTER_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "config";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) {
    SCOPED_TRACE(e.path().string());
    try {
      const Settings s = loadConfigFile(e.path().string());
      if (s.chain) {
        EXPECT_NO_THROW(Chain::parse(*s.chain));
      }
    } catch (const UsageError& err) {
      EXPECT_EQ(std::string(err.what()).rfind(e.path().string(), 0), 0u) << err.what();
    }
    ++n;
  }
  EXPECT_GE(n, 20);
}

TEST(ReliabilityConfig, BinaryReportsAConfigErrorOnOneLine) {
  TempDir dir("rel_cfg");
  const std::string path = dir / "bad.toml";
  {
    std::ofstream f(path);
    f << "input = \"" << vf::test::kVideo << "\"\nchain = \"\"\n";
  }
  const auto r = runVidfilter({"--config", path});
  EXPECT_EQ(r.status, 2);
  const std::string e = vf::test::errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter: " + path + ":2:9: chain: empty chain", 0), 0u) << e;
}

TEST(ReliabilityConfig, ANulCharacterInAStringIsRefusedWhereItIs) {
  // TOML allows \u0000 in a string; a path holding one was cut at it (the input "a.mp4\u0000zz"
  // read as a.mp4, a --json written under the text before it).
  TempDir dir("rel_cfg_nul");
  const std::string json = dir / "run.json";
  for (const std::string& line : std::vector<std::string>{
           "input = \"" + std::string(vf::test::kVideo) + "\\u0000zz\"",
           "json = \"" + json + "\\u0000x\"", "chain = \"gray\\u0000,blur\""}) {
    SCOPED_TRACE(line);
    const std::string path = dir / "nul.toml";
    std::ofstream(path) << line << "\n";
    const auto r = runVidfilter({"--config", path, "-o", dir / "o.mkv"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(vf::test::errorLines(r.err).find(path + ":1:"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
    EXPECT_FALSE(std::filesystem::exists(json));
  }
}

// --config - reads the config from stdin, as --inputs - and -i - read theirs; its errors say
// stdin, and a run whose video comes on stdin too is refused.
TEST(ReliabilityConfig, AConfigOnStdin) {
  TempDir dir("rel_config_stdin");
  std::ofstream(dir / "good.toml") << "chain = \"gray\"\nframes = 3\n";
  std::ofstream(dir / "bad.toml") << "chain = 3\n";
  ProcOptions good;
  good.stdinPath = dir / "good.toml";
  const auto r = runVidfilter({"--config", "-", "-i", kVideo, "-o", dir / "o.mkv"}, good);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "o.mkv"), 3);
  ProcOptions bad;
  bad.stdinPath = dir / "bad.toml";
  expectOneError(runVidfilter({"--config", "-", "-i", kVideo, "-o", dir / "b.mkv"}, bad), 2,
                 "stdin:1:9: chain: must be a string");
  expectOneError(runVidfilter({"--config", "-", "-i", "-", "-o", dir / "c.mkv"}, good), 2,
                 "--config '-' reads stdin, which -i - reads too");
  // So is a config on stdin that names stdin as its input (it was said to be empty).
  for (const char* input : {"input = \"-\"", "input = \"pipe:0\"", "inputs = \"-\""}) {
    SCOPED_TRACE(input);
    std::ofstream(dir / "self.toml") << input << "\nchain = \"gray\"\n";
    ProcOptions self;
    self.stdinPath = dir / "self.toml";
    expectOneError(runVidfilter({"--config", "-", "-o", dir / "s.mkv"}, self), 2,
                   "--config '-' read stdin, and the input");
  }
}
