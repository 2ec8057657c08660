// libFuzzer target: the chain parser. Any input either parses or throws ChainError; a parsed
// chain prints a canonical text that parses again to the same text. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pipeline/chain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string canonical;
  try {
    canonical = vf::Chain::parse(text).str();
  } catch (const vf::ChainError& e) {
    // The caret must point inside (or just past) the text.
    if (e.position() > text.size()) std::abort();
    return 0;
  }
  const std::string again = vf::Chain::parse(canonical).str();
  if (again != canonical) {
    std::fprintf(stderr, "round trip: '%s' -> '%s' -> '%s'\n", text.c_str(), canonical.c_str(),
                 again.c_str());
    std::abort();
  }
  return 0;
}
