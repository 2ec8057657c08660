#include "pipeline/text_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf {

namespace {
constexpr std::size_t kBufferBytes = 64 * 1024;
constexpr auto kHoldAtMost = std::chrono::seconds(1);
}  // namespace

TextFile::~TextFile() {
  if (fd_ >= 0) ::close(fd_);
}

void TextFile::open(const std::string& path, const std::string& what) {
  path_ = path;
  what_ = what;
  // Not retried after EINTR: opening a FIFO blocks until a reader comes, and a signal (the
  // user stopping the run) should end that wait.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot create", errno);
}

void TextFile::writeLine(const std::string& line) {
  const auto now = std::chrono::steady_clock::now();
  if (buffer_.empty()) heldSince_ = now;
  buffer_ += line;
  buffer_ += '\n';
  if (buffer_.size() >= kBufferBytes || now - heldSince_ >= kHoldAtMost) flush();
}

void TextFile::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", errno);
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void TextFile::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  // close() is not retried after EINTR on Linux: the descriptor is gone either way.
  if (::close(fd) != 0 && errno != EINTR) fail("cannot write", errno);
}

void TextFile::fail(const char* doing, int errnum) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
  throw osError(std::string(doing) + " " + what_ + " " + quote(path_), errnum);
}

}  // namespace vf
