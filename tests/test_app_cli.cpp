// The command line in process: parsing, classifying sources and outputs, the text helpers
// (the real binary's error paths: test_app_cli_errors.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "app/option_values.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "app/sinks.hpp"
#include "app/sources.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

// --- parsing ------------------------------------------------------------------------------------

TEST(AppCli, ParsesEveryOption) {
  const CommandLine cl = parseArgs({"-i",
                                    "in.mp4",
                                    "--chain",
                                    "gray,brightness",
                                    "-o",
                                    "out.mkv",
                                    "--device",
                                    "cpu",
                                    "--no-preview",
                                    "--compare",
                                    "--no-overlay",
                                    "--frames",
                                    "12",
                                    "--slots",
                                    "4",
                                    "--threads",
                                    "3",
                                    "--stats",
                                    "s.jsonl",
                                    "--codec",
                                    "FFV1",
                                    "--progress",
                                    "--log-level",
                                    "warn",
                                    "--config",
                                    "c.toml"});
  const Settings& s = cl.settings;
  EXPECT_EQ(s.input.value_or(""), "in.mp4");
  EXPECT_EQ(s.chain.value_or(""), "gray,brightness");
  EXPECT_EQ(s.output.value_or(""), "out.mkv");
  EXPECT_EQ(s.device.value_or(""), "cpu");
  EXPECT_EQ(s.preview, std::optional<bool>(false));
  EXPECT_EQ(s.compare, std::optional<bool>(true));
  EXPECT_EQ(s.overlay, std::optional<bool>(false));
  EXPECT_EQ(s.frames, std::optional<std::int64_t>(12));
  EXPECT_EQ(s.slots, std::optional<int>(4));
  EXPECT_EQ(s.threads, std::optional<int>(3));
  // ffmpeg's spelling before the input: the decoder's threads.
  EXPECT_EQ(parseArgs({"-threads", "2", "-i", "in.mp4"}).settings.threads, std::optional<int>(2));
  EXPECT_EQ(s.statsPath.value_or(""), "s.jsonl");
  EXPECT_EQ(s.codec.value_or(""), "FFV1");
  EXPECT_EQ(s.progress, std::optional<bool>(true));
  EXPECT_EQ(s.logLevel.value_or(""), "warn");
  EXPECT_EQ(cl.configPath, "c.toml");
  EXPECT_FALSE(cl.exitNow);
}

TEST(AppCli, UnsetOptionsStayUnsetSoTheConfigFileCanFillThem) {
  const CommandLine cl = parseArgs({"-i", "cam1"});
  EXPECT_EQ(cl.settings.input.value_or(""), "cam1");
  EXPECT_FALSE(cl.settings.chain);
  EXPECT_FALSE(cl.settings.preview);
  EXPECT_FALSE(cl.settings.frames);
  EXPECT_FALSE(cl.settings.progress);

  Settings file;
  file.input = "from-file.mp4";
  file.chain = "sobel";
  file.slots = 3;
  Settings cli = cl.settings;
  cli.fillFrom(file);
  EXPECT_EQ(cli.input.value_or(""), "cam1");   // the command line wins
  EXPECT_EQ(cli.chain.value_or(""), "sobel");  // the file fills the rest
  EXPECT_EQ(cli.slots, std::optional<int>(3));
}

TEST(AppCli, HelpPrintsExamplesAndExitsNow) {
  std::ostringstream out;
  const CommandLine cl = parseArgs({"--help"}, &out);
  EXPECT_TRUE(cl.exitNow);
  EXPECT_NE(out.str().find("--chain"), std::string::npos);
  EXPECT_NE(out.str().find("Examples:"), std::string::npos);
  EXPECT_NE(out.str().find("vidfilter -i cam0 --chain blur,sobel"), std::string::npos);
}

TEST(AppCli, BadValuesAreUsageErrorsNamingTheOption) {
  EXPECT_EQ(usageError({"--frames", "0"}), "--frames must be a positive number of frames, got 0");
  EXPECT_EQ(usageError({"--frames", "-3"}), "--frames must be a positive number of frames, got -3");
  EXPECT_EQ(usageError({"--frames", "ten"}),
            "--frames: 'ten' is not a whole number; see vidfilter --help");
  EXPECT_NE(usageError({"--slots", "9"}).find("--slots must be in [1, 8]"), std::string::npos);
  EXPECT_NE(usageError({"--threads", "-1"}).find("--threads must be in [0, 256]"),
            std::string::npos);
  EXPECT_NE(usageError({"--codec", "lib x264"}).find("--codec must be a name"), std::string::npos);
  EXPECT_NE(usageError({"--ss", "1:75"}).find("--ss must be a time"), std::string::npos);
  EXPECT_NE(usageError({"-t", "-3"}).find("-t must not be negative"), std::string::npos);
  EXPECT_NE(usageError({"--crf", "99"}).find("--crf must be in [0, 63]"), std::string::npos);
  EXPECT_NE(usageError({"--bitrate", "lots"}).find("--bitrate must be bits per second"),
            std::string::npos);
  EXPECT_NE(usageError({"--bitrate", "11G"}).find("from 1k to 10G"), std::string::npos);
  // A raw frame size FFmpeg would refuse, named as such (not "no video FFmpeg can read").
  EXPECT_NE(usageError({"--size", "16384x16384"})
                .find("--size is larger than FFmpeg reads: (width + 128) x (height + 128) must "
                      "stay under"),
            std::string::npos);
  std::string why;
  EXPECT_EQ(vf::app::parseBitrate("4G", &why), 4000000000) << why;
  EXPECT_EQ(vf::app::parseBitrate("2.5M", &why), 2500000) << why;
  EXPECT_EQ(vf::app::parseBitrate("800k", &why), 800000) << why;
  EXPECT_NE(usageError({"--hwdec", "gpu"}).find("--hwdec must be auto, none, cuvid, cuda or vaapi"),
            std::string::npos);
  EXPECT_NE(usageError({"--input-pix-fmt", "bogus"})
                .find("--input-pix-fmt must be a pixel format of raw frames"),
            std::string::npos);
  EXPECT_NE(usageError({"--input-pix-fmt", "cuda"}).find("got 'cuda'"), std::string::npos);
  EXPECT_NE(usageError({"-y", "-n"}).find("-y and -n contradict"), std::string::npos);
  EXPECT_NE(usageError({"-t", "1", "--to", "2"}).find("give one"), std::string::npos);
  EXPECT_NE(usageError({"-c", "copy"}).find("ffmpeg's codec option"), std::string::npos);
  // Whole numbers are decimal: a leading zero is no octal, 0x no hexadecimal.
  EXPECT_EQ(parseArgs({"-i", "in.mp4", "--frames", "010"}).settings.frames.value_or(0), 10);
  EXPECT_EQ(parseArgs({"-i", "in.mp4", "--slots", "08"}).settings.slots.value_or(0), 8);
  EXPECT_EQ(usageError({"--frames", "0x10"}),
            "--frames: '0x10' is not a decimal whole number; see vidfilter --help");
  // Too large for 64 bits: refused, never saturated to "every frame".
  EXPECT_EQ(usageError({"--frames", "99999999999999999999"}),
            "--frames: '99999999999999999999' is too large; see vidfilter --help");
  EXPECT_EQ(parseArgs({"-i", "in.mp4", "--frames", "000000000000000000000007"})
                .settings.frames.value_or(0),
            7);
  EXPECT_EQ(usageError({"--frames", " 5"}),
            "--frames: ' 5' is not a whole number (spaces around it); see vidfilter --help");
  // An empty value (a script's unset variable) is named, never read as 0 or as "the default".
  EXPECT_EQ(usageError({"--frames", ""}),
            "--frames: the value is empty; give a number; see vidfilter --help");
  for (const char* opt : {"--stats", "--device", "--codec"})
    EXPECT_EQ(usageError({"-i", "in.mp4", opt, ""}),
              std::string(opt) +
                  " is empty; give a value (vidfilter --help says which) or leave the option out");
  // ffmpeg's -q is its quality scale, never "quiet": what to use instead.
  for (const char* q : {"-q", "-q:v", "-qscale:v"})
    EXPECT_NE(usageError({"-i", "in.mp4", q, "3"}).find("fixed quality scale; here"),
              std::string::npos)
        << q;
  // ffmpeg's output size and rate, after the input: what to use instead, not "did you mean --ss".
  EXPECT_EQ(usageError({"-i", "in.mp4", "-s", "640x480"})
                .rfind("-s after the input is ffmpeg's "
                       "output size; here the chain sets "
                       "it: add resize=WxH",
                       0),
            0u);
  EXPECT_NE(usageError({"-i", "in.mp4", "-r", "30"}).find("output frame rate"), std::string::npos);
  EXPECT_NE(usageError({"-i", "in.mp4", "-framerate", "30"}).find("(--rate)"), std::string::npos);
  // Before -i they are that input's, as in ffmpeg: with one input, its own; before a later -i
  // among several, refused (vidfilter's would be every input's).
  const Settings one = parseArgs({"-s", "64x48", "-r", "10", "-i", "b.raw"}).settings;
  EXPECT_EQ(one.size.value_or(""), "64x48");
  EXPECT_EQ(one.rate, std::optional<double>(10));
  EXPECT_EQ(usageError({"-i", "a.mp4", "-s", "64x48", "-r", "10", "-i", "b.raw"})
                .rfind("-s before -i is one input's in ffmpeg", 0),
            0u);
  EXPECT_NE(usageError({"--log-level", "loud"}).find("--log-level must be one of"),
            std::string::npos);
  EXPECT_EQ(usageError({"--bogus"}), "unknown option --bogus; see vidfilter --help");
  EXPECT_NE(usageError({"stray.mp4"}).find("unexpected argument 'stray.mp4'"), std::string::npos);
  // A stray word after an input is named as the output it most likely is; after --, as itself.
  EXPECT_NE(usageError({"-i", "in.mp4", "-vf", "gray", "out.mp4"})
                .find("unexpected argument 'out.mp4' (the output is given as -o OUT)"),
            std::string::npos);
  EXPECT_NE(usageError({"-i", "in.mp4", "--", "o1.mkv"}).find("'o1.mkv' after --"),
            std::string::npos);
  // ffmpeg's -progress and -stats are not vidfilter's --progress and --stats.
  EXPECT_NE(usageError({"-i", "in.mp4", "-progress", "pipe:1"}).find("machine-readable report"),
            std::string::npos);
  EXPECT_NE(usageError({"-i", "in.mp4", "-stats"}).find("with --progress"), std::string::npos);
  EXPECT_EQ(usageError({"-i", "in.mp4", "-loglevel"}).rfind("-loglevel needs a level", 0), 0u);
  EXPECT_NE(usageError({"--preview", "--no-preview"}).find("contradict"), std::string::npos);
  EXPECT_NE(usageError({"--quiet", "--progress"}).find("contradict"), std::string::npos);
  EXPECT_NE(usageError({"-i"}).find("--input"), std::string::npos);
  EXPECT_NE(usageError({"-i", ""}).find("--input is empty"), std::string::npos);
}

// A word of one dash and several letters is never read as one-letter options bundled (ffmpeg's
// -nostdin is not -n -o stdin, -debug not --device ebug); an option's value is taken as written.
TEST(AppCli, SingleDashWordsAreUnknownOptionsNotBundles) {
  for (const char* w : {"-nostdin", "-dn", "-debug", "-yn", "-ofile.mp4"})
    EXPECT_EQ(usageError({"-i", "in.mp4", w})
                  .rfind("unknown option '" + std::string(w) +
                             "': vidfilter's own options take two "
                             "dashes",
                         0),
              0u)
        << w;
  // After a flag too (a flag takes no value: -y -nostdin is not -y -n -o stdin).
  for (const char* flag : {"-y", "--an", "--no-preview", "-n"})
    EXPECT_EQ(usageError({"-i", "in.mp4", flag, "-nostdin"}).rfind("unknown option '-nostdin'", 0),
              0u)
        << flag;
  // A long option typed with one dash: its spelling. After the input, ffmpeg's -threads is the
  // encoder's; before it, the decoder's (translated, ParsesEveryOption).
  EXPECT_EQ(usageError({"-i", "in.mp4", "-threads", "2"}),
            "unknown option '-threads': vidfilter spells it --threads");
  EXPECT_EQ(usageError({"-i", "in.mp4", "-jobs", "2"}),
            "unknown option '-jobs': vidfilter spells it --jobs");
  // Values are not options: a file named -odd.mp4, a negative time (refused for its own reason).
  EXPECT_EQ(parseArgs({"-i", "-odd.mp4", "-o", "-x.mkv"}).settings.input.value_or(""), "-odd.mp4");
  EXPECT_EQ(parseArgs({"--chain", "gray", "-i", "in.mp4"}).settings.chain.value_or(""), "gray");
  EXPECT_NE(usageError({"-i", "in.mp4", "--ss", "-5"}).find("--ss must not be negative"),
            std::string::npos);
  // ffmpeg's -hide_banner: there is no banner; the rest of the line is read as usual.
  const Settings hb = parseArgs({"-hide_banner", "-i", "in.mp4", "-y"}).settings;
  EXPECT_EQ(hb.input.value_or(""), "in.mp4");
  // ffmpeg's -v and -loglevel: its level names as --log-level's; below info, no progress line
  // or summary either (--quiet), as ffmpeg.
  for (const auto& [ffmpegLevel, level] :
       std::vector<std::pair<std::string, std::string>>{{"error", "error"},
                                                        {"warning", "warn"},
                                                        {"quiet", "off"},
                                                        {"verbose", "debug"},
                                                        {"16", "error"},
                                                        {"repeat+level+warning", "warn"}})
    for (const char* spelling : {"-v", "-loglevel"}) {
      const Settings s = parseArgs({spelling, ffmpegLevel, "-i", "in.mp4"}).settings;
      EXPECT_EQ(s.logLevel.value_or(""), level) << spelling << " " << ffmpegLevel;
      EXPECT_EQ(s.quiet.value_or(false), level != "debug") << spelling << " " << ffmpegLevel;
    }
}

// --- sources and outputs, classified before anything opens ------------------------------------

TEST(AppCli, ClassifiesSources) {
  EXPECT_EQ(classifySource("cam0").kind, SourceKind::Camera);
  EXPECT_EQ(classifySource("cam12").cameraIndex, 12);
  EXPECT_EQ(classifySource("rtsp://host:8554/live").kind, SourceKind::Url);
  EXPECT_EQ(classifySource("udp://127.0.0.1:5000").kind, SourceKind::Url);
  EXPECT_EQ(classifySource("http://example.com/a.mp4").kind, SourceKind::Url);
  EXPECT_EQ(classifySource("videotestsrc ! videoconvert ! appsink").kind, SourceKind::GStreamer);
  EXPECT_EQ(classifySource("videotestsrc ! appsink drop=true").kind, SourceKind::GStreamer);
  EXPECT_EQ(classifySource("dir/img_%04d.png").kind, SourceKind::ImageSequence);
  EXPECT_EQ(classifySource("movie.mp4").kind, SourceKind::File);
  EXPECT_EQ(classifySource("camera.mp4").kind, SourceKind::File);
  const SourceSpec f = classifySource("file:///tmp/x.mp4");
  EXPECT_EQ(f.kind, SourceKind::File);
  EXPECT_EQ(f.text, "/tmp/x.mp4");
  EXPECT_THROW(classifySource("videotestsrc ! videoconvert"), UsageError);
  try {  // the fix it names has one videoconvert
    classifySource("videotestsrc ! videoconvert ! fakesink");
    ADD_FAILURE() << "fakesink taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("e.g. 'videotestsrc ! videoconvert ! appsink'"),
              std::string::npos)
        << e.what();
  }
  // Caps asking appsink for a raw format it does not hand over as it is: converted before it.
  std::string converted;
  EXPECT_EQ(gstreamerPipelineAsOpened("src ! video/x-raw,width=8,height=8,format=I420 ! appsink",
                                      &converted),
            "src ! video/x-raw,width=8,height=8,format=I420 ! videoconvert ! "
            "video/x-raw,format=BGR ! appsink");
  EXPECT_EQ(converted, "I420");
  EXPECT_EQ(gstreamerPipelineAsOpened("src ! video/x-raw,format=(string)RGBA ! appsink drop=1",
                                      &converted),
            "src ! video/x-raw,format=(string)RGBA ! videoconvert ! video/x-raw,format=BGRA ! "
            "appsink drop=1");
  for (const char* same : {"src ! video/x-raw,format=BGR ! appsink",
                           "src ! video/x-raw,format=GRAY8,width=4 ! appsink",
                           "src ! videoconvert ! appsink", "src ! video/x-raw,width=4 ! appsink"}) {
    EXPECT_EQ(gstreamerPipelineAsOpened(same, &converted), same);
    EXPECT_EQ(converted, "");
  }
  // OpenCV finds its appsink by a name holding "appsink": other names get it after them.
  EXPECT_EQ(gstreamerPipelineAsOpened("src ! appsink name=mysink drop=1", nullptr),
            "src ! appsink name=mysink-appsink drop=1");
  EXPECT_EQ(gstreamerPipelineAsOpened("src ! appsink name=\"my sink\"", nullptr),
            "src ! appsink name=\"my sink-appsink\"");
  EXPECT_EQ(gstreamerPipelineAsOpened("src name=a ! appsink name=s1_appsink", nullptr),
            "src name=a ! appsink name=s1_appsink");
  EXPECT_EQ(gstreamerPipelineAsOpened("src ! video/x-raw,format=I420 ! appsink name=x", nullptr),
            "src ! video/x-raw,format=I420 ! videoconvert ! video/x-raw,format=BGR ! appsink "
            "name=x-appsink");
  EXPECT_THROW(classifySource("nosuchprotocol://x"), UsageError);
  EXPECT_EQ(classifySource("-").kind, SourceKind::Pipe);
  EXPECT_EQ(classifySource("shots/*.png").kind, SourceKind::ImageSequence);
  EXPECT_THROW(classifySource("x_%s.png"), UsageError);  // not a file, not a valid pattern
}

OutputSpec classify(const std::optional<std::string>& path,
                    const std::optional<std::string>& codec = std::nullopt,
                    const std::optional<std::string>& format = std::nullopt) {
  Settings s;
  s.output = path;
  s.codec = codec;
  s.format = format;
  return classifyOutput(s);
}

TEST(AppCli, ClassifiesOutputsAndPicksEncodersAsFfmpeg) {
  TempDir dir("cli_out");
  EXPECT_EQ(classify(std::nullopt).kind, OutputKind::None);
  const OutputSpec mp4 = classify(dir / "a.mp4");
  EXPECT_EQ(mp4.kind, OutputKind::Video);
  EXPECT_EQ(mp4.muxer, "mp4");
  EXPECT_EQ(mp4.encoder.codec, "libx264");  // ffmpeg's default for .mp4, .mkv and .mov
  EXPECT_EQ(classify(dir / "a.MKV").encoder.codec, "libx264");
  EXPECT_EQ(classify(dir / "a.mov").encoder.codec, "libx264");
  EXPECT_EQ(classify(dir / "a.webm").encoder.codec, "libvpx-vp9");
  EXPECT_EQ(classify(dir / "a.avi").encoder.codec, "mpeg4");
  EXPECT_EQ(classify(dir / "a.mp4", std::string("libx265")).encoder.codec, "libx265");
  EXPECT_EQ(classify(dir / "a.mp4", std::string("hevc")).encoder.codec, "libx265");
  EXPECT_EQ(classify(dir / "a.bin", std::nullopt, std::string("matroska")).muxer, "matroska");
  const OutputSpec seq = classify(dir / "f_%05d.png");
  EXPECT_EQ(seq.kind, OutputKind::ImageSequence);
  EXPECT_EQ(sequenceFileName(seq.path, 0), dir / "f_00001.png");
  EXPECT_EQ(sequenceFileName(dir / "100%%_%d.png", 41), dir / "100%_42.png");

  auto message = [&](const std::string& path,
                     const std::optional<std::string>& codec = std::nullopt) -> std::string {
    try {
      classify(path, codec);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(message(dir / "a.xyz").find("unknown container '.xyz'"), std::string::npos);
  EXPECT_NE(message(dir / "noext")
                .find("'" + (dir / "noext") + "': no extension to tell the container from"),
            std::string::npos);
  EXPECT_NE(message(dir / "missing/a.mp4").find("does not exist; create it first"),
            std::string::npos);
  EXPECT_NE(message(dir / "one.png").find("names a single image"), std::string::npos);
  EXPECT_NE(message(dir / "f_%05d_%d.png").find("a second frame number"), std::string::npos);
  EXPECT_NE(message(dir / "f_%s.png").find("'%s' is not a frame number"), std::string::npos);
  EXPECT_NE(message(dir / "f_%05d.mp4").find("image pattern needs an image type"),
            std::string::npos);
  EXPECT_NE(message(dir / "a.mp4", std::string("nosuchcodec")).find("no such video encoder"),
            std::string::npos);
  EXPECT_NE(message(dir / "a.mp4", std::string("ffv1")).find("cannot write"), std::string::npos);
  EXPECT_NE(message(dir.path().string()).find("or name the container with -f"), std::string::npos);
  // Muxers that name files of their own (segments, playlists) are refused, by -f or by name.
  for (const auto& [name, format] :
       {std::pair<std::string, std::optional<std::string>>{"seg%d.mkv", "segment"},
        {"out.m3u8", std::nullopt},
        {"out.m3u8", "hls"},
        {"out.mpd", std::nullopt},
        {"out.mkv", "dash"},
        {"out.mkv", "tee"}}) {
    std::string why = "(no error)";
    try {
      classify(dir / name, std::nullopt, format);
    } catch (const UsageError& e) {
      why = e.what();
    }
    EXPECT_NE(why.find("writes files of its own"), std::string::npos) << name << ": " << why;
  }
  EXPECT_EQ(classify(dir / "a.ts", std::nullopt, std::string("mpegts")).muxer, "mpegts");
}

// --- progress line and summary -------------------------------------------------------------------

TEST(AppCli, FormatsDurations) {
  EXPECT_EQ(formatDuration(0.77), "0:00:00.77");
  EXPECT_EQ(formatDuration(3723.456, 1), "1:02:03.5");
  EXPECT_EQ(formatDuration(59.999, 2), "0:01:00.00");
  EXPECT_EQ(formatDuration(-1), "0:00:00.00");
}

TEST(AppCli, FormatsTheProgressLineLikeFFmpeg) {
  Progress p;
  p.frames = 240;
  p.total = 800;
  p.elapsedSec = 0.75;
  p.inputFps = 25;
  EXPECT_EQ(formatProgress(p),
            "frame=  240 fps=320 speed=12.8x elapsed=0:00:00.75 eta=0:00:01.8  30%");
  p.total = -1;  // live: no eta, no percentage
  p.inputFps = 0;
  p.dropped = 7;
  EXPECT_EQ(formatProgress(p), "frame=  240 fps=320 drop=7 elapsed=0:00:00.75");
}

TEST(AppCli, SummaryListsEveryStageAndTheCounts) {
  EngineStats st;
  st.stageNames = {"blur", "sobel"};
  st.stageMs = {{1.5, 1.25, 3.0}, {0.5, 0.5, 0.75}};
  st.uploadMs = {0.25, 0.2, 0.5};
  st.framesIn = 100;
  st.framesOut = 98;
  st.dropped = 2;
  st.fps = 60;
  st.elapsedSec = 2.0;
  const std::string s = formatSummary(st, "TestDevice");
  EXPECT_NE(s.find("1 blur                   1.500     1.250     3.000"), std::string::npos) << s;
  EXPECT_NE(s.find("2 sobel                  0.500     0.500     0.750"), std::string::npos) << s;
  EXPECT_NE(s.find("chain (sum of means)     2.000"), std::string::npos) << s;
  EXPECT_NE(s.find("upload                   0.250"), std::string::npos) << s;
  // A stage that enqueued nothing (gray of a decoder's luma plane) is said to, not timed at 0.
  st.stageNames = {"gray", "sobel"};
  st.stageMs = {{0, 0, 0}, {0.5, 0.5, 0.75}};
  const std::string g = formatSummary(st, "TestDevice");
  EXPECT_NE(g.find("1 gray                       -  no device work"), std::string::npos) << g;
  EXPECT_NE(g.find("chain (sum of means)     0.500"), std::string::npos) << g;
  EXPECT_NE(
      s.find("frames: 100 in, 98 out, 2 dropped; 49.0 fps average (60.0 recent) over 2.00 s on "
             "TestDevice"),
      std::string::npos)
      << s;
}
