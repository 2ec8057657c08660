#include "app/media/pattern.hpp"

#include <cctype>

namespace vf::media {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The conversion as written, for messages: from the % to its letter ("'%.5s'", "'%3$n'"),
// at most 12 characters, bytes that do not print as \xNN.
std::string quoteConversion(const std::string& text, std::size_t at) {
  static const char hex[] = "0123456789abcdef";
  std::string s = "'";
  for (std::size_t k = at; k < text.size() && k < at + 12; ++k) {
    const auto u = static_cast<unsigned char>(text[k]);
    if (std::isprint(u)) {
      s.push_back(text[k]);
    } else {
      s += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    }
    if (k > at && std::isalpha(u)) break;
  }
  return s + "'";
}

}  // namespace

std::string FramePattern::name(std::int64_t number) const {
  if (single) return prefix;
  std::string digits = std::to_string(number < 0 ? 0 : number);
  if (static_cast<int>(digits.size()) < width)
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return prefix + digits + suffix;
}

std::optional<std::int64_t> FramePattern::match(const std::string& n) const {
  if (single) return n == prefix ? std::optional<std::int64_t>(1) : std::nullopt;
  if (n.size() < prefix.size() + suffix.size() + 1) return std::nullopt;
  if (n.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  if (n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0) return std::nullopt;
  const std::string digits = n.substr(prefix.size(), n.size() - prefix.size() - suffix.size());
  if (digits.size() > 18) return std::nullopt;
  for (char c : digits)
    if (!isDigit(c)) return std::nullopt;
  // name() writes at least `width` digits and no leading zeros beyond them.
  if (static_cast<int>(digits.size()) < width) return std::nullopt;
  if (digits.size() > 1 && static_cast<int>(digits.size()) > width && digits[0] == '0')
    return std::nullopt;
  return std::stoll(digits);
}

std::optional<FramePattern> parseFramePattern(const std::string& text, PatternProblem* problem) {
  FramePattern p;
  bool found = false;
  std::string* out = &p.prefix;
  auto fail = [&](std::size_t at, const std::string& what) -> std::optional<FramePattern> {
    if (problem) *problem = {what, at + 1};
    return std::nullopt;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '%') {
      out->push_back(c);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '%') {
      out->push_back('%');
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    const bool zero = j < text.size() && text[j] == '0';
    if (zero) ++j;
    const std::size_t digitsFrom = j;
    while (j < text.size() && isDigit(text[j])) ++j;
    const std::string widthText = text.substr(digitsFrom, j - digitsFrom);
    if (j >= text.size() || text[j] != 'd') {
      if (j >= text.size()) return fail(i, "a % at the end; write %% for a literal %");
      return fail(i, quoteConversion(text, i) +
                         " is not a frame number; use %d or %05d, and %% for a literal %");
    }
    if (widthText.size() > 2) return fail(i, "the width is more than 10 digits; use at most %010d");
    if (!zero && !widthText.empty())
      return fail(i, "%" + widthText + "d pads with spaces; write %0" + widthText +
                         "d for zero-padded numbers (or %d)");
    if (zero && widthText.empty()) return fail(i, "%0d has no width; write %d or %05d");
    const int width = widthText.empty() ? 0 : std::stoi(widthText);
    if (width < 1 && zero) return fail(i, "the width after %0 must be 1 to 10");
    if (width > kMaxPatternWidth)
      return fail(i, "width " + widthText + " is more than 10 digits; use at most %010d");
    if (found) return fail(i, "a second frame number; a pattern holds exactly one %d");
    found = true;
    p.width = width;
    out = &p.suffix;
    i = j;
  }
  if (!found) {
    if (problem) *problem = {};
    return std::nullopt;
  }
  return p;
}

bool looksLikePattern(const std::string& text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '%') continue;
    if (text[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() &&
           (isDigit(text[j]) || std::string("-+#.*$").find(text[j]) != std::string::npos))
      ++j;
    if (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) return true;
  }
  return false;
}

std::string unescapePercents(const std::string& text) {
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    s.push_back(text[i]);
    if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == '%') ++i;
  }
  return s;
}

}  // namespace vf::media
