#pragma once
// Writing a file whole or not at all: the bytes go to a temporary name in the same directory
// (every write and the close checked), which is then renamed over the final name. A run killed
// at any moment (SIGKILL included) leaves the final name absent or complete, never truncated.
// A device, a FIFO or a symbolic link's target (/dev/null, /dev/stdout) is written in place:
// it is never replaced.
#include <cstddef>
#include <cstdint>
#include <string>

namespace vf::media {

// Writes `size` bytes to `path`. `replace`: an existing file at `path` is replaced (else the
// write fails with EEXIST and nothing is touched). Returns "" on success, else the OS's reason
// ("No space left on device"), with errno its number; the temporary file is removed on failure.
std::string writeFileAtomically(const std::string& path, const std::uint8_t* data, std::size_t size,
                                bool replace);

// `text` written so over `path` (replacing it), the file an option names (`option`: "--json");
// throws RuntimeError "OPTION PATH: the OS's reason", with its errno (EINTR: a signal ended the
// wait for a FIFO's reader).
void writeTextAtomically(const std::string& path, const std::string& text,
                         const std::string& option);

}  // namespace vf::media
