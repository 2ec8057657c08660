#pragma once
// The errors FFmpeg logs about one of its objects (a demuxer skipping over damage: Matroska's
// "Element at ... exceeds containing master element" is a log line, not a return value),
// counted while a LoggedErrors watches it, whatever the log level shows.
#include <atomic>

namespace vf::media {

class LoggedErrors {
 public:
  explicit LoggedErrors(const void* object);  // an AVFormatContext, an AVCodecContext
  ~LoggedErrors();
  LoggedErrors(const LoggedErrors&) = delete;
  LoggedErrors& operator=(const LoggedErrors&) = delete;

  int count() const { return count_.load(); }

 private:
  const void* object_;
  std::atomic<int> count_{0};
};

// From FFmpeg's log callback: an error-level line about `object`.
void countLoggedError(const void* object);

}  // namespace vf::media
