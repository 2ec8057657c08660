// Engine frames (BGR) written as YUV with chroma subsampled across columns (4:2:0, 4:2:2) at odd
// widths: the last chroma column is the colour of the row's last pixel, as at even widths, and
// nothing past a row's end is read. Checked against BT.601's formula (the untagged default) on
// frames whose last column is one colour and whose other pixels are random.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "app/media/frame_convert.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

using namespace vf;

namespace {

struct Bgr {
  int b, g, r;
};

// Limited-range BT.601 chroma of a colour (what swscale's default coefficients give, +-1).
double chromaU(Bgr c) { return 128 + (-0.168736 * c.r - 0.331264 * c.g + 0.5 * c.b) * 224 / 255; }
double chromaV(Bgr c) { return 128 + (0.5 * c.r - 0.418688 * c.g - 0.081312 * c.b) * 224 / 255; }

// A tight BGR frame (rows width * 3 bytes apart, as the engine's slots): random pixels, the last
// column `edge`. The buffer ends with the last row.
std::vector<std::uint8_t> bgrFrame(int width, int height, Bgr edge, std::uint32_t seed) {
  std::vector<std::uint8_t> px(std::size_t(width) * height * 3);
  std::mt19937 rng(seed);
  for (auto& v : px) v = static_cast<std::uint8_t>(rng() & 0xFF);
  for (int y = 0; y < height; ++y) {
    std::uint8_t* p = px.data() + (std::size_t(y) * width + width - 1) * 3;
    p[0] = static_cast<std::uint8_t>(edge.b);
    p[1] = static_cast<std::uint8_t>(edge.g);
    p[2] = static_cast<std::uint8_t>(edge.r);
  }
  return px;
}

TEST(FrameConvertOdd, LastChromaColumnIsTheLastPixelsColour) {
  const Bgr edge{40, 200, 90};
  for (const AVPixelFormat fmt : {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P}) {
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{333, 201}, {5, 7}, {641, 480}}) {
      SCOPED_TRACE(std::string(av_get_pix_fmt_name(fmt)) + " " + std::to_string(w) + "x" +
                   std::to_string(h));
      std::vector<std::uint8_t> px = bgrFrame(w, h, edge, std::uint32_t(w * 31 + h));
      const FrameView view{px.data(), w, h, std::size_t(w) * 3, PixelFormat::BGR8};
      media::FramePtr out = media::makeFrame();
      out->format = fmt;
      out->width = w;
      out->height = h;
      ASSERT_EQ(av_frame_get_buffer(out.get(), 0), 0);
      const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fmt);
      const int cw = AV_CEIL_RSHIFT(w, d->log2_chroma_w);
      const int ch = AV_CEIL_RSHIFT(h, d->log2_chroma_h);
      for (int p = 0; p < 3; ++p)  // poisoned: every sample is written
        std::fill_n(out->data[p], std::size_t(out->linesize[p]) * (p ? ch : h), 0xA5);
      media::FrameConverter conv;
      conv.fromSlot(view, out.get(), media::ColourTags{}, w, h);
      for (int y = 0; y < ch; ++y) {
        const int u = out->data[1][std::ptrdiff_t(y) * out->linesize[1] + cw - 1];
        const int v = out->data[2][std::ptrdiff_t(y) * out->linesize[2] + cw - 1];
        EXPECT_NEAR(u, chromaU(edge), 2.0) << "chroma row " << y;
        EXPECT_NEAR(v, chromaV(edge), 2.0) << "chroma row " << y;
      }
      // The luma of the last column is the edge colour's too, and the columns before it are the
      // random pixels' (not all one value).
      const double luma = 16 + (0.299 * edge.r + 0.587 * edge.g + 0.114 * edge.b) * 219 / 255;
      for (int y = 0; y < h; ++y)
        EXPECT_NEAR(out->data[0][std::ptrdiff_t(y) * out->linesize[0] + w - 1], luma, 2.0);
      int distinct = 0;
      for (int x = 1; x < w - 1; ++x) distinct += out->data[0][x] != out->data[0][0];
      EXPECT_GT(distinct, 0);
    }
  }
}

}  // namespace
