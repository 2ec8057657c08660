#include "app/toml_guard.hpp"

#include <algorithm>
#include <cstring>

#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

void checkTomlPlusPlusSafe(const std::string& text, const std::string& file) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  std::size_t line = 1, col = 0;
  auto fail = [&](const std::string& what) {
    throw UsageError(printable(file) + ":" + std::to_string(line) + ":" + std::to_string(col) +
                     ": " + what);
  };
  auto nonAscii = [](char c) { return static_cast<unsigned char>(c) >= 0x80; };
  auto oneOf = [](const char* set, char c) { return c != '\0' && std::strchr(set, c); };
  auto run = [&](std::size_t i, char q) {  // length of the run of `q` starting at i
    std::size_t n = 0;
    while (i + n < text.size() && text[i + n] == q) ++n;
    return n;
  };
  std::size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  bool afterLineEndingBackslash = false;
  char prevSig = '\n';       // in code: the last character other than blanks
  bool keyContext = true;    // in code: a key may come here (not a value)
  std::string brackets;      // open [ and { in code
  bool inBareValue = false;  // in code: inside a value that is not a string, array or table
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      col = 0;
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;
      if (in == In::Code) {
        prevSig = '\n';
        inBareValue = false;
        keyContext = brackets.empty();  // a new key, unless inside a multi-line array
      }
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++col;  // columns count code points
    switch (in) {
      case In::Code: {
        if (nonAscii(c))
          fail(
              "a non-ASCII character outside a string or comment (not valid TOML; quote text "
              "as \"...\")");
        const bool blank = c == ' ' || c == '\t' || c == '\r';
        // A bare value (a number, a date, true, or junk) runs to the next blank, ] } , or #:
        // toml++ reads all of it, so a quote or bracket inside it (92'23, 1."x") opens nothing.
        if (inBareValue) {
          if (!blank && !oneOf("]},#", c)) break;
          inBareValue = false;
        }
        if (c == '#') in = In::Comment;
        if (c == '=') keyContext = false;
        if (c == '{' || c == '[') brackets.push_back(c);
        if (c == '{') keyContext = true;
        if ((c == '}' || c == ']') && !brackets.empty()) brackets.pop_back();
        if (c == ',') keyContext = !brackets.empty() && brackets.back() == '{';
        if (c == '"' || c == '\'') {
          // A quote opens a string only where a key or a value starts (after a dot: in a key).
          if (oneOf("=[{,\n", prevSig) || (prevSig == '.' && keyContext)) {
            const bool multi = run(i, c) >= 3;
            in = c == '"' ? (multi ? In::MultiBasic : In::Basic)
                          : (multi ? In::MultiLiteral : In::Literal);
            if (multi) {
              i += 2;
              col += 2;
            }
          }
        } else if (!keyContext && !blank && !oneOf("=[]{},#", c)) {
          inBareValue = true;
        }
        if (!blank) prevSig = c;
        break;
      }
      case In::Comment:
        break;
      case In::Basic:
        if (c == '\\') {
          ++i;  // an escape: the next character is not a quote
          ++col;
        } else if (c == '"') {
          in = In::Code;
        }
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MultiBasic:
        if (afterLineEndingBackslash && c != ' ' && c != '\t' && c != '\r') {
          afterLineEndingBackslash = false;
          if (nonAscii(c))
            fail(
                "a non-ASCII character first after a line-ending backslash in a \"\"\" string is "
                "not supported by the TOML parser here (toml++ 3.3); write it as \\uXXXX");
        }
        if (c == '\\') {
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
          if (j < text.size() && nonAscii(text[j]))
            fail(
                "a backslash before a non-ASCII character in a \"\"\" string (not a valid "
                "escape; write \\\\ for a backslash)");
          if (j < text.size() && text[j] == '\r') ++j;
          if (j < text.size() && text[j] == '\n') {
            afterLineEndingBackslash = true;
          } else {
            ++i;  // an escape: the next character is not a quote
            ++col;
          }
        } else if (c == '"' && run(i, '"') >= 3) {
          // Up to two quotes may stand just inside the closing delimiter.
          const std::size_t n = std::min<std::size_t>(run(i, '"'), 5);
          i += n - 1;
          col += n - 1;
          in = In::Code;
        }
        break;
      case In::MultiLiteral:
        if (c == '\'' && run(i, '\'') >= 3) {
          const std::size_t n = std::min<std::size_t>(run(i, '\''), 5);
          i += n - 1;
          col += n - 1;
          in = In::Code;
        }
        break;
    }
  }
}

}  // namespace vf::app
