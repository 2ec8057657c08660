#pragma once
// Image sequences as input: a frame-number pattern ("in/img_%04d.png": the first of numbers 0
// to 4 that exists, as ffmpeg's image2, else the lowest number in the directory; then every
// number until one is missing) or a glob
// ("in/*.png", in name order). Each image is decoded with FFmpeg; frames are presented at
// --rate (default 25). An image that is empty or does not decode stops the run with an error
// naming it (exit 1); the frames before it are kept.
#include <string>
#include <vector>

#include "app/media/av.hpp"
#include "app/media/frame_convert.hpp"
#include "app/sources.hpp"

namespace vf::media {

// The member files of `text`, in order. Throws UsageError for a malformed pattern, or when no
// image matches.
std::vector<std::string> listSequence(const std::string& text);

// True when `text` holds glob characters (* ? [).
bool isGlob(const std::string& text);

class ImageSequenceSource : public app::CaptureSource {
 public:
  ImageSequenceSource(const app::SourceSpec& spec, const app::InputOptions& options);

  bool live() const override { return false; }
  std::int64_t frameCount() const override { return last_ - first_; }
  double fps() const override { return rate_; }
  FrameDesc firstFrameDesc() const override { return desc_; }
  std::string description() const override;
  bool seekable() const override { return true; }
  void requestSeek(double seconds) override;
  bool next(const SlotFn& slot, FrameTime& time) override;

  const std::vector<std::string>& members() const { return files_; }

 private:
  // Decodes member `i` into frame_; throws MediaError naming it when it cannot.
  void load(std::size_t i);

  app::SourceSpec spec_;
  bool grayLuma_ = false;
  std::vector<std::string> files_;
  double rate_ = 25;
  AVRational tb_{1, 25};
  std::size_t first_ = 0, last_ = 0, next_ = 0;  // members [first_, last_) are delivered
  bool pending_ = false;
  FramePtr frame_;
  FrameConverter converter_;
  FrameDesc desc_;
  std::atomic<double> seekTo_{-1};
};

}  // namespace vf::media
