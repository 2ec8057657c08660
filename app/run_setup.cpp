#include "app/run_setup.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/gst_diagnose.hpp"
#include "app/media/frame_convert.hpp"
#include "app/media/image_sequence.hpp"
#include "app/media/listed_files.hpp"
#include "app/media/path_safety.hpp"
#include "app/media/pattern.hpp"
#include "pipeline/fault_injection.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

void checkPaths(const Settings& s, const std::string& configPath, const Chain& chain,
                const SourceSpec& src, const OutputSpec& out) {
  media::PathGuard g;
  if (!configPath.empty()) g.reads(configPath, "the config file");
  for (const std::string& f : chain.filesRead()) g.reads(f, "a kernel file");
  guardSourceReads(g, src, "the input", s.inputFormat.value_or("") == "concat");
  const bool oneFile = out.kind == OutputKind::Video || (out.pattern && out.pattern->single);
  if (oneFile && !out.toStdout && !out.network) g.writes(out.path, "the output");
  if (out.toStdout) g.writesStdout();
  if (out.kind == OutputKind::ImageSequence && !out.pattern->single)
    g.writesPattern(out.path, *out.pattern, "the output pattern");
  if (s.statsPath) g.writes(*s.statsPath, "--stats");
  const media::Overwrite policy = !s.overwrite   ? media::Overwrite::Ask
                                  : *s.overwrite ? media::Overwrite::Always
                                                 : media::Overwrite::Never;
  const bool canAsk = ::isatty(STDIN_FILENO) == 1 && src.kind != SourceKind::Pipe;
  g.checkOverwrite(policy, canAsk);
}

namespace fs = std::filesystem;

namespace {

// Every file that frame-number pattern `text` names now, whatever its first number (multifilesrc
// starts where its start-index says); none when `text` is no pattern.
std::vector<std::string> patternMembers(const std::string& text) {
  const auto pattern = media::parseFramePattern(text, nullptr);
  if (!pattern) return {};
  const fs::path parent = fs::path(text).parent_path();
  std::vector<std::string> members;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent.empty() ? fs::path(".") : parent, ec)) {
    const std::string name =
        parent.empty() ? e.path().filename().string() : (parent / e.path().filename()).string();
    if (pattern->match(name)) members.push_back(name);
  }
  return members;
}

}  // namespace

void guardFileReads(media::PathGuard& g, const std::string& path, const std::string& role,
                    bool concat) {
  g.reads(path, role);
  for (const std::string& m : media::filesListedBy(path, concat))
    g.reads(m, role + "'s list entry");
}

void guardSourceReads(media::PathGuard& g, const SourceSpec& src, const std::string& role,
                      bool concat) {
  switch (src.kind) {
    case SourceKind::File:
      guardFileReads(g, src.text, role, concat);
      break;
    case SourceKind::Pipe:
      g.readsStdin();
      break;
    case SourceKind::ImageSequence:
      for (const std::string& m : media::listSequence(src.text)) g.reads(m, role + " image");
      break;
    case SourceKind::GStreamer:
      for (const GstFileRead& f : gstreamerFilesRead(src.text)) {
        g.reads(f.location, role + "'s file");  // the name itself, whatever it holds
        if (f.kind == GstFileRead::Kind::FramePattern)
          for (const std::string& m : patternMembers(f.location)) g.reads(m, role + "'s file");
        if (f.kind == GstFileRead::Kind::Glob && media::isGlob(f.location)) {
          try {
            for (const std::string& m : media::listSequence(f.location))
              g.reads(m, role + "'s file");
          } catch (const UsageError&) {  // no file matches the glob: none to protect
          }
        }
      }
      break;
    default:
      break;
  }
}

void checkStatsPath(const std::string& path, const std::string& option) {
  if (path == "-")
    throw UsageError(option +
                     " -: the per-frame statistics go to a file; give a file name (--json - "
                     "prints the run's summary on stdout)");
  media::checkWritablePath(path, option);
}

Chain chainOf(const Settings& s) {
  Chain c = Chain::parse(*s.chain);
  c.setFusion(!s.fuse ? Chain::Fusion::Auto : *s.fuse ? Chain::Fusion::On : Chain::Fusion::Off);
  injectFaultsFromEnvironment(c);
  return c;
}

InputOptions inputOptions(const Settings& s, const Chain& chain, bool preview) {
  InputOptions o;
  o.start = s.start.value_or(0);
  if (s.to) o.end = *s.to;
  if (s.duration) o.end = o.start + *s.duration;
  if (s.duration && *s.duration <= 0)
    throw UsageError(
        fmt::format("-t {:g} s: nothing to process; give a duration above 0", *s.duration));
  if (o.end && *o.end <= o.start)
    throw UsageError(
        fmt::format("--to {:g} s is not after --ss {:g} s: nothing to process", *o.end, o.start));
  o.rate = s.rate.value_or(0);
  o.rawSize = s.size.value_or("");
  o.rawPixFmt = s.inputPixFmt.value_or("");
  o.format = s.inputFormat.value_or("");
  o.hwdec = s.hwdec.value_or("none");
  o.decodeThreads = s.threads.value_or(0);
  o.convertThreads = media::convertThreadsEach(1, s.threads.value_or(0));
  o.grayLuma = !preview && chain.size() > 0 && chain.stage(0).name() == "gray";
  o.camera = cameraModeOf(s);
  return o;
}

}  // namespace vf::app
