// Network inputs and outputs: a stream that vanishes (no end ever comes) ends on the read timeout
// with a warning, a live HLS playlist that stops growing too; one whose sender closes it, or the
// span asked for (-t), ends it without one; a listener waits for its sender past the 10 s an
// open gets; a signal ends an output's open that waits; an RTP output prints the session
// description its receiver needs; an output address that takes nothing exits as an input's
// does; an address in use is named. Each file written plays and holds the frames counted.
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

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

TEST(ReliabilityNetwork, AListenerWaitsForItsSenderPastTheOpenTimeout) {
  // The sender comes 12 s after vidfilter listens: a listener is no stream that failed to open.
  TempDir dir("rel_listen");
  const std::string url = "tcp://127.0.0.1:" + std::to_string(testPort(2));
  Child sender("/bin/sh", {"-c",
                           "sleep 12; for i in $(seq 100); do ffmpeg -nostdin -v quiet -f lavfi -i "
                           "testsrc2=size=160x120:rate=25 -t 1 -c:v mpeg4 -f mpegts " +
                               url + " && break; sleep 0.1; done"});
  vf::test::ProcOptions opt;
  opt.timeoutSec = 60;
  const std::string out = dir / "late.mkv";
  const auto r = runVidfilter({"-i", url + "?listen=1", "--chain", "gray", "-o", out}, opt);
  sender.wait();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_GT(r.seconds, 11);
  EXPECT_EQ(probe(out).frames, 25);
}

TEST(ReliabilityNetwork, ASignalEndsAnOutputsOpenThatWaits) {
  // An output that listens for its reader, which never connects: SIGTERM ends the run.
  TempDir dir("rel_out_listen");
  const std::string url = "tcp://127.0.0.1:" + std::to_string(testPort(3)) + "?listen=1";
  Child c(vidfilterBinary(), {"-i", kVideo, "--chain", "gray", "-f", "mpegts", "-o", url});
  ASSERT_TRUE(c.readUntil(
      [](const std::string& err) { return err.find("chain:") != std::string::npos; }, 60))
      << c.errSoFar();
  ::usleep(500 * 1000);
  c.signal(SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  const auto r = c.wait();
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
}

TEST(ReliabilityNetwork, AnRtpOutputPrintsTheSessionItsReceiverOpens) {
  // -f rtp sends one codec's RTP, which a receiver reads only through its session description:
  // printed on stdout as ffmpeg prints it. ffmpeg, given it, receives the second run's frames.
  TempDir dir("rel_rtp");
  const std::string in = dir / "in.mkv", sdp = dir / "s.sdp", out = dir / "received.mkv";
  makeClip(in, "testsrc2=size=160x120:rate=25", "-t 2 -c:v ffv1");
  const int port = testPort(6) & ~1;  // RTP takes an even port, RTCP the next
  const std::vector<std::string> send = {
      "-i", in, "--chain", "gray", "-f", "rtp", "-o", "rtp://127.0.0.1:" + std::to_string(port)};
  const auto first = runVidfilter(send);
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(first.out.rfind("SDP:\n", 0), 0u) << first.out;
  EXPECT_NE(first.out.find("m=video " + std::to_string(port) + " "), std::string::npos)
      << first.out;
  std::ofstream(sdp) << first.out.substr(5);
  Child receiver("/usr/bin/env", {"ffmpeg", "-nostdin", "-v", "error", "-protocol_whitelist",
                                  "file,udp,rtp", "-i", sdp, "-c", "copy", "-y", out});
  ::usleep(1500 * 1000);  // its sockets open
  const auto second = runVidfilter(send);
  ASSERT_EQ(second.status, 0) << second.err;
  ::usleep(1000 * 1000);
  receiver.signal(SIGINT);  // ffmpeg closes its file and exits
  receiver.wait();
  const Probe p = probe(out);
  EXPECT_EQ(p.width, 160);
  EXPECT_EQ(p.height, 120);
  EXPECT_GT(p.frames, 0);
  // vidfilter receives it through the same description (FFmpeg lets a .sdp reach only files
  // unless told; ffmpeg's -protocol_whitelist), and ends the stream once it stops sending.
  const std::string got = dir / "got.mkv";
  Child own(vidfilterBinary(), {"-i", sdp, "--chain", "gray", "--codec", "ffv1", "-o", got},
            ProcOptions{});
  ::usleep(1500 * 1000);
  const auto third = runVidfilter(send);
  ASSERT_EQ(third.status, 0) << third.err;
  const ProcResult ownEnd = own.wait();
  EXPECT_EQ(ownEnd.status, 0) << ownEnd.err;
  const Probe g = probe(got);
  EXPECT_EQ(g.width, 160);
  EXPECT_GT(g.frames, 0) << ownEnd.err;
  // An input with audio: RTP carries one stream, so the user is told to leave the audio out
  // (a usage error, nothing sent); with -an the video goes alone.
  const std::string withAudio = dir / "av.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine -t 1 -c:v ffv1 " +
         q(withAudio));
  std::vector<std::string> av = send;
  av[1] = withAudio;
  const auto refused = runVidfilter(av);
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("carries one stream"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("-an"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out.find("SDP:"), std::string::npos) << refused.out;
  av.push_back("-an");
  const auto alone = runVidfilter(av);
  EXPECT_EQ(alone.status, 0) << alone.err;
  EXPECT_EQ(alone.out.rfind("SDP:\n", 0), 0u) << alone.out;
}

TEST(ReliabilityNetwork, AnOutputAddressThatTakesNothingIsTheUsersToFix) {
  // As an input's address: exit 2, the address named; a host name that does not resolve is
  // said alone (FFmpeg calls it an I/O error).
  TempDir dir("rel_out_refused");
  const std::string in = dir / "in.mkv";
  makeClip(in, "testsrc2=size=64x48:rate=25", "-t 1 -c:v ffv1");
  const std::string refused = "tcp://127.0.0.1:" + std::to_string(testPort(8));
  const auto r = runVidfilter({"-i", in, "--chain", "gray", "-f", "mpegts", "-o", refused});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("cannot open " + refused + " for writing"), std::string::npos) << r.err;
  addrinfo* found = nullptr;  // where this machine's resolver says so at once
  const bool unknown =
      ::getaddrinfo("no-such-host.invalid", nullptr, nullptr, &found) == EAI_NONAME;
  if (found) ::freeaddrinfo(found);
  if (!unknown) return;
  const auto h = runVidfilter(
      {"-i", in, "--chain", "gray", "-f", "mpegts", "-o", "tcp://no-such-host.invalid:1234"});
  EXPECT_EQ(h.status, 2) << h.err;
  EXPECT_NE(h.err.find("for writing: the host 'no-such-host.invalid' is not known"),
            std::string::npos)
      << h.err;
}

TEST(ReliabilityNetwork, AnAddressInUseIsNamed) {
  // This process listens on the port first.
  const int port = testPort(4);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  TempDir dir("rel_in_use");
  const auto r = runVidfilter({"-i", "tcp://127.0.0.1:" + std::to_string(port) + "?listen=1",
                               "--chain", "gray", "-o", dir / "o.mkv"});
  ::close(fd);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("another program listens there"), std::string::npos) << r.err;
}

TEST(ReliabilityNetwork, ALivePlaylistThatStopsGrowingEndsOnTheReadTimeout) {
  // Two 1 s segments of a live HLS playlist (no end tag) that is never updated, served over
  // loopback HTTP: the run ends about 5 s after the last segment, not when FFmpeg's HLS reader
  // gives up on its own (a minute of reloading the playlist).
  TempDir dir("rel_hls");
  std::filesystem::create_directories(dir / "all");
  std::filesystem::create_directories(dir / "live");
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -t 4 -c:v libx264 -g 25 -f hls -hls_time 1 "
      "-hls_list_size 0 -hls_segment_filename " +
      q(dir / "all/s%d.ts") + " " + q(dir / "all/index.m3u8"));
  std::ofstream(dir / "live/index.m3u8") << "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n"
                                            "#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1.0,\ns0.ts\n"
                                            "#EXTINF:1.0,\ns1.ts\n";
  std::filesystem::copy(dir / "all/s0.ts", dir / "live/s0.ts");
  std::filesystem::copy(dir / "all/s1.ts", dir / "live/s1.ts");
  const int port = testPort(5);
  Child server("/usr/bin/env", {"python3", "-m", "http.server", "--bind", "127.0.0.1",
                                std::to_string(port), "--directory", dir / "live"});
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/index.m3u8";
  // The server answers once it is up.
  ASSERT_EQ(shell("python3 -c " + q("import time, urllib.request as u\n"
                                    "for i in range(100):\n"
                                    "    try:\n"
                                    "        u.urlopen('" +
                                    url +
                                    "'); break\n"
                                    "    except Exception: time.sleep(0.1)\n"
                                    "else: raise SystemExit(1)\n"))
                .status,
            0);
  vf::test::ProcOptions opt;
  opt.timeoutSec = 90;
  const std::string out = dir / "live.mkv";
  const auto r = runVidfilter({"-i", url, "--chain", "gray", "-o", out}, opt);
  server.signal(SIGTERM);
  server.wait();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(r.seconds, 25) << "the stalled playlist was reloaded on and on";
  EXPECT_EQ(probe(out).frames, 50);
}
