#include "app/sources.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

extern "C" {
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
}

#include "app/cv_capture.hpp"
#include "app/media/image_sequence.hpp"
#include "app/media/media_source.hpp"
#include "app/media/pattern.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace fs = std::filesystem;

const char* kindName(SourceKind k) {
  switch (k) {
    case SourceKind::Camera:
      return "camera";
    case SourceKind::File:
      return "file";
    case SourceKind::ImageSequence:
      return "image sequence";
    case SourceKind::Url:
      return "stream";
    case SourceKind::GStreamer:
      return "GStreamer pipeline";
    case SourceKind::Pipe:
      return "pipe";
  }
  return "?";
}

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\n") - a + 1);
}

// Input protocols this FFmpeg reads ("http", "udp", ...), plus the schemes its demuxers take
// themselves (rtsp).
bool isInputProtocol(const std::string& proto) {
  for (const char* p : {"rtsp", "rtsps"})
    if (proto == p) return true;
  void* opaque = nullptr;
  while (const char* name = avio_enum_protocols(&opaque, 0))
    if (proto == name) return proto != "file" && proto != "pipe" && proto != "fd";
  return false;
}

// The element of pipeline `t` just before the '!' at `bang`, trimmed.
std::string elementBefore(const std::string& t, std::size_t bang) {
  const std::size_t prev = bang == 0 ? std::string::npos : t.rfind('!', bang - 1);
  const std::size_t from = prev == std::string::npos ? 0 : prev + 1;
  return trim(t.substr(from, bang - from));
}

// The pipeline with its last element replaced by appsink, through videoconvert (unless the
// element before already is one); one with an appsink before its end, cut after it.
std::string withAppsink(const std::string& t) {
  for (std::size_t from = 0, bang; (bang = t.find('!', from)) != std::string::npos; from = bang + 1)
    if (elementBefore(t, bang).rfind("appsink", 0) == 0) return trim(t.substr(0, bang));
  const std::size_t last = t.rfind('!');
  const std::string head = trim(t.substr(0, last));
  return head + (elementBefore(t, last).rfind("videoconvert", 0) == 0
                     ? " ! appsink"
                     : " ! videoconvert ! appsink");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// OpenCV finds its appsink by the element's name, which must hold "appsink" (or "opencvsink"):
// `appsink name=mysink` was not found, and the pipeline "could not be started". Such a name
// gets "-appsink" after it.
std::string appsinkNamedForOpenCv(const std::string& pipeline) {
  const std::size_t sink = pipeline.rfind('!');
  if (sink == std::string::npos) return pipeline;
  static const std::regex named(R"((^|\s)name=("[^"]*"|[^\s"]+))");
  std::smatch m;
  const std::string last = pipeline.substr(sink);
  if (!std::regex_search(last, m, named)) return pipeline;
  const std::string value = m[2].str();
  if (value.find("appsink") != std::string::npos || value.find("opencvsink") != std::string::npos)
    return pipeline;
  const std::string renamed =
      value.front() == '"' ? value.substr(0, value.size() - 1) + "-appsink\"" : value + "-appsink";
  const std::size_t at = sink + static_cast<std::size_t>(m.position(2));
  return pipeline.substr(0, at) + renamed + pipeline.substr(at + value.size());
}

// Whether `path` gives at least one byte when read.
bool holdsAByte(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char c = 0;
  return static_cast<bool>(f.get(c));
}

}  // namespace

void checkSourceAccess(const SourceSpec& spec) {
  if (spec.kind == SourceKind::ImageSequence) {
    media::listSequence(spec.text);  // throws when nothing matches
    return;
  }
  if (spec.kind == SourceKind::Pipe) {
    if (::isatty(STDIN_FILENO) == 1)
      throw UsageError(
          "-i - reads video from stdin, but stdin is a terminal; pipe a stream in, e.g. "
          "ffmpeg -i in.mp4 -f yuv4mpegpipe - | vidfilter -i - ...");
    return;
  }
  if (spec.kind != SourceKind::File) return;
  const std::string& t = spec.text;
  std::error_code ec;
  if (!fs::exists(t, ec))
    throw UsageError("input file " + quote(t) +
                     " not found; check the path (cameras are cam0, cam1, ...)");
  if (fs::is_directory(t, ec))
    throw UsageError("input " + quote(t) + " is a directory; give a video file");
  if (::access(t.c_str(), R_OK) != 0)
    throw UsageError("input file " + quote(t) + " is not readable (permission denied)");
  // A file that says 0 bytes and reads none (procfs and sysfs files say 0 and hold text).
  if (fs::is_regular_file(t, ec) && fs::file_size(t, ec) == 0 && !ec && !holdsAByte(t))
    throw UsageError("input file " + quote(t) +
                     " is empty (0 bytes): no video in it; check the path or copy it again");
}

std::string gstreamerPipelineAsOpened(const std::string& given, std::string* converted) {
  if (converted) converted->clear();
  const std::string pipeline = appsinkNamedForOpenCv(given);
  const std::size_t sink = pipeline.rfind('!');
  if (sink == std::string::npos) return pipeline;
  const std::string caps = elementBefore(pipeline, sink);
  if (caps.rfind("video/x-raw", 0) != 0) return pipeline;
  const std::size_t f = caps.find("format=");
  if (f == std::string::npos) return pipeline;
  std::string format = caps.substr(f + 7);
  if (format.rfind("(string)", 0) == 0) format = format.substr(8);
  format = trim(format.substr(0, format.find_first_of(", ")));
  static const char* const taken[] = {"BGR", "BGRA", "BGRx", "GRAY8"};
  if (format.empty() || std::find(std::begin(taken), std::end(taken), format) != std::end(taken))
    return pipeline;
  if (converted) *converted = format;
  const bool alpha = format == "RGBA" || format == "ARGB" || format == "ABGR" || format == "AYUV";
  return pipeline.substr(0, sink) +
         "! videoconvert ! video/x-raw,format=" + (alpha ? "BGRA " : "BGR ") +
         pipeline.substr(sink);
}

std::string inputPath(const std::string& text) {
  std::error_code ec;
  if (text == "pipe:" || text == "pipe:0") return "-";
  if (text.rfind("pipe:", 0) == 0 && !fs::exists(text, ec))
    throw UsageError("input " + quote(text) +
                     ": vidfilter reads stdin (pipe:0, or -), no other "
                     "descriptor");
  if (text.rfind("file:", 0) != 0 || text.rfind("file://", 0) == 0 || fs::exists(text, ec))
    return text;
  if (text.size() == 5) throw UsageError("input 'file:' names no file; give file:NAME");
  return text.substr(5);
}

SourceSpec classifySource(const std::string& textIn) {
  SourceSpec s;
  s.text = textIn;
  std::error_code ec;
  // An existing path is a file, whatever it holds ('!', '%', '*', "://").
  if (textIn != "-" && fs::exists(textIn, ec)) return s;
  if (inputPath(textIn) != textIn) return classifySource(inputPath(textIn));
  if (textIn == "-") {
    s.kind = SourceKind::Pipe;
    return s;
  }
  const std::string t = trim(textIn);
  static const std::regex cam("^cam([0-9]{1,3})(:(.*))?$", std::regex::icase);
  std::smatch m;
  if (std::regex_match(t, m, cam)) {
    s.kind = SourceKind::Camera;
    s.cameraIndex = std::stoi(m[1].str());
    std::string why;
    if (m[2].matched) {
      const auto mode = parseCameraSuffix(m[3].str(), &why);
      if (!mode) throw UsageError("input " + quote(t) + ": " + why);
      s.camera = *mode;
    }
    return s;
  }
  const auto scheme = t.find("://");
  const bool url = scheme != std::string::npos && scheme > 0 &&
                   t.find_first_of(" !/") > scheme;  // "a b ! c://" is a pipeline
  if (url) {
    const std::string proto = lower(t.substr(0, scheme));
    if (proto == "file") {  // file:///path is a plain file
      s.text = t.substr(scheme + 3);
      return s;
    }
    if (isInputProtocol(proto)) {
      s.kind = SourceKind::Url;
      return s;
    }
    throw UsageError("input " + quote(t) + ": unsupported protocol " + quote(proto) +
                     "; FFmpeg here reads rtsp, rtmp, http(s), udp, tcp, rtp, srt and more "
                     "(ffmpeg -protocols lists them)");
  }
  if (t.find('!') != std::string::npos) {
    s.kind = SourceKind::GStreamer;
    const std::string last = trim(t.substr(t.rfind('!') + 1));
    if (last.rfind("appsink", 0) != 0)
      throw UsageError("GStreamer pipeline must end in appsink, e.g. '" + withAppsink(t) +
                       "'; it ends in " + quote(last) +
                       " (a file whose "
                       "name holds '!' is read as a file only when it exists)");
    return s;
  }
  if (t.find('%') != std::string::npos) {
    media::PatternProblem problem;
    if (media::parseFramePattern(textIn, &problem)) {
      s.kind = SourceKind::ImageSequence;
      return s;
    }
    if (!problem.what.empty())
      throw UsageError("input " + quote(textIn) +
                       " is not a file, and not a valid image pattern: " + problem.what +
                       " (at column " + std::to_string(problem.column) + ")");
  }
  if (media::isGlob(textIn)) s.kind = SourceKind::ImageSequence;
  return s;
}

void checkInputFormat(const std::string& format, const SourceSpec& spec) {
  if (format.empty()) return;
  static const char* const devices[] = {"lavfi", "v4l2",  "video4linux2", "x11grab",
                                        "alsa",  "pulse", "fbdev",        "kmsgrab"};
  if (std::find(std::begin(devices), std::end(devices), format) != std::end(devices))
    throw UsageError("input format " + quote(format) +
                     " (-f before -i) is an FFmpeg input device, which vidfilter does not open: "
                     "cameras are cam0, cam1, ... or a GStreamer pipeline; pipe anything else "
                     "in from ffmpeg (ffmpeg -f " +
                     format + " -i ... -f yuv4mpegpipe - | vidfilter -i - ...)");
  if (format != "rawvideo" && !av_find_input_format(format.c_str()))
    throw UsageError("input format " + quote(format) +
                     " (-f before -i, --input-format): FFmpeg has no such demuxer (ffmpeg "
                     "-demuxers lists them); without it the input's format is found from its "
                     "bytes");
  // A demuxer is for what FFmpeg reads; image sequences are its image2.
  const bool byOpenCv = spec.kind == SourceKind::Camera || spec.kind == SourceKind::GStreamer;
  if (byOpenCv || (spec.kind == SourceKind::ImageSequence && format != "image2"))
    throw UsageError("input format " + quote(format) + " (-f before -i) does not apply to " +
                     kindName(spec.kind) + " " + quote(spec.text) +
                     (byOpenCv ? ", which OpenCV opens" : ", which is read as images (image2)") +
                     "; leave it out");
}

std::unique_ptr<CaptureSource> openSource(const SourceSpec& spec, const InputOptions& options) {
  switch (spec.kind) {
    case SourceKind::Camera: {
      SourceSpec camera = spec;  // the mode in -i first, the --camera-* options for the rest
      camera.camera = spec.camera.over(options.camera);
      return openCvCapture(camera, options);
    }
    case SourceKind::GStreamer:
      return openCvCapture(spec, options);
    case SourceKind::ImageSequence:
      return std::make_unique<media::ImageSequenceSource>(spec, options);
    case SourceKind::File:
    case SourceKind::Url:
    case SourceKind::Pipe:
      break;
  }
  return std::make_unique<media::MediaSource>(spec, options);
}

}  // namespace vf::app
