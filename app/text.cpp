#include "app/text.hpp"

#include <filesystem>
#include <list>
#include <opencv2/freetype.hpp>
#include <opencv2/imgproc.hpp>
#include <unordered_map>

namespace vf::app {

namespace {

const char* const kRegular[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                "/usr/share/fonts/TTF/DejaVuSans.ttf"};
const char* const kBold[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                             "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf"};

std::string findFont(bool bold) {
  std::error_code ec;
  for (const char* p : bold ? kBold : kRegular)
    if (std::filesystem::exists(p, ec)) return p;
  return "";
}

// Hershey stand-in: the scale whose capitals are as tall as the FreeType face's.
double hersheyScale(int px) { return px * 0.73 / 22.0; }

constexpr std::size_t kCacheSize = 768;  // strings kept

}  // namespace

struct Text::Face {
  cv::Ptr<cv::freetype::FreeType2> ft;
};

// Least recently used strings go first.
struct Text::Cache {
  std::list<std::pair<std::string, Mask>> order;  // most recent first
  std::unordered_map<std::string, std::list<std::pair<std::string, Mask>>::iterator> index;
};

Text::Text(int px, bool bold) : px_(std::max(6, px)), cache_(std::make_unique<Cache>()) {
  const std::string path = findFont(bold);
  if (path.empty()) return;
  try {
    auto face = std::make_shared<Face>();
    face->ft = cv::freetype::createFreeType2();
    face->ft->loadFontData(path, 0);
    ft_ = std::move(face);
  } catch (const cv::Exception&) {
    ft_.reset();  // an unreadable font file: Hershey
  }
}

Text::~Text() = default;

const Text::Mask& Text::mask(const std::string& s) const {
  auto& c = *cache_;
  if (auto it = c.index.find(s); it != c.index.end()) {
    c.order.splice(c.order.begin(), c.order, it->second);
    return it->second->second;
  }
  Mask m;
  int base = 0;
  m.width = ft_ ? ft_->ft->getTextSize(s, px_, -1, &base).width
                : cv::getTextSize(s, cv::FONT_HERSHEY_SIMPLEX, hersheyScale(px_), 1, &base).width;
  // Room for descenders, accents and glyphs that reach past their advance.
  m.baseline = px_ + 2;
  cv::Mat canvas(m.baseline + px_ / 2 + 3, m.width + px_ / 2 + 4, CV_8UC3, cv::Scalar::all(0));
  if (ft_)
    ft_->ft->putText(canvas, s, {1, m.baseline - px_}, px_, cv::Scalar::all(255), -1, cv::LINE_AA,
                     false);
  else
    cv::putText(canvas, s, {1, m.baseline}, cv::FONT_HERSHEY_SIMPLEX, hersheyScale(px_),
                cv::Scalar::all(255), 1, cv::LINE_AA);
  cv::extractChannel(canvas, m.coverage, 0);
  c.order.emplace_front(s, std::move(m));
  c.index[s] = c.order.begin();
  if (c.order.size() > kCacheSize) {
    c.index.erase(c.order.back().first);
    c.order.pop_back();
  }
  return c.order.front().second;
}

int Text::width(const std::string& s) const { return s.empty() ? 0 : mask(s).width; }

int Text::draw(cv::Mat& bgr, const std::string& s, int x, int baselineY, const cv::Scalar& color,
               Align align) const {
  if (s.empty() || bgr.type() != CV_8UC3) return x;
  const Mask& m = mask(s);
  if (align == Align::Right) x -= m.width;
  if (align == Align::Centre) x -= m.width / 2;
  // Blend the colour through the coverage, clipped to the image.
  const cv::Rect at(x - 1, baselineY - m.baseline, m.coverage.cols, m.coverage.rows);
  const cv::Rect clip = at & cv::Rect(0, 0, bgr.cols, bgr.rows);
  const int cb = int(color[0]), cg = int(color[1]), cr = int(color[2]);
  for (int y = clip.y; y < clip.br().y; ++y) {
    const std::uint8_t* a = m.coverage.ptr<std::uint8_t>(y - at.y) + (clip.x - at.x);
    std::uint8_t* d = bgr.ptr<std::uint8_t>(y) + 3 * clip.x;
    for (int i = 0; i < clip.width; ++i, d += 3) {
      const int k = a[i];
      if (k == 0) continue;
      d[0] = std::uint8_t((d[0] * (255 - k) + cb * k + 127) / 255);
      d[1] = std::uint8_t((d[1] * (255 - k) + cg * k + 127) / 255);
      d[2] = std::uint8_t((d[2] * (255 - k) + cr * k + 127) / 255);
    }
  }
  return x + m.width;
}

std::string Text::fit(const std::string& s, int maxWidth) const {
  if (width(s) <= maxWidth) return s;
  // Cut whole UTF-8 characters from the end until it fits with the ellipsis.
  std::string t = s;
  while (!t.empty()) {
    while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80)
      t.pop_back();                // continuation bytes
    if (!t.empty()) t.pop_back();  // and the character's first byte
    if (width(t + "...") <= maxWidth) return t + "...";
  }
  return "";
}

}  // namespace vf::app
