// Inputs that are lists of other files: ffconcat lists and HLS playlists
// (app/media/listed_files.cpp). The files such a list names are read as the input plays, so no
// output, --stats or --json file may be one of them; what the list names is found as FFmpeg's
// demuxers read it (quotes, escapes, names relative to the list, nested playlists).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/media/listed_files.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;
using vf::media::filesListedBy;

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string md5(const std::string& path) { return shellOutput("md5sum < " + q(path)); }

}  // namespace

TEST(ListedFiles, ConcatListsAsTheConcatDemuxerReadsThem) {
  TempDir dir("listed_concat");
  const std::string list = dir / "sub/l.ffconcat";
  std::filesystem::create_directories(dir / "sub");
  write(list,
        "\xEF\xBB\xBF"
        "ffconcat version 1.0\n"
        "# file commented.mp4\n"
        "file a.mp4\n"
        "  file\t'with space.mp4'\n"
        "file ../up\\ one.mp4\n"
        "file /abs/b.mkv\n"
        "file file:c.mp4\n"
        "file http://example.com/d.mp4\n"
        "duration 2.0\n"
        "filename.mp4\n");
  // file:NAME as FFmpeg opens it (from the current directory) and as the list's neighbour.
  EXPECT_EQ(filesListedBy(list),
            (std::vector<std::string>{dir / "sub/a.mp4", dir / "sub/with space.mp4",
                                      dir / "sub/../up one.mp4", "/abs/b.mkv", "c.mp4",
                                      dir / "sub/c.mp4"}));
  // Lines ended by \r alone, as FFmpeg splits them too.
  write(list, "ffconcat version 1.0\rfile a.mp4\rfile b.mp4\r");
  EXPECT_EQ(filesListedBy(list), (std::vector<std::string>{dir / "sub/a.mp4", dir / "sub/b.mp4"}));
}

TEST(ListedFiles, HlsPlaylistsWithTheirSegmentsAndNestedPlaylists) {
  TempDir dir("listed_hls");
  write(dir / "master.m3u8",
        "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nv/low.m3u8\n"
        "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",URI=\"audio.m3u8\"\n"
        "https://cdn.example.com/high.m3u8\n");
  std::filesystem::create_directories(dir / "v");
  write(dir / "v/low.m3u8",
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:2.0,\n"
        "seg0.m4s?t=1\n\n#EXTINF:2.0,\nseg1.m4s  \n#EXT-X-ENDLIST\n");
  // A name with ? both as the file protocol opens it and as a URL's query would cut it.
  EXPECT_EQ(
      filesListedBy(dir / "master.m3u8"),
      (std::vector<std::string>{dir / "v/low.m3u8", dir / "v/init.mp4", dir / "v/seg0.m4s?t=1",
                                dir / "v/seg0.m4s", dir / "v/seg1.m4s", dir / "audio.m3u8"}));
  // A concat list naming a playlist names its segments too; a playlist naming itself is read
  // once.
  write(dir / "c.ffconcat", "ffconcat version 1.0\nfile v/low.m3u8\n");
  EXPECT_EQ(filesListedBy(dir / "c.ffconcat").size(), 5u);
  write(dir / "loop.m3u8", "#EXTM3U\nloop.m3u8\nloop.m3u8\nx.ts\n");
  EXPECT_EQ(filesListedBy(dir / "loop.m3u8"),
            (std::vector<std::string>{dir / "loop.m3u8", dir / "x.ts"}));
  // Read as a concat list (-f concat), whatever comes first: blank lines, comments, the header
  // after them, other directives; names hidden in FFmpeg's protocols that read local files.
  write(dir / "plain.txt",
        "\n# parts\nffconcat version 1.0\nchapter 1 0 1\n  file a.mp4\nfile 'b c.mp4'\n"
        "file crypto:c.mp4\nfile 'subfile,,start,0,end,0,:d.mp4'\nfile 'concat:e.mp4|f.mp4'\n");
  EXPECT_TRUE(filesListedBy(dir / "plain.txt").empty());  // not one by its first bytes
  EXPECT_EQ(filesListedBy(dir / "plain.txt", true),
            (std::vector<std::string>{dir / "a.mp4", dir / "b c.mp4", dir / "c.mp4", dir / "d.mp4",
                                      dir / "e.mp4", dir / "f.mp4"}));
  // A video, a text file of another kind, a missing file: no list.
  const std::string video = dir / "in.mkv";
  makeClip(video, "testsrc2=size=64x48:rate=10", "-frames:v 2 -c:v ffv1");
  write(dir / "notes.txt", "file a.mp4\n");
  EXPECT_TRUE(filesListedBy(video).empty());
  EXPECT_TRUE(filesListedBy(dir / "notes.txt").empty());
  EXPECT_TRUE(filesListedBy(dir / "missing.m3u8").empty());
}

// The run: an output, --stats or --json over a file the list names is refused (exit 2) and the
// file is left as it was; another name goes ahead and reads every listed file.
TEST(ListedFiles, NoOutputIsAFileTheInputsListNames) {
  TempDir dir("listed_run");
  const std::string a = dir / "a.mp4", b = dir / "b.mkv";
  makeClip(a, "testsrc2=size=64x48:rate=10", "-frames:v 6 -c:v libx264 -pix_fmt yuv420p");
  makeClip(b, "testsrc2=size=64x48:rate=10", "-frames:v 4 -c:v libx264 -pix_fmt yuv420p");
  const std::string concat = dir / "l.ffconcat";
  write(concat, "ffconcat version 1.0\nfile 'a.mp4'\nfile b.mkv\n");
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -i " + q(a) +
                  " -c copy -f hls -hls_time 100 -hls_list_size 0 " + q(dir / "pl.m3u8"))
                .status,
            0);
  const std::string segment = dir / "pl0.ts";
  ASSERT_TRUE(std::filesystem::exists(segment));
  const std::string beforeA = md5(a), beforeB = md5(b), beforeSegment = md5(segment);
  const std::string out = dir / "out.mkv";
  for (const auto& [input, writes] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {concat, {"-o", a}},
           {concat, {"-f", "matroska", "-o", b}},
           {concat, {"-o", out, "--stats", b}},
           {concat, {"-o", out, "--json", a}},
           {dir / "pl.m3u8", {"-o", segment}},
           {dir / "pl.m3u8", {"-o", out, "--json", segment}}}) {
    SCOPED_TRACE(input + " " + writes.back());
    std::vector<std::string> args = {"-i", input, "--chain", "gray", "-y"};
    args.insert(args.end(), writes.begin(), writes.end());
    const ProcResult r = runVidfilter(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("list entry"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  EXPECT_EQ(md5(a), beforeA);
  EXPECT_EQ(md5(b), beforeB);
  EXPECT_EQ(md5(segment), beforeSegment);
  // Several inputs: one input's list guards its files against every output.
  const ProcResult many = runVidfilter(
      {"-i", b, "-i", concat, "--chain", "gray", "-o", dir / "o{index}.mkv", "--json", a, "-y"});
  EXPECT_EQ(many.status, 2) << many.err;
  EXPECT_EQ(md5(a), beforeA);
  // Elsewhere: both listed files, one after the other.
  const ProcResult ok = runVidfilter({"-i", concat, "--chain", "gray", "-o", out});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(countFrames(out), 10);
}
