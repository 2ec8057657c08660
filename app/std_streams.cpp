#include "app/std_streams.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace vf::app {

namespace {
bool closedAtStart[3] = {false, false, false};
}  // namespace

void keepStandardStreamsOpen() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    closedAtStart[fd] = true;
    // The lowest free descriptor: this one, as the lower ones are open by now.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened != fd && opened >= 0) ::close(opened);
  }
}

bool startedClosed(int fd) { return fd >= 0 && fd <= 2 && closedAtStart[fd]; }

bool namesStdinStream(const std::string& path) {
  struct stat in = {};
  struct stat named = {};
  if (::fstat(STDIN_FILENO, &in) != 0 || S_ISREG(in.st_mode) || S_ISDIR(in.st_mode)) return false;
  return ::stat(path.c_str(), &named) == 0 && named.st_dev == in.st_dev &&
         named.st_ino == in.st_ino;
}

}  // namespace vf::app
