#pragma once
// Hardware decoding through libavcodec's hwaccels (--hwdec auto|none|cuda|vaapi): NVDEC via
// CUDA, VAAPI on Intel/AMD. Frames decode into device memory and are copied to the host once
// (av_hwframe_transfer_data) before they are scaled into the engine's slot.
#include <string>

#include "app/media/av.hpp"

namespace vf::media {

// Sets `dec` up to decode on the device `mode` names, before avcodec_open2. "auto" tries cuda,
// then vaapi; a device or codec that cannot do it falls back to software with one info line
// ("auto") or a warning (a device named explicitly). Returns the device type in use ("" for
// software).
std::string setupHwDecode(AVCodecContext* dec, const AVCodec* codec, const std::string& mode,
                          const std::string& shown);

// The --hwdec values this FFmpeg build supports, for messages ("none, auto, cuda, vaapi").
std::string hwdecChoices();

}  // namespace vf::media
