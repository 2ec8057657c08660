#include "app/media/output_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <filesystem>

#include "app/interrupt.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace fs = std::filesystem;

OutputClaim::OutputClaim(const std::string& partialPath, const std::string& output)
    : path_(partialPath), exceptions_(std::uncaught_exceptions()) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(partialPath, ec))) fs::remove(partialPath, ec);
  fd_ = ::open(partialPath.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw osError("cannot write " + quote(partialPath) + ", the temporary name of " + quote(output),
                  errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int err = errno;
  if (err != EWOULDBLOCK) return;  // no locks here (ENOLCK, EINVAL): nothing to claim with
  ::close(fd_);
  fd_ = -1;
  throw RuntimeError(
      quote(output) + " is being made by another vidfilter now (it holds " + quote(partialPath) +
      "): each input belongs to one task; check that no two tasks run the same index, or wait "
      "for that one to end");
}

OutputClaim::~OutputClaim() {
  if (fd_ < 0) return;
  // Nothing written (the input failed before its output opened): the empty file goes. So does
  // what a task that failed wrote (a full disk, a device error: it would only hold the space);
  // a signal's stop keeps its frames done, to be replaced by the next run.
  const bool failed =
      !complete_ && std::uncaught_exceptions() > exceptions_ && app::interruptSignal() == 0;
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && (st.st_size == 0 || failed) && st.st_nlink > 0) {
    struct stat at {};
    if (::lstat(path_.c_str(), &at) == 0 && at.st_ino == st.st_ino && at.st_dev == st.st_dev)
      ::unlink(path_.c_str());
  }
  ::close(fd_);
}

bool removeStalePartial(const std::string& partialPath) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(partialPath, ec))) return false;
  const int fd = ::open(partialPath.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  // Held by the task writing it: not stale. Where there are no locks, a task writing it would
  // have made the output incomplete or absent, not complete.
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK;
  const bool removed = free && ::unlink(partialPath.c_str()) == 0;
  ::close(fd);
  return removed;
}

}  // namespace vf::media
