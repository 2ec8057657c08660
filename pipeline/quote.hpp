#pragma once
// Echoing what a user wrote inside an error message. A value can hold anything: terminal
// control sequences (an ESC that recolours or clears the screen), invalid UTF-8, or 300 KB of
// text. Every message that repeats a user's value (option, path, chain, config key or value)
// goes through quote() or printable(), so stderr stays one readable line.
#include <cstddef>
#include <string>
#include <string_view>

namespace vf {

// Longest part of a value echoed in a message, in bytes of the original.
inline constexpr std::size_t kEchoLimit = 160;

// `value` made safe to print: control characters as \n \t \r \xNN, C1 controls and the
// bidirectional overrides as \uNNNN, bytes that are not UTF-8 as \xNN; a value longer than
// `limit` bytes is cut (at a character boundary) and ends in "... (N bytes)".
std::string printable(std::string_view value, std::size_t limit = kEchoLimit);

// printable() in single quotes: 'value', or 'the first part...' (300000 bytes).
std::string quote(std::string_view value, std::size_t limit = kEchoLimit);

// For a caret under part of a long line (the chain in a chain error): the part of `line`
// around [pos, pos + len) made printable and at most about `width` columns wide, and where
// the caret goes in it. Cut ends are marked "...".
struct Excerpt {
  std::string text;
  std::size_t caretPos = 0, caretLen = 1;
};
Excerpt excerptAround(std::string_view line, std::size_t pos, std::size_t len,
                      std::size_t width = 100);

}  // namespace vf
