#pragma once

#include <string>

namespace vf::app {

// Opens /dev/null on whichever of stdin, stdout and stderr the program was started without
// (`vidfilter ... 2>&-`), before anything else opens a file: else the first file opened (the
// output) would take descriptor 2 and the log would be written into it.
void keepStandardStreamsOpen();

// Whether stdin (0), stdout (1) or stderr (2) was closed at the start (and is /dev/null now):
// `-o -` and `--json -` would then write nowhere.
bool startedClosed(int fd);

// Whether `path` opens the pipe, FIFO or socket stdin reads (/dev/stdin, /dev/fd/0): a second
// reader of one stream. (Stdin redirected from a file is read apart, at an offset of its own.)
bool namesStdinStream(const std::string& path);

}  // namespace vf::app
