#include "app/media/video_sink.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

#include "app/interrupt.hpp"
#include "app/media/colour_kept.hpp"
#include "app/media/media_source.hpp"
#include "app/media/open_outputs.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

bool isOutOfRoom(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const OutOfRoom&) {
    return true;
  } catch (...) {
    return false;
  }
}

// Whether any pixel of a BGRA frame is not opaque.
bool anyTransparent(const FrameView& v) {
  for (int y = 0; y < v.height; ++y) {
    const std::uint8_t* r = v.row(y);
    std::uint8_t all = 255;
    for (int x = 0; x < v.width; ++x) all &= r[4 * x + 3];
    if (all != 255) return true;
  }
  return false;
}

}  // namespace

VideoSink::VideoSink(const OutputSpec& spec, const FrameDesc& desc, const OutputTiming& timing,
                     MediaSource* input, AVRational reshape)
    : spec_(spec), desc_(desc), muxer_(spec), packet_(makePacket()) {
  EncoderInput in;
  in.desc = desc;
  in.timeBase = timing.timeBase;
  in.fps = timing.fps;
  in.muxer = spec.muxer;
  const int flags = muxer_.context()->oformat->flags;
  // y4m keeps no timestamps either: its header's rate is the stream's time base, so frames are
  // numbered at the input's rate (the input's time base, 1/12800 for a typical mp4, would play
  // the frames 512 times too fast).
  in.constantRate = (flags & AVFMT_NOTIMESTAMPS) != 0 || spec.muxer == "yuv4mpegpipe";
  // AVI and SWF write the time base into their header as the frame rate.
  in.rateTimeBase = spec.muxer == "avi" || spec.muxer == "swf";
  in.globalHeader = muxer_.wantsGlobalHeader();
  // Frames that came as BGR (images, cameras, GStreamer) are an RGB source: YUV written from
  // them takes BT.601 in limited range, tagged so, as an RGB video input's.
  in.colour = input ? input->colour()
                    : ColourTags{AVCOL_SPC_SMPTE170M, AVCOL_RANGE_MPEG, AVCOL_PRI_UNSPECIFIED,
                                 AVCOL_TRC_UNSPECIFIED};
  // The pixels' shape: the input's, where it is known, as the chain's resizes change it (the
  // displayed picture keeps its shape, as through ffmpeg's scale; docs/DESIGN.md, Media I/O).
  // As ffmpeg: uncompressed outputs keep the input's layout, and interlaced stays tagged so.
  if (input) {
    in.sampleAspect = reshapedAspect(input->sampleAspect(), reshape);
    in.sourcePixFmt = input->pixFmt();
    in.fieldOrder = input->fieldOrder();
  }
  if (timing.fps <= 0 && in.constantRate)
    spdlog::warn("input frame rate unknown; {} is written at 25 fps", spec.path);
  encoder_ = std::make_unique<VideoEncoder>(spec.encoder, in, spec.path);
  // Frames with alpha into an encoder without it: warned of once a frame shows transparency
  // (an opaque GIF or PNG decodes with alpha too, and loses nothing).
  watchAlpha_ = desc.format == PixelFormat::BGRA8 && !encoder_->keepsAlpha();
  const AVCodecContext* enc = encoder_->context();  // the description of what it writes
  const AVPixFmtDescriptor* pd = av_pix_fmt_desc_get(enc->pix_fmt);
  const bool noMatrix = pd && (pd->nb_components < 3 || (pd->flags & AV_PIX_FMT_FLAG_RGB));
  warnColourLost(spec.toStdout ? "stdout" : spec.path,
                 {noMatrix ? AVCOL_SPC_RGB : enc->colorspace, enc->color_range,
                  enc->color_primaries, enc->color_trc},
                 spec.muxer, enc->codec_id, false);
  MuxerInput mi;
  if (input) {
    mi.format = input->format();
    mi.videoStream = input->videoStream();
    mi.offsetUs = input->timelineOffset();
    mi.endUs = input->timelineEnd();
    mi.cutStart = input->cutsStart();
  }
  muxer_.addStreams(encoder_->context(), mi);
  if (input && muxer_.side()) {
    relay_ = std::make_shared<PacketRelay>();
    for (int i : muxer_.side()->inputs()) relay_->want(i);
    input->attachRelay(relay_);
  }
  muxer_.open();
  encoder_->keepApartIn(muxer_.context()->streams[0]->time_base);
  // An RTP stream of one codec is received through its session description, printed as ffmpeg
  // prints it (rtp_mpegts, what rtp:// writes by default, needs none).
  if (spec.muxer == "rtp") printSdp(muxer_.context());
  opened_ = regularFileOpened(spec, muxer_.context());
  spdlog::info(
      "writing {} ({}x{} {}, {}{})", spec.toStdout ? "stdout" : spec.path, desc.width, desc.height,
      spec.muxer, encoder_->summary(),
      muxer_.side() && !muxer_.side()->summary().empty() ? "; " + muxer_.side()->summary() : "");
  worker_ = std::make_unique<FrameWorker>([this](AVFrame* f) { encode(f); });
  outputOpened();  // close() counts it closed
}

VideoSink::~VideoSink() {
  if (!finished_) {
    try {
      finish();
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
    }
  }
}

void VideoSink::consume(const FrameResult& frame) {
  const VideoEncoder::Slots slots = encoder_->slotsFor(frame.time);
  if ((slots.repeatPrevious > 0 || !slots.own) && !warnedRate_) {
    const std::string shown = spec_.toStdout ? "stdout" : spec_.path;
    if (encoder_->timesWholeFrames())  // by AVI's time base, or the codec's (MPEG-1/2, Theora)
      spdlog::warn(
          "{}: the input's frames come faster than {:g} a second, the rate {} in {} is timed in: "
          "frames are left out to keep the timing (as ffmpeg does; {} keeps every frame)",
          shown, 1 / av_q2d(encoder_->context()->time_base), codecName(encoder_->context()->codec),
          spec_.muxer,
          spec_.muxer == "avi" ? ".mkv or .mp4" : "another encoder, --codec libx264 (or .mkv),");
    else
      spdlog::warn(
          "{}: the input's frames are not {:g} a second apart, and {} keeps no timestamps: "
          "frames are repeated or left out to keep the timing (as ffmpeg does)",
          shown, av_q2d(encoder_->context()->framerate), spec_.muxer);
    warnedRate_ = true;
  }
  repeatPrevious(slots.repeatPrevious);
  if (!slots.own) return;  // before its slot: the frame before it holds it
  // This frame takes over: the one before it no longer holds its picture (so the pool's next
  // frame, whose picture that was, is written over in place, not copied).
  previous_.reset();
  FramePtr f = worker_->acquire();  // rethrows the worker's failure: the engine stops
  if (!f) f = encoder_->allocFrame();
  if (av_frame_make_writable(f.get()) < 0) outOfMemory("encoding a frame");
  FrameView view = frame.output;
  if (view.desc() != desc_ && !warnedSize_) {
    spdlog::warn("{}: frame size changed to {}; frames are scaled to {}x{}", spec_.path,
                 view.desc().str(), desc_.width, desc_.height);
    warnedSize_ = true;
  }
  // The first 100 frames and one in 25 after (a scan of every frame would cost a 4K BGRA frame's
  // 8 MB of reads here, where no transparency was seen).
  if (watchAlpha_ && (frames_ < 100 || frames_ % 25 == 0) && anyTransparent(view)) {
    spdlog::warn(
        "{}: the frames' transparency (alpha) is dropped: the {} encoder has none; write .webm "
        "(VP9), .mov with --codec prores_ks --pix-fmt yuva444p10le, or a PNG sequence to keep it",
        spec_.toStdout ? "stdout" : spec_.path, encoder_->context()->codec->name);
    watchAlpha_ = false;
  }
  converter_.fromSlot(view, f.get(), encoder_->colour(), desc_.width, desc_.height);
  f->pts = encoder_->ptsFor(frame.time);
  if (encoder_->fillsSlots()) {  // kept (a reference to its picture) for the gaps after it
    previous_.reset(av_frame_clone(f.get()));
    if (!previous_) outOfMemory("keeping a frame");
  }
  worker_->submit(std::move(f));
  ++frames_;
}

void VideoSink::repeatPrevious(std::int64_t times) {
  // A stop leaves the rest of a long gap out (the frames before it are whole).
  for (std::int64_t i = 0; i < times && previous_; ++i) {
    if (app::interruptSignal()) {
      cutShort_ = true;
      return;
    }
    FramePtr r(av_frame_clone(previous_.get()));
    if (!r) outOfMemory("repeating a frame");
    r->pts = encoder_->ptsFor(FrameTime{});
    worker_->submit(std::move(r));
  }
}

std::int64_t VideoSink::framesWritten() const {
  return closedWhole_ ? muxer_.videoPackets() : -1;  // a file that did not close: unknown
}

void VideoSink::encode(AVFrame* frame) {
  encoder_->send(frame);
  drainPackets();
  drainRelay(false);
}

void VideoSink::drainPackets() {
  const AVRational tb = encoder_->context()->time_base;
  const AVRational rate = encoder_->context()->framerate;
  while (encoder_->receive(packet_.get())) {
    // Encoders that leave it out: one frame at the nominal rate (the container's duration
    // then counts the last frame).
    if (packet_->duration <= 0 && rate.num > 0)
      packet_->duration = std::max<std::int64_t>(1, av_rescale_q(1, av_inv_q(rate), tb));
    muxer_.writeVideo(packet_.get(), tb);
    av_packet_unref(packet_.get());
  }
}

// Side packets (audio, subtitles) go to the muxer once the video written reaches them, so an
// output cut short by a failure (a full disk), with frames still in the encoder, holds no audio
// past its last frame; `complete`: the input's end, after the encoder's last frame: all of them.
void VideoSink::drainRelay(bool complete) {
  if (!relay_) return;
  while (PacketPtr p = relay_->pop()) held_.push_back(std::move(p));
  while (!held_.empty() && (complete || muxer_.sideDue(held_.front().get()))) {
    muxer_.writeSide(held_.front().get(), complete);
    held_.pop_front();
  }
}

void VideoSink::finish() {
  if (finished_) return;
  finished_ = true;
  std::exception_ptr failure;
  try {
    repeatPrevious(encoder_->slotsAtEnd());  // the last frame, to its end
    worker_->finish();
  } catch (...) {
    failure = std::current_exception();
  }
  close(failure);
}

void VideoSink::close(std::exception_ptr failure) {
  if (!failure) {
    try {
      encoder_->send(nullptr);
      drainPackets();
      drainRelay(relay_ && relay_->complete());
    } catch (...) {
      failure = std::current_exception();
    }
  }
  muxer_.beginFinishing();
  bool closed = true;
  try {
    muxer_.finish(!failure);
  } catch (const std::exception& e) {
    closed = false;
    if (!failure) {
      failure = std::current_exception();
    } else {  // the first failure stays the run's error, and says what the close left
      try {
        std::rethrow_exception(failure);
      } catch (OutOfRoom& room) {  // its message says the file closed: amended
        room.closeFailed(e.what());
      } catch (const ReaderGone&) {  // nobody reads what its close would have written
      } catch (...) {
        spdlog::warn("{}: closing it failed too ({}); it may not play", spec_.path, e.what());
      }
    }
  } catch (...) {
    closed = false;
    if (!failure) failure = std::current_exception();
  }
  closedWhole_ = closed;
  const std::int64_t written = muxer_.videoPackets();
  if (written == 0 && opened_) {
    removeEmptyFile();
  } else if (!failure) {
    spdlog::info("wrote {} frames to {}", written, spec_.toStdout ? "stdout" : spec_.path);
  } else if (written > 0 && closed && !isOutOfRoom(failure)) {  // whose message says it
    spdlog::warn("{} keeps the {} frames written before the failure", spec_.path, written);
  }
  outputClosed();  // last: what is said about the file is out
  if (failure) std::rethrow_exception(failure);
}

void VideoSink::removeEmptyFile() const {
  // A container with no frame does not play (no stream in it): better no file at all.
  const bool removed = removeWrittenFile(*opened_);
  const int why = errno;
  if (removed) {
    if (opened_->viaLink)
      spdlog::warn("no frame reached {}; the empty file it names, {}, was removed (the link stays)",
                   spec_.path, quote(opened_->path));
    else
      spdlog::warn("no frame reached {}; the empty file was removed", spec_.path);
  } else if (why == 0) {
    spdlog::warn(
        "no frame reached {}; nothing was removed (the file at that name is no longer the one "
        "this run wrote)",
        spec_.path);
  } else {
    spdlog::warn("no frame reached {}; it holds no video and could not be removed ({})", spec_.path,
                 std::strerror(why));
  }
}

}  // namespace vf::media
