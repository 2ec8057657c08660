#include "app/option_values.hpp"

#include "pipeline/quote.hpp"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <vector>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace vf::app {

namespace {

// A non-negative decimal number that fills `s` entirely.
std::optional<double> number(const std::string& s) {
  if (s.empty() || s.size() > 32) return std::nullopt;
  bool dot = false, digit = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else {
      return std::nullopt;
    }
  }
  if (!digit) return std::nullopt;
  return std::strtod(s.c_str(), nullptr);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back().push_back(c);
  }
  return parts;
}

// The seconds `text` gives ("90", "1:30", "1500ms"), or nothing when it is no time.
std::optional<double> timeOf(const std::string& text) {
  if (text.find(':') != std::string::npos) {
    const auto parts = split(text, ':');
    if (parts.size() > 3) return std::nullopt;
    double total = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const auto v = number(parts[i]);
      const bool last = i + 1 == parts.size();
      if (!v || (!last && parts[i].find('.') != std::string::npos) || (i > 0 && *v >= 60))
        return std::nullopt;
      total = total * 60 + *v;
    }
    return total;
  }
  std::string digits = text;
  double scale = 1;
  for (const auto& [suffix, s] :
       {std::pair<const char*, double>{"ms", 1e-3}, {"us", 1e-6}, {"s", 1.0}}) {
    const std::string suf = suffix;
    if (digits.size() > suf.size() &&
        digits.compare(digits.size() - suf.size(), suf.size(), suf) == 0) {
      digits.resize(digits.size() - suf.size());
      scale = s;
      break;
    }
  }
  const auto v = number(digits);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return *v * scale;
}

}  // namespace

std::optional<double> parseTime(const std::string& text, std::string* why) {
  if (!text.empty() && text[0] == '-') {
    *why = "must not be negative; got " + quote(text);
    return std::nullopt;
  }
  const auto t = timeOf(text);
  if (!t) {
    *why =
        "must be a time such as 90, 1:30, 0:01:30.5 or 1500ms (seconds, or [HH:]MM:SS[.m]); "
        "got " +
        quote(text);
    return std::nullopt;
  }
  // Times are counted in microseconds from the input's start: far past any video's length,
  // well within what they can count.
  if (*t > kMaxTimeSeconds) {
    *why = "is out of range: a time is at most " +
           std::to_string(static_cast<long long>(kMaxTimeSeconds)) + " s (about 31 years); got " +
           quote(text);
    return std::nullopt;
  }
  return t;
}

std::optional<std::int64_t> parseBitrate(const std::string& text, std::string* why) {
  std::string digits = text;
  double scale = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1e3;
  if (!digits.empty() && (digits.back() == 'M' || digits.back() == 'm')) scale = 1e6;
  if (!digits.empty() && (digits.back() == 'G' || digits.back() == 'g')) scale = 1e9;
  if (scale != 1) digits.pop_back();
  const auto v = number(digits);
  const double bits = v ? *v * scale : 0;
  if (!v || bits < 1000 || bits > 1e10) {
    *why = "must be bits per second from 1k to 10G, such as 2M, 800k or 1500000; got " +
           quote(text) + "";
    return std::nullopt;
  }
  return static_cast<std::int64_t>(std::llround(bits));
}

std::optional<double> parseRate(const std::string& text, std::string* why) {
  const auto slash = text.find('/');
  std::optional<double> v;
  if (slash == std::string::npos) {
    v = number(text);
  } else {
    const auto n = number(text.substr(0, slash)), d = number(text.substr(slash + 1));
    if (n && d && *d > 0) v = *n / *d;
  }
  if (!v || !(*v >= 0.001 && *v <= 1000)) {
    *why = "must be frames per second in [0.001, 1000], such as 25, 29.97 or 30000/1001; got " +
           quote(text);
    return std::nullopt;
  }
  return v;
}

bool checkSize(const std::string& text, std::string* why) {
  const auto x = text.find('x');
  const auto w = x == std::string::npos ? std::nullopt : number(text.substr(0, x));
  const auto h = x == std::string::npos ? std::nullopt : number(text.substr(x + 1));
  const bool ok = w && h && text.find('.') == std::string::npos && *w >= 1 && *h >= 1 &&
                  *w <= 16384 && *h <= 16384;
  if (!ok) {
    *why = "must be WxH with each side in [1, 16384], such as 1920x1080; got " + quote(text);
    return false;
  }
  // FFmpeg reads no frame of more pixels than this (av_image_check_size).
  if (av_image_check_size(static_cast<unsigned>(*w), static_cast<unsigned>(*h), 0, nullptr) < 0) {
    *why = "is larger than FFmpeg reads: (width + 128) x (height + 128) must stay under " +
           std::to_string(INT_MAX / 8) + " (16384x16000 fits); got " + quote(text);
    return false;
  }
  return true;
}

std::string checkInputPixFmt(const std::string& v) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(av_get_pix_fmt(v.c_str()));
  if (d && !(d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM))) return "";
  return "must be a pixel format of raw frames (yuv420p, nv12, gray, rgb24, bgr24, ...; ffmpeg "
         "-pix_fmts lists them); got " +
         quote(v);
}

std::string checkDrop(const std::string& v) {
  if (v == "never" || v == "oldest") return "";
  return "must be never (every frame is processed, the source waits) or oldest (a live source "
         "drops its oldest waiting frame when the device falls behind); got " +
         quote(v);
}

std::string checkName(const std::string& v) {
  bool ok = !v.empty() && v.size() <= 64;
  for (char c : v)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
  if (!ok) return "must be a name of letters, digits, '_', '-' or '.'; got " + quote(v);
  return "";
}

}  // namespace vf::app
