#pragma once
// The parts of a file job (`vidfilter bench --input`), each timed alone, and the whole job:
// decode only (demux, decode, conversion into a host frame as into the engine's slot, on the
// program's conversion threads, and on one thread beside it), the
// chain only (the engine on frames resident in host memory: upload, kernels, download), encode
// only (frames already filtered, resident, through the output's conversion, encoder and muxer
// into a file), and the whole job as `vidfilter -i FILE -o OUT` runs it.
#include <memory>
#include <string>
#include <vector>

#include "app/media/output_spec.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"

namespace vf::bench {

struct JobSetup {
  std::string input, chain, hwdec = "none";
  int frames = 300;   // frames of the input each part processes (fewer if the input is shorter)
  int resident = 48;  // distinct frames kept in memory for the chain-only and encode-only parts
  int slots = 3;
  int convertThreads = 1;  // threads converting decoded frames into the slot (the program's count)
  media::EncoderSettings encoder;
  std::string outputDir;  // where the encode-only and whole-job files go
};

struct PartResult {
  std::string name;
  int frames = 0;
  double seconds = 0;
  bool hwFellBack = false;  // hardware decoding was asked for and software decoded
  double fps() const { return seconds > 0 ? frames / seconds : 0; }
};

// Frames kept in host memory, as the source delivers them (or as the chain outputs them).
struct ResidentFrames {
  FrameDesc desc;
  std::vector<std::vector<std::uint8_t>> frames;
  double fps = 25;
};

// Whether the chain begins with gray (the source then delivers the luma plane).
bool chainStartsWithGray(const std::string& chain);

PartResult decodeOnly(const JobSetup& s, const std::string& hwdec, ResidentFrames* keep);
PartResult chainOnly(const JobSetup& s, std::shared_ptr<ClContext> cl, const ResidentFrames& in,
                     ResidentFrames* out);
PartResult encodeOnly(const JobSetup& s, const ResidentFrames& filtered, const std::string& path);
PartResult wholeJob(const JobSetup& s, std::shared_ptr<ClContext> cl, const std::string& hwdec,
                    const std::string& path);

}  // namespace vf::bench
