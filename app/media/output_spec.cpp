#include "app/media/output_spec.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "app/media/av.hpp"
#include "app/media/path_safety.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}
#include "app/options.hpp"
#include "app/std_streams.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace fs = std::filesystem;
using app::UsageError;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* const kImageExtensions[] = {"png", "bmp", "tif", "tiff", "ppm",
                                        "pgm", "pnm", "jpg", "jpeg", "webp"};

}  // namespace

bool isImageExtension(const std::string& ext) {
  return std::find(std::begin(kImageExtensions), std::end(kImageExtensions), ext) !=
         std::end(kImageExtensions);
}

namespace {

// Directory exists, is a directory, and is writable; `what` names the path in messages.
void checkDirectory(const fs::path& file, const std::string& what) {
  fs::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw UsageError("output directory " + quote(dir.string()) +
                     " does not exist; create it first (mkdir -p " + printable(dir.string()) + ")");
  if (!fs::is_directory(dir, ec))
    throw UsageError("output " + what + ": " + quote(dir.string()) + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError("output directory " + quote(dir.string()) + " is not writable (" +
                     whyNotWritable(dir.string()) + ")");
  if (const std::string why = fileNameProblem(file.string()); !why.empty())
    throw UsageError("output " + quote(file.string()) + ": " + why);
  if (fs::exists(file, ec)) {
    if (fs::is_directory(file, ec))
      throw UsageError("output " + quote(file.string()) + " is a directory; give a file name");
    if (::access(file.c_str(), W_OK) != 0)
      throw UsageError("output " + quote(file.string()) + " exists and is not writable (" +
                       whyNotWritable(file.string()) + ")");
  }
}

// The scheme of a URL ("udp" for "udp://host:port"), or "".
std::string schemeOf(const std::string& path) {
  const auto p = path.find("://");
  if (p == std::string::npos || p == 0) return "";
  const std::string s = lower(path.substr(0, p));
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(c) || c == '+'; }) ? s
                                                                                             : "";
}

// The muxer a network output gets without -f (as ffmpeg users pass it: -f mpegts udp://...).
std::string networkMuxer(const std::string& scheme) {
  if (scheme == "rtmp" || scheme == "rtmps") return "flv";
  if (scheme == "rtsp") return "rtsp";
  if (scheme == "rtp") return "rtp_mpegts";
  return "mpegts";  // udp, srt, tcp, ...
}

bool isOutputProtocol(const std::string& scheme) {
  if (scheme == "rtsp") return true;  // a muxer of its own
  void* opaque = nullptr;
  while (const char* name = avio_enum_protocols(&opaque, 1))
    if (scheme == name) return true;
  return false;
}

// Muxers that write more files than the one named (segments, playlists, init segments), under
// names of their own making.
bool writesFilesOfItsOwn(const std::string& muxer) {
  static const std::set<std::string> many = {"segment",   "ssegment", "stream_segment",  "hls",
                                             "hds",       "dash",     "smoothstreaming", "tee",
                                             "webm_chunk"};
  return many.count(muxer) > 0;
}

const AVOutputFormat* findMuxer(const OutputSpec& s, const std::optional<std::string>& format) {
  if (format) {
    const AVOutputFormat* f = av_guess_format(format->c_str(), nullptr, nullptr);
    if (!f || lower(f->name) != lower(*format))
      throw UsageError("-f " + *format +
                       ": no such container (muxer) in this FFmpeg; ffmpeg -muxers lists them");
    return f;
  }
  return av_guess_format(nullptr, s.path.c_str(), nullptr);
}

void classifyImages(OutputSpec& s, const fs::path& p, bool oneImageIn) {
  PatternProblem problem;
  auto pattern = parseFramePattern(s.path, &problem);
  if (!problem.what.empty())
    throw UsageError("output " + quote(s.path) + ": " + problem.what + " (at column " +
                     std::to_string(problem.column) + ")");
  if (!isImageExtension(s.extension))
    throw UsageError("output " + quote(s.path) +
                     ": an image pattern needs an image type (.png, .bmp, "
                     ".tiff, .ppm/.pgm, .jpg, .webp); .png is lossless");
  // One frame, to the name given: a thumbnail (--frames 1), or the one frame of a still image.
  if (!pattern && (s.maxFrames == 1 || oneImageIn)) {
    pattern.emplace();
    pattern->prefix = unescapePercents(s.path);
    pattern->single = true;
  }
  if (!pattern)
    throw UsageError("output " + quote(s.path) +
                     " names a single image: give --frames 1 to write one frame to it, or for "
                     "one image per frame a pattern such as '" +
                     (p.parent_path() / p.stem()).string() + "_%05d." + s.extension + "'");
  if (pattern->suffix.find('/') != std::string::npos)
    throw UsageError("output " + quote(s.path) +
                     ": the frame number must be in the file name, not in a directory name");
  if (pattern->name(1).size() >= 4000)
    throw UsageError("output " + quote(s.path) + ": names too long");
  s.kind = OutputKind::ImageSequence;
  s.muxer = "image2";
  s.pattern = pattern;
  checkDirectory(fs::path(pattern->name(1)), "pattern");
}

void checkEncoder(OutputSpec& s, const AVOutputFormat* f) {
  s.chosen = !s.encoder.codec.empty() || !s.encoder.pixFmt.empty() ||
             (!s.audioCodec.empty() && s.audioCodec != "copy");
  if (s.encoder.codec.empty()) s.encoder.codec = defaultEncoder(f->name, s.path);
  // Audio files whose one picture is their cover (an ID3 or FLAC picture): no place for frames.
  const bool coverOnly = std::strcmp(f->name, "mp3") == 0 || std::strcmp(f->name, "flac") == 0 ||
                         std::strcmp(f->name, "aiff") == 0;
  if (s.encoder.codec.empty() || coverOnly)
    throw UsageError("output " + quote(s.path) + ": the " + f->name + " container takes no video" +
                     (coverOnly ? " (one cover picture at most)" : "") +
                     "; choose another (-f, or the name's extension)");
  const AVCodec* c = avcodec_find_encoder_by_name(s.encoder.codec.c_str());
  if (!c) {
    const AVCodecDescriptor* d = avcodec_descriptor_get_by_name(s.encoder.codec.c_str());
    const AVCodec* byFamily = d ? avcodec_find_encoder(d->id) : nullptr;
    if (byFamily) {
      s.encoder.codec = byFamily->name;
      c = byFamily;
    }
  }
  if (!c || c->type != AVMEDIA_TYPE_VIDEO)
    throw UsageError("--codec " + s.encoder.codec +
                     ": no such video encoder in this FFmpeg (libx264, libx265, libvpx-vp9, "
                     "libsvtav1, ffv1, mpeg4, ...; ffmpeg -encoders lists them)");
  if (queryMuxerCodec(f, c->id) == 0)
    throw UsageError("cannot write " + quote(s.path) + " with codec " + s.encoder.codec + " in a " +
                     f->name + " container; try --codec " + defaultEncoder(f->name, s.path) +
                     (std::strcmp(f->name, "matroska") == 0
                          ? ", or another container"
                          : ", or another container (.mkv takes almost any codec)"));
  if (!s.encoder.pixFmt.empty() && av_get_pix_fmt(s.encoder.pixFmt.c_str()) == AV_PIX_FMT_NONE)
    throw UsageError(
        "--pix-fmt " + s.encoder.pixFmt +
        ": no such pixel format (yuv420p, yuv444p, gray, nv12, ...; ffmpeg -pix_fmts)");
}

}  // namespace

std::string defaultEncoder(const std::string& muxer, const std::string& path) {
  const AVOutputFormat* f = av_guess_format(muxer.c_str(), path.c_str(), nullptr);
  if (!f) return "";
  const AVCodecID id = av_guess_codec(f, nullptr, path.c_str(), nullptr, AVMEDIA_TYPE_VIDEO);
  if (id == AV_CODEC_ID_NONE) return "";
  const AVCodec* c = avcodec_find_encoder(id);
  return c ? c->name : "";
}

std::string outputPath(const std::string& text) {
  if (text == "pipe:" || text == "pipe:1") return "-";
  if (text.rfind("pipe:", 0) == 0)
    throw UsageError("output " + quote(text) +
                     ": vidfilter writes stdout (pipe:1, or -), no other "
                     "descriptor");
  if (text.rfind("file:", 0) != 0 || text.rfind("file://", 0) == 0) return text;
  if (text.size() == 5) throw UsageError("output 'file:' names no file; give file:NAME");
  return text.substr(5);
}

OutputSpec classifyOutput(const OutputRequest& r) {
  OutputSpec s;
  if (!r.path) return s;
  s.path = outputPath(*r.path);
  s.encoder = r.encoder;
  s.audioCodec = r.audioCodec;
  s.audio = r.audio;
  s.maxFrames = r.maxFrames;
  const fs::path p(s.path);
  s.extension = lowerExtension(s.path);
  const std::string scheme = schemeOf(s.path);

  if (s.path == "-") {
    s.toStdout = true;
    s.url = "pipe:1";
    if (app::startedClosed(STDOUT_FILENO))
      throw UsageError(
          "-o - writes video to stdout, but vidfilter was started with stdout closed; "
          "give a file name, or pipe it on: vidfilter ... -o - | ffplay -");
    if (::isatty(STDOUT_FILENO) == 1)
      throw UsageError(
          "-o - writes video to stdout, but stdout is a terminal; pipe it on, e.g. "
          "vidfilter ... -o - | ffplay -");
  } else if (!scheme.empty() && scheme != "file") {
    if (!isOutputProtocol(scheme))
      throw UsageError("output " + quote(s.path) + ": unknown protocol " + quote(scheme) +
                       "; FFmpeg here writes udp, tcp, rtp, rtmp, srt, rtsp and more "
                       "(ffmpeg -protocols lists them)");
    s.network = true;
    s.url = s.path;
  } else {
    if (scheme == "file") s.path = s.path.substr(7);
    s.url = "file:" + s.path;
    // A frame number, or an image type: an image pattern (a name that merely holds a % is a
    // video file's name, as ffmpeg takes it).
    const bool numbered = parseFramePattern(s.path, nullptr).has_value();
    if ((numbered || isImageExtension(s.extension)) && (!r.format || *r.format == "image2")) {
      classifyImages(s, fs::path(s.path), r.oneImageIn);
      if (!r.encoder.codec.empty())
        spdlog::warn("--codec {} is ignored for an image sequence", r.encoder.codec);
      for (const auto& [given, option] : {std::pair{r.encoder.crf.has_value(), "--crf"},
                                          std::pair{r.encoder.bitrate.has_value(), "--bitrate"},
                                          std::pair{!r.encoder.preset.empty(), "--preset"}})
        if (given) spdlog::warn("{} is ignored for an image sequence", option);
      return s;
    }
  }
  const AVOutputFormat* f =
      s.toStdout && !r.format  ? av_guess_format("yuv4mpegpipe", nullptr, nullptr)
      : s.network && !r.format ? av_guess_format(networkMuxer(scheme).c_str(), nullptr, nullptr)
                               : findMuxer(s, r.format);
  if (!f)
    throw UsageError("output " + quote(s.path) +
                     (s.extension.empty() ? std::string(": no extension to tell the container from")
                                          : ": unknown container '." + s.extension + "'") +
                     "; use .mp4, .mkv, .mov, .webm, .avi, an image pattern such as "
                     "out/frame_%05d.png, or name the container with -f" +
                     (r.inputFormat && !r.format
                          ? " after -i (before -i, -f " + *r.inputFormat + " names the input's)"
                          : std::string()));
  if (std::string(f->name) == "image2")
    throw UsageError("output " + quote(s.path) +
                     ": image outputs need a pattern such as "
                     "out/frame_%05d.png");
  s.muxer = f->name;
  if ((!s.network || s.muxer == "tee") && writesFilesOfItsOwn(s.muxer))
    throw UsageError("output " + quote(s.path) + ": the " + s.muxer +
                     " muxer writes files of its own (segments, playlists), named by it, so "
                     "vidfilter cannot keep them off its inputs and existing files; write one "
                     "stream and cut it with ffmpeg, e.g. vidfilter ... -f mpegts -o - | ffmpeg "
                     "-i - -c copy -f " +
                     s.muxer + " " + (s.toStdout ? "OUT" : quote(s.path)));
  s.kind = OutputKind::Video;
  checkEncoder(s, f);
  if (!s.toStdout && !s.network) checkDirectory(p, "file");
  return s;
}

}  // namespace vf::media
