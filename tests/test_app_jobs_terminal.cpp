// Several inputs on a terminal (a pseudo-terminal through script(1)): each log line first wipes
// the progress line, so that it never runs on after the progress text, as with one input.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

TEST(AppJobsTerminal, LogLinesWipeTheProgressLine) {
  TempDir dir("jobs_terminal");
  const std::string a = dir / "a.mkv", b = dir / "b.mkv";
  makeClip(a, "testsrc2=size=96x64:rate=25", "-frames:v 25 -c:v ffv1");
  makeClip(b, "testsrc2=size=320x240:rate=25", "-t 8 -c:v ffv1");
  const std::string cmd = q(vidfilterBinary()) + " -y --jobs 2 -i " + q(a) + " -i " + q(b) +
                          " --chain gray,blur -o " + q(dir / "out_{name}.mkv") + " </dev/null";
  const ShellResult r = shell("script -qec " + q(cmd) + " /dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  // The progress line was drawn, and a log line came while it was there (a's end).
  ASSERT_NE(r.out.find("frame="), std::string::npos) << r.out;
  ASSERT_NE(r.out.find("wrote 25 frames"), std::string::npos) << r.out;
  for (std::size_t at = r.out.find("vidfilter: "); at != std::string::npos;
       at = r.out.find("vidfilter: ", at + 1)) {
    const bool lineStart =
        at == 0 || r.out[at - 1] == '\n' || (at >= 4 && r.out.compare(at - 4, 4, "\r\033[K") == 0);
    EXPECT_TRUE(lineStart) << "a log line glued to what came before it:\n"
                           << r.out.substr(at < 120 ? 0 : at - 120, 200);
  }
}
