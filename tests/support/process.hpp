#pragma once
// Child processes for the tests: the real vidfilter and vidfilter-bench binaries (arguments in,
// exit status and the text of stdout and stderr out) and shell commands (ffmpeg, xdotool).
// $VIDFILTER_BIN (set by ctest) names the vidfilter binary; run by hand, the path CMake compiled
// in (VIDFILTER_BIN_PATH) is used; vidfilter-bench is its neighbour.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace vf::test {

inline std::string vidfilterBinary() {
  if (const char* b = std::getenv("VIDFILTER_BIN"); b && *b) return b;
#ifdef VIDFILTER_BIN_PATH
  return VIDFILTER_BIN_PATH;
#else
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path().parent_path() / "app" / "vidfilter").string();
#endif
}

// vidfilter-bench, built beside vidfilter.
inline std::string benchBinary() {
  return (std::filesystem::path(vidfilterBinary()).parent_path() / "vidfilter-bench").string();
}

struct ProcResult {
  int status = -1;     // exit code, or 128 + signal when killed by one
  std::string out;     // stdout
  std::string err;     // stderr
  double seconds = 0;  // wall time
};

struct ProcOptions {
  std::vector<std::string> setEnv;      // "NAME=value"
  std::vector<std::string> unsetEnv;    // "NAME": removed from the child's environment
  bool keepDisplay = false;             // by default DISPLAY and WAYLAND_DISPLAY are removed
  bool asNobody = false;                // run as uid/gid 65534 (permission tests when root)
  double timeoutSec = 180;              // killed (SIGKILL) after this
  std::string stdinPath = "/dev/null";  // never the test's terminal (no question is answered)
  long long fileSizeLimit = -1;         // RLIMIT_FSIZE in bytes (ulimit -f), -1: unchanged
  int openFilesLimit = -1;              // RLIMIT_NOFILE (ulimit -n), -1: unchanged
  bool ownProcessGroup = false;         // leads a process group, as a shell's foreground job
};

// A running child process with its stdout and stderr on pipes.
class Child {
 public:
  Child(const std::string& exe, const std::vector<std::string>& args, const ProcOptions& opt = {})
      : opt_(opt), start_(std::chrono::steady_clock::now()) {
    // Everything the child needs is built before fork(): after it, only async-signal-safe
    // calls (the test process may have other threads holding the malloc lock).
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const std::string name = kv.substr(0, kv.find('='));
      if (!opt.keepDisplay && (name == "DISPLAY" || name == "WAYLAND_DISPLAY")) continue;
      if (std::find(opt.unsetEnv.begin(), opt.unsetEnv.end(), name) != opt.unsetEnv.end()) continue;
      bool overridden = false;
      for (const auto& s : opt.setEnv) overridden |= s.substr(0, s.find('=')) == name;
      if (!overridden) env.push_back(kv);
    }
    for (const auto& s : opt.setEnv) env.push_back(s);
    std::vector<char*> envp, argv;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exeCopy = exe;
    std::vector<std::string> argsCopy = args;
    argv.push_back(exeCopy.data());
    for (auto& a : argsCopy) argv.push_back(a.data());
    argv.push_back(nullptr);

    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
    const std::string stdinPath = opt.stdinPath;
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int in = open(stdinPath.c_str(), O_RDONLY);
      if (in >= 0) {
        dup2(in, STDIN_FILENO);
        close(in);
      }
      if (opt.fileSizeLimit >= 0) {
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(opt.fileSizeLimit);
        setrlimit(RLIMIT_FSIZE, &lim);
      }
      if (opt.openFilesLimit >= 0) {
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(opt.openFilesLimit);
        setrlimit(RLIMIT_NOFILE, &lim);
      }
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
      close(out[0]);
      close(out[1]);
      close(err[0]);
      close(err[1]);
      if (opt.asNobody && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(125);
      if (opt.ownProcessGroup) setpgid(0, 0);
      // The child starts as from an interactive shell whatever the test runner ignores or
      // blocks (nohup, a background job): the signal tests depend on it.
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &dfl, nullptr);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execve(exeCopy.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    outFd_ = out[0];
    errFd_ = err[0];
  }

  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (outFd_ >= 0) close(outFd_);
    if (errFd_ >= 0) close(errFd_);
  }

  pid_t pid() const { return pid_; }
  void signal(int sig) { kill(pid_, sig); }
  // To the child and every process it started, as a terminal's Ctrl-C (ownProcessGroup).
  void signalGroup(int sig) { kill(-pid_, sig); }
  // Closes our end of the child's stdout or stderr, as `| head` does once it has its lines:
  // the child's next write there fails (EPIPE, or SIGPIPE when it does not ignore that).
  void closeStdout() { closeFd(outFd_); }
  void closeStderr() { closeFd(errFd_); }
  const std::string& errSoFar() const { return res_.err; }

  // Reads output until `done(stderr so far)` holds, the streams close, or `timeoutSec`
  // passes. Returns whether `done` held.
  bool readUntil(const std::function<bool(const std::string&)>& done, double timeoutSec) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSec);
    while (!done(res_.err)) {
      if (outFd_ < 0 && errFd_ < 0) return false;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            end - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return false;
      pump(static_cast<int>(std::min<long long>(left, 100)));
    }
    return true;
  }

  // Reads everything, waits for the exit (killing the child after the timeout).
  ProcResult wait() {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(opt_.timeoutSec);
    readUntil([](const std::string&) { return false; }, opt_.timeoutSec);
    // The streams are closed (by the child, or by the test) or the time is up; the child may
    // still be running either way.
    int st = 0;
    pid_t got = 0;
    while ((got = waitpid(pid_, &st, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      if (outFd_ >= 0 || errFd_ >= 0)
        pump(50);
      else
        usleep(20000);
    }
    if (got == 0) {  // timed out
      kill(pid_, SIGKILL);
      waitpid(pid_, &st, 0);
    }
    while (outFd_ >= 0 || errFd_ >= 0) pump(100);
    reaped_ = true;
    res_.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    res_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return res_;
  }

 private:
  void pump(int waitMs) {
    std::array<pollfd, 2> fds{{{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}}};
    if (poll(fds.data(), fds.size(), waitMs) <= 0) return;
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? res_.out : res_.err).append(buf, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        (i == 0 ? outFd_ : errFd_) = -1;
      }
    }
  }

  static void closeFd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }

  ProcOptions opt_;
  std::chrono::steady_clock::time_point start_;
  pid_t pid_ = -1;
  int outFd_ = -1, errFd_ = -1;
  bool reaped_ = false;
  ProcResult res_;
};

// The signal-set masks of /proc/PID/status ("SigCgt", "SigIgn"), or 0.
inline unsigned long long signalMask(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1), 0, 16);
  return 0;
}
inline bool inMask(unsigned long long mask, int sig) { return (mask >> (sig - 1)) & 1u; }

// Waits up to `seconds` for process `pid` to have its own handler for `sig`.
inline bool catches(pid_t pid, int sig, double seconds = 30) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!inMask(signalMask(pid, "SigCgt"), sig))
    if (std::chrono::steady_clock::now() > until)
      return false;
    else
      usleep(20000);
  return true;
}

inline ProcResult runProcess(const std::string& exe, const std::vector<std::string>& args,
                             const ProcOptions& opt = {}) {
  Child c(exe, args, opt);
  return c.wait();
}

inline ProcResult runVidfilter(const std::vector<std::string>& args, const ProcOptions& opt = {}) {
  return runProcess(vidfilterBinary(), args, opt);
}

inline ProcResult runBench(const std::vector<std::string>& args, const ProcOptions& opt = {}) {
  return runProcess(benchBinary(), args, opt);
}

// A shell command's exit status (-1 when it did not exit) and stdout.
struct ShellResult {
  int status = -1;
  std::string out;
};

inline ShellResult shell(const std::string& cmd) {
  ShellResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Output of a shell command (ffprobe and friends), "" when it fails to start.
inline std::string shellOutput(const std::string& cmd) { return shell(cmd).out; }

// The same with trailing newlines and spaces removed.
inline std::string shellLine(const std::string& cmd) {
  std::string out = shell(cmd).out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' '))
    out.pop_back();
  return out;
}

// Whether a command is on the PATH.
inline bool have(const std::string& tool) {
  return shell("command -v " + tool + " >/dev/null 2>&1").status == 0;
}

}  // namespace vf::test
