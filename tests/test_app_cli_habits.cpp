// Scripts and ffmpeg users' habits with the real binary: the exit status a script reads does
// not change with --json, contradicting settings from the config file and the command line are
// one error, ffmpeg's words of one dash are never read as one-letter options, and its -f before
// -i is the input's format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf;
using namespace vf::test;

// Asking for a summary does not change what the exit status says: one input that fails for
// what the user gave is 2 with --json as without, and the summary says the same.
TEST(AppCliBinary, ExitStatusIsTheSameWithAJsonSummary) {
  TempDir dir("cli_json_status");
  std::ofstream(dir / "notes.mp4") << "this is text, not a video\n";
  for (const std::string& in : {std::string("/nonexistent/clip.mp4"), dir / "notes.mp4"}) {
    SCOPED_TRACE(in);
    const auto plain = runVidfilter({"-i", in, "--chain", "gray", "-o", dir / "o.mkv"});
    const auto json = runVidfilter(
        {"-i", in, "--chain", "gray", "-o", dir / "o.mkv", "--json", dir / "run.json"});
    EXPECT_EQ(plain.status, 2) << plain.err;
    EXPECT_EQ(json.status, 2) << json.err;
    std::ifstream f(dir / "run.json");
    const std::string doc((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(doc.find("\"exit_status\": 2"), std::string::npos) << doc;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  }
  // A chain the frame does not suit: 2 as well, and the summary's error one line (no caret).
  const auto crop = runVidfilter({"-i", kVideo, "--chain", "gray,crop=x=9999", "-o", dir / "o.mkv",
                                  "--json", dir / "crop.json"});
  EXPECT_EQ(crop.status, 2) << crop.err;
  std::ifstream f(dir / "crop.json");
  const std::string doc((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find("\"error\": \"crop: the corner (9999,0) lies outside the 768x576 frame; "
                     "give x < 768 and y < 576\""),
            std::string::npos)
      << doc;
  // A blank device is refused on this path too.
  const auto blank = runVidfilter({"-i", kVideo, "--chain", "gray", "--device", " ", "-o",
                                   dir / "o.mkv", "--json", dir / "blank.json"});
  EXPECT_EQ(blank.status, 2) << blank.err;
  EXPECT_NE(blank.err.find("--device ' ' is blank"), std::string::npos) << blank.err;
}

// quiet in the config file and --progress on the command line (or the other way round) cannot
// both hold: one error naming where each came from.
TEST(AppCliBinary, QuietAndProgressOnTheCommandLineOverrideTheConfigs) {
  // The command line's --progress or --quiet wins over the file's other, as every option does;
  // both in the file contradict each other.
  TempDir dir("cli_quiet_progress");
  std::ofstream(dir / "q.toml") << "quiet = true\n";
  std::ofstream(dir / "p.toml") << "progress = true\n";
  std::ofstream(dir / "both.toml") << "progress = true\nquiet = true\n";
  const auto progress = runVidfilter({"--config", dir / "q.toml", "-i", kVideo, "--chain", "gray",
                                      "--frames", "5", "--progress", "-o", dir / "a.y4m"});
  EXPECT_EQ(progress.status, 0) << progress.err;
  EXPECT_NE(progress.err.find("frame="), std::string::npos) << progress.err;
  const auto quiet = runVidfilter({"--config", dir / "p.toml", "-i", kVideo, "--chain", "gray",
                                   "--frames", "5", "--quiet", "-o", dir / "b.y4m"});
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("frame="), std::string::npos) << quiet.err;    // no progress line
  EXPECT_EQ(quiet.err.find("frames: "), std::string::npos) << quiet.err;  // no summary
  const auto both = runVidfilter(
      {"--config", dir / "both.toml", "-i", kVideo, "--chain", "gray", "-o", dir / "c.y4m"});
  expectOneError(both, 2, "progress = true and quiet = true (no progress line) contradict");
  EXPECT_FALSE(std::filesystem::exists(dir / "c.y4m"));
  // The file's log_level gives way to --quiet on the command line: warnings and errors only.
  std::ofstream(dir / "debug.toml") << "log_level = \"debug\"\n";
  const auto quieter = runVidfilter({"--config", dir / "debug.toml", "-i", kVideo, "--chain",
                                     "gray", "--frames", "5", "--quiet", "-o", dir / "d.y4m"});
  EXPECT_EQ(quieter.status, 0) << quieter.err;
  EXPECT_EQ(quieter.err.find("info:"), std::string::npos) << quieter.err;
  EXPECT_EQ(quieter.err.find("debug:"), std::string::npos) << quieter.err;
}

// ffmpeg's single-dash words: one error, exit 2, never help (-hide_banner is not -h) or a device
// picked by a letter (-dn is not --device n).
TEST(AppCliBinary, SingleDashWordsAreUnknownOptions) {
  TempDir dir("cli_single_dash");
  for (const char* w : {"-dn", "-nostdin", "-hwaccel_output_format"}) {
    const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", w, "-o", dir / "o.mkv"});
    expectOneError(r, 2, std::string("unknown option '") + w + "'");
    EXPECT_FALSE(std::filesystem::exists(dir / "o.mkv"));
  }
  const auto hb = runVidfilter({"-hide_banner", "-i", kVideo, "--chain", "gray", "--frames", "2",
                                "--no-progress", "-o", dir / "hb.y4m"});
  EXPECT_EQ(hb.status, 0) << hb.err;
  EXPECT_EQ(hb.out.find("Usage:"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "hb.y4m"));
}

// ffmpeg's spellings of files and pipes: "file:NAME" is the file NAME, "pipe:"/"pipe:0" stdin
// and "pipe:1" stdout. "-o file:b.mkv" wrote a file named "file:b.mkv" (exit 0), "-i pipe:0"
// was a file not found.
TEST(AppCliBinary, FfmpegsFileAndPipeSpellingsAreTheFilesAndPipesTheyName) {
  TempDir dir("cli_spellings");
  const std::string in = dir / "in.mkv";
  makeClip(in, "testsrc2=size=64x48:rate=10", "-frames:v 4 -c:v ffv1");
  const auto named =
      runVidfilter({"-i", "file:" + in, "--chain", "gray", "-o", "file:" + (dir / "b.mkv")});
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(countFrames(dir / "b.mkv"), 4);
  EXPECT_FALSE(std::filesystem::exists(dir / "file:b.mkv"));
  ProcOptions fromStdin;
  fromStdin.stdinPath = in;
  const auto piped =
      runVidfilter({"-i", "pipe:0", "--chain", "gray", "-o", dir / "c.mkv"}, fromStdin);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(countFrames(dir / "c.mkv"), 4);
  const auto toStdout =
      runVidfilter({"-i", in, "--chain", "gray", "-o", "pipe:1", "-f", "matroska"});
  ASSERT_EQ(toStdout.status, 0) << toStdout.err;
  std::ofstream(dir / "d.mkv", std::ios::binary) << toStdout.out;
  EXPECT_EQ(countFrames(dir / "d.mkv"), 4);
  EXPECT_FALSE(std::filesystem::exists("pipe:1"));
  // Nothing read is written over through them either.
  const auto over = runVidfilter({"-i", in, "--chain", "gray", "-y", "-o", "file:" + in});
  EXPECT_EQ(over.status, 2) << over.err;
  EXPECT_EQ(countFrames(in), 4);
}

// ffmpeg's -f before -i names the input's format, after it the output's: a Matroska pipe
// written to an .mp4 is an MP4, raw frames named rawvideo are read as such, a concat list
// without its header is read (absolute names too, as a list with it), and a name FFmpeg has no
// demuxer for, or one of its input devices, is one error.
TEST(AppCliBinary, FfmpegsFormatBeforeTheInputIsTheInputs) {
  TempDir dir("cli_input_format");
  const std::string in = dir / "in.mkv", raw = dir / "in.yuv";
  makeClip(in, "testsrc2=size=64x48:rate=10", "-frames:v 4 -c:v ffv1");
  makeClip(raw, "testsrc2=size=64x48:rate=10", "-frames:v 3 -f rawvideo -pix_fmt yuv420p");
  ProcOptions fromStdin;
  fromStdin.stdinPath = in;
  const auto piped = runVidfilter(
      {"-f", "matroska", "-i", "-", "--chain", "gray", "-o", dir / "p.mp4"}, fromStdin);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(probeValue(dir / "p.mp4", "", "format=format_name"), "mov,mp4,m4a,3gp,3g2,mj2");
  EXPECT_EQ(countFrames(dir / "p.mp4"), 4);
  const auto rawRun = runVidfilter({"-f", "rawvideo", "-s", "64x48", "-pix_fmt", "yuv420p", "-i",
                                    raw, "--chain", "gray", "-o", dir / "r.mkv"});
  ASSERT_EQ(rawRun.status, 0) << rawRun.err;
  EXPECT_EQ(probeValue(dir / "r.mkv", "", "format=format_name"), "matroska,webm");
  EXPECT_EQ(countFrames(dir / "r.mkv"), 3);
  const std::string plainList = dir / "plain.txt", headed = dir / "headed.txt";
  std::ofstream(plainList) << "# two parts\nfile in.mkv\nfile '" << in << "'\n";
  std::ofstream(headed) << "ffconcat version 1.0\nfile " << in << "\nfile " << in << "\n";
  for (const std::vector<std::string>& list :
       {std::vector<std::string>{"-f", "concat", "-i", plainList}, {"-i", headed}}) {
    std::vector<std::string> args = list;
    args.insert(args.end(), {"--chain", "gray", "-y", "-o", dir / "c.mkv"});
    const auto r = runVidfilter(args);
    ASSERT_EQ(r.status, 0) << list.back() << "\n" << r.err;
    EXPECT_EQ(countFrames(dir / "c.mkv"), 8) << list.back();
  }
  // The list's entries are inputs: none is written, wherever the list names them.
  const std::string commented = dir / "commented.txt";
  std::ofstream(commented) << "# parts\nffconcat version 1.0\nfile '" << in << "'\n";
  for (const std::string& list : {plainList, commented}) {
    expectOneError(runVidfilter({"-f", "concat", "-i", list, "--chain", "gray", "-y", "-o", in}), 2,
                   "list entry");
    EXPECT_EQ(countFrames(in), 4);
  }
  std::ofstream(dir / "missing.txt") << "file nothere.mp4\n";
  expectOneError(runVidfilter({"-f", "concat", "-i", dir / "missing.txt", "--chain", "gray", "-o",
                               dir / "m.mkv"}),
                 2, "names a file that does not exist");
  expectOneError(
      runVidfilter({"-f", "rawvideo", "-i", raw, "--chain", "gray", "-o", dir / "s.mkv"}), 2,
      "raw video needs its frame size: give --size");
  // One -f for several inputs would be every input's: ffmpeg's is the next one's.
  expectOneError(runVidfilter({"-i", in, "-f", "concat", "-i", plainList, "--chain", "gray", "-o",
                               dir / "{name}.mkv"}),
                 2, "-f before -i names one input's format");
  // Where -f stood before -i for the output, the unknown output's message says where it goes.
  expectOneError(runVidfilter({"-f", "mp4", "-i", in, "--chain", "gray", "-o", dir / "x.bin"}), 2,
                 "name the container with -f after -i (before -i, -f mp4 names the input's)");
  expectOneError(
      runVidfilter({"-f", "lavfi", "-i", "testsrc2", "--chain", "gray", "-o", dir / "l.mkv"}), 2,
      "is an FFmpeg input device");
  expectOneError(runVidfilter({"-f", "nosuch", "-i", in, "--chain", "gray", "-o", dir / "n.mkv"}),
                 2, "no such demuxer");
  expectOneError(runVidfilter({"-f", "mpegts", "-i", in, "--chain", "gray", "-o", dir / "t.mkv"}),
                 2, "does not read as mpegts");
  EXPECT_FALSE(std::filesystem::exists(dir / "t.mkv"));
}

// ffmpeg's trims, sizes and rates before an -i are that input's alone; vidfilter's apply to every
// input, so among several inputs they are refused before anything is written (a -ss meant for
// the second input would have trimmed the first too).
TEST(AppCliBinary, FfmpegsInputOptionsAmongSeveralInputsAreRefused) {
  TempDir dir("cli_per_input");
  const std::string a = dir / "a.mkv", b = dir / "b.mkv";
  makeClip(a, "testsrc2=size=64x48:rate=10", "-frames:v 10 -c:v ffv1");
  makeClip(b, "testsrc2=size=64x48:rate=10", "-frames:v 10 -c:v ffv1");
  for (const char* opt : {"-ss", "-t", "-to", "-r"}) {
    SCOPED_TRACE(opt);
    expectOneError(
        runVidfilter({"-i", a, opt, "0.5", "-i", b, "--chain", "gray", "-o", dir / "o_{name}.mkv"}),
        2, std::string(opt) + " before -i is one input's in ffmpeg");
    EXPECT_FALSE(std::filesystem::exists(dir / "o_a.mkv"));
  }
  // After the inputs, or with one input, it is every input's, as vidfilter's own.
  const ProcResult r =
      runVidfilter({"-i", a, "-i", b, "-ss", "0.5", "--chain", "gray", "-o", dir / "o_{name}.mkv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "o_a.mkv"), 5);
  EXPECT_EQ(countFrames(dir / "o_b.mkv"), 5);
}

// Options this run has no use for are named in one warning each, the run goes on: a camera's
// mode for a file, the preview's options when no window opens, --drop for a file. From a config
// file they pass silently (a user's standing choices).
TEST(AppCliBinary, OptionsThisRunDoesNotUseAreNamed) {
  TempDir dir("cli_unused");
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "3", "-o", dir / "o.mkv",
                    "--camera-size", "640x480", "--camera-fps", "30", "--window", "800x600",
                    "--compare", "--no-overlay", "--drop", "oldest"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(countFrames(dir / "o.mkv"), 3);
  EXPECT_NE(r.err.find("warning: --camera-size and --camera-fps are for cameras (cam0, cam1, "
                       "...); the input '" +
                       std::string(kVideo) + "' is a file: not used"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("warning: --drop is for live sources"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warning: --window, --compare and --no-overlay are for the preview "
                       "window, which this run does not open"),
            std::string::npos)
      << r.err;
  std::ofstream(dir / "c.toml") << "[preview]\nwindow = \"800x600\"\ncompare = true\n";
  const auto c = runVidfilter({"--config", dir / "c.toml", "-i", kVideo, "--chain", "gray",
                               "--frames", "3", "-y", "-o", dir / "o.mkv"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.err.find("not used"), std::string::npos) << c.err;
}
