#include "app/sinks.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <regex>
#include <stdexcept>

#include "app/options.hpp"

namespace vf::app {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* const kImageExtensions[] = {"png", "bmp", "tif", "tiff", "ppm",
                                        "pgm", "pnm", "jpg", "jpeg", "webp"};

bool isImageExtension(const std::string& ext) {
  return std::find(std::begin(kImageExtensions), std::end(kImageExtensions), ext) !=
         std::end(kImageExtensions);
}

// Directory exists, is a directory, and is writable; `what` names the path in messages.
void checkDirectory(const fs::path& file, const std::string& what) {
  fs::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw UsageError("output directory '" + dir.string() +
                     "' does not exist; create it first (mkdir -p " + dir.string() + ")");
  if (!fs::is_directory(dir, ec))
    throw UsageError("output " + what + ": '" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError("output directory '" + dir.string() + "' is not writable (permission denied)");
  if (fs::exists(file, ec)) {
    if (fs::is_directory(file, ec))
      throw UsageError("output '" + file.string() + "' is a directory; give a file name");
    if (::access(file.c_str(), W_OK) != 0)
      throw UsageError("output '" + file.string() + "' exists and is not writable");
  }
}

cv::Mat matOf(const FrameView& v) {
  const int type = v.format == PixelFormat::Gray8   ? CV_8UC1
                   : v.format == PixelFormat::BGRA8 ? CV_8UC4
                                                    : CV_8UC3;
  return cv::Mat(v.height, v.width, type, v.data, v.stride);
}

// OpenCV prints FFmpeg's codec-tag notices straight to stderr ("OpenCV: FFMPEG: tag ... is not
// found"); our own error says it better. Silenced while the writer opens, unless debugging.
class QuietStderr {
 public:
  QuietStderr() {
    if (spdlog::get_level() <= spdlog::level::debug) return;
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) ::dup2(null, STDERR_FILENO);
    if (null >= 0) ::close(null);
  }
  ~QuietStderr() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

class NullSink : public FrameSink {
 public:
  void consume(const FrameResult&) override {}
};

class VideoFileSink : public FrameSink {
 public:
  VideoFileSink(const OutputSpec& spec, const FrameDesc& desc, double fps) : spec_(spec) {
    dir_ = fs::path(spec.path).parent_path();
    if (dir_.empty()) dir_ = ".";
    size_ = cv::Size(desc.width, desc.height);
    // OpenCV's FFmpeg writer drops the last column and row of an odd size (so 1x1 cannot be
    // written at all): an odd frame is padded by repeating its last column/row instead.
    writtenSize_ = cv::Size(size_.width + size_.width % 2, size_.height + size_.height % 2);
    if (writtenSize_ != size_)
      spdlog::warn(
          "{}: {}x{} is odd; written as {}x{} with the last column/row repeated (the "
          "FFmpeg writer needs even sizes; an image sequence keeps the exact size)",
          spec.path, size_.width, size_.height, writtenSize_.width, writtenSize_.height);
    if (fps <= 0) {
      spdlog::warn("input frame rate unknown; {} is written at 30 fps", spec.path);
      fps = 30;
    }
    const int cc =
        cv::VideoWriter::fourcc(spec.fourcc[0], spec.fourcc[1], spec.fourcc[2], spec.fourcc[3]);
    // Gray output stays gray where the codec can take it; otherwise it is expanded to BGR.
    color_ = desc.format != PixelFormat::Gray8;
    if (!color_ && !open(cc, fps, false)) color_ = true;
    if (color_ && !open(cc, fps, true)) {
      std::error_code ec;
      if (fs::exists(spec.path, ec) && fs::file_size(spec.path, ec) == 0) fs::remove(spec.path, ec);
      const std::string usual = defaultFourcc(spec.extension);
      throw UsageError("cannot write '" + spec.path + "' with codec " + spec.fourcc + " in a ." +
                       spec.extension + " file (FFmpeg refused it); " +
                       (spec.fourcc != usual ? "try --codec " + usual
                                             : "try another container (.mkv, .avi) or an image "
                                               "sequence such as out/frame_%05d.png"));
    }
    spdlog::info("writing {} ({}x{} {}, {} at {:.4g} fps)", spec.path, size_.width, size_.height,
                 color_ ? "bgr" : "gray", spec.fourcc, fps);
  }

  void consume(const FrameResult& frame) override {
    cv::Mat m = matOf(frame.output);
    if (m.size() != size_) {
      if (!warnedSize_)
        spdlog::warn("{}: frame size changed to {}x{}; frames are scaled to {}x{}", spec_.path,
                     m.cols, m.rows, size_.width, size_.height);
      warnedSize_ = true;
      cv::resize(m, scaled_, size_, 0, 0, cv::INTER_AREA);
      m = scaled_;
    }
    if (writtenSize_ != size_) {
      cv::copyMakeBorder(m, padded_, 0, writtenSize_.height - size_.height, 0,
                         writtenSize_.width - size_.width, cv::BORDER_REPLICATE);
      m = padded_;
    }
    if (color_ && m.channels() != 3) {
      cv::cvtColor(m, converted_, m.channels() == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_BGRA2BGR);
      m = converted_;
    } else if (!color_ && m.channels() != 1) {
      cv::cvtColor(m, converted_, m.channels() == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
      m = converted_;
    }
    checkSpace();
    writer_.write(m);
    ++written_;
  }

  void finish() override {
    if (!writer_.isOpened()) return;
    writer_.release();  // writes the container's index: the file plays from here on
    if (written_ == 0) {
      // A container with no frame does not play (no stream in it): better no file at all.
      std::error_code ec;
      fs::remove(spec_.path, ec);
      spdlog::warn("no frame reached {}; the empty file was removed", spec_.path);
      return;
    }
    spdlog::info("wrote {} frames to {}", written_, spec_.path);
  }

  ~VideoFileSink() override { writer_.release(); }

 private:
  bool open(int cc, double fps, bool color) {
    QuietStderr quiet;
    return writer_.open(spec_.path, cv::CAP_FFMPEG, cc, fps, writtenSize_,
                        {cv::VIDEOWRITER_PROP_IS_COLOR, color ? 1 : 0});
  }

  // cv::VideoWriter cannot report a failed write, and a container whose index was never
  // written (mp4's moov) does not play. So the run stops while there is still room to close the
  // file: what was written stays playable, and the error says why.
  void checkSpace() {
    struct statvfs fs {};
    if (::statvfs(dir_.c_str(), &fs) != 0) return;
    const double avail = double(fs.f_bavail) * double(fs.f_frsize);
    std::error_code ec;
    const double size = double(fs::file_size(spec_.path, ec));
    const double perFrame = written_ > 0 && !ec ? size / double(written_) : 0;
    const double reserve = 2.0 * (1 << 20) + 8 * perFrame + 64.0 * double(written_);
    if (avail < reserve)
      throw std::runtime_error("the disk holding " + spec_.path + " is full (" +
                               std::to_string(static_cast<long long>(avail / 1024)) +
                               " KiB left): stopped after " + std::to_string(written_) +
                               " frames and closed the file, which plays; free some space "
                               "or write elsewhere");
  }

  OutputSpec spec_;
  fs::path dir_;
  cv::VideoWriter writer_;
  cv::Size size_;         // the chain's output size
  cv::Size writtenSize_;  // size_ rounded up to even
  bool color_ = true, warnedSize_ = false;
  cv::Mat scaled_, padded_, converted_;
  std::int64_t written_ = 0;
};

class ImageSequenceSink : public FrameSink {
 public:
  explicit ImageSequenceSink(const OutputSpec& spec) : spec_(spec) {
    if (spec.extension == "png") params_ = {cv::IMWRITE_PNG_COMPRESSION, 1};
    if (spec.extension == "jpg" || spec.extension == "jpeg") {
      params_ = {cv::IMWRITE_JPEG_QUALITY, 95};
      spdlog::warn("{}: JPEG is lossy; use .png for exact frames", spec.path);
    }
  }

  void consume(const FrameResult& frame) override {
    const std::string name = sequenceFileName(spec_.path, index_);
    bool ok = false;
    try {
      ok = cv::imwrite(name, matOf(frame.output), params_);
    } catch (const cv::Exception& e) {
      throw std::runtime_error("could not write " + name + ": " + e.err);
    }
    if (!ok) {
      std::error_code ec;
      fs::remove(name, ec);  // a half-written image is worse than none
      throw std::runtime_error("could not write " + name + " (disk full, or the directory was " +
                               "removed?); the " + std::to_string(index_) +
                               " images before it are complete");
    }
    ++index_;
  }

  void finish() override { spdlog::info("wrote {} images to {}", index_, spec_.path); }

 private:
  OutputSpec spec_;
  std::vector<int> params_;
  std::int64_t index_ = 0;
};

}  // namespace

std::string defaultFourcc(const std::string& ext) {
  if (ext == "mp4" || ext == "m4v" || ext == "mov") return "mp4v";
  if (ext == "avi") return "MJPG";
  if (ext == "mkv") return "FFV1";
  if (ext == "webm") return "VP80";
  return "";
}

std::string sequenceFileName(const std::string& pattern, std::int64_t index) {
  char buf[4096];
  // The pattern was checked to hold exactly one integer conversion (and %% at most).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  std::snprintf(buf, sizeof buf, pattern.c_str(), static_cast<int>(index + 1));
#pragma GCC diagnostic pop
  return buf;
}

OutputSpec classifyOutput(const std::optional<std::string>& path,
                          const std::optional<std::string>& codec) {
  OutputSpec s;
  if (!path) return s;
  s.path = *path;
  const fs::path p(s.path);
  std::string ext = lower(p.extension().string());
  if (!ext.empty()) ext = ext.substr(1);
  s.extension = ext;

  static const std::regex conv("%[-+ #0]*[0-9]*[a-zA-Z%]");
  std::vector<std::string> convs;
  for (auto it = std::sregex_iterator(s.path.begin(), s.path.end(), conv);
       it != std::sregex_iterator(); ++it)
    if (it->str() != "%%") convs.push_back(it->str());
  const bool pattern = !convs.empty();

  if (pattern || isImageExtension(ext)) {
    if (!isImageExtension(ext))
      throw UsageError("output '" + s.path +
                       "': an image pattern needs an image type (.png, .bmp, "
                       ".tiff, .ppm/.pgm, .jpg); .png is lossless");
    if (!pattern)
      throw UsageError(
          "output '" + s.path + "' names a single image; for one image per frame use " +
          "a pattern such as '" + (p.parent_path() / p.stem()).string() + "_%05d." + ext + "'");
    static const std::regex intConv("%0?[0-9]*d");
    if (convs.size() != 1 || !std::regex_match(convs[0], intConv))
      throw UsageError("output '" + s.path +
                       "': the pattern needs exactly one frame number such as %05d (and %% for a "
                       "literal %)");
    if (sequenceFileName(s.path, 0).size() >= 4000)
      throw UsageError("output '" + s.path + "': file names too long");
    if (codec) spdlog::warn("--codec {} is ignored for an image sequence", *codec);
    s.kind = OutputKind::ImageSequence;
    checkDirectory(fs::path(sequenceFileName(s.path, 0)), "pattern");
    return s;
  }

  s.fourcc = codec ? *codec : defaultFourcc(ext);
  if (defaultFourcc(ext).empty())
    throw UsageError("output '" + s.path + "': unknown container '" +
                     (ext.empty() ? "" : "." + ext) +
                     "'; use .mp4, .mkv, .avi, .mov, .webm, or an image pattern such as "
                     "out/frame_%05d.png");
  s.kind = OutputKind::Video;
  checkDirectory(p, "file");
  return s;
}

std::unique_ptr<FrameSink> openOutput(const OutputSpec& spec, const FrameDesc& desc, double fps) {
  switch (spec.kind) {
    case OutputKind::Video:
      return std::make_unique<VideoFileSink>(spec, desc, fps);
    case OutputKind::ImageSequence:
      return std::make_unique<ImageSequenceSink>(spec);
    case OutputKind::None:
      break;
  }
  return makeNullSink();
}

std::unique_ptr<FrameSink> makeNullSink() { return std::make_unique<NullSink>(); }

}  // namespace vf::app
