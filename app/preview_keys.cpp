// The preview's keys (part of PreviewSink; see preview.hpp). Each runs with mu_ held, on the
// thread the key came from (the window's GUI thread), as soon as it is pressed.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>

#include "app/media/atomic_file.hpp"
#include "app/preview.hpp"

namespace vf::app {

namespace {

// The step +/- moves a parameter by: 1 for integers; for reals about 5% of the value, never
// less than 1/200 of the range (so 0 can move), rounded to 1, 2 or 5 times a power of ten.
double stepFor(const ParamSpec& s, double v) {
  if (s.type == ParamType::Int) return 1;
  const double range = (s.max > s.min) ? s.max - s.min : 1;
  const double raw = std::max(std::abs(v) * 0.05, range / 200);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

std::string numberText(const ParamSpec& s, double v) {
  if (s.type == ParamType::Int) return std::to_string(static_cast<long long>(std::lround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

void PreviewSink::setMessage(const std::string& m) {
  message_ = m;
  messageUntil_ = std::chrono::steady_clock::now() + std::chrono::seconds(3);
}

void PreviewSink::handleKey(int key) {
  switch (key) {
    case 'q':
    case 'Q':
    case key::kEscape:
      quit_ = true;
      break;
    case ' ':
      if (ended_ || host_->atEnd())
        setMessage(host_->seekable() && !ended_ ? "end of the file: Left seeks back"
                                                : "end of the input: q quits");
      else
        paused_ = !paused_;
      break;
    case '.':
      stepForward();
      break;
    case ',':
      stepBack();
      break;
    case key::kLeft:
      seekBy(-5);
      break;
    case key::kRight:
      seekBy(5);
      break;
    case key::kDown:
      seekBy(-60);
      break;
    case key::kUp:
      seekBy(60);
      break;
    case 'o':
      overlay_ = !overlay_;
      break;
    case 'c':
      compare_ = !compare_;
      break;
    case 'l':
      histLog_ = !histLog_;
      break;
    case 'u':
      toggleFusion();
      break;
    case 'h':
    case 'H':
      help_ = !help_;
      break;
    case 'f':
    case key::kF11:
      if (window_) window_->toggleFullScreen();
      break;
    case 's':
      snapshot();
      break;
    case '+':
    case '=':
      adjust(+1);
      break;
    case '-':
    case '_':
      adjust(-1);
      break;
    case '\t':
    case ']':
      select(+1);
      break;
    case '[':
      select(-1);
      break;
    default:
      if (key >= '1' && key <= '9') toggleStage(key - '1');
      break;
  }
}

void PreviewSink::select(int step) {
  const int n = static_cast<int>(stages_.size());
  if (n > 0) selected_ = ((selected_ < 0 ? 0 : selected_) + (step < 0 ? n - 1 : 1)) % n;
}

void PreviewSink::toggleStage(int i) {
  if (i < 0 || i >= static_cast<int>(stages_.size())) return;
  auto& s = stages_[i];
  s.enabled = !s.enabled;
  selected_ = i;
  const bool on = s.enabled;
  // Explicit target state (not "flip"), so this mirror and the chain cannot drift apart.
  host_->post([i, on](Chain& c) { c.setEnabled(static_cast<std::size_t>(i), on); });
  setMessage(s.name + (on ? " on" : " off"));
  redrawHeld();
}

void PreviewSink::toggleFusion() {
  fuse_ = !fuse_;
  const bool on = fuse_;
  host_->post([on](Chain& c) { c.setFusion(on ? Chain::Fusion::On : Chain::Fusion::Off); });
  setMessage(on ? "fusion on: stages that fuse run and are timed as one pass"
                : "fusion off: every stage runs and is timed alone");
  redrawHeld();
}

void PreviewSink::adjust(int direction) {
  if (selected_ < 0 || selected_ >= static_cast<int>(stages_.size())) return;
  auto& s = stages_[selected_];
  if (s.param.empty()) {
    setMessage(s.name + " has no live parameter");
    return;
  }
  const double st = stepFor(s.spec, s.value);
  double v = s.value + direction * st;
  // Keep inside the declared range (an open end stays one step inside).
  if (s.spec.max > s.spec.min) {
    const double lo = s.spec.minOpen ? s.spec.min + st * 0.01 : s.spec.min;
    const double hi = s.spec.maxOpen ? s.spec.max - st * 0.01 : s.spec.max;
    v = std::clamp(v, lo, hi);
  }
  if (std::abs(v) < 1e-9) v = 0;
  const std::string text = numberText(s.spec, v);
  s.value = std::stod(text);
  const std::size_t i = static_cast<std::size_t>(selected_);
  const std::string name = s.param;
  host_->post([i, name, text](Chain& c) {
    try {
      c.stage(i).params().set(name, text);
      c.stage(i).update();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vidfilter: preview: %s\n", e.what());
    }
  });
  setMessage(s.name + ": " + name + " " + text);
  redrawHeld();
}

// Paused, the frame on show was made by the chain before the change: a file that can seek
// makes it again (a seek to it, shown paused), so what a key changed shows at once. Otherwise
// the change shows from the next frame, and the message says so.
void PreviewSink::redrawHeld() {
  if (!paused_ || !shown_) return;
  if (!host_->seekable() || ended_) {
    setMessage(message_ + " (shown from the next frame: space plays, . steps)");
    return;
  }
  // A seek under way may bring a frame made before this change: once it arrives, it is made
  // again.
  if (seeking_) {
    redrawAfterSeek_ = true;
    return;
  }
  seekAgain(secondsOf(*shown_));
}

void PreviewSink::seekAgain(double at) {
  if (at < 0) return;
  const double frame = opts_.sourceFps > 0 ? 1.0 / opts_.sourceFps : 0.004;
  // From half a frame past it: the frames already on their way, after it, are not the one
  // sought (seekArrived); the sought one is, at its time.
  startSeek(at + frame / 2, {at, std::max(0.0, at - frame / 10), true});
}

// Seeks `delta` seconds from the frame on show (or from where a seek under way goes); the
// sought frame is shown, paused if the preview was.
void PreviewSink::seekBy(double delta) {
  if (!host_->seekable() || ended_) {
    setMessage(ended_ ? "the input has ended: q quits"
                      : "this input cannot seek (live, or being written with -o)");
    return;
  }
  if (!shown_) return;
  const double from = seekBase();
  if (from < 0) return;
  double to = std::max(0.0, from + delta);
  if (opts_.frameCount > 0 && opts_.sourceFps > 0)
    to = std::min(to, (opts_.frameCount - 1) / opts_.sourceFps);
  if (std::abs(to - from) < 1e-6) return;
  askSeek({to, to, seeking_ ? (nextSeek_ ? nextSeek_->pause : seekPause_) : bool(paused_)});
}

double PreviewSink::seekBase() const {
  return seeking_ ? (nextSeek_ ? nextSeek_->aim : seekAim_) : secondsOf(*shown_);
}

void PreviewSink::askSeek(const Seek& seek) {
  if (seeking_)
    nextSeek_ = seek;  // asked for once the seek under way arrives
  else
    startSeek(secondsOf(*shown_), seek);
}

void PreviewSink::startSeek(double from, const Seek& seek) {
  seeking_ = true;
  seekPause_ = seek.pause;
  seekFrom_ = from;
  seekAim_ = seek.aim;
  seekTarget_ = seek.target;
  seekSkipped_ = 0;
  if (seek.pause) paused_ = true;
  release_ = true;
  host_->seek(seek.target);
}

void PreviewSink::stepForward() {
  if (ended_ || host_->atEnd()) return;
  ++stepsPending_;  // each press one frame, however fast they come
  release_ = true;
}

// One frame back: a seek to the frame before the one on show, or before where a seek under way
// goes (seen before, else one frame period earlier), shown paused.
void PreviewSink::stepBack() {
  if (!host_->seekable() || ended_ || !shown_) {
    setMessage("this input cannot step back (live, or being written with -o)");
    return;
  }
  const double from = seekBase();
  if (from <= 0) return;
  auto it = seenTimes_.lower_bound(from - 1e-6);
  double to = opts_.sourceFps > 0 ? from - 1.0 / opts_.sourceFps : from - 0.04;
  if (it != seenTimes_.begin()) to = std::max(to, *std::prev(it));
  to = std::max(0.0, to);
  // A little before it: the first frame at or after the target is that frame, however its
  // time rounds.
  askSeek({to, std::max(0.0, to - (opts_.sourceFps > 0 ? 0.1 / opts_.sourceFps : 1e-3)), true});
}

void PreviewSink::snapshot() {
  if (!shown_) return;
  // A new name each time (a -N suffix when taken): a snapshot never replaces a file, so it can
  // never write over an input either; the image is written whole or not at all.
  // Named by the frame's number in the source, as the panel shows it ("frame 42"): a seek or a
  // step back names the frame on the screen, not how many frames were taken.
  std::string number = std::to_string(frameNumber(*shown_));
  if (number.size() < 6) number.insert(0, 6 - number.size(), '0');
  const std::string stem =
      (std::filesystem::path(opts_.snapshotDir) / ("vidfilter-" + number)).string();
  std::string path = stem + ".png", why = "could not encode the frame";
  bool ok = false;
  std::vector<std::uint8_t> png;
  try {
    if (cv::imencode(".png", shown_->raw, png)) {
      for (int n = 1; n < 1000; ++n) {
        why = media::writeFileAtomically(path, png.data(), png.size(), /*replace=*/false);
        if (why != std::strerror(EEXIST)) break;
        path = stem + "-" + std::to_string(n) + ".png";
      }
      ok = why.empty();
    }
  } catch (const cv::Exception&) {
    ok = false;
  }
  setMessage(ok ? "saved " + path : "could not write " + path + ": " + why);
  std::fprintf(stderr, "vidfilter: %s\n", message_.c_str());
}

}  // namespace vf::app
