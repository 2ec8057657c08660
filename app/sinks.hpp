#pragma once
// Where filtered frames go: a video file, stdout or a network stream (app/media/video_sink.hpp),
// an image sequence (app/media/image_sink.hpp), or nowhere (the null sink: timing runs,
// previews that write nothing).
#include <cstdint>
#include <memory>
#include <string>

#include "app/media/av.hpp"
#include "app/media/output_spec.hpp"
#include "app/options.hpp"
#include "app/sources.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

using media::OutputKind;
using media::OutputSpec;

// The output the settings ask for (-o, -f, --codec, --crf, --preset, --bitrate, --pix-fmt,
// -c:a, -an), checked before anything runs. Throws UsageError saying what to do.
OutputSpec classifyOutput(const Settings& s);

// Image file name for frame `index` (0-based; files count from 1 like FFmpeg's image2) of an
// output pattern; "" when `pattern` is not one.
std::string sequenceFileName(const std::string& pattern, std::int64_t index);

// How `chain` (configured) changes the pixels' shape: each resize to another aspect by its input's
// width x output's height over its input's height x output's width, the factor ffmpeg's scale
// takes the sample aspect ratio by, keeping the displayed picture's shape.
AVRational chainReshape(const Chain& chain);

// The pixels' shapes, width over height (1: square or unknown), as players show them: the
// source's frames' and the chain's output's (a resize keeps the displayed shape). The preview
// shows its pictures in them.
struct PixelShapes {
  double input = 1, output = 1;
};
PixelShapes pixelShapes(const CaptureSource& source, const Chain& chain);

// Opens the output for `chain`'s frames coming from `source` (whose timing, and for files its
// other streams, tags and chapters, the output keeps). The file is created here, so errors come
// before processing starts.
std::unique_ptr<FrameSink> openOutput(const OutputSpec& spec, const Chain& chain,
                                      CaptureSource& source);

// Discards frames (timing runs; -o not given and no preview).
std::unique_ptr<FrameSink> makeNullSink();

}  // namespace vf::app
