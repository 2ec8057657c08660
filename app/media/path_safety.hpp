#pragma once
// Nothing the program reads is ever written over. Every path a run writes (the output, an
// image pattern's members, --stats) is checked, before anything is opened for writing,
// against every path it reads (the input, an input sequence's images, the config file) by
// identity: the same device and inode, so a symbolic or hard link to an input is caught. Then
// an existing output is replaced only as ffmpeg would: -y yes, -n never, neither: ask on a
// terminal, refuse (naming -y) without one.
#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/media/pattern.hpp"

namespace vf::media {

enum class Overwrite { Ask, Always, Never };

// A file `option` writes can be made: its directory exists and is writable, its name fits the
// file system, and it is no directory, no link loop and no file that may not be written (a
// device or a FIFO is written as is). Throws UsageError naming `option`.
void checkWritablePath(const std::string& path, const std::string& option);

// Why a file cannot be created under `path` whatever its contents: a name longer than its
// directory's file system takes, a path past PATH_MAX, a symbolic link that leads back to itself,
// a name of blank space only; "" when none of these.
std::string fileNameProblem(const std::string& path);

// Why `path` may not be written (access(W_OK) failed): "read-only file system", "permission
// denied", or the OS's words for another reason.
std::string whyNotWritable(const std::string& path);

class PathGuard {
 public:
  // A path the run reads; `role` names it in messages ("the input", "the config file").
  // Paths that do not exist (a camera, a URL) are ignored.
  void reads(const std::string& path, const std::string& role);

  // A file the run writes. Throws UsageError when it is a file read, or another output (a file
  // an output pattern names included).
  void writes(const std::string& path, const std::string& role);

  // Input from stdin (-i -, --inputs -): when stdin is a regular file (`-i - < in.y4m`), that
  // file is read, as `role` ("the input", "the input list").
  void readsStdin(const std::string& role = "the input");

  // Output to stdout (`option`: -o -, --json -): when stdout is a regular file, it must not be a
  // file read (`-o - >> input.y4m`); no other output may be stdout (`--stats /dev/stdout`).
  // Throws UsageError.
  void writesStdout(const std::string& option = "-o -");

  // The members of an output pattern (in its directory) that exist now, as writes() does for
  // each, and any other output the pattern names (whether it exists or not). Throws UsageError
  // when the frame number is in a directory name.
  void writesPattern(const std::string& text, const FramePattern& pattern, const std::string& role);

  // Existing regular files among the writes, against the policy. `canAsk`: stdin is a terminal
  // that the run does not read video from. Throws UsageError when the run must not go on.
  void checkOverwrite(Overwrite policy, bool canAsk) const;

 private:
  struct Id {
    dev_t dev = 0;
    ino_t ino = 0;
    bool operator==(const Id& o) const { return dev == o.dev && ino == o.ino; }
  };
  struct Use {
    std::string path, role;
    std::string shown;  // for messages: "the output 'o.mp4'"
    bool exists = false, regular = false;
    bool member = false;  // of an output pattern (counted per pattern)
    Id id;
    std::string canonical;  // absolute and normalised, links not followed
    std::string resolved;   // the directories' links followed: where a new file would be made
  };
  static Use describe(const std::string& path, const std::string& role);
  struct PatternUse;
  static bool mayShareNames(const PatternUse& a, const PatternUse& b);
  void checkAgainstReads(const Use& w) const;
  void addWrite(Use w);

  std::vector<Use> reads_, writes_;
  // The first read or write of each file, by identity and by resolved name (a list of many
  // inputs is checked in n log n, not n squared).
  using Key = std::pair<dev_t, ino_t>;
  std::map<Key, std::size_t> readById_, writeById_;
  std::map<std::string, std::size_t> writeByName_, missingWriteByName_;
  struct PatternUse {
    std::string text, first;  // the pattern, its first existing member
    std::string shown;        // for messages: "the output pattern 'f_%03d.png'"
    long existing = 0;
    std::string prefix, suffix;  // the members' names around the number, directory resolved
    FramePattern members;        // the same as a pattern of resolved names
  };
  std::vector<PatternUse> patterns_;
};

}  // namespace vf::media
