// Reading a config file from disk (app/config.cpp parses it): at most 1 MiB (not /dev/zero),
// read with open() and read() so that a signal ends an open or a read that blocks (a FIFO nobody
// writes to): EINTR is not retried, the caller sees an error and the signal. What the user
// named wrong (missing, not allowed, a directory, too large) is a UsageError; a read the OS
// fails is a RuntimeError with its reason.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "app/config.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;

std::string readConfigText(const std::string& path) {
  const std::string name =
      path == "-" ? std::string("the config on stdin (--config -)") : "config file " + quote(path);
  const int fd = ::open(path == "-" ? "/dev/stdin" : path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw UsageError(name + " not found; see config/*.toml for examples");
    if (err == EACCES || err == EPERM || err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG)
      throw UsageError(name + " cannot be opened: " + std::generic_category().message(err));
    throw osError("cannot open " + name, err);
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      if (err == EISDIR) throw UsageError(name + " is a directory; give a .toml file");
      throw osError("cannot read " + name, err);
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes) {
      ::close(fd);
      throw UsageError(name + " is larger than 1 MiB; is it the right file?");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

Settings loadConfigFile(const std::string& path) {
  return parseConfig(readConfigText(path), path == "-" ? "stdin" : path);
}

}  // namespace vf::app
