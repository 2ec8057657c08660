#pragma once
// The pixel format an encoder writes the chain's frames in, and what that format keeps of the
// input (its chroma, its alpha), as ffmpeg chooses where players decode the result.
#include <string>

#include "app/media/encoder.hpp"

namespace vf::media {

// Whether `codec` takes `f` (an encoder that lists no formats takes any).
bool encoderTakes(const AVCodec* codec, AVPixelFormat f);

// The format of `codec` nearest the input's, as ffmpeg picks it from the decoded frames: a YUV
// input's chroma layout (`input`, as decoded; in the chain's 8 bits) for BGR frames, else the
// frames' own (BGR from RGB inputs, BGRA, gray). Lossless encoders and raw video: the frames'
// own, which they hold exactly. MJPEG: its full-range formats.
AVPixelFormat nearestFormat(const AVCodec* codec, PixelFormat frames, AVPixelFormat input);

// --pix-fmt when given (UsageError when the encoder cannot take it); else ffmpeg's choice for
// the frames and the input, but that consumer codecs (H.264, HEVC, VP8/9, AV1, MPEG) write
// 4:2:0 where their players expect it: RGB sources, and finer chroma in files made to be played
// (MP4, MOV, WebM, MPEG-TS/PS, FLV). Logs, as `shown`, what of the input's chroma the format
// leaves out and why.
AVPixelFormat choosePixelFormat(const AVCodec* codec, const EncoderSettings& s,
                                const EncoderInput& in, const std::string& shown);

// Whether frames of format `f`, written by `codec` into `muxer`, keep their alpha (VP8/9 keep
// it in Matroska and WebM only, as a side channel other containers drop).
bool keepsAlpha(const AVCodec* codec, AVPixelFormat f, const std::string& muxer);

}  // namespace vf::media
