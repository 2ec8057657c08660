// libFuzzer target: the frame-number pattern parser (app/media/pattern.cpp), which names every
// image an output pattern writes (and an input pattern reads). Any input either parses or
// reports a problem with a column inside the text; an accepted pattern names frames that it
// matches back to their numbers, and no name holds a conversion the parser did not expand.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/media/pattern.hpp"

namespace {

void fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "%s: '%s'\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vf::media::PatternProblem problem;
  const auto p = vf::media::parseFramePattern(text, &problem);
  if (!p) {
    if (!problem.what.empty() && (problem.column < 1 || problem.column > text.size()))
      fail("problem column outside the text", text);
    return 0;
  }
  if (p->width < 0 || p->width > vf::media::kMaxPatternWidth) fail("width out of bounds", text);
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7},
                               std::int64_t{99999}, std::int64_t{12345678901}}) {
    const std::string name = p->name(n);
    if (name.size() != p->prefix.size() + p->suffix.size() +
                           std::max<std::size_t>(std::to_string(n).size(), p->width))
      fail("name length", text);
    const auto back = p->match(name);
    if (!back || *back != n) fail("name does not match back to its number", text);
  }
  return 0;
}
