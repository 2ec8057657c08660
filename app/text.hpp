#pragma once
// Text for the preview's panels: DejaVu Sans through OpenCV's FreeType module (anti-aliased,
// hinted, tabular digits, so right-aligned numbers line up), at a size in pixels. Where the
// font file is missing (no fonts-dejavu-core), OpenCV's Hershey font stands in, sized alike.
// Draws on 8-bit BGR images. Each string is rendered once into a coverage mask and kept (the
// panel redraws the same labels and numbers many times a second); drawing blends the mask in
// the colour asked for. One Text per thread (neither the face nor the cache is shared).
#include <memory>
#include <opencv2/core.hpp>
#include <string>

namespace vf::app {

enum class Align { Left, Right, Centre };

class Text {
 public:
  // `px`: the font's em size in pixels (capitals are about 0.73 px tall).
  explicit Text(int px, bool bold = false);
  ~Text();
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;

  int px() const { return px_; }
  int lineHeight() const { return px_ + px_ / 2 + 1; }  // baseline to baseline
  int ascent() const { return px_ * 3 / 4; }            // baseline to the top of capitals
  int width(const std::string& s) const;

  // Draws `s` with its baseline at y; x is its left edge, right edge or centre (align).
  // Returns the x just past the text.
  int draw(cv::Mat& bgr, const std::string& s, int x, int baselineY, const cv::Scalar& color,
           Align align = Align::Left) const;

  // `s` cut to at most `maxWidth` pixels, ending in "..." when cut.
  std::string fit(const std::string& s, int maxWidth) const;

  bool usesFreeType() const { return static_cast<bool>(ft_); }

 private:
  struct Face;
  struct Mask {
    cv::Mat coverage;  // 8-bit, 255 = ink
    int width = 0;     // advance
    int baseline = 0;  // the baseline's row in `coverage`
  };
  const Mask& mask(const std::string& s) const;

  int px_;
  std::shared_ptr<Face> ft_;  // null: Hershey
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace vf::app
