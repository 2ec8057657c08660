#include "app/cv_capture.hpp"

#include <glib.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#include <optional>
#include <vector>

#include "app/gst_diagnose.hpp"
#include "app/gst_errors.hpp"
#include "app/interrupt.hpp"
#include "app/mat_view.hpp"
#include "app/options.hpp"
#include "app/wait_notice.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace fs = std::filesystem;

namespace {

std::string cameraList() {
  std::vector<std::string> nodes;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("video", 0) == 0) nodes.push_back(e.path().string());
  }
  std::sort(nodes.begin(), nodes.end());
  if (nodes.empty()) return "no camera devices (/dev/video*) exist on this machine";
  std::string s = "video devices here:";
  for (const auto& n : nodes) s += " " + n;
  return s + " (vidfilter --list-cameras shows them with their modes)";
}

// 8-bit with 1, 3 or 4 channels, as the pipeline takes it.
cv::Mat toSupported(const cv::Mat& m) {
  cv::Mat out = m;
  if (out.depth() != CV_8U) {
    double scale = out.depth() == CV_16U ? 1.0 / 257 : 1.0;
    out.convertTo(out, CV_MAKETYPE(CV_8U, out.channels()), scale);
  }
  if (out.channels() == 2) cv::cvtColor(out, out, cv::COLOR_GRAY2BGR);  // rare: YUYV raw
  return out;
}

// While a source opens and gives its first frame, GStreamer's critical and warning lines and
// OpenCV's error lines go to the debug log: a pipeline that does not start leaves OpenCV's
// half-made one behind ("Trying to dispose element pipeline0, but it is in READY ..."), and the
// error vidfilter then gives names the cause. A log level of debug or more keeps OpenCV's lines.
class QuietOpen {
 public:
  // Inputs open on threads of their own at once: the first to open saves and quiets, the last
  // to finish restores.
  QuietOpen() {
    const std::lock_guard<std::mutex> lock(state().m);
    State& st = state();
    if (st.depth++ > 0) return;
    st.cvLevel = cv::utils::logging::getLogLevel();
    st.handler = g_log_set_handler(
        "GStreamer", static_cast<GLogLevelFlags>(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING),
        toDebug, nullptr);
    if (st.cvLevel <= cv::utils::logging::LOG_LEVEL_ERROR)
      cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  }
  ~QuietOpen() {
    const std::lock_guard<std::mutex> lock(state().m);
    State& st = state();
    if (--st.depth > 0) return;
    cv::utils::logging::setLogLevel(st.cvLevel);
    g_log_remove_handler("GStreamer", st.handler);
  }
  QuietOpen(const QuietOpen&) = delete;
  QuietOpen& operator=(const QuietOpen&) = delete;

 private:
  struct State {
    std::mutex m;
    int depth = 0;
    cv::utils::logging::LogLevel cvLevel = cv::utils::logging::LOG_LEVEL_ERROR;
    guint handler = 0;
  };
  static State& state() {
    static State s;
    return s;
  }
  static void toDebug(const gchar* domain, GLogLevelFlags, const gchar* message, gpointer) {
    spdlog::debug("{}: {}", domain ? domain : "GLib", message ? message : "");
  }
};

// What OpenCV's appsink hands over for a pipeline that ends in JPEG images (image/jpeg): each
// image's bytes as one row.
bool isJpegRow(const cv::Mat& m) {
  return m.rows == 1 && m.type() == CV_8UC1 && m.cols >= 3 && m.data[0] == 0xFF &&
         m.data[1] == 0xD8 && m.data[2] == 0xFF;
}

class VideoCaptureSource : public CaptureSource {
 public:
  // `start`, `end`: the span of the capture's time to deliver (--ss, --to, -t), in seconds from
  // its first frame.
  VideoCaptureSource(const SourceSpec& spec, double start, std::optional<double> end)
      : spec_(spec), start_(start), end_(end) {
    cv::Mat first;
    {
      const QuietOpen quiet;
      open();
      // A camera can need a few grabs before it delivers.
      for (int i = 0; i < 5 && first.empty(); ++i) cap_.read(first);
    }
    if (first.empty())
      throw UsageError(std::string(kindName(spec.kind)) + " " + quote(spec.text) +
                       " opened but delivered no frame" + postedError());
    if (spec.kind == SourceKind::GStreamer && isJpegRow(first))
      throw UsageError("GStreamer pipeline " + quote(spec.text) +
                       " hands appsink JPEG images (image/jpeg), not raw video; decode them "
                       "before it: '... ! jpegdec ! videoconvert ! appsink'");
    firstAt_ = Clock::now();
    const double ms = cap_.get(cv::CAP_PROP_POS_MSEC);
    sourceTime_ = ms > 0;
    firstMs_ = ms;
    pending_ = toSupported(first);
    last_ = {pending_.cols, pending_.rows, formatOf(pending_)};
    const double fps = cap_.get(cv::CAP_PROP_FPS);
    fps_ = (fps > 0 && fps < 1000) ? fps : 0;
    if (spec_.kind == SourceKind::Camera) warnIfModeDiffers(first);
  }

  ~VideoCaptureSource() override {
    spdlog::debug("{}: {} of {} frames decoded straight into the engine's slots", spec_.text,
                  direct_, delivered_);
  }

  bool live() const override { return true; }
  double fps() const override { return fps_; }
  FrameDesc firstFrameDesc() const override { return last_; }

  std::string description() const override {
    std::string s = std::string(kindName(spec_.kind)) + " " + spec_.text + " (" + last_.str();
    if (fps_ > 0) s += ", " + cv::format("%.3g", fps_) + " fps";
    return s + ")";
  }

  // Frames are stamped with the capture's clock (microseconds since the first frame), so a
  // recording lasts as long as the capture did, whatever was dropped on the way. Frames before
  // --ss are grabbed and left undecoded; the first at or past --to ends the input.
  bool next(const SlotFn& slot, FrameTime& time) override {
    if (!pending_.empty()) {
      const bool wanted = start_ <= 0;
      if (wanted) deliver(pending_, slot);
      pending_.release();
      if (wanted) {
        stamp(time, 0);
        ++delivered_;
        return true;
      }
    }
    for (int failures = 0; failures < kMaxConsecutiveFailures;) {
      if (!cap_.grab()) break;
      const double at = secondsAt(Clock::now());
      if (at < start_) {
        if (interruptSignal()) return false;  // a stop while skipping to --ss
        continue;
      }
      if (end_ && at >= *end_) return false;  // the span asked for is done
      if (!tryRetrieve(slot)) {
        ++failures;
        continue;
      }
      if (delivered_ == 0) origin_ = at;  // the output starts at its first frame
      stamp(time, at - origin_);
      ++delivered_;
      return true;
    }
    return endOfStream();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr int kMaxConsecutiveFailures = 50;

  // The time of the frame just grabbed, in seconds from the first: the time the driver or the
  // pipeline gave it (CAP_PROP_POS_MSEC: V4L2's buffer time, GStreamer's position) when the
  // source has one, else the time it was grabbed.
  double secondsAt(Clock::time_point grabbed) {
    if (sourceTime_) return (cap_.get(cv::CAP_PROP_POS_MSEC) - firstMs_) / 1000;
    return std::chrono::duration<double>(grabbed - firstAt_).count();
  }

  // `seconds` from the start of the output, counted in frames of the nominal rate when it is
  // known (a dropped frame leaves a gap), else in us.
  void stamp(FrameTime& time, double seconds) {
    if (fps_ > 0) {
      const int den = static_cast<int>(std::lround(fps_ * 1000)), g = std::gcd(den, 1000);
      time.num = 1000 / g;
      time.den = den / g;
      time.duration = 1;
    } else {
      time.num = 1;
      time.den = 1000000;
    }
    time.pts = std::llround(seconds * time.den / time.num);
    // Strictly increasing, whatever the clock's resolution.
    if (time.pts <= lastPts_) time.pts = lastPts_ + 1;
    lastPts_ = time.pts;
  }

  void open() {
    const std::string& t = spec_.text;
    switch (spec_.kind) {
      case SourceKind::Camera:
        cap_.open(spec_.cameraIndex, cv::CAP_ANY);
        if (!cap_.isOpened())
          throw UsageError("camera " + t + " (index " + std::to_string(spec_.cameraIndex) +
                           ") could not be opened: it does not exist or is busy; " + cameraList());
        askForMode();
        return;
      case SourceKind::GStreamer:
        if (!cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER))
          throw UsageError(
              "this OpenCV was built without GStreamer, so '-i ... ! appsink' cannot be opened; "
              "use a file, a camera or a URL");
        {
          std::string converted;
          const std::string opened = gstreamerPipelineAsOpened(t, &converted);
          bool camera = false;
          if (const std::string why = gstreamerParseError(opened, &camera); !why.empty())
            throw UsageError(
                "GStreamer pipeline " + quote(t) + " could not be started: " + printable(why) +
                (camera ? "; " + cameraList() : " (check it with gst-launch-1.0 ... ! fakesink)"));
          if (!converted.empty())
            spdlog::info("{}: {} frames converted for appsink (videoconvert)", t, converted);
          gstErrors_.emplace();  // the pipeline OpenCV makes here
          {
            // The open waits for the pipeline's first frame, as long as its source takes (a
            // network source with no sender: for ever): after 5 s, one line says so.
            const WaitNotice notice(std::chrono::seconds(5), [&t] {
              spdlog::info(
                  "GStreamer pipeline {}: no frame yet after 5 s; waiting for its source "
                  "(Ctrl-C stops)",
                  quote(t));
            });
            cap_.open(opened, cv::CAP_GSTREAMER);
          }
          gstErrors_->stopNoting();
          if (!cap_.isOpened()) cap_.release();  // OpenCV's half-made pipeline, quietly
        }
        if (!cap_.isOpened()) {
          const std::string why = gstreamerStartError(gstreamerPipelineAsOpened(t, nullptr));
          throw UsageError(
              "GStreamer pipeline " + quote(t) + " could not be started" +
              (why.empty() ? " (an element missing or misspelt? " : ": " + printable(why) + " (") +
              "check it with gst-launch-1.0 ... ! fakesink)");
        }
        return;
      default:
        throw std::logic_error("OpenCV capture takes cameras and GStreamer pipelines only");
    }
  }

  // The mode asked for, in the order V4L2 needs: the pixel format, then the size, then the rate
  // (a size is offered per format, a rate per size).
  void askForMode() {
    const CameraMode& want = spec_.camera;
    if (!want.format.empty()) cap_.set(cv::CAP_PROP_FOURCC, double(cameraFourcc(want.format)));
    if (want.width > 0) {
      cap_.set(cv::CAP_PROP_FRAME_WIDTH, want.width);
      cap_.set(cv::CAP_PROP_FRAME_HEIGHT, want.height);
    }
    if (want.fps > 0) cap_.set(cv::CAP_PROP_FPS, want.fps);
  }

  // One warning when the camera gave another mode than the one asked for (cameras take the
  // nearest they have); what it gave is what the run uses.
  void warnIfModeDiffers(const cv::Mat& first) {
    const CameraMode& want = spec_.camera;
    CameraMode got;
    got.width = first.cols;
    got.height = first.rows;
    got.fps = fps_;
    got.format = cameraFormatName(static_cast<unsigned>(cap_.get(cv::CAP_PROP_FOURCC)));
    const bool size = want.width > 0 && (want.width != got.width || want.height != got.height);
    const bool rate = want.fps > 0 && std::abs(want.fps - got.fps) > 0.01 * want.fps;
    const bool format = !want.format.empty() && want.format != got.format;
    if (!size && !rate && !format) return;
    if (got.format.empty()) got.format = "another pixel format";
    spdlog::warn(
        "{}: asked for {}; the camera gives {} (vidfilter --list-cameras shows the modes "
        "it offers)",
        spec_.text, want.str(), got.fps > 0 ? got.str() : got.str() + ", rate unknown");
  }

  void deliver(const cv::Mat& m, const std::function<FrameView(const FrameDesc&)>& slot) {
    const FrameDesc d{m.cols, m.rows, formatOf(m)};
    if (d != last_) {
      spdlog::warn("{}: frame size changed from {} to {} at frame {}", spec_.text, last_.str(),
                   d.str(), delivered_);
      last_ = d;
    }
    copyInto(m, slot(d));
  }

  // Decodes straight into the engine's slot when the frame has the size and format of the
  // previous one (the usual case); otherwise through a staging Mat.
  bool tryRetrieve(const std::function<FrameView(const FrameDesc&)>& slot) {
    const int w = static_cast<int>(cap_.get(cv::CAP_PROP_FRAME_WIDTH));
    const int h = static_cast<int>(cap_.get(cv::CAP_PROP_FRAME_HEIGHT));
    if (w == last_.width && h == last_.height && last_.format == PixelFormat::BGR8) {
      const FrameView v = slot(last_);
      cv::Mat dst = matOf(v);
      cv::Mat out = dst;  // retrieve writes into `out`; a different frame size reallocates it
      if (!cap_.retrieve(out) || out.empty()) {
        dst.setTo(cv::Scalar::all(0));  // the slot is taken: hand a black frame, never garbage
        spdlog::warn("{}: frame {} could not be decoded; a black frame stands in", spec_.text,
                     delivered_);
        return true;
      }
      if (out.data == dst.data) ++direct_;
      if (out.data != dst.data) {
        // Size or format changed under us: this frame is fitted into the slot taken for the old
        // size; the next one goes through the staging path with its own size.
        cv::Mat fitted = toSupported(out);
        if (fitted.channels() != 3)
          cv::cvtColor(fitted, fitted,
                       fitted.channels() == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_BGRA2BGR);
        cv::resize(fitted, dst, dst.size(), 0, 0, cv::INTER_AREA);
        if (!warnedResize_)
          spdlog::warn("{}: frame size changed to {}x{} at frame {}", spec_.text, out.cols,
                       out.rows, delivered_);
        warnedResize_ = true;
        last_ = {out.cols, out.rows, formatOf(fitted)};
      }
      return true;
    }
    if (!cap_.retrieve(staging_) || staging_.empty()) return false;
    deliver(toSupported(staging_), slot);
    return true;
  }

  // ": <element>: <message>" for the first error an element of the pipeline posted, else "".
  std::string postedError() const {
    const std::string e = gstErrors_ ? gstErrors_->firstError() : "";
    return e.empty() ? "" : ": " + printable(e);
  }

  // A camera that stops has failed or gone; a pipeline ends as its source ends, or fails with
  // an error an element posted (OpenCV's reads end the same way for both).
  bool endOfStream() {
    if (const std::string e = postedError(); !e.empty())
      throw RuntimeError("GStreamer pipeline " + quote(spec_.text) + " failed after " +
                         std::to_string(delivered_) + (delivered_ == 1 ? " frame" : " frames") + e);
    if (spec_.kind == SourceKind::Camera)
      spdlog::warn("{} '{}' stopped delivering frames after {} frames; ending the stream",
                   kindName(spec_.kind), spec_.text, delivered_);
    else
      spdlog::info("{} '{}' ended after {} frames", kindName(spec_.kind), spec_.text, delivered_);
    return false;
  }

  SourceSpec spec_;
  double start_ = 0, origin_ = 0;  // origin_: the capture's time of the first frame delivered
  std::optional<double> end_;
  std::optional<GstErrorWatch> gstErrors_;  // before cap_: it outlives the pipeline
  cv::VideoCapture cap_;
  cv::Mat pending_, staging_;
  FrameDesc last_;
  double fps_ = 0;
  Clock::time_point firstAt_;
  std::int64_t delivered_ = 0, direct_ = 0, lastPts_ = -1;
  double firstMs_ = 0;       // the source's time of the first frame
  bool sourceTime_ = false;  // the source times its frames (else: the grab clock)
  bool warnedResize_ = false;
};

}  // namespace

std::unique_ptr<CaptureSource> openCvCapture(const SourceSpec& spec, const InputOptions& options) {
  return std::make_unique<VideoCaptureSource>(spec, options.start, options.end);
}

}  // namespace vf::app
