#include "app/bench/result_path.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "app/media/atomic_file.hpp"
#include "app/media/path_safety.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/quote.hpp"

namespace vf::bench {

void checkResultPath(const std::string& json, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& chains, bool overwrite) {
  if (json.empty()) return;
  media::checkWritablePath(json, "--json");
  media::PathGuard g;
  for (const std::string& r : inputs) g.reads(r, "the input");
  for (const std::string& text : chains) {
    try {
      for (const std::string& f : Chain::parse(text).filesRead()) g.reads(f, "a kernel file");
    } catch (const UserError&) {
      // said where the chain is used (its caret, the kernel file that does not open)
    }
  }
  g.writes(json, "--json");
  g.checkOverwrite(overwrite ? media::Overwrite::Always : media::Overwrite::Ask,
                   ::isatty(STDIN_FILENO) == 1);
}

void writeResult(const std::string& json, const std::string& text) {
  const std::string why = media::writeFileAtomically(
      json, reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), true);
  const int err = why.empty() ? 0 : errno;  // the failure's (writeFileAtomically sets it)
  if (!why.empty()) throw RuntimeError("--json " + printable(json) + ": " + why, err);
}

}  // namespace vf::bench
