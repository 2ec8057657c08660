#pragma once
// What a user can ask for, from the command line and from a TOML config file. Both fill the
// same Settings; the command line wins, the file fills the rest, defaults come last.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pipeline/cl/error.hpp"

namespace vf::app {

// Something the user wrote is wrong (option, value, config file, path): exit status 2.
class UsageError : public UserError {
 public:
  using UserError::UserError;
};

// Exit statuses (documented in --help).
enum ExitCode : int {
  kExitOk = 0,
  kExitRuntime = 1,       // the run failed (device, decode, encode, disk)
  kExitUsage = 2,         // options, config file, chain, paths
  kExitInterrupted = 130  // stopped by SIGINT (SIGTERM: 143); the output is still finalised
};

// Everything a run can be configured with. Unset (nullopt) means "not said here".
struct Settings {
  std::optional<std::string> input, output, chain, device, statsPath, codec, logLevel;
  std::optional<std::string> snapshotDir, title, window;
  std::optional<bool> preview, compare, overlay, progress, exitAtEnd;
  std::optional<std::int64_t> frames;
  std::optional<int> slots;
  std::optional<int> threads;  // decoder threads per input (0: FFmpeg's count, or a share)
  // Media: trimming (seconds), rates, raw input, encoder, muxer, overwriting, decoding.
  std::optional<double> start, to, duration, rate, crf;
  std::optional<std::string> size, inputPixFmt, pixFmt, preset, format, audioCodec, hwdec, drop;
  std::optional<std::string> inputFormat;  // the input's demuxer by name (ffmpeg's -f before -i)
  std::optional<std::int64_t> bitrate;
  std::optional<bool> overwrite;  // true: -y, false: -n
  std::optional<bool> audio;      // false: -an
  std::optional<bool> quiet;      // -q: warnings and errors only, no summary
  // Several inputs: -i and -o repeated (every one, in order; `input`/`output` stay unset then),
  // --inputs LIST (one path or URL a line), inputs run at once (--jobs), the --json summary.
  std::optional<std::vector<std::string>> inputs, outputs;
  std::optional<std::string> inputsList, jsonPath;
  std::optional<int> jobs;
  std::optional<bool> fuse;  // unset: fused on GPUs; true: --fuse (CPUs too); false: --no-fuse
  // Cameras: the mode asked for (each checked; the camera may give another).
  std::optional<std::string> cameraSize, cameraFormat;  // "1280x720"; "mjpeg" or "yuyv"
  std::optional<double> cameraFps;

  // Where a config file set the values checked only when the run starts (paths, encoder, container,
  // device, ...): the option's spelling ("--codec") -> "file.toml:5:9: codec".
  std::map<std::string, std::string> origins;

  // Takes every field not set here from `lower` (the config file under the command line), with
  // the origins of those it takes.
  void fillFrom(const Settings& lower);
  // `message` of a usage error that begins with an option set by the config file, with where
  // it was set after its first line: "--codec 'x': no such video encoder ... (codec at
  // g.toml:5:9)"; else `message`.
  std::string withOrigin(const std::string& message) const;
};

struct CommandLine {
  Settings settings;
  std::string configPath;
  bool listDevices = false, listStages = false, version = false;
  bool listCameras = false;
  bool exitNow = false;  // --help was printed
  // `vidfilter batch ...`: a share of a list of inputs (--shard I/N, or the job array's
  // environment), each output written under a temporary name and renamed when complete.
  bool batch = false;
  std::optional<std::string> shard;  // "I/N"
  std::optional<int> shards;         // N, the index from JOB_COMPLETION_INDEX
};

// Parses argv (without the `bench` form; main dispatches that first). Prints --help to `out`
// and sets exitNow. Throws UsageError with a one-line message for anything wrong. ffmpeg's
// spellings are understood too (-vf, -ss, -to, -an, -crf, -preset, -b:v, -c:v, -c:a, -pix_fmt,
// and -s, -r before -i for raw input): see ffmpegSpellings().
CommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out);

// Value checks shared by the command line and config files: "" when fine, else the complaint
// without the option name ("must be a positive number of frames, got 0").
std::string checkFrames(std::int64_t n);
std::string checkSlots(std::int64_t n);
std::string checkThreads(std::int64_t n);
std::string checkLogLevel(const std::string& level);
std::string checkCodec(const std::string& name);
std::string checkWindow(const std::string& size);  // "1280x720"
std::string checkJobs(std::int64_t n);

// The width and height of a size checkWindow() accepted.
struct WindowSize {
  int width = 0, height = 0;
};
WindowSize parseWindow(const std::string& size);

// Help footer: examples, sources, outputs, exit statuses.
std::string helpFooter();
// What `vidfilter batch --help` prints before the options: its usage and what it does.
std::string batchHelpHeader();

}  // namespace vf::app
