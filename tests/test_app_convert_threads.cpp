// Decoded frames converted into the slot on several threads: the threads are there, and the bytes
// are the same as on one thread for every source format and size (odd sizes, widths that are not a
// multiple of 8 with even and odd heights), and as ffmpeg's own conversion of a decoded file;
// nothing is written past the slot.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "app/media/frame_convert.hpp"
#include "app/media/media_source.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

using namespace vf;
using namespace vf::test;

namespace {

// A frame of `format` filled with random samples (within the format's depth), every plane to
// the end of its rows.
media::FramePtr randomFrame(AVPixelFormat format, int width, int height, std::uint32_t seed) {
  media::FramePtr f = media::makeFrame();
  f->format = format;
  f->width = width;
  f->height = height;
  EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  const int depth = d->comp[0].depth;
  std::mt19937 rng(seed);
  for (int p = 0; p < 4 && f->data[p]; ++p) {
    const int rows = p == 1 || p == 2 ? AV_CEIL_RSHIFT(height, d->log2_chroma_h) : height;
    for (int y = 0; y < rows; ++y) {
      std::uint8_t* row = f->data[p] + std::ptrdiff_t(y) * f->linesize[p];
      if (depth > 8) {
        auto* w = reinterpret_cast<std::uint16_t*>(row);
        for (int x = 0; x < f->linesize[p] / 2; ++x) w[x] = rng() & ((1u << depth) - 1);
      } else {
        for (int x = 0; x < f->linesize[p]; ++x) row[x] = static_cast<std::uint8_t>(rng());
      }
    }
  }
  if (format == AV_PIX_FMT_YUVJ420P) f->color_range = AVCOL_RANGE_JPEG;
  return f;
}

// `src` converted into a slot poisoned with `poison`, on `threads` threads.
cv::Mat converted(const AVFrame* src, PixelFormat slot, int threads, int poison) {
  cv::Mat m = makeMat({src->width, src->height, slot});
  m.setTo(cv::Scalar::all(poison));
  media::FrameConverter c(threads);
  c.toSlot(src, viewOf(m));
  return m;
}

// The threads this process has now.
std::size_t threadCount() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

}  // namespace

TEST(ConvertThreads, EightBitYuvConvertsOnThreadsOtherFormatsOnTheCaller) {
  // swscale's slice threads live as long as the converter's context: 3 more while it converts
  // 8-bit 4:2:0 on 4, none for 10-bit 4:2:0 (the calling thread).
  for (const auto& [format, more] :
       {std::pair{AV_PIX_FMT_YUV420P, 3}, {AV_PIX_FMT_YUV420P10LE, 0}}) {
    SCOPED_TRACE(av_get_pix_fmt_name(format));
    const media::FramePtr src = randomFrame(format, 640, 360, 7);
    cv::Mat m = makeMat({640, 360, PixelFormat::BGR8});
    const std::size_t before = threadCount();
    media::FrameConverter c(4);
    c.toSlot(src.get(), viewOf(m));
    EXPECT_GE(threadCount(), before + more);
    if (more == 0) {
      EXPECT_EQ(threadCount(), before);
    }
  }
}

TEST(ConvertThreads, EveryFormatAndSizeGivesTheSameBytesAsOneThread) {
  const AVPixelFormat formats[] = {AV_PIX_FMT_YUV420P,  AV_PIX_FMT_YUVJ420P,    AV_PIX_FMT_YUV422P,
                                   AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P,     AV_PIX_FMT_YUVJ444P,
                                   AV_PIX_FMT_NV12,     AV_PIX_FMT_NV21,        AV_PIX_FMT_YUV410P,
                                   AV_PIX_FMT_YUV411P,  AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_RGB24,
                                   AV_PIX_FMT_BGRA,     AV_PIX_FMT_GRAY8};
  const std::pair<int, int> sizes[] = {{1920, 1080}, {854, 480}, {854, 481},
                                       {161, 97},    {34, 18},   {33, 17}};
  std::uint32_t seed = 1;
  for (const AVPixelFormat format : formats) {
    for (const auto& [w, h] : sizes) {
      SCOPED_TRACE(std::string(av_get_pix_fmt_name(format)) + " " + std::to_string(w) + "x" +
                   std::to_string(h));
      const media::FramePtr src = randomFrame(format, w, h, seed++);
      for (const bool luma : {false, true}) {
        const PixelFormat slot = media::slotFormatFor(format, luma);
        const cv::Mat one = converted(src.get(), slot, 1, 77);
        for (int repeat = 0; repeat < 3; ++repeat) {  // a race shows in some runs only
          for (const int threads : {2, 3, 4}) {
            const cv::Mat many = converted(src.get(), slot, threads, 201);
            ASSERT_EQ(maxAbsDiff(many, one), 0) << threads << " threads, slot " << int(slot);
          }
        }
      }
    }
  }
}

TEST(ConvertThreads, DecodedFramesMatchFfmpegsConversion) {
  // A 4:2:0 file, as most video is, at 1080p (bands of rows on every thread) and at an odd size.
  TempDir dir("convert_threads");
  for (const char* size : {"1920x1080", "854x480", "163x99"}) {
    SCOPED_TRACE(size);
    const std::string in = dir / (std::string(size) + ".mkv");
    ffmpeg("-f lavfi -i testsrc2=size=" + std::string(size) +
           ":rate=25 -frames:v 3 -c:v ffv1 -pix_fmt yuv420p " + q(in));
    const auto want = ffmpegFrames(in, "bgr24");
    ASSERT_EQ(want.size(), 3u);
    app::SourceSpec spec;
    spec.kind = app::SourceKind::File;
    spec.text = in;
    app::InputOptions o;
    o.convertThreads = 3;
    media::MediaSource src(spec, o);
    for (std::size_t i = 0; i < want.size(); ++i) {
      cv::Mat m;
      FrameTime t;
      ASSERT_TRUE(src.next(
          [&](const FrameDesc& d) {
            m = makeMat(d);
            m.setTo(cv::Scalar::all(77));
            return viewOf(m);
          },
          t))
          << i;
      EXPECT_LE(maxAbsDiff(m, want[i]), 2) << i;
    }
  }
}

// Nothing is written past the slot's last row: swscale's x86 path from planar YUV writes whole
// groups of pixels, past a row whose width is a multiple of 8 but not of 16 (72, 136, ...): into
// the next row, and past the last row into whatever follows the slot (the heap: "double free or
// corruption" at exit). Rows after the slot's are poisoned and must stay so.
TEST(ConvertThreads, NothingIsWrittenPastTheSlot) {
  std::uint32_t seed = 9;
  for (const AVPixelFormat format :
       {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_NV12,
        AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_RGB24, AV_PIX_FMT_GRAY8}) {
    for (const int w : {24, 40, 72, 74, 136, 200, 1928, 1930}) {
      for (const PixelFormat slot : {PixelFormat::BGR8, PixelFormat::BGRA8}) {
        for (const int threads : {1, 4}) {
          SCOPED_TRACE(std::string(av_get_pix_fmt_name(format)) + " width " + std::to_string(w) +
                       " slot " + std::to_string(int(slot)) + " threads " +
                       std::to_string(threads));
          const int h = 48;
          const media::FramePtr src = randomFrame(format, w, h, seed++);
          cv::Mat big = makeMat({w, h + 4, slot});
          big.setTo(cv::Scalar::all(99));
          cv::Mat rows = big.rowRange(0, h);
          media::FrameConverter c(threads);
          c.toSlot(src.get(), viewOf(rows));
          const cv::Mat after = big.rowRange(h, h + 4);
          EXPECT_EQ(cv::countNonZero(after.reshape(1) != 99), 0);
          EXPECT_EQ(maxAbsDiff(rows, converted(src.get(), slot, 1, 77)), 0);
        }
      }
    }
  }
}
