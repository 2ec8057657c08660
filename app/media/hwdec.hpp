#pragma once
// Hardware decoding (--hwdec auto|none|cuvid|cuda|vaapi). cuvid: NVIDIA's own decoders
// (h264_cuvid, hevc_cuvid, ...; NVIDIA's parser, several frames decoding on NVDEC at once,
// frames handed back in host memory). cuda and vaapi: libavcodec's hwaccels (NVDEC, VAAPI on
// Intel/AMD) inside FFmpeg's decoder; frames decode into device memory and are copied to the
// host once (av_hwframe_transfer_data) before they are scaled into the engine's slot.
#include <string>

#include "app/media/av.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf::media {

// Sets `dec` up to decode on the hwaccel `mode` names (cuda, vaapi or auto), before
// avcodec_open2; NVDEC on the GPU at `pciAddresses` (decoderDevice). "auto" tries cuda, then vaapi;
// a device or codec that cannot do it falls back to software with one info line ("auto") or a
// warning (a device named explicitly). `tried`: why a decoder tried before did not take the stream,
// for that line. Returns the device type in use ("" for software).
std::string setupHwDecode(AVCodecContext* dec, const AVCodec* codec, const std::string& mode,
                          const std::string& pciAddresses, const std::string& shown,
                          const std::string& tried = "");

// NVIDIA's decoder for the codec `id` (h264_cuvid for H.264, ...) when this FFmpeg has one;
// else nullptr, and *why says so.
const AVCodec* cuvidDecoder(AVCodecID id, std::string* why);

// What this machine lacks for decoding on `type` when that can be seen (NVIDIA's driver or its
// video decoder library, a VAAPI device), said in place of FFmpeg's error code; else "".
std::string hwdecMissing(AVHWDeviceType type);

// A get_format that takes the first format in host memory (NV12, P010, ...): a cuvid decoder
// then copies each frame to the host as it hands it back.
AVPixelFormat hostFormat(AVCodecContext* ctx, const AVPixelFormat* offered);

}  // namespace vf::media
