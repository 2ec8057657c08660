#include "app/media/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace {

std::string tempNameFor(const std::string& path, std::mt19937_64& rng) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  // ".<name>.<8>.part": the name cut so that it stays within a file name's 255 bytes.
  const std::string base =
      (slash == std::string::npos ? path : path.substr(slash + 1)).substr(0, 255 - 15);
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string suffix;
  for (int i = 0; i < 8; ++i) suffix.push_back(digits[rng() % 36]);
  return dir + "." + base + "." + suffix + ".part";
}

std::string failed(const std::string& temp, int fd, int err) {
  if (fd >= 0) ::close(fd);
  if (!temp.empty()) ::unlink(temp.c_str());
  std::string why = std::strerror(err);
  errno = err;  // the failure's, whatever the clean-up set
  return why;
}

// Every byte to `fd`, then its close; "" or the OS's reason (the temporary file removed).
std::string writeAll(const std::string& temp, int fd, const std::uint8_t* data, std::size_t size) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failed(temp, fd, n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return failed(temp, -1, errno);
  return "";
}

}  // namespace

std::string writeFileAtomically(const std::string& path, const std::uint8_t* data, std::size_t size,
                                bool replace) {
  // A device or a FIFO (/dev/null, a pipe) is written as it is, never replaced by a file; so is
  // a symbolic link's target (/dev/stdout, /proc/self/fd/1 or a user's link name an open file,
  // whose name a rename would take over: the link would become a file and the output be lost).
  // A link whose target does not exist yet is written through too: the target is made.
  struct stat st {};
  struct stat link {};
  const bool linked = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  const bool exists = ::stat(path.c_str(), &st) == 0;
  const bool dir = exists && S_ISDIR(st.st_mode);
  if (linked && exists && !replace) return failed("", -1, EEXIST);
  if ((linked && !dir) || (replace && exists && !dir && !S_ISREG(st.st_mode))) {
    const int flags = O_WRONLY | O_CLOEXEC | (exists ? 0 : O_CREAT) |
                      (exists && S_ISREG(st.st_mode) ? O_TRUNC : 0);
    const int out = ::open(path.c_str(), flags, 0666);
    return out < 0 ? failed("", -1, errno) : writeAll("", out, data, size);
  }
  thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = tempNameFor(path, rng);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return failed("", -1, errno);
  }
  if (fd < 0) return failed("", -1, EEXIST);
  if (std::string why = writeAll(temp, fd, data, size); !why.empty()) return why;
  if (replace) {
    if (::rename(temp.c_str(), path.c_str()) != 0) return failed(temp, -1, errno);
  } else {
    // link() fails when the name exists: nothing is ever replaced.
    if (::link(temp.c_str(), path.c_str()) != 0) return failed(temp, -1, errno);
    ::unlink(temp.c_str());
  }
  return "";
}

void writeTextAtomically(const std::string& path, const std::string& text,
                         const std::string& option) {
  const std::string why = writeFileAtomically(
      path, reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), true);
  const int err = errno;  // the failure's, read before the message is built
  if (!why.empty()) throw RuntimeError(option + " " + printable(path) + ": " + why, err);
}

}  // namespace vf::media
