#include "app/sources.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <regex>

#include "app/cv_capture.hpp"
#include "app/options.hpp"

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
  }
  return "?";
}

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\n") - a + 1);
}

bool hasPrintfInt(const std::string& s) {
  static const std::regex re("%0?[0-9]*d");
  return std::regex_search(s, re);
}

}  // namespace

void checkSourceAccess(const SourceSpec& spec) {
  if (spec.kind != SourceKind::File) return;
  const std::string& t = spec.text;
  std::error_code ec;
  if (!fs::exists(t, ec))
    throw UsageError("input file '" + t +
                     "' not found; check the path (cameras are cam0, cam1, ...)");
  if (fs::is_directory(t, ec))
    throw UsageError("input '" + t + "' is a directory; give a video file");
  if (::access(t.c_str(), R_OK) != 0)
    throw UsageError("input file '" + t + "' is not readable (permission denied)");
  if (fs::is_regular_file(t, ec) && fs::file_size(t, ec) == 0 && !ec)
    throw UsageError("input file '" + t +
                     "' is empty (0 bytes): no video in it; check the path or copy it again");
}

SourceSpec classifySource(const std::string& textIn) {
  SourceSpec s;
  s.text = textIn;
  const std::string t = trim(textIn);
  static const std::regex cam("^cam([0-9]{1,3})$", std::regex::icase);
  std::smatch m;
  if (std::regex_match(t, m, cam)) {
    s.kind = SourceKind::Camera;
    s.cameraIndex = std::stoi(m[1].str());
    return s;
  }
  if (t.find('!') != std::string::npos) {
    s.kind = SourceKind::GStreamer;
    const std::string last = trim(t.substr(t.rfind('!') + 1));
    if (last.rfind("appsink", 0) != 0)
      throw UsageError("GStreamer pipeline must end in appsink, e.g. '" +
                       trim(t.substr(0, t.rfind('!'))) +
                       " ! videoconvert ! appsink'; it ends in '" + last + "'");
    return s;
  }
  const auto scheme = t.find("://");
  if (scheme != std::string::npos) {
    std::string proto = t.substr(0, scheme);
    for (char& c : proto) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (proto == "file") {  // file:///path is a plain file
      s.text = t.substr(scheme + 3);
      s.kind = SourceKind::File;
      return s;
    }
    static const char* const kProtocols[] = {"rtsp", "rtsps", "rtmp", "http", "https",
                                             "udp",  "tcp",   "rtp",  "srt"};
    for (const char* p : kProtocols)
      if (proto == p) {
        s.kind = SourceKind::Url;
        return s;
      }
    throw UsageError("input '" + t + "': unsupported protocol '" + proto +
                     "'; use rtsp, rtmp, http(s), udp, tcp, rtp or srt");
  }
  std::error_code ec;
  if (hasPrintfInt(t) && !fs::exists(t, ec)) {
    s.kind = SourceKind::ImageSequence;
    return s;
  }
  s.kind = SourceKind::File;
  return s;
}

std::unique_ptr<CaptureSource> openSource(const SourceSpec& spec) { return openCvCapture(spec); }

}  // namespace vf::app
