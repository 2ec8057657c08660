// libFuzzer target: the TOML config loader (app/config.cpp, compiled in here without the rest of
// the app, so no OpenCV). Any input either loads or throws UsageError whose message names the
// file first ("fuzz.toml:3:9: ..."); a chain it accepts parses again. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/config.hpp"
#include "pipeline/chain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.toml";
  vf::app::Settings s;
  try {
    s = vf::app::parseConfig(text, name);
  } catch (const vf::app::UsageError& e) {
    if (std::string(e.what()).rfind(name, 0) != 0) {
      std::fprintf(stderr, "error does not name the file: '%s'\n", e.what());
      std::abort();
    }
    return 0;
  }
  if (s.chain) {
    // The loader checked the chain (or built it from [[stage]] tables): it must parse, and its
    // canonical text must parse to itself.
    const std::string canonical = vf::Chain::parse(*s.chain).str();
    if (vf::Chain::parse(canonical).str() != canonical) {
      std::fprintf(stderr, "chain round trip: '%s' -> '%s'\n", s.chain->c_str(), canonical.c_str());
      std::abort();
    }
  }
  return 0;
}
