#include "app/toml_guard.hpp"

#include <algorithm>
#include <cstring>

#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

bool nonAscii(char c) { return static_cast<unsigned char>(c) >= 0x80; }
bool oneOf(const char* set, char c) { return c != '\0' && std::strchr(set, c); }

// One pass over the text, character by character, knowing whether it is in code, a comment or
// one of the four kinds of string.
class Scanner {
 public:
  Scanner(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  void scan() {
    i_ = text_.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
    for (; i_ < text_.size(); ++i_) {
      const char c = text_[i_];
      if (c == '\n') {
        newline();
        continue;
      }
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++col_;  // columns count code points
      switch (in_) {
        case In::Code:
          code(c);
          break;
        case In::Comment:
          break;
        case In::Basic:
          if (c == '\\') {
            skipEscaped();
          } else if (c == '"') {
            in_ = In::Code;
          }
          break;
        case In::Literal:
          if (c == '\'') in_ = In::Code;
          break;
        case In::MultiBasic:
          multiBasic(c);
          break;
        case In::MultiLiteral:
          if (c == '\'' && run(i_, '\'') >= 3) closeMulti('\'');
          break;
      }
    }
  }

 private:
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral };

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(printable(file_) + ":" + std::to_string(line_) + ":" + std::to_string(col_) +
                     ": " + what);
  }

  // Length of the run of `q` starting at i.
  std::size_t run(std::size_t i, char q) const {
    std::size_t n = 0;
    while (i + n < text_.size() && text_[i + n] == q) ++n;
    return n;
  }

  void skipEscaped() {  // an escape: the next character is not a quote
    ++i_;
    ++col_;
  }

  void newline() {
    ++line_;
    col_ = 0;
    if (in_ == In::Comment || in_ == In::Basic || in_ == In::Literal) in_ = In::Code;
    if (in_ == In::Code) {
      prevSig_ = '\n';
      inBareValue_ = false;
      keyContext_ = brackets_.empty();  // a new key, unless inside a multi-line array
    }
  }

  void code(char c) {
    if (nonAscii(c))
      fail(
          "a non-ASCII character outside a string or comment (not valid TOML; quote text "
          "as \"...\")");
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    // A bare value (a number, a date, true, or junk) runs to the next blank, ] } , or #:
    // toml++ reads all of it, so a quote or bracket inside it (92'23, 1."x") opens nothing.
    if (inBareValue_) {
      if (!blank && !oneOf("]},#", c)) return;
      inBareValue_ = false;
    }
    if (c == '#') in_ = In::Comment;
    if (c == '=') keyContext_ = false;
    if (c == '{' || c == '[') brackets_.push_back(c);
    if (c == '{') keyContext_ = true;
    if ((c == '}' || c == ']') && !brackets_.empty()) brackets_.pop_back();
    if (c == ',') keyContext_ = !brackets_.empty() && brackets_.back() == '{';
    if (c == '"' || c == '\'') {
      // A quote opens a string only where a key or a value starts (after a dot: in a key).
      if (oneOf("=[{,\n", prevSig_) || (prevSig_ == '.' && keyContext_)) openString(c);
    } else if (!keyContext_ && !blank && !oneOf("=[]{},#", c)) {
      inBareValue_ = true;
    }
    if (!blank) prevSig_ = c;
  }

  void openString(char q) {
    const bool multi = run(i_, q) >= 3;
    in_ =
        q == '"' ? (multi ? In::MultiBasic : In::Basic) : (multi ? In::MultiLiteral : In::Literal);
    if (multi) {
      i_ += 2;
      col_ += 2;
    }
  }

  // Up to two quotes may stand just inside the closing delimiter.
  void closeMulti(char q) {
    const std::size_t n = std::min<std::size_t>(run(i_, q), 5);
    i_ += n - 1;
    col_ += n - 1;
    in_ = In::Code;
  }

  void multiBasic(char c) {
    if (afterLineEndingBackslash_ && c != ' ' && c != '\t' && c != '\r') {
      afterLineEndingBackslash_ = false;
      if (nonAscii(c))
        fail(
            "a non-ASCII character first after a line-ending backslash in a \"\"\" string is "
            "not supported by the TOML parser here (toml++ 3.3); write it as \\uXXXX");
    }
    if (c == '\\') {
      std::size_t j = i_ + 1;
      while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
      if (j < text_.size() && nonAscii(text_[j]))
        fail(
            "a backslash before a non-ASCII character in a \"\"\" string (not a valid "
            "escape; write \\\\ for a backslash)");
      if (j < text_.size() && text_[j] == '\r') ++j;
      if (j < text_.size() && text_[j] == '\n')
        afterLineEndingBackslash_ = true;
      else
        skipEscaped();
    } else if (c == '"' && run(i_, '"') >= 3) {
      closeMulti('"');
    }
  }

  const std::string& text_;
  const std::string& file_;
  In in_ = In::Code;
  std::size_t i_ = 0, line_ = 1, col_ = 0;
  bool afterLineEndingBackslash_ = false;
  char prevSig_ = '\n';       // in code: the last character other than blanks
  bool keyContext_ = true;    // in code: a key may come here (not a value)
  std::string brackets_;      // open [ and { in code
  bool inBareValue_ = false;  // in code: inside a value that is not a string, array or table
};

}  // namespace

void checkTomlPlusPlusSafe(const std::string& text, const std::string& file) {
  Scanner(text, file).scan();
}

}  // namespace vf::app
