#include "app/bench/result_path.hpp"

#include <unistd.h>

#include "app/media/path_safety.hpp"

namespace vf::bench {

void checkResultPath(const std::string& json, const std::vector<std::string>& reads,
                     bool overwrite) {
  if (json.empty()) return;
  media::checkWritablePath(json, "--json");
  media::PathGuard g;
  for (const std::string& r : reads) g.reads(r, "the input");
  g.writes(json, "--json");
  g.checkOverwrite(overwrite ? media::Overwrite::Always : media::Overwrite::Ask,
                   ::isatty(STDIN_FILENO) == 1);
}

}  // namespace vf::bench
