#include "app/bench/result_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "app/media/path_safety.hpp"
#include "pipeline/chain.hpp"

namespace vf::bench {

void checkResultPath(const std::string& json, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& chains, bool overwrite) {
  if (json.empty()) return;
  // stdout, by name or as the file stdout is (/dev/stdout, /proc/self/fd/1, a redirect's file):
  // the tables go there too.
  struct stat named {
  }, out{};
  const bool isStdout =
      json == "-" || (::stat(json.c_str(), &named) == 0 && ::fstat(STDOUT_FILENO, &out) == 0 &&
                      named.st_dev == out.st_dev && named.st_ino == out.st_ino);
  if (isStdout)
    throw UserError("--json " + json +
                    ": the benchmark prints its tables on stdout; give the JSON a file name "
                    "(--json result.json)");
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

}  // namespace vf::bench
