#pragma once
// Frame-number patterns in file names ("out/frame_%05d.png"), parsed here and never handed to
// a printf-family function: exactly one %d or %0Nd (N from 1 to 10, zero-padded as FFmpeg's
// image2), %% for a literal %, anything else after a % an error.
#include <cstdint>
#include <optional>
#include <string>

namespace vf::media {

constexpr int kMaxPatternWidth = 10;

struct FramePattern {
  std::string prefix, suffix;  // literal text (%% already made %)
  int width = 0;               // zero-padded to this many digits (0: as many as the number has)
  bool single = false;         // one image (--frames 1): `prefix` is its name, with no number

  // The file name of frame `number` (>= 0).
  std::string name(std::int64_t number) const;
  // The number when `name` is a member of this pattern (the digits where %d is, at least
  // `width` of them, and no more than needed beyond it), else nothing.
  std::optional<std::int64_t> match(const std::string& name) const;
};

// Why `text` is not a valid pattern, with the column (from 1) of the offending %.
struct PatternProblem {
  std::string what;
  std::size_t column = 0;
};

// Parses `text`. Returns the pattern, or nothing when `text` holds no frame number at all (a
// plain name, possibly with %% in it). Throws nothing: a malformed pattern fills `problem`.
std::optional<FramePattern> parseFramePattern(const std::string& text, PatternProblem* problem);

// True when `text` holds something that looks meant as a frame number (a % followed by digits
// and d, or by another conversion letter): used to tell a pattern from a plain file name.
bool looksLikePattern(const std::string& text);

// `text` with every %% made %: a plain name written in pattern syntax.
std::string unescapePercents(const std::string& text);

}  // namespace vf::media
