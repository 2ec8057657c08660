#pragma once
// `vidfilter bench --input FILE`: a file job end to end (decode, the chain, encode, mux), and
// in the same run each part alone and the same job through the ffmpeg command, so the table
// shows where the time goes and whether the parts overlap.
namespace vf::bench {

int jobBenchMain(int argc, char** argv);

}  // namespace vf::bench
