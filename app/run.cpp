#include "app/run.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <opencv2/core/utils/logger.hpp>

#include "app/config.hpp"
#include "app/device_set.hpp"
#include "app/display.hpp"
#include "app/feeds.hpp"
#include "app/interrupt.hpp"
#include "app/job_list.hpp"
#include "app/log_pattern.hpp"
#include "app/media/av.hpp"
#include "app/media/muxer.hpp"
#include "app/playback.hpp"
#include "app/preview.hpp"
#include "app/report.hpp"
#include "app/run_jobs.hpp"
#include "app/run_setup.hpp"
#include "app/sinks.hpp"
#include "app/sources.hpp"
#include "app/std_streams.hpp"
#include "app/unused_options.hpp"
#include "app/version.hpp"
#include "app/watcher.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/cl/device.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/registry.hpp"
#include "pipeline/signals_held.hpp"

namespace vf::app {

void setLogLevel(const std::string& level) {
  spdlog::set_level(spdlog::level::from_str(level));
  media::routeLogs();
  namespace cvlog = cv::utils::logging;
  // OpenCV's own warnings ("GStreamer warning: Cannot query video position") are noise to a
  // user; they come back with --log-level debug.
  cvlog::LogLevel cv = cvlog::LOG_LEVEL_ERROR;
  if (level == "debug") cv = cvlog::LOG_LEVEL_WARNING;
  if (level == "trace") cv = cvlog::LOG_LEVEL_DEBUG;
  if (level == "off") cv = cvlog::LOG_LEVEL_SILENT;
  cvlog::setLogLevel(cv);
  // FFmpeg's own lines ("moov atom not found") repeat what our one-line errors say better.
  // OpenCV reads this variable when it first opens a file, which comes after this call.
  static const bool userSet = std::getenv("OPENCV_FFMPEG_LOGLEVEL") != nullptr;
  if (!userSet) {
    const char* av = "8";             // AV_LOG_FATAL
    if (level == "debug") av = "24";  // AV_LOG_WARNING
    if (level == "trace") av = "40";  // AV_LOG_VERBOSE
    if (level == "off") av = "-8";    // AV_LOG_QUIET
    ::setenv("OPENCV_FFMPEG_LOGLEVEL", av, 1);
  }
}

namespace {

int stoppedBeforeTheFirstFrame(int sig) {
  spdlog::warn("stopped by {} before the first frame", signalName(sig));
  return 128 + sig;
}

// The command line over the config file; an input and a chain are required.
Settings resolveSettings(const CommandLine& cl) {
  Settings s = cl.settings;
  // A config file or an input that is a FIFO blocks until someone writes to it; a signal while
  // they open ends the run at once (nothing exists yet that a stop would finish).
  if (!cl.configPath.empty()) {
    auto isStdin = [](const std::string& input) { return inputPath(input) == "-"; };
    auto stdinTaken = [&] {
      return (s.input && isStdin(*s.input)) || s.inputsList == "-" ||
             (s.inputs && std::any_of(s.inputs->begin(), s.inputs->end(), isStdin));
    };
    const bool configOnStdin = cl.configPath == "-" || namesStdinStream(cl.configPath);
    if (stdinTaken() && configOnStdin)
      throw UsageError("--config " + quote(cl.configPath) + " reads stdin, which " +
                       (s.inputsList == "-" ? "--inputs -" : "-i -") +
                       " reads too: a pipe carries one of them; give the config a file");
    s.fillFrom(openOrExitOnSignal([&] { return loadConfigFile(cl.configPath); }));
    // The config read from stdin names stdin as the input: the config took what it carried.
    if (stdinTaken() && configOnStdin)
      throw UsageError("--config " + quote(cl.configPath) + " read stdin, and the " +
                       (s.inputsList == "-" ? "input list" : "input") +
                       " it names is stdin too: a pipe carries one of them; give the config a "
                       "file");
  }
  if (s.progress.value_or(false) && s.quiet.value_or(false))  // one of them from the config
    throw UsageError(std::string(cl.settings.progress ? "--progress" : "progress = true") +
                     " and " + (cl.settings.quiet ? "--quiet" : "quiet = true") +
                     " (no progress line) contradict each other; give one");
  if (s.logLevel) setLogLevel(*s.logLevel);
  if (s.quiet.value_or(false) && !s.logLevel) setLogLevel("warn");
  if (!s.input && !s.inputs && !s.inputsList)
    throw UsageError(
        cl.batch ? std::string("no inputs: vidfilter batch takes a list, --inputs LIST (a path "
                               "or URL a line), or -i SRC repeated")
                 : std::string("no input: give -i SRC (a video file, cam0, a URL, or a GStreamer "
                               "pipeline ending in appsink), --inputs LIST for several, or "
                               "input = \"...\" in a --config file"));
  if (!s.chain)
    throw UsageError(
        "no chain: give --chain, e.g. --chain blur,sobel (vidfilter --list-stages lists the "
        "stages), or chain = \"...\" in a --config file");
  // One input: {name} and {index} in -o and --stats mean what they mean for several.
  if (s.input && !s.inputs && !s.inputsList) {
    if (s.output) s.output = expandJobName(*s.output, *s.input, 0);
    if (s.statsPath) s.statsPath = expandJobName(*s.statsPath, *s.input, 0);
  }
  return s;
}

std::unique_ptr<FrameSink> previewFor(const Settings& s, Engine& engine, const ClContext& ctx,
                                      const std::string& chainText, PlaybackSource& playback,
                                      const CaptureSource& source) {
  PreviewOptions po;
  po.compare = s.compare.value_or(false);
  po.overlay = s.overlay.value_or(true);
  po.deviceName = ctx.info().name;
  po.chainText = chainText;
  if (s.snapshotDir) po.snapshotDir = *s.snapshotDir;
  if (s.title) po.title = *s.title;
  if (s.window) po.window = {parseWindow(*s.window).width, parseWindow(*s.window).height};
  po.exitAtEnd = s.exitAtEnd.value_or(false);
  po.sourceFps = source.fps();
  po.live = source.live();
  po.frameCount = po.live ? -1 : source.frameCount();
  po.fusesByDefault = !ctx.facts().cpu;
  // Non-square pixels (a DVD, an anamorphic recording) are shown in their shape, as players
  // show them; a resize keeps the displayed shape (chainReshape, as the encoder's tag).
  const FrameDesc out = engine.chain().output();
  po.outputSize = {out.width, out.height};
  const PixelShapes shapes = pixelShapes(source, engine.chain());
  po.inputSar = shapes.input;
  po.outputSar = shapes.output;
  return makePreviewSink(engine, po, &playback);
}

// What the run has opened, for the engine's part.
struct Job {
  const Settings& s;
  const OutputSpec& output;
  CaptureSource& source;
  PlaybackSource& playback;  // the source as the preview plays it (paced, seekable)
  FrameSink* outputSink;
  FrameSink* previewSink;
  std::string deviceName;
};

// Runs the engine with the watcher (Ctrl-C, progress line), then the final line and the
// summary on stderr (stdout may carry the video: -o -).
int runEngine(Engine& engine, const Job& job) {
  const Settings& s = job.s;
  const bool quiet = s.quiet.value_or(false), preview = job.previewSink != nullptr;
  TeeSink sink(job.outputSink, job.previewSink);
  Progress base;
  base.inputFps = job.source.fps();
  std::int64_t total = job.source.frameCount();
  if (s.frames) total = total > 0 ? std::min(total, *s.frames) : *s.frames;
  base.total = total;
  // The live progress line only where a person watches it; logs get the final line alone.
  const bool progressLive = !preview && !quiet && s.progress.value_or(::isatty(STDERR_FILENO) == 1);
  // On a terminal, a log line from another thread first wipes the progress line it would
  // otherwise be glued to; the watcher redraws the progress below it.
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  if (progressLive && tty) setLogPattern("\r\033[Kvidfilter: %^%l%$: %*");
  std::exception_ptr error;
  Progress final;
  bool printedLive = false;
  {
    Watcher watcher(engine, sink, base, progressLive, job.output);
    try {
      // Live sources drop the oldest waiting frame when behind, unless --drop never (the
      // default when recording).
      const bool dropNever = s.drop ? *s.drop == "never" : job.outputSink != nullptr;
      WaitingSource waiting(job.playback);
      engine.run(job.source.live() && dropNever ? static_cast<FrameSource&>(waiting)
                                                : static_cast<FrameSource&>(job.playback),
                 sink);
    } catch (...) {
      error = std::current_exception();
    }
    watcher.stopWatching();
    final = watcher.progress();
    printedLive = watcher.printedLive();
  }
  if (progressLive && tty) setLogPattern("vidfilter: %^%l%$: %*");
  if (printedLive)
    std::fprintf(stderr, "\r%s\033[K\n", formatProgress(final).c_str());
  else if (!preview && !quiet)
    std::fprintf(stderr, "%s\n", formatProgress(final).c_str());
  // A pipe's reader that the stop signal ended too (Ctrl-C reaches the whole pipeline): the
  // stop, not a failed write.
  bool readerStopped = false;
  if (error && interruptSignal()) try {
      std::rethrow_exception(error);
    } catch (const media::ReaderGone&) {
      readerStopped = true;
      error = nullptr;
    } catch (...) {
    }
  if (error) std::rethrow_exception(error);  // the output said what it kept
  if (!quiet) std::fprintf(stderr, "%s", formatSummary(engine.stats(), job.deviceName).c_str());
  if (const int sig = interruptSignal()) {
    // A file's container is closed with the frames done (images are each whole, a stream's
    // reader has what was sent).
    const bool file =
        job.output.kind == media::OutputKind::Video && !job.output.toStdout && !job.output.network;
    const std::string kept = readerStopped ? "; the reader of the output stopped too"
                             : file        ? "; " + job.output.path + " is closed and plays"
                                           : "";
    spdlog::warn("stopped by {} after {} frames{}", signalName(sig), final.frames, kept);
    return 128 + sig;
  }
  return kExitOk;
}

// One input, one output (or none), the preview when there is one: everything the user wrote is
// checked before a device or a file is opened.
int runOneInput(const CommandLine& cl, const Settings& s) {
  Chain chain = chainOf(s);
  const OutputSpec output = classifyOutput(s);
  const SourceSpec sourceSpec = classifySource(*s.input);
  checkInputFormat(s.inputFormat.value_or(""), sourceSpec);
  checkSourceAccess(sourceSpec);
  if (s.statsPath) checkStatsPath(*s.statsPath);
  checkPaths(s, cl.configPath, chain, sourceSpec, output);
  const bool preview = decidePreview(s.preview, output.kind != OutputKind::None);
  warnUnusedOptions(cl.settings, {sourceSpec}, preview);

  const std::shared_ptr<ClContext> ctx =
      withStopSignalsHeld([&] { return ClContext::open(s.device.value_or("")); });
  keepSigquitDefault();
  std::unique_ptr<CaptureSource> source;
  InputOptions io = inputOptions(s, chain, preview);
  io.decodeGpu = ctx->info().pciAddresses;
  try {
    source = openOrExitOnSignal([&] { return openSource(sourceSpec, io); });
  } catch (const std::exception&) {
    if (!interruptSignal()) throw;  // a signal ended the open: not an error of the input
  }
  if (const int sig = interruptSignal()) return stoppedBeforeTheFirstFrame(sig);
  spdlog::info("input: {}", source->description());

  // Configured here, so a format mismatch or a kernel that does not build is reported before
  // any output exists, and the output knows the chain's frame size and format.
  chain.configure(*ctx, source->firstFrameDesc());
  const FrameDesc outDesc = chain.output();
  const std::string chainText = chain.str();
  // A kernel file's name is the user's bytes: shown printable, whole.
  spdlog::info("chain: {} ({} -> {})", printable(chainText, chainText.size() + 1),
               source->firstFrameDesc().str(), outDesc.str());
  if (const int sig = interruptSignal()) return stoppedBeforeTheFirstFrame(sig);
  std::unique_ptr<FrameSink> outputSink;
  if (output.kind != OutputKind::None)
    outputSink = openInterruptibly([&] { return openOutput(output, chain, *source); });

  EngineOptions eo;
  eo.slots = s.slots.value_or(2);
  eo.statsPath = s.statsPath.value_or("");
  eo.maxFrames = s.frames.value_or(-1);
  // The preview's overlay shows every frame's stage times; offline, the closing report's stage
  // statistics come from 1 frame in 8 (less host time per frame on fast GPUs), --stats files
  // get every frame (the engine sees to that).
  eo.timingEvery = preview ? 1 : 8;
  Engine engine(ctx, std::move(chain), eo);

  // A file in the preview plays at its own rate, takes seeks and stays open at its end; with an
  // output it runs as fast as the device allows, every frame once, in order.
  const bool player = preview && !outputSink && !source->live();
  PlaybackSource::Options pbo;
  pbo.paceFps = player ? source->fps() : 0;
  pbo.seekable = player;
  PlaybackSource playback(*source, pbo);
  std::unique_ptr<FrameSink> previewSink;
  if (preview) {
    previewSink = previewFor(s, engine, *ctx, chainText, playback, *source);
    if (player && !s.exitAtEnd.value_or(false))
      playback.holdAtEnd([p = previewSink.get(), &engine] {
        return !p->wantsStop() && !interruptSignal() && !engine.failed();
      });
  } else if (output.kind == OutputKind::None) {
    spdlog::info("no output and no preview: frames are processed and discarded (timing run)");
  }
  return runEngine(engine, {s, output, *source, playback, outputSink.get(), previewSink.get(),
                            ctx->info().name});
}

}  // namespace

namespace {
int runResolved(const CommandLine& cl, const Settings& s) {
  if (cl.batch || s.inputs || s.inputsList || s.outputs || s.jsonPath ||
      (s.device && namesSeveralDevices(*s.device)))
    return runJobs(cl, s);
  return runOneInput(cl, s);
}
}  // namespace

int runCommandLine(const CommandLine& cl) {
  // Listings print and exit, each one asked for; a run's options beside them would go unused.
  if (cl.version || cl.listDevices || cl.listStages) {
    const Settings& g = cl.settings;
    if (g.input || g.inputs || g.inputsList || g.output || g.outputs || g.chain)
      throw UsageError(std::string(cl.listStages    ? "--list-stages"
                                   : cl.listDevices ? "--list-devices"
                                                    : "--version") +
                       " prints and exits, and runs nothing: give it without -i, -o and --chain, "
                       "or leave it out to run them");
    if (cl.version) std::cout << versionString() << "\n";
    if (cl.listDevices) std::cout << formatDeviceTable(listDevices());
    if (cl.listStages) std::cout << formatStageList();
    return kExitOk;
  }

  // From here on Ctrl-C asks for a clean stop (a second one quits at once); one that comes
  // before the first frame ends the run before it starts.
  installInterruptHandlers();
  // A write past the file size limit (ulimit -f) fails with EFBIG, which the output reports,
  // instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  const Settings s = resolveSettings(cl);
  try {
    return runResolved(cl, s);
  } catch (const UserError& e) {
    // A value the config file set, named by its option: where the file set it.
    if (const std::string said = s.withOrigin(e.what()); said != e.what()) throw UsageError(said);
    throw;
  }
}

}  // namespace vf::app
