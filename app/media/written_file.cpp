#include "app/media/written_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace vf::media {

std::optional<WrittenFile> regularFileOpened(const OutputSpec& spec, const AVFormatContext* c) {
  if (spec.toStdout || spec.network || !c->pb || (c->oformat->flags & AVFMT_NOFILE))
    return std::nullopt;
  struct stat st {};
  if (::stat(spec.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(spec.path, ec);
  if (ec) return std::nullopt;
  struct stat link {};
  const bool viaLink = ::lstat(spec.path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  return WrittenFile{real.string(), st.st_dev, st.st_ino, viaLink};
}

bool removeWrittenFile(const WrittenFile& f) {
  struct stat st {};
  if (::lstat(f.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != f.dev ||
      st.st_ino != f.ino) {
    errno = 0;
    return false;
  }
  if (st.st_nlink > 1 && ::truncate(f.path.c_str(), 0) != 0) return false;
  return ::unlink(f.path.c_str()) == 0;
}

}  // namespace vf::media
