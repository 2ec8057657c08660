// A run of several inputs refused before any input ran (two inputs writing one name, a chain
// typo) replaces the --json report an earlier run left, which would say that run passed, with
// one that says why; a file at --json that is no report of vidfilter's stays as it is.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/json_file.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

TEST(AppJobsRefused, ARefusedRunReplacesAnEarlierReport) {
  TempDir dir("jobs_refused");
  const std::string a = dir / "a.mkv", b = dir / "b.mkv", report = dir / "r.json";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v ffv1");
  makeClip(b, "testsrc2=size=96x64:rate=25", "-frames:v 10 -c:v ffv1");
  const auto run = [&](const std::string& chain, const std::string& second,
                       const std::string& json) {
    return runVidfilter({"-y", "-i", a, "-i", second, "--chain", chain, "-o",
                         dir / "out_{name}.mkv", "--json", json});
  };
  ASSERT_EQ(run("gray", b, report).status, 0);
  ASSERT_EQ(readJson(report)["exit_status"], 0);
  // Both inputs named a: one output name.
  const auto same = run("gray", a, report);
  EXPECT_EQ(same.status, 2) << same.err;
  auto doc = readJson(report);
  EXPECT_EQ(doc["exit_status"], 2);
  EXPECT_NE(doc["error"].get<std::string>().find("would both write"), std::string::npos) << doc;
  EXPECT_TRUE(doc["inputs"].empty());
  // A chain typo.
  ASSERT_EQ(run("gray", b, report).status, 0);
  EXPECT_EQ(run("gray,bogus", b, report).status, 2);
  doc = readJson(report);
  EXPECT_EQ(doc["exit_status"], 2);
  EXPECT_NE(doc["error"].get<std::string>().find("bogus"), std::string::npos) << doc;
  // A file that is no report of vidfilter's.
  const std::string notes = dir / "notes.json";
  std::ofstream(notes) << "{\"mine\": true}\n";
  EXPECT_EQ(run("gray", a, notes).status, 2);
  std::ifstream in(notes);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "{\"mine\": true}\n");
}
