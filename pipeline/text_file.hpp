#pragma once
// A text file written line by line in which every failure is seen: the open, each write and
// the close (where a full disk usually shows, the data having been buffered). Each failure
// throws RuntimeError naming the file and the OS's reason ("No space left on device").
#include <chrono>
#include <string>

namespace vf {

class TextFile {
 public:
  TextFile() = default;
  ~TextFile();  // closes without reporting (the run already failed, or close() was called)
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;

  // Creates or truncates `path`; `what` names it in errors ("the stats file").
  void open(const std::string& path, const std::string& what);
  bool isOpen() const { return fd_ >= 0; }
  // Appends `line` and a newline: buffered, and written once 64 KiB or a second's worth of lines
  // are held (a run's file can be followed as it goes, and a killed run loses at most that).
  void writeLine(const std::string& line);
  // Writes what is buffered and closes the file.
  void close();

 private:
  void flush();
  [[noreturn]] void fail(const char* doing, int errnum);

  int fd_ = -1;
  std::string path_, what_, buffer_;
  std::chrono::steady_clock::time_point heldSince_{};  // when the first line buffered came
};

}  // namespace vf
