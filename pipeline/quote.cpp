#include "pipeline/quote.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace vf {

namespace {

// One character of the input: its bytes in the input and how it is shown.
struct Piece {
  std::size_t begin = 0, end = 0;  // bytes [begin, end) of the input
  std::string shown;
  std::size_t columns = 0;  // code points of `shown`
};

std::string hexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

std::string codePoint(std::uint32_t cp) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  return buf;
}

// Length of the well-formed UTF-8 sequence at s[i] and its code point, or 0 when the bytes
// there are not UTF-8 (stray continuation, overlong form, surrogate, beyond U+10FFFF, cut).
std::size_t decodeUtf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Characters a terminal would act on or that reorder the text around them (C1 controls, the
// bidirectional embeddings, overrides and isolates), and those that show as an ASCII space or as
// nothing (a no-break space, zero-width spaces and joiners, a soft hyphen, a byte order mark):
// "unknown stage ' blur'" would not say why.
bool invisible(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0xA0 ||
         cp == 0xAD || (cp >= 0x2000 && cp <= 0x200D) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x2060 || cp == 0xFEFF;
}

Piece pieceAt(std::string_view s, std::size_t i) {
  Piece p;
  p.begin = i;
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    p.end = i + 1;
    if (c == '\n')
      p.shown = "\\n";
    else if (c == '\t')
      p.shown = "\\t";
    else if (c == '\r')
      p.shown = "\\r";
    else if (c < 0x20 || c == 0x7F)
      p.shown = hexByte(c);
    else
      p.shown = std::string(1, static_cast<char>(c));
    p.columns = p.shown.size();
    return p;
  }
  std::uint32_t cp = 0;
  const std::size_t n = decodeUtf8(s, i, cp);
  if (n == 0) {
    p.end = i + 1;
    p.shown = hexByte(c);
    p.columns = p.shown.size();
  } else if (invisible(cp)) {
    p.end = i + n;
    p.shown = codePoint(cp);
    p.columns = p.shown.size();
  } else {
    p.end = i + n;
    p.shown = std::string(s.substr(i, n));
    p.columns = 1;
  }
  return p;
}

}  // namespace

namespace {
// The shown form of value's first `limit` bytes (whole characters); `cut` says whether
// anything was left out.
std::string shownPrefix(std::string_view value, std::size_t limit, bool& cut) {
  std::string out;
  std::size_t i = 0;
  while (i < value.size() && i < limit) {
    const Piece p = pieceAt(value, i);
    out += p.shown;
    i = p.end;
  }
  cut = i < value.size();
  return out;
}
std::string sizeNote(std::string_view value) {
  return " (" + std::to_string(value.size()) + " bytes)";
}
}  // namespace

std::string printable(std::string_view value, std::size_t limit) {
  bool cut = false;
  std::string out = shownPrefix(value, limit, cut);
  return cut ? out + "..." + sizeNote(value) : out;
}

std::string quote(std::string_view value, std::size_t limit) {
  bool cut = false;
  std::string out = shownPrefix(value, limit, cut);
  return cut ? "'" + out + "...'" + sizeNote(value) : "'" + out + "'";
}

Excerpt excerptAround(std::string_view line, std::size_t pos, std::size_t len, std::size_t width) {
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i < line.size();) {
    pieces.push_back(pieceAt(line, i));
    i = pieces.back().end;
  }
  pos = std::min(pos, line.size());
  // The first piece of the marked range (the end of the line when it starts there).
  std::size_t first = 0;
  while (first < pieces.size() && pieces[first].end <= pos) ++first;
  // Up to a third of the width before the mark, the rest after it.
  std::size_t lo = first, used = 0;
  while (lo > 0 && used + pieces[lo - 1].columns <= width / 3) used += pieces[--lo].columns;
  std::size_t hi = lo;
  used = 0;
  while (hi < pieces.size() && used + pieces[hi].columns <= width) used += pieces[hi++].columns;
  if (hi == first && first < pieces.size()) ++hi;  // one very wide piece: show it anyway

  Excerpt e;
  std::size_t column = 0;
  if (lo > 0) e.text = "...", column = 3;
  std::size_t caretEnd = 0;
  bool caretSet = false;
  for (std::size_t k = lo; k < hi; ++k) {
    const Piece& p = pieces[k];
    const bool marked = p.end > pos && p.begin < pos + std::max<std::size_t>(len, 1);
    if (marked && !caretSet) e.caretPos = column, caretSet = true;
    e.text += p.shown;
    column += p.columns;
    if (marked) caretEnd = column;
  }
  if (!caretSet) e.caretPos = column;  // the mark is at the end of the line
  e.caretLen = caretSet ? std::max<std::size_t>(caretEnd - e.caretPos, 1) : 1;
  if (hi < pieces.size()) e.text += "...";
  return e;
}

}  // namespace vf
