#pragma once
// A batch output's temporary name (".NAME.partial.EXT") claimed by the task that writes it: an
// exclusive lock (flock) on that file for as long as the task holds the claim, so that two tasks
// given the same input (an index run twice, the same batch started twice) do not write into one
// file; the second is told, and its input fails, before it reads anything. A link found at the
// name is removed, never followed. On file systems without locks the claim holds nothing and
// the task goes on as before.
#include <string>

namespace vf::media {

class OutputClaim {
 public:
  OutputClaim() = default;
  // Creates `partialPath` (empty) if it is not there and locks it; `output` is the final name,
  // for the message. Throws RuntimeError when another process holds it, or it cannot be made.
  OutputClaim(const std::string& partialPath, const std::string& output);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;
  // The output is whole and about to take its name: kept whatever happens next.
  void complete() { complete_ = true; }

 private:
  std::string path_;
  int fd_ = -1;
  int exceptions_ = 0;  // uncaught at the start: more at the end is a task that failed
  bool complete_ = false;
};

// A partial file a stopped task left beside an output that is complete (the output is skipped,
// so nothing would ever replace it): removed, unless a task holds it now. Whether it was.
bool removeStalePartial(const std::string& partialPath);

}  // namespace vf::media
