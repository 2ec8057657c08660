#include "app/media/hwdec.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <vector>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include "app/media/decoder_device.hpp"

namespace vf::media {

AVPixelFormat hostFormat(AVCodecContext*, const AVPixelFormat* offered) {
  for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(*p);
    if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
  }
  return AV_PIX_FMT_NONE;
}

namespace {

// "" when the library loads; else what is wrong with it.
std::string libraryProblem(const char* name) {
  void* lib = ::dlopen(name, RTLD_LAZY | RTLD_LOCAL);
  if (lib) {
    ::dlclose(lib);
    return "";
  }
  const char* err = ::dlerror();
  const std::string why = err ? err : "";
  if (why.find("No such file") != std::string::npos) return std::string(name) + " is not installed";
  return std::string(name) + " does not load: " + why;
}

}  // namespace

std::string hwdecMissing(AVHWDeviceType type) {
  // FFmpeg's codes say little here: a machine without NVIDIA's driver gives "Operation not
  // permitted" (its loader returns -1), one without a VAAPI device "Generic error in an
  // external library". NVDEC needs the driver (libcuda) and its video decoder (libnvcuvid).
  if (type == AV_HWDEVICE_TYPE_CUDA) {
    if (auto p = libraryProblem("libcuda.so.1"); !p.empty()) return "no NVIDIA driver (" + p + ")";
    if (auto p = libraryProblem("libnvcuvid.so.1"); !p.empty())
      return "no NVIDIA video decoder (" + p + ")";
  }
  if (type == AV_HWDEVICE_TYPE_VAAPI && !std::filesystem::exists("/dev/dri"))
    return "no VAAPI device (/dev/dri does not exist)";
  return "";
}

namespace {

// The pixel format the decoder hands back frames in when it decodes on `type`.
AVPixelFormat hwFormat(const AVCodec* codec, AVHWDeviceType type) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* c = avcodec_get_hw_config(codec, i);
    if (!c) return AV_PIX_FMT_NONE;
    if ((c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && c->device_type == type)
      return c->pix_fmt;
  }
}

// get_format: the hardware format when offered, else software (the decoder may offer it only
// for some streams, e.g. 4:4:4 on NVDEC).
AVPixelFormat pickFormat(AVCodecContext* ctx, const AVPixelFormat* offered) {
  const auto want = static_cast<AVPixelFormat>(reinterpret_cast<std::intptr_t>(ctx->opaque));
  for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p)
    if (*p == want) return *p;
  spdlog::warn("hardware decoding does not take this stream ({}); decoding in software",
               av_get_pix_fmt_name(ctx->sw_pix_fmt));
  return hostFormat(ctx, offered);
}

bool tryDevice(AVCodecContext* dec, const AVCodec* codec, AVHWDeviceType type,
               const std::string& pciAddresses, std::string* why) {
  const AVPixelFormat fmt = hwFormat(codec, type);
  if (fmt == AV_PIX_FMT_NONE) {
    *why = std::string(codec->name) + " has no " + av_hwdevice_get_type_name(type) + " decoder";
    return false;
  }
  // NVDEC: the GPU's CUDA context on a stream of the decoder's own, as cuvid's decoders.
  AVBufferRef* device = type == AV_HWDEVICE_TYPE_CUDA ? decoderDevice(pciAddresses) : nullptr;
  const int err = device ? 0 : av_hwdevice_ctx_create(&device, type, nullptr, nullptr, 0);
  if (err < 0) {
    *why = hwdecMissing(type);
    if (why->empty())
      *why =
          std::string("no ") + av_hwdevice_get_type_name(type) + " device (" + avError(err) + ")";
    return false;
  }
  dec->hw_device_ctx = device;  // the codec context owns the reference now
  dec->opaque = reinterpret_cast<void*>(static_cast<std::intptr_t>(fmt));
  dec->get_format = pickFormat;
  return true;
}

}  // namespace

const AVCodec* cuvidDecoder(AVCodecID id, std::string* why) {
  // By the codec, not by name: MPEG-2's is mpeg2_cuvid, not mpeg2video_cuvid.
  void* it = nullptr;
  for (const AVCodec* c = av_codec_iterate(&it); c; c = av_codec_iterate(&it)) {
    const std::string name = c->name;
    if (c->id == id && av_codec_is_decoder(c) && name.size() > 6 &&
        name.compare(name.size() - 6, 6, "_cuvid") == 0)
      return c;
  }
  *why = std::string("this FFmpeg has no NVIDIA decoder for ") + avcodec_get_name(id);
  return nullptr;
}

std::string setupHwDecode(AVCodecContext* dec, const AVCodec* codec, const std::string& mode,
                          const std::string& pciAddresses, const std::string& shown,
                          const std::string& tried) {
  if (mode.empty() || mode == "none") return "";
  std::vector<AVHWDeviceType> types;
  if (mode == "auto") {
    types = {AV_HWDEVICE_TYPE_CUDA, AV_HWDEVICE_TYPE_VAAPI};
  } else {
    types = {av_hwdevice_find_type_by_name(mode.c_str())};
  }
  std::string reasons = tried;
  for (AVHWDeviceType t : types) {
    if (t == AV_HWDEVICE_TYPE_NONE) continue;
    std::string why;
    if (tryDevice(dec, codec, t, pciAddresses, &why)) {
      spdlog::info("{}: decoding on {} ({})", shown, av_hwdevice_get_type_name(t), codec->name);
      return av_hwdevice_get_type_name(t);
    }
    if (reasons.find(why) == std::string::npos) reasons += (reasons.empty() ? "" : "; ") + why;
  }
  if (mode == "auto")
    spdlog::info("{}: no hardware decoder ({}); decoding in software", shown, reasons);
  else
    spdlog::warn("{}: --hwdec {} is not available ({}); decoding in software", shown, mode,
                 reasons);
  return "";
}

}  // namespace vf::media
