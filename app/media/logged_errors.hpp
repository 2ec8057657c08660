#pragma once
// The errors FFmpeg logs about one of its objects (a demuxer skipping over damage: Matroska's
// "Element at ... exceeds containing master element" is a log line, not a return value; a muxer
// refusing its header: MXF's "only 48khz is implemented"), counted, the last one's text kept,
// while a LoggedErrors watches it, whatever the log level shows.
#include <atomic>
#include <mutex>
#include <string>

namespace vf::media {

class LoggedErrors {
 public:
  explicit LoggedErrors(const void* object);  // an AVFormatContext, an AVCodecContext
  ~LoggedErrors();
  LoggedErrors(const LoggedErrors&) = delete;
  LoggedErrors& operator=(const LoggedErrors&) = delete;

  int count() const { return count_.load(); }
  std::string last() const;  // the last error's text, "" when none

 private:
  friend void noteLoggedError(const void* object, const std::string& text);
  const void* object_;
  std::atomic<int> count_{0};
  mutable std::mutex textMutex_;
  std::string last_;
};

// From FFmpeg's log callback: an error-level line about `object` (its text, without the
// "[name @ address]" prefix).
void noteLoggedError(const void* object, const std::string& text);

}  // namespace vf::media
