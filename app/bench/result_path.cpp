#include "app/bench/result_path.hpp"

#include <unistd.h>

#include <filesystem>

#include "app/media/path_safety.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::bench {

namespace fs = std::filesystem;

void checkResultPath(const std::string& json, const std::vector<std::string>& reads,
                     bool overwrite) {
  if (json.empty()) return;
  std::error_code ec;
  fs::path dir = fs::path(json).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw app::UsageError("--json " + quote(json) + ": directory " + quote(dir.string()) +
                          " does not exist");
  if (fs::is_directory(json, ec))
    throw app::UsageError("--json " + quote(json) + " is a directory; give a file name");
  if (::access(dir.c_str(), W_OK) != 0)
    throw app::UsageError("--json " + quote(json) + ": directory " + quote(dir.string()) +
                          " is not writable");
  media::PathGuard g;
  for (const std::string& r : reads) g.reads(r, "the input");
  g.writes(json, "--json");
  g.checkOverwrite(overwrite ? media::Overwrite::Always : media::Overwrite::Ask,
                   ::isatty(STDIN_FILENO) == 1);
}

}  // namespace vf::bench
