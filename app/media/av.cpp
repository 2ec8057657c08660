#include "app/media/av.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

#include "app/interrupt.hpp"
#include "app/media/logged_errors.hpp"
#include "app/options.hpp"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
}

namespace vf::media {

void copyStreamTags(AVDictionary** out, const AVDictionary* in, bool reencoded, bool cut) {
  av_dict_copy(out, in, 0);
  if (!reencoded && !cut) return;
  // A tag's name without a language after it ("DURATION-eng").
  const auto base = [](const char* key) {
    const std::string k = key;
    return k.substr(0, k.find('-'));
  };
  std::set<std::string> stale{"DURATION"};
  for (const AVDictionaryEntry* e = nullptr;
       (e = av_dict_get(in, "", e, AV_DICT_IGNORE_SUFFIX)) != nullptr;)
    if (base(e->key) == "_STATISTICS_TAGS") {
      std::istringstream names(e->value);
      for (std::string n; names >> n;) stale.insert(n);
    }
  if (!cut) stale.erase("DURATION");
  for (const AVDictionaryEntry* e = nullptr;
       (e = av_dict_get(in, "", e, AV_DICT_IGNORE_SUFFIX)) != nullptr;)
    if (stale.count(base(e->key)) || std::string(e->key).rfind("_STATISTICS_", 0) == 0)
      av_dict_set(out, e->key, nullptr, 0);
}

std::string avError(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
  if (av_strerror(code, buf, sizeof buf) < 0) return "error " + std::to_string(code);
  return buf;
}

void outOfMemory(const std::string& what) {
  throw MediaError(what + ": out of memory (" + avError(AVERROR(ENOMEM)) + ")");
}

FramePtr makeFrame() {
  FramePtr f(av_frame_alloc());
  if (!f) outOfMemory("allocating a frame");
  return f;
}

PacketPtr makePacket() {
  PacketPtr p(av_packet_alloc());
  if (!p) outOfMemory("allocating a frame");
  return p;
}

std::string Options::unused() const {
  std::string s;
  const AVDictionaryEntry* e = nullptr;
  while ((e = av_dict_get(d_, "", e, AV_DICT_IGNORE_SUFFIX)))
    s += (s.empty() ? "" : ", ") + std::string(e->key);
  return s;
}

namespace {
std::atomic<std::int64_t> packetsMuxed_{0};
}  // namespace

std::int64_t packetsMuxed() { return packetsMuxed_.load(std::memory_order_relaxed); }
void countPacketMuxed() { packetsMuxed_.fetch_add(1, std::memory_order_relaxed); }

bool Interrupter::expired() const { return expired_.load(); }

int Interrupter::check(void* self) {
  auto* me = static_cast<Interrupter*>(self);
  if (app::interruptSignal() != 0 || me->cancelled_.load()) return 1;
  const Clock::rep d = me->deadline_.load();
  if (d != 0 && Clock::now().time_since_epoch().count() > d) {
    me->expired_.store(true);
    return 1;
  }
  return 0;
}

namespace {

std::string trimmed(const char* line) {
  std::string s(line);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

void logLine(void* avcl, int level, const char* fmt, va_list vl) {
  // FFmpeg formats its own messages (fmt is FFmpeg's, never a user's string).
  char line[1024];
  if (level <= AV_LOG_ERROR) {
    va_list copy;
    va_copy(copy, vl);
    int noPrefix = 0;
    av_log_format_line2(nullptr, level, fmt, copy, line, sizeof line, &noPrefix);
    va_end(copy);
    std::string text = trimmed(line);  // one message of several lines (Matroska's): one line
    std::replace(text.begin(), text.end(), '\n', ' ');
    noteLoggedError(avcl, text);
  }
  if (level > av_log_get_level()) return;
  int prefix = 1;
  av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &prefix);
  const std::string s = trimmed(line);
  if (s.empty()) return;
  const auto lvl = level <= AV_LOG_WARNING ? spdlog::level::debug : spdlog::level::trace;
  spdlog::log(lvl, "ffmpeg: {}", s);
}

}  // namespace

void routeLogs() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(logLine); });
  const auto our = spdlog::get_level();
  int av = AV_LOG_QUIET;
  if (our <= spdlog::level::debug) av = AV_LOG_WARNING;
  if (our <= spdlog::level::trace) av = AV_LOG_VERBOSE;
  av_log_set_level(av);
}

void checkEncodableSize(const std::string& shown, int w, int h) {
  if (av_image_check_size(unsigned(w), unsigned(h), 0, nullptr) >= 0) return;
  throw app::UsageError(fmt::format(
      "{}: {}x{} frames are past what FFmpeg's encoders take ((width + 128) x (height + 128) "
      "under {} million pixels); end the chain with a smaller resize",
      shown, w, h, (INT_MAX / 8) / 1000000));
}

CodecPtr openStreamDecoder(const AVStream* stream, const std::string& shown, const char* what) {
  const AVCodec* decoder = avcodec_find_decoder(stream->codecpar->codec_id);
  if (!decoder)
    throw MediaError(shown + ": no decoder for " + avcodec_get_name(stream->codecpar->codec_id));
  CodecPtr dec(avcodec_alloc_context3(decoder));
  if (!dec || avcodec_parameters_to_context(dec.get(), stream->codecpar) < 0)
    outOfMemory(std::string(what) + " decoding");
  dec->pkt_timebase = stream->time_base;
  const int err = avcodec_open2(dec.get(), decoder, nullptr);
  if (err < 0)
    throw MediaError(shown + ": the " + codecName(decoder) + " " + what +
                     " decoder could not start: " + avError(err));
  return dec;
}

std::string codecName(const AVCodec* c) {
  if (!c) return "?";
  const char* family = avcodec_get_name(c->id);
  if (std::string(family) == c->name) return c->name;
  return std::string(family) + " (" + c->name + ")";
}

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool isMp4Family(const std::string& m) {
  return m == "mp4" || m == "mov" || m == "ipod" || m == "ismv" || m == "3gp" || m == "f4v";
}

bool isMp4OrMatroska(const std::string& m) {
  return isMp4Family(m) || m == "matroska" || m == "webm";
}

AVRational reshapedAspect(AVRational sar, AVRational reshape) {
  if (sar.num <= 0 || sar.den <= 0) return {0, 1};
  AVRational r{0, 1};
  av_reduce(&r.num, &r.den, static_cast<std::int64_t>(sar.num) * reshape.num,
            static_cast<std::int64_t>(sar.den) * reshape.den, INT_MAX);
  return r;
}

double rotationOf(const AVStream* stream) {
  std::size_t size = 0;
  const std::uint8_t* m = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
  if (!m || size < 9 * sizeof(std::int32_t)) return 0;
  const double r = av_display_rotation_get(reinterpret_cast<const std::int32_t*>(m));
  return std::isnan(r) || std::lround(r) % 360 == 0 ? 0 : r;
}

int queryMuxerCodec(const AVOutputFormat* f, AVCodecID id) {
  const int ok = avformat_query_codec(f, id, FF_COMPLIANCE_NORMAL);
  if (ok != 0 || std::strcmp(f->name, "matroska") != 0) return ok;
  const AVCodecTag* const riff[] = {avformat_get_riff_video_tags(), avformat_get_riff_audio_tags(),
                                    nullptr};
  return av_codec_get_tag(riff, id) != 0 ? 1 : 0;
}

void printSdp(AVFormatContext* rtp) {
  char sdp[16384];
  AVFormatContext* one[] = {rtp};
  if (const int err = av_sdp_create(one, 1, sdp, sizeof sdp); err < 0)
    throw MediaError("the RTP output's session description could not be made: " + avError(err));
  std::printf("SDP:\n%s\n", sdp);
  std::fflush(stdout);
}

std::int64_t declaredVideoLength(const AVFormatContext* f, const AVStream* v, bool& fromZero) {
  const bool matroska = std::string(f->iformat->name).rfind("matroska", 0) == 0;
  const AVDictionaryEntry* tag = av_dict_get(v->metadata, "DURATION", nullptr, 0);
  fromZero = false;
  if (v->duration > 0 && !(matroska && tag))
    return av_rescale_q(v->duration, v->time_base, AV_TIME_BASE_Q);
  if (tag) {
    int h = 0, m = 0;
    double sec = 0;
    if (std::sscanf(tag->value, "%d:%d:%lf", &h, &m, &sec) != 3) return -1;
    fromZero = matroska;
    return std::llround((h * 3600.0 + m * 60.0 + sec) * AV_TIME_BASE);
  }
  if (f->nb_streams == 1 && f->duration > 0) return f->duration;
  return -1;
}

}  // namespace vf::media
