#pragma once
// The regular file an output writes, told apart from what is written as it is (stdout, a URL,
// a device, a FIFO, a socket). An output that ends with nothing worth keeping (no frame: a
// container that does not play) removes only such a file, made or replaced by the run, and
// only while it is still that file; a link at the output's name is written through and stays,
// as a --json link does.
#include <sys/types.h>

#include <optional>
#include <string>

#include "app/media/av.hpp"
#include "app/media/output_spec.hpp"

namespace vf::media {

struct WrittenFile {
  std::string path;  // links followed
  dev_t dev = 0;
  ino_t ino = 0;
  bool viaLink = false;  // the output's name is a symbolic link to it
};

// The regular file the output `spec` opened through `c` (call it while the file is open):
// the name itself, or the file a link at it names. None for stdout, a URL, a container that
// writes no file (-f null), a device, a FIFO or a socket.
std::optional<WrittenFile> regularFileOpened(const OutputSpec& spec, const AVFormatContext* c);

// Removes `f` when it is still that file (another hard link to it is emptied first, so that no
// name keeps what was written). False when nothing was removed: errno says why, 0 when that
// name no longer holds that file.
bool removeWrittenFile(const WrittenFile& f);

}  // namespace vf::media
