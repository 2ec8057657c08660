#pragma once
// Where an output keeps the input's colour description (matrix, range, primaries, transfer),
// and the warning where it says more than readers assume of video without one (the BT.601
// matrix, limited range, SDR) and the output has no place for it: players then guess.
#include <string>

#include "app/media/av.hpp"
#include "app/media/frame_convert.hpp"

namespace vf::media {

// The parts of `tags` (the encoder's: what it writes) an output of `muxer` with video `codec` does
// not keep that readers would not assume without them ("bt709 matrix, full range"); "" when
// none. The MP4 family and Matroska keep all in the container; H.264, HEVC, AV1, MPEG-2 and
// ProRes in the stream, VP9 its matrix and range, y4m the range. Images (`images`) are converted to
// their RGB or JPEG colours, so only wide primaries and HDR transfers are lost there.
std::string colourLost(const ColourTags& tags, const std::string& muxer, AVCodecID codec,
                       bool images);

// Warns once, naming `shown`, what colourLost finds (nothing when it finds nothing).
void warnColourLost(const std::string& shown, const ColourTags& tags, const std::string& muxer,
                    AVCodecID codec, bool images);

}  // namespace vf::media
