#include "app/media/image_sequence.hpp"

#include <glob.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>

#include "app/media/pattern.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace {

constexpr std::int64_t kGapLookahead = 100;  // numbers past a gap looked at for images

bool isFile(const std::string& path, off_t* size = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (size) *size = st.st_size;
  return true;
}

std::vector<std::string> globMembers(const std::string& text) {
  glob_t g{};
  const int rc = ::glob(text.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> files;
  if (rc == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i)
      if (isFile(g.gl_pathv[i])) files.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (files.empty())
    throw app::UsageError("input " + quote(text) + ": no file matches this pattern");
  return files;
}

// The directory a pattern's members lie in, as their names start ("" for bare names).
std::string directoryOf(const FramePattern& p) {
  const auto slash = p.prefix.rfind('/');
  return slash == std::string::npos ? "" : p.prefix.substr(0, slash + 1);
}

// The lowest frame number of the files in the pattern's directory that are its members;
// nothing when there is none, the directory cannot be read, or the number lies in a directory's
// name.
std::optional<std::int64_t> lowestMember(const FramePattern& p) {
  if (p.suffix.find('/') != std::string::npos) return std::nullopt;
  const std::string dir = directoryOf(p);
  std::optional<std::int64_t> lowest;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = dir + it->path().filename().string();
    const std::optional<std::int64_t> k = p.match(name);
    if (k && (!lowest || *k < *lowest) && isFile(name)) lowest = k;
  }
  return lowest;
}

std::vector<std::string> numberedMembers(const std::string& text) {
  PatternProblem problem;
  const auto p = parseFramePattern(text, &problem);
  if (!p)
    throw app::UsageError("input " + quote(text) + ": " +
                          (problem.what.empty() ? "no frame number (%d) in it"
                                                : problem.what + " (at column " +
                                                      std::to_string(problem.column) + ")"));
  // The first of 0..4 that exists, as ffmpeg's image2 (start_number_range 5); else the lowest
  // number in the directory (ffmpeg would need -start_number for it).
  std::int64_t n = 0;
  while (n < 5 && !isFile(p->name(n))) ++n;
  if (n == 5) {
    const std::optional<std::int64_t> lowest = lowestMember(*p);
    if (!lowest)
      throw app::UsageError("input " + quote(text) + ": no image found (looked for " + p->name(0) +
                            " to " + p->name(4) + ", and for any number in " +
                            quote(directoryOf(*p).empty() ? "." : directoryOf(*p)) + ")");
    n = *lowest;
  }
  std::vector<std::string> files;
  for (; isFile(p->name(n)); ++n) files.push_back(p->name(n));
  return files;
}

// The sequence ends at the first number missing, as ffmpeg's: an image numbered a little past
// that gap is named, so a missing file is not taken for the end.
void warnOfAGap(const std::string& text, const std::vector<std::string>& files) {
  const auto p = parseFramePattern(text, nullptr);
  if (!p || files.empty()) return;
  const std::optional<std::int64_t> last = p->match(files.back());
  if (!last) return;
  for (std::int64_t k = *last + 2; k <= *last + 1 + kGapLookahead; ++k)
    if (isFile(p->name(k))) {
      spdlog::warn(
          "input {}: {} is missing, so the sequence ends at {} ({} images); {} and any "
          "after it are not read (renumber the images to read them)",
          quote(text), quote(p->name(*last + 1)), quote(files.back()), files.size(),
          quote(p->name(k)));
      return;
    }
}

// "empty (0 bytes)", "does not decode (Invalid data found when processing input)", or "".
std::string decodeImage(const std::string& path, AVFrame* out) {
  off_t size = 0;
  if (!isFile(path, &size)) return "no longer exists";
  if (size == 0) return "is empty (0 bytes)";
  if (::access(path.c_str(), R_OK) != 0)
    return std::string("could not be read (") + std::strerror(errno) + ")";
  AVFormatContext* raw = nullptr;
  Options opts;
  opts.set("pattern_type", "none");
  int err = avformat_open_input(&raw, ("file:" + path).c_str(), av_find_input_format("image2"),
                                opts.ptr());
  if (err < 0) return "could not be read (" + avError(err) + ")";
  InputPtr in(raw);
  if (in->nb_streams < 1) return "holds no image";
  const AVCodec* codec = avcodec_find_decoder(in->streams[0]->codecpar->codec_id);
  if (!codec) return "is not an image type FFmpeg can decode";
  CodecPtr dec(avcodec_alloc_context3(codec));
  if (!dec) outOfMemory("decoding an image");
  avcodec_parameters_to_context(dec.get(), in->streams[0]->codecpar);
  if ((err = avcodec_open2(dec.get(), codec, nullptr)) < 0)
    return "does not decode (" + avError(err) + ")";
  PacketPtr pkt = makePacket();
  if ((err = av_read_frame(in.get(), pkt.get())) < 0)
    return "could not be read (" + avError(err) + ")";
  av_frame_unref(out);
  if ((err = avcodec_send_packet(dec.get(), pkt.get())) < 0 ||
      (err = avcodec_send_packet(dec.get(), nullptr)) < 0 ||
      (err = avcodec_receive_frame(dec.get(), out)) < 0)
    return "does not decode (" + avError(err) + ")";
  if (out->decode_error_flags || (out->flags & AV_FRAME_FLAG_CORRUPT))
    return "is damaged (decoded with errors)";
  return "";
}

}  // namespace

bool isGlob(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

std::vector<std::string> listSequence(const std::string& text) {
  return isGlob(text) && !looksLikePattern(text) ? globMembers(text) : numberedMembers(text);
}

ImageSequenceSource::ImageSequenceSource(const app::SourceSpec& spec,
                                         const app::InputOptions& options)
    : spec_(spec),
      grayLuma_(options.grayLuma),
      files_(listSequence(spec.text)),
      frame_(makeFrame()),
      converter_(options.convertThreads) {
  if (options.rate > 0) rate_ = options.rate;
  const AVRational r = av_d2q(rate_, 1001000);
  tb_ = av_inv_q(r);
  first_ = static_cast<std::size_t>(std::max(0.0, std::ceil(options.start * rate_ - 1e-6)));
  last_ = files_.size();
  if (options.end)
    last_ = std::min(
        last_, static_cast<std::size_t>(std::max(0.0, std::ceil(*options.end * rate_ - 1e-6))));
  if (first_ >= last_)
    throw app::UsageError("image sequence " + quote(spec.text) + " has " +
                          std::to_string(files_.size()) +
                          " images; none lies in the span asked "
                          "for with --ss/--to at " +
                          std::to_string(rate_) + " fps");
  if (!isGlob(spec.text) || looksLikePattern(spec.text)) warnOfAGap(spec.text, files_);
  next_ = first_;
  load(next_);
  pending_ = true;
  desc_ = {frame_->width, frame_->height,
           slotFormatFor(static_cast<AVPixelFormat>(frame_->format), grayLuma_)};
  warnIfDeeperThan8Bits(quote(spec.text), static_cast<AVPixelFormat>(frame_->format));
}

std::string ImageSequenceSource::description() const {
  char fps[32];
  std::snprintf(fps, sizeof fps, "%.4g", rate_);
  return "image sequence " + spec_.text + " (" + desc_.str() + ", " +
         std::to_string(last_ - first_) + " images from " + files_[first_] + ", " + fps + " fps)";
}

void ImageSequenceSource::load(std::size_t i) {
  const std::string why = decodeImage(files_[i], frame_.get());
  if (why.empty()) return;
  throw MediaError("image sequence " + quote(spec_.text) + ": frame " +
                   std::to_string(i - first_ + 1) + " (" + files_[i] + ") " + why +
                   "; stopped there, after " + std::to_string(i - first_) + " frames");
}

void ImageSequenceSource::requestSeek(double seconds) { seekTo_.store(std::max(0.0, seconds)); }

bool ImageSequenceSource::next(const SlotFn& slot, FrameTime& time) {
  const double seek = seekTo_.exchange(-1);
  if (seek >= 0) {
    next_ = std::min(last_, first_ + static_cast<std::size_t>(std::llround(seek * rate_)));
    pending_ = false;
  }
  if (next_ >= last_) return false;
  if (!pending_) load(next_);
  pending_ = false;
  const FrameDesc d{frame_->width, frame_->height,
                    slotFormatFor(static_cast<AVPixelFormat>(frame_->format), grayLuma_)};
  if (d != desc_) {
    if (const std::string change = frameChange(desc_, d, grayLuma_); !change.empty())
      spdlog::warn("{}: {} at {}", spec_.text, change, files_[next_]);
    desc_ = d;
  }
  converter_.toSlot(frame_.get(), slot(d));
  time.pts = static_cast<std::int64_t>(next_ - first_);
  time.duration = 1;
  time.num = tb_.num;
  time.den = tb_.den;
  ++next_;
  return true;
}

}  // namespace vf::media
