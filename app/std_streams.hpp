#pragma once

namespace vf::app {

// Opens /dev/null on whichever of stdin, stdout and stderr the program was started without
// (`vidfilter ... 2>&-`), before anything else opens a file: else the first file opened (the
// output) would take descriptor 2 and the log would be written into it.
void keepStandardStreamsOpen();

}  // namespace vf::app
