// Network inputs that end: a stream that vanishes (no end ever comes) ends on the read timeout with
// a warning; one whose sender closes it, or the span asked for (-t), ends it without one. Each
// file written plays and holds the frames counted.
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

namespace {

int testPort(int offset) { return 20000 + static_cast<int>((::getpid() * 2 + offset) % 20000); }

}  // namespace

TEST(ReliabilityNetwork, StreamThatVanishesEndsTheRunWithAWarning) {
  // ffmpeg sends 3 s of MPEG-TS over loopback UDP, then stops (a camera unplugged, a server
  // gone): no end-of-stream ever comes, so the read timeout ends the run with a warning, and
  // the file written so far plays.
  TempDir dir("rel_udp");
  const std::string url = "udp://127.0.0.1:" + std::to_string(testPort(0));
  Child sender("/usr/bin/env", {"ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i",
                                "testsrc2=size=160x120:rate=25", "-t", "3", "-c:v", "mpeg4", "-q:v",
                                "5", "-f", "mpegts", url + "?pkt_size=1316"});
  ::usleep(300 * 1000);
  vf::test::ProcOptions opt;
  opt.timeoutSec = 40;
  const std::string out = dir / "udp.mkv";
  const auto r = runVidfilter(
      {"-i", url + "?overrun_nonfatal=1&fifo_size=5000000", "--chain", "gray", "-o", out}, opt);
  sender.wait();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(r.seconds, 25) << "the run did not end when the stream vanished";
  EXPECT_NE(r.err.find("stopped delivering frames after"), std::string::npos) << r.err;
  const RunCounts c = runCounts(r.err);
  EXPECT_GT(c.out, 10) << r.err;
  EXPECT_EQ(probe(out).frames, c.out);
  EXPECT_EQ(decodeErrors(out), "");
}

TEST(ReliabilityNetwork, StreamItsSenderClosesOrASpanEndsIsNoWarning) {
  // vidfilter listens on loopback TCP; ffmpeg connects (again until it is heard) and sends 3 s
  // of MPEG-TS at its rate, then closes the connection.
  TempDir dir("rel_tcp");
  const std::string url = "tcp://127.0.0.1:" + std::to_string(testPort(1));
  const std::string send =
      "for i in $(seq 100); do ffmpeg -nostdin -v quiet -re -f lavfi -i "
      "testsrc2=size=160x120:rate=25 -t 3 -c:v mpeg4 -f mpegts " +
      url + " && break; sleep 0.1; done";
  vf::test::ProcOptions opt;
  opt.timeoutSec = 40;
  for (const bool span : {false, true}) {
    Child sender("/bin/sh", {"-c", send});
    const std::string out = dir / (span ? "span.mkv" : "whole.mkv");
    std::vector<std::string> args{"-i", url + "?listen=1", "--chain", "gray", "-o", out};
    if (span) args.insert(args.end(), {"-t", "1"});
    const auto r = runVidfilter(args, opt);
    sender.wait();
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("warning:"), std::string::npos) << r.err;
    const RunCounts c = runCounts(r.err);
    if (span) {
      EXPECT_EQ(c.out, 25) << r.err;  // 1 s at 25 fps
    } else {
      EXPECT_NE(r.err.find("ended after 75 frames"), std::string::npos) << r.err;
      EXPECT_EQ(c.out, 75) << r.err;
    }
    EXPECT_EQ(probe(out).frames, c.out);
    EXPECT_EQ(decodeErrors(out), "");
  }
}
