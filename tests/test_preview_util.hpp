#pragma once
// Shared by the preview tests: an engine stand-in, frames as the engine hands them over, a
// preview sink without a window, pixel counts, and an Xvfb server with shell helpers.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/preview.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

namespace vf::test {

// Pixels that differ between two same-size BGR images (any channel).
inline int differing(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d, g;
  cv::absdiff(a, b, d);
  cv::cvtColor(d, g, cv::COLOR_BGR2GRAY);
  return cv::countNonZero(g);
}

inline double meanDiff(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a, b, d);
  const cv::Scalar m = cv::mean(d);
  return (m[0] + m[1] + m[2]) / 3;
}

// Near-white pixels (text) in a BGR region.
inline int whitish(const cv::Mat& bgr) {
  cv::Mat mask;
  cv::inRange(bgr, cv::Scalar(200, 200, 200), cv::Scalar(255, 255, 255), mask);
  return cv::countNonZero(mask);
}

// Pixels within `tol` of `colour` in every channel.
inline int pixelsOf(const cv::Mat& bgr, const cv::Scalar& colour, int tol = 6) {
  cv::Mat mask;
  cv::inRange(bgr, colour - cv::Scalar::all(tol), colour + cv::Scalar::all(tol), mask);
  return cv::countNonZero(mask);
}

// Pixels whose channels are not all equal (colour, not gray).
inline int colourPixels(const cv::Mat& m) {
  std::vector<cv::Mat> ch;
  cv::split(m, ch);
  cv::Mat d1, d2;
  cv::absdiff(ch[0], ch[1], d1);
  cv::absdiff(ch[1], ch[2], d2);
  return cv::countNonZero(d1 + d2);
}

// Stands in for the engine and the playback: fixed statistics; post() applies the change to its
// chain at once (the engine would between two frames); seeks are recorded.
class FakeHost : public app::PreviewHost {
 public:
  struct Shared {
    std::atomic<bool> stopping{false}, seekable{false}, atEnd{false};
    std::vector<double> seeks;
    // The engine's own latency p99 (ms) and rate, as it would count a run that was paused:
    // the frames that waited in the pause included, the pause in the rate's window.
    std::atomic<double> engineLatencyP99{-1}, engineFps{-1};
  };
  FakeHost(Chain& chain, Shared* shared) : chain_(chain), shared_(shared) {
    for (std::size_t i = 0; i < chain.size(); ++i) {
      stats_.stageNames.push_back(chain.stage(i).name());
      stats_.stageMs.push_back({0.2 + 0.1 * double(i), 0.2 + 0.1 * double(i), 0.5 + double(i)});
    }
    stats_.uploadMs = {0.5, 0.5, 0.6};
    stats_.downloadMs = {0.4, 0.4, 0.5};
    stats_.latencyMs = {2.0, 2.0, 3.0};
    stats_.fps = 59.9;
    stats_.framesIn = stats_.framesOut = 100;
    stats_.dropped = 2;
  }
  EngineStats stats() const override {
    EngineStats s = stats_;
    if (shared_ && shared_->engineLatencyP99 >= 0) s.latencyMs.p99 = shared_->engineLatencyP99;
    if (shared_ && shared_->engineFps >= 0) s.fps = shared_->engineFps;
    return s;
  }
  void post(std::function<void(Chain&)> change) override { change(chain_); }
  bool stopping() const override { return shared_ && shared_->stopping; }
  bool seekable() const override { return shared_ && shared_->seekable; }
  void seek(double s) override {
    if (shared_) shared_->seeks.push_back(s);
  }
  bool atEnd() const override { return shared_ && shared_->atEnd; }

 private:
  Chain& chain_;
  Shared* shared_;
  EngineStats stats_;
};

// A frame as the engine hands it over: `out` filtered, `in` as captured, and the histogram of
// `out` as the hist stage's side output (stage 1).
struct TestFrame {
  cv::Mat in, out;
  std::vector<std::vector<std::uint8_t>> side;
  std::vector<SideOutputInfo> sideInfo;
  FrameResult result;

  TestFrame(const cv::Mat& input, const cv::Mat& output, std::uint64_t index = 7)
      : in(input), out(output) {
    result.stats.index = index;
    result.stats.stageMs = {0.2, 0.1, 0.3};
    result.stats.latencyMs = 2.5;
    std::vector<cv::Mat> planes;
    cv::split(out, planes);
    side.emplace_back(256 * 4 * planes.size());
    auto* bins = reinterpret_cast<std::uint32_t*>(side[0].data());
    for (std::size_t c = 0; c < planes.size(); ++c)
      for (auto it = planes[c].begin<std::uint8_t>(); it != planes[c].end<std::uint8_t>(); ++it)
        ++bins[c * 256 + *it];
    sideInfo = {{1, "histogram"}};
    bind();
  }
  TestFrame(const TestFrame& o)
      : in(o.in), out(o.out), side(o.side), sideInfo(o.sideInfo), result(o.result) {
    bind();
  }
  TestFrame& operator=(const TestFrame&) = delete;
  // Points the result at this object's own data (after a copy).
  void bind() {
    result.input = viewOf(in);
    result.output = viewOf(out);
    result.side = &side;
    result.sideInfo = &sideInfo;
  }
};

// Frames of a 10 fps file: frame n at n/10 s (time base 1/10), its pixels telling it apart.
inline TestFrame fileFrame(int n) {
  cv::Mat img = test::realFrame(n % 8, CV_8UC1, 160, 120);
  TestFrame f(img, img.clone(), std::uint64_t(n));
  f.result.time.pts = n;
  f.result.time.duration = 1;
  f.result.time.num = 1;
  f.result.time.den = 10;
  return f;
}

// The preview's options for that file: 100 frames at 10 fps.
inline app::PreviewOptions fileOptions() {
  app::PreviewOptions o;
  o.sourceFps = 10;
  o.frameCount = 100;
  return o;
}

// A preview sink without a window, drawing every frame at a fixed size.
inline std::unique_ptr<app::PreviewSink> makeSink(Chain& chain, app::PreviewOptions opts = {},
                                                  FakeHost::Shared* shared = nullptr,
                                                  cv::Size view = {1000, 600}) {
  opts.deviceName = "Test Device";
  auto sink =
      std::make_unique<app::PreviewSink>(std::make_unique<FakeHost>(chain, shared), chain, opts);
  sink->setShowWindow(false);
  sink->setMinRenderInterval(std::chrono::seconds(0));
  sink->setViewSize(view);
  return sink;
}

// Skips nothing: a test of the preview on an X screen fails when a tool it drives is missing.
#define REQUIRE_X_TOOLS()                                                     \
  for (const char* tool : {"Xvfb", "xdotool", "import", "ffmpeg", "ffprobe"}) \
  ASSERT_TRUE(have(tool)) << tool << " not found: install xvfb, xdotool, imagemagick, ffmpeg"

// An Xvfb server on a free display (-displayfd picks it), stopped by the destructor.
class Xvfb {
 public:
  explicit Xvfb(const std::string& screen = "1280x1024x24") {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      const std::string fd = std::to_string(fds[1]);
      ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", screen.c_str(),
               "-nolisten", "tcp", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    pollfd pfd{fds[0], POLLIN, 0};
    std::string num;
    while (::poll(&pfd, 1, 15000) > 0) {
      char c;
      if (::read(fds[0], &c, 1) != 1 || c == '\n') break;
      num += c;
    }
    ::close(fds[0]);
    if (!num.empty()) display_ = ":" + num;
  }
  ~Xvfb() { stop(); }
  // The server ends now (a display that goes away under its clients).
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  const std::string& display() const { return display_; }
  // "DISPLAY=:N " before a shell command (xdotool, import).
  std::string env() const { return "DISPLAY=" + display_ + " "; }
  // A child on this display, killed after `timeoutSec`.
  ProcOptions options(double timeoutSec) const {
    ProcOptions po;
    po.setEnv = {"DISPLAY=" + display_};
    po.keepDisplay = true;
    po.timeoutSec = timeoutSec;
    return po;
  }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

struct Geometry {
  cv::Rect window;
  cv::Size screen;
};

// The window's place on the screen (xdotool) and a screenshot of the whole screen.
inline cv::Mat screenshot(const std::string& env, const std::string& id, const std::string& path,
                          Geometry* g) {
  const auto geo = shellOutput(env + "xdotool getwindowgeometry --shell " + id);
  auto field = [&](const std::string& k) {
    const auto p = geo.find(k + "=");
    return p == std::string::npos ? -1 : std::atoi(geo.c_str() + p + k.size() + 1);
  };
  g->window = cv::Rect(field("X"), field("Y"), field("WIDTH"), field("HEIGHT"));
  shell(env + "import -window root " + path);
  const cv::Mat screen = cv::imread(path, cv::IMREAD_COLOR);
  g->screen = screen.size();
  return screen;
}

inline cv::Mat windowPart(const cv::Mat& screen, const Geometry& g) {
  if (screen.empty() || (g.window & cv::Rect(0, 0, screen.cols, screen.rows)) != g.window)
    return {};
  return screen(g.window).clone();
}

// A display number with no server behind it.
inline std::string deadDisplay() {
  for (int n = 90; n < 400; ++n) {
    std::error_code ec;
    if (!std::filesystem::exists("/tmp/.X11-unix/X" + std::to_string(n), ec) &&
        !std::filesystem::exists("/tmp/.X" + std::to_string(n) + "-lock", ec))
      return ":" + std::to_string(n);
  }
  return ":399";
}

// Finds the window titled `title` (a regex), waiting up to 60 s.
inline std::string findWindow(const std::string& env, const std::string& title) {
  return shellLine(env + "timeout 60 xdotool search --sync --onlyvisible --name '" + title +
                   "' | head -1");
}

}  // namespace vf::test
