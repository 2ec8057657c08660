#include "app/media/path_safety.hpp"

#include <dirent.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/interrupt.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace fs = std::filesystem;
using app::UsageError;

namespace {

// The frame of an image output whose name `resolved` is (frames are numbered from 1).
std::optional<std::int64_t> frameNamed(const FramePattern& members, const std::string& resolved) {
  const auto number = members.match(resolved);
  return number && *number >= 1 ? number : std::nullopt;
}

}  // namespace

std::string fileNameProblem(const std::string& path) {
  if (path.size() >= PATH_MAX)
    return "the path is " + std::to_string(path.size()) + " bytes, over the " +
           std::to_string(PATH_MAX - 1) + " the system takes; give a shorter one";
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const std::string name = fs::path(path).filename().string();
  if (!name.empty() && name.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
    return "its name is only blank space (an unset variable in a script?); give a file name";
  const long most = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const std::size_t limit = most > 0 ? static_cast<std::size_t>(most) : NAME_MAX;
  if (name.size() > limit)
    return "its name is " + std::to_string(name.size()) + " bytes, over the " +
           std::to_string(limit) + " this file system takes; give a shorter name";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0 &&
      errno == ELOOP)
    return "it is a symbolic link that leads back to itself (a loop); remove it or give another "
           "name";
  return "";
}

void checkWritablePath(const std::string& path, const std::string& option) {
  std::error_code ec;
  const auto type = fs::status(path, ec).type();
  if (type == fs::file_type::character || type == fs::file_type::block ||
      type == fs::file_type::fifo)
    return;
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw UsageError(option + " " + quote(path) + ": directory " + quote(dir.string()) +
                     " does not exist; create it first (mkdir -p " + printable(dir.string()) + ")");
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError(option + " " + quote(path) + ": directory " + quote(dir.string()) +
                     " is not writable (" + whyNotWritable(dir.string()) + ")");
  if (const std::string why = fileNameProblem(path); !why.empty())
    throw UsageError(option + " " + quote(path) + ": " + why);
  if (fs::is_directory(path, ec))
    throw UsageError(option + " " + quote(path) + " is a directory; give a file name");
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(option + " " + quote(path) + " exists and is not writable (" +
                     whyNotWritable(path) + ")");
}

std::string whyNotWritable(const std::string& path) {
  if (::access(path.c_str(), W_OK) == 0) return "";
  const int err = errno;
  if (err == EROFS) return "read-only file system";
  if (err == EACCES || err == EPERM) return "permission denied";
  return std::strerror(err);
}

PathGuard::Use PathGuard::describe(const std::string& path, const std::string& role) {
  Use u;
  u.path = path;
  u.role = role;
  u.shown = role + " " + quote(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {  // follows links: a link is the file it names
    u.exists = true;
    u.regular = S_ISREG(st.st_mode);
    u.id = {st.st_dev, st.st_ino};
  }
  // The name as written, made absolute (links are not followed: a link is told apart).
  std::error_code ec;
  const fs::path c = fs::absolute(path, ec).lexically_normal();
  u.canonical = ec ? path : c.string();
  // The links followed, from the absolute name (weakly_canonical leaves a relative name whose
  // first part does not exist as it was given).
  const fs::path r = fs::weakly_canonical(u.canonical, ec);
  u.resolved = ec ? u.canonical : r.string();
  return u;
}

void PathGuard::reads(const std::string& path, const std::string& role) {
  Use u = describe(path, role);
  if (!u.exists) return;
  readById_.emplace(Key{u.id.dev, u.id.ino}, reads_.size());
  reads_.push_back(std::move(u));
}

// Two writes are one file when both exist and have one identity, or else by resolved name.
void PathGuard::checkAgainstReads(const Use& w) const {
  if (const auto r = readById_.find({w.id.dev, w.id.ino}); w.exists && r != readById_.end())
    throw UsageError(w.shown + " is " + reads_[r->second].shown +
                     (reads_[r->second].path == "-" ? ""
                      : w.canonical == reads_[r->second].canonical
                          ? " (the same file)"
                          : " (the same file, through a link)") +
                     ": writing it would destroy what is read; choose another name");
  const auto& byName = w.exists ? missingWriteByName_ : writeByName_;
  const auto named = byName.find(w.resolved);
  const auto same = writeById_.find({w.id.dev, w.id.ino});
  const Use* other = named != byName.end()                  ? &writes_[named->second]
                     : w.exists && same != writeById_.end() ? &writes_[same->second]
                                                            : nullptr;
  if (other)
    throw UsageError(w.shown + " is also " + other->shown + "; give each output its own name");
}

void PathGuard::addWrite(Use w) {
  writeByName_.emplace(w.resolved, writes_.size());
  if (w.exists)
    writeById_.emplace(Key{w.id.dev, w.id.ino}, writes_.size());
  else
    missingWriteByName_.emplace(w.resolved, writes_.size());
  writes_.push_back(std::move(w));
}

void PathGuard::writes(const std::string& path, const std::string& role) {
  Use u = describe(path, role);
  // A link to a file not made yet is written through (the file is made); one whose target's
  // directory does not exist cannot be.
  std::error_code ec;
  if (!u.exists && fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path target = fs::read_symlink(path, ec);
    const fs::path dir = (fs::path(path).parent_path() / target).parent_path();
    if (!ec && !fs::is_directory(dir.empty() ? fs::path(".") : dir, ec))
      throw UsageError(u.shown + " is a symbolic link to " + quote(target.string()) +
                       ", whose directory does not exist; remove the link or give another name");
  }
  checkAgainstReads(u);
  // A file an output pattern will make (not there yet, so no identity to meet).
  for (const PatternUse& p : patterns_)
    if (const auto number = frameNamed(p.members, u.resolved))
      throw UsageError(u.shown + " is also " + p.shown + " (its frame " + std::to_string(*number) +
                       "); give each output its own name");
  addWrite(std::move(u));
}

void PathGuard::readsStdin(const std::string& role) {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return;
  Use u;
  u.path = "-";
  u.canonical = u.resolved = "<stdin>";  // no file's name
  u.role = role;
  u.shown = role + " - (stdin, redirected from that file)";
  u.exists = u.regular = true;
  u.id = {st.st_dev, st.st_ino};
  readById_.emplace(Key{u.id.dev, u.id.ino}, reads_.size());
  reads_.push_back(std::move(u));
}

void PathGuard::writesStdout(const std::string& option) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) return;
  if (const auto r = readById_.find({st.st_dev, st.st_ino});
      S_ISREG(st.st_mode) && r != readById_.end())
    throw UsageError(option + " writes to stdout, which is redirected into " +
                     reads_[r->second].shown +
                     ": writing it would destroy what is read; send stdout elsewhere");
  // Another output that is stdout (--stats /dev/stdout) would write into what goes there.
  if (const auto o = writeById_.find({st.st_dev, st.st_ino}); o != writeById_.end())
    throw UsageError(writes_[o->second].shown + " is stdout, where " + option + " writes" +
                     (option == "-o -" ? " the video" : "") + "; give it another name");
  Use u;
  u.path = "-";
  u.canonical = u.resolved = "<stdout>";  // no file's name
  u.role = option;
  u.shown = "stdout (" + option + ")";
  u.exists = true;  // not `regular`: what the shell redirected it into is not asked about
  u.id = {st.st_dev, st.st_ino};
  addWrite(std::move(u));
}

void PathGuard::writesPattern(const std::string& text, const FramePattern& pattern,
                              const std::string& role) {
  if (pattern.suffix.find('/') != std::string::npos)
    throw UsageError(role + " " + quote(text) +
                     ": the frame number must be in the file name, not in a directory name");
  const auto slash = pattern.prefix.rfind('/');
  const std::string dirPrefix =
      slash == std::string::npos ? "" : pattern.prefix.substr(0, slash + 1);
  const std::string dir = dirPrefix.empty() ? "." : dirPrefix;
  PatternUse use;
  use.text = text;
  use.shown = role + " " + quote(text);
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  while (d) {
    const dirent* e = ::readdir(d.get());
    if (!e) break;
    const std::string full = dirPrefix + e->d_name;
    if (!pattern.match(full)) continue;
    Use u = describe(full, role);
    u.member = true;
    u.shown = role + " " + quote(text) + " (its file " + quote(full) + ")";
    if (!u.exists) continue;
    checkAgainstReads(u);
    // A directory at a frame's name would stop the run there, the frames before it replaced.
    std::error_code dirEc;
    if (fs::is_directory(full, dirEc))
      throw UsageError(role + " " + quote(text) + ": " + quote(full) +
                       ", one of its frames' names, is a directory; remove it or choose another "
                       "name");
    if (u.regular && (use.first.empty() || full < use.first)) use.first = full;
    if (u.regular) ++use.existing;
    addWrite(std::move(u));
  }
  // A member that does not exist yet can still collide with another output by name.
  Use first = describe(pattern.name(1), role);
  first.shown = role + " " + quote(text) + " (its file " + quote(first.path) + ")";
  if (!first.exists) checkAgainstReads(first);
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(dir, ec);
  std::string resolvedDir = ec ? dir : resolved.string();
  if (resolvedDir.empty() || resolvedDir.back() != '/') resolvedDir += '/';
  use.prefix = resolvedDir + pattern.prefix.substr(dirPrefix.size());
  use.suffix = pattern.suffix;
  use.members = FramePattern{use.prefix, use.suffix, pattern.width};
  // An output already given (--stats, another input's output) that this pattern will make.
  for (const Use& w : writes_)
    if (const auto number = w.member ? std::nullopt : frameNamed(use.members, w.resolved))
      throw UsageError(use.shown + " makes " + w.shown + " (its frame " + std::to_string(*number) +
                       "); give each output its own name");
  for (const PatternUse& other : patterns_)
    if (mayShareNames(use, other))
      throw UsageError(role + " " + quote(text) + " and the pattern " + quote(other.text) +
                       " can name the same files (their numbers run into each other's "
                       "digits); give each its own name");
  patterns_.push_back(use);
}

namespace {

bool allDigits(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// Names P1 + digits + S1 and P2 + digits + S2 can be equal when, past what the two prefixes
// share and before what the suffixes share, one side's leftover is empty and the other's all
// digits, on both ends ('a%d.png' and 'a1%d.png' both name a11.png).
bool PathGuard::mayShareNames(const PatternUse& a, const PatternUse& b) {
  std::size_t p = 0;
  while (p < a.prefix.size() && p < b.prefix.size() && a.prefix[p] == b.prefix[p]) ++p;
  const std::string pa = a.prefix.substr(p), pb = b.prefix.substr(p);
  std::size_t s = 0;
  while (s < a.suffix.size() && s < b.suffix.size() &&
         a.suffix[a.suffix.size() - 1 - s] == b.suffix[b.suffix.size() - 1 - s])
    ++s;
  const std::string sa = a.suffix.substr(0, a.suffix.size() - s);
  const std::string sb = b.suffix.substr(0, b.suffix.size() - s);
  const bool front = (pa.empty() && allDigits(pb)) || (pb.empty() && allDigits(pa));
  const bool back = (sa.empty() && allDigits(sb)) || (sb.empty() && allDigits(sa));
  return front && back;
}

namespace {

// "y" or "n" from the terminal; a signal ends the wait (the handler restarts reads).
bool askYes(const std::string& question) {
  std::fprintf(stderr, "%s", question.c_str());
  std::fflush(stderr);
  std::string answer;
  for (;;) {
    if (app::interruptSignal()) return false;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(STDIN_FILENO, &c, 1) != 1 || c == '\n') break;
    answer.push_back(c);
  }
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

}  // namespace

void PathGuard::checkOverwrite(Overwrite policy, bool canAsk) const {
  if (policy == Overwrite::Always) return;
  std::vector<std::string> existing;
  for (const Use& w : writes_)
    if (w.exists && w.regular && !w.member) existing.push_back(w.shown + " already exists");
  for (const PatternUse& p : patterns_)
    if (p.existing > 0)
      existing.push_back("output pattern " + quote(p.text) + " already has " +
                         std::to_string(p.existing) + " file" + (p.existing > 1 ? "s" : "") + " (" +
                         p.first + (p.existing > 1 ? ", ..." : "") + ")");
  for (const std::string& what : existing) {
    if (policy == Overwrite::Never)
      throw UsageError(what + ", and -n says never overwrite; nothing was written");
    if (!canAsk) throw UsageError(what + "; give -y to overwrite it, or another name");
    if (!askYes("vidfilter: " + what + ". Overwrite? [y/N] "))
      throw UsageError("not overwriting: " + what + "; give another name, or -y");
  }
}

}  // namespace vf::media
