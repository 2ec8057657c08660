#include "app/std_streams.hpp"

#include <fcntl.h>
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

}  // namespace vf::app
