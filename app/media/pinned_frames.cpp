#include "app/media/pinned_frames.hpp"

#include <cstddef>
#include <cstdint>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
}

#include "app/media/cuda_driver.hpp"

namespace vf::media {

namespace {

constexpr unsigned kPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE

// One page-locked block, with what freeing it takes: the context it was allocated in, kept
// alive by a reference to its device.
struct Block {
  AVBufferRef* device;
  cuda::Context context;
};

void freeBlock(void* opaque, std::uint8_t* data) {
  auto* b = static_cast<Block*>(opaque);
  if (const cuda::Current current(b->context); current.ok()) cuda::driver()->memFreeHost(data);
  av_buffer_unref(&b->device);
  delete b;
}

bool hostFrameFormat(int format) {
  return format == AV_PIX_FMT_NV12 || format == AV_PIX_FMT_P010 || format == AV_PIX_FMT_P016 ||
         format == AV_PIX_FMT_YUV444P || format == AV_PIX_FMT_YUV444P16;
}

}  // namespace

class PinnedFrames {
 public:
  explicit PinnedFrames(AVBufferRef* device)
      : device_(av_buffer_ref(device)), context_(cuda::contextOf(device)) {}
  ~PinnedFrames() {
    av_buffer_pool_uninit(&pool_);  // blocks still out are freed as they come back
    av_buffer_unref(&device_);
  }
  PinnedFrames(const PinnedFrames&) = delete;
  PinnedFrames& operator=(const PinnedFrames&) = delete;

  // cuvid (no AV_CODEC_CAP_DR1) asks for its host frames through get_buffer2 and writes them
  // only through av_hwframe_transfer_data (FFmpeg 5.1's cuviddec.c): a frame of this pool is
  // written by that copy alone.
  static int getBuffer(AVCodecContext* dec, AVFrame* frame, int flags) {
    auto* self = static_cast<PinnedFrames*>(dec->opaque);
    if (!self->fill(frame)) return avcodec_default_get_buffer2(dec, frame, flags);
    return 0;
  }

  // The frame's planes in one pooled block, rows a multiple of 64 bytes; false when no block
  // could be had (the frame then takes FFmpeg's memory).
  bool fill(AVFrame* frame) {
    if (!hostFrameFormat(frame->format)) return false;
    const auto fmt = static_cast<AVPixelFormat>(frame->format);
    int lines[4] = {};
    if (av_image_fill_linesizes(lines, fmt, frame->width) < 0) return false;
    std::ptrdiff_t pitch[4] = {};
    for (int i = 0; i < 4; ++i) pitch[i] = (lines[i] + 63) & ~63;
    std::size_t planes[4] = {};
    if (av_image_fill_plane_sizes(planes, fmt, frame->height, pitch) < 0) return false;
    std::size_t total = 64;  // past the last row, as FFmpeg's own frames have: SIMD reads over
    for (std::size_t s : planes) total += s;
    if (!pool_ || total != poolSize_) {
      av_buffer_pool_uninit(&pool_);
      pool_ = av_buffer_pool_init2(total, this, allocate, nullptr);
      poolSize_ = total;
      if (!pool_) return false;
    }
    AVBufferRef* buf = av_buffer_pool_get(pool_);
    if (!buf) return false;
    frame->buf[0] = buf;
    std::uint8_t* p = buf->data;
    for (int i = 0; i < 4 && planes[i]; ++i) {
      frame->data[i] = p;
      frame->linesize[i] = static_cast<int>(pitch[i]);
      p += planes[i];
    }
    frame->extended_data = frame->data;
    return true;
  }

 private:
  static AVBufferRef* allocate(void* opaque, std::size_t size) {
    auto* self = static_cast<PinnedFrames*>(opaque);
    void* p = nullptr;
    if (const cuda::Current current(self->context_);
        !current.ok() || cuda::driver()->memHostAlloc(&p, size, kPortable) != 0)
      return nullptr;
    auto* b = new Block{av_buffer_ref(self->device_), self->context_};
    AVBufferRef* buf = av_buffer_create(static_cast<std::uint8_t*>(p), size, freeBlock, b, 0);
    if (!buf) freeBlock(b, static_cast<std::uint8_t*>(p));
    return buf;
  }

  AVBufferRef* device_;
  cuda::Context context_;
  AVBufferPool* pool_ = nullptr;
  std::size_t poolSize_ = 0;
};

std::shared_ptr<PinnedFrames> pinnedPool(AVBufferRef* device) {
  if (!cuda::driver() || !device) return nullptr;
  return std::make_shared<PinnedFrames>(device);
}

bool pinnedFrame(PinnedFrames& pool, AVFrame* frame) { return pool.fill(frame); }

std::shared_ptr<PinnedFrames> usePinnedFrames(AVCodecContext* dec, AVBufferRef* device) {
  auto pinned = pinnedPool(device);
  if (!pinned) return nullptr;
  dec->hw_device_ctx = av_buffer_ref(device);
  dec->opaque = pinned.get();
  dec->get_buffer2 = PinnedFrames::getBuffer;
  return pinned;
}

}  // namespace vf::media
