// `vidfilter bench` end to end: the real binaries (`vidfilter bench` and `vidfilter-bench`) on a
// small chain with --check and --json; the JSON holds every number and the check passed. No
// timing assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/bench/check.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace {

using Json = nlohmann::json;

// The file as one JSON document (a parse error fails the test).
Json readJson(const std::filesystem::path& p) {
  std::ifstream f(p);
  Json j;
  EXPECT_NO_THROW(j = Json::parse(f)) << p;
  return j;
}

void expectSummary(const Json& s, int runs) {
  ASSERT_TRUE(s.is_object()) << s;
  EXPECT_EQ(s.at("runs"), runs) << s;
  const double median = s.at("median_ms"), p99 = s.at("p99_ms"), min = s.at("min_ms");
  EXPECT_LE(min, median) << s;
  EXPECT_LE(median, p99) << s;
  EXPECT_GE(s.at("mean_ms").get<double>(), min) << s;
}

void expectGoodReport(const std::string& label, const ProcResult& r, const Json& json) {
  SCOPED_TRACE(label + "\n" + r.out + r.err);
  ASSERT_EQ(r.status, 0);
  // The method comes first, then the table.
  const auto method = r.out.find("method:"), table = r.out.find("vidfilter p50 / p99");
  ASSERT_NE(method, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(method, table);
  EXPECT_NE(r.out.find("warm-up"), std::string::npos);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos);

  ASSERT_TRUE(json.is_object()) << json;
  EXPECT_EQ(json.at("chain"), "gray,brightness=gain=1.3:bias=-7");
  EXPECT_EQ(json.at("width"), 64);
  EXPECT_EQ(json.at("height"), 48);
  EXPECT_EQ(json.at("format"), "bgr");
  const Json& m = json.at("method");
  for (const char* key : {"device", "opencv_version", "tapi_note"})
    EXPECT_FALSE(m.at(key).get<std::string>().empty()) << key;
  EXPECT_GE(m.at("opencv_threads").get<int>(), 1);
  EXPECT_TRUE(m.at("tapi_device").is_string() || m.at("tapi_device").is_null());
  EXPECT_EQ(m.at("warmup"), 10);
  EXPECT_EQ(m.at("frames"), 5);
  // Median and p99 for each stage and peer; 5 timed runs each.
  const Json& stages = json.at("stages");
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].at("name"), "gray");
  EXPECT_EQ(stages[1].at("name"), "brightness");
  for (const Json& st : stages) {
    expectSummary(st.at("vidfilter"), 5);
    expectSummary(st.at("opencv_cpu"), 5);
    if (!st.at("opencv_tapi").is_null()) expectSummary(st.at("opencv_tapi"), 5);
    EXPECT_GT(st.at("ratio_vs_cpu").get<double>(), 0.0);
  }
  const Json& total = json.at("chain_total");
  for (const char* key : {"vidfilter_device_span", "vidfilter_wall", "opencv_cpu"})
    expectSummary(total.at(key), 5);
  EXPECT_TRUE(total.contains("opencv_tapi"));
  EXPECT_TRUE(total.contains("ratio_vs_cpu"));
  // Fused and unfused: each with the kernels timed and as the engine's untimed frames run.
  const Json& fusion = json.at("fusion");
  for (const char* side : {"fused", "unfused"}) {
    EXPECT_GT(fusion.at(side).at("device_span_median_ms").get<double>(), 0.0) << side;
    EXPECT_GT(fusion.at(side).at("untimed_span_median_ms").get<double>(), 0.0) << side;
    EXPECT_GT(fusion.at(side).at("streamed_ms_per_frame").get<double>(), 0.0) << side;
  }
  const Json& engine = json.at("engine");
  EXPECT_GT(engine.at("engine_fps").get<double>(), 0.0);
  EXPECT_GT(engine.at("latency_ms").get<double>(), 0.0);
  // The check: both stages compared, within the limit, and passed overall.
  const Json& check = json.at("check");
  EXPECT_EQ(check.at("ran"), true);
  ASSERT_EQ(check.at("stages").size(), 2u);
  for (const Json& row : check.at("stages")) {
    EXPECT_EQ(row.at("what"), "frame");
    EXPECT_EQ(row.at("passed"), true) << row;
  }
  EXPECT_EQ(check.at("chain_max_diff"), 0);
  EXPECT_EQ(check.at("passed"), true);
}

const std::vector<std::string> kArgs = {
    "--chain", "gray,brightness=gain=1.3:bias=-7", "--size", "64x48", "--frames", "5", "--check"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A bad argument: exit status 2 (as vidfilter's), one message on stderr naming it (a chain's
// own lines under it, indented, show where in the chain), nothing timed.
void expectUsageError(const ProcResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter bench: ", 0), 0u) << e;
  const std::string first = e.substr(0, e.find('\n'));
  EXPECT_NE(first.find(needle), std::string::npos) << e;
  for (std::size_t nl = e.find('\n'); nl + 1 < e.size(); nl = e.find('\n', nl + 1))
    EXPECT_EQ(e.compare(nl + 1, 2, "  "), 0) << "a second message in:\n" << e;
  EXPECT_EQ(r.out.find("method:"), std::string::npos) << r.out;
}

}  // namespace

TEST(BenchCommand, VidfilterBenchWritesJsonAndTheCheckPasses) {
  TempDir dir("bench_json");
  const ProcResult r = runVidfilter(std::vector<std::string>{"bench"} + kArgs +
                                    std::vector<std::string>{"--json", dir / "f.json"});
  expectGoodReport("vidfilter bench", r, readJson(dir / "f.json"));
}

TEST(BenchCommand, StandaloneVidfilterBenchIsTheSameTool) {
  TempDir dir("bench_standalone");
  const ProcResult r = runBench(kArgs + std::vector<std::string>{"--json", dir / "g.json"});
  expectGoodReport("vidfilter-bench", r, readJson(dir / "g.json"));
  // Linked without OpenCV's video and GUI libraries (runs on hosts that lack them).
  const ProcResult ldd = runProcess("/usr/bin/ldd", {benchBinary()});
  ASSERT_EQ(ldd.status, 0) << ldd.err;
  EXPECT_EQ(ldd.out.find("opencv_videoio"), std::string::npos) << ldd.out;
  EXPECT_EQ(ldd.out.find("opencv_highgui"), std::string::npos) << ldd.out;
  EXPECT_NE(ldd.out.find("opencv_imgproc"), std::string::npos) << ldd.out;
}

TEST(BenchCommand, BadArgumentsAreOneLineErrors) {
  expectUsageError(runBench({"--chain", "gray", "--size", "64"}), "--size must be WxH");
  // Nothing but the two numbers: what follows or comes before them is not taken for a size.
  for (const char* size : {"64x64x3", "64x64junk", "64x64.5", "+64x64", " 64x64", "64x"})
    expectUsageError(runBench({"--chain", "gray", "--size", size}), "--size must be WxH");
  expectUsageError(runBench({"--table", "--chains", "gray", "--sizes", "64x48,+32x16"}),
                   "--sizes takes WxH sizes");
  expectUsageError(runBench({"--chain", "gray,nosuch", "--size", "64x48"}),
                   "unknown stage 'nosuch'");
  expectUsageError(runBench({"--chain", "gray", "--size", "64x48", "--format", "yuv"}),
                   "--format must be gray, bgr or bgra");
  expectUsageError(runBench({"--size", "64x48"}), "--chain is required");
  expectUsageError(runBench({"--chain", "gray", "--size", "64x48", "--slots", "9"}),
                   "--slots must be in [1, 8]");
  expectUsageError(runBench({"--chain", "gray", "--size", "100000x100000"}),
                   "makes frames of more than 4 GiB");
  // Options a mode would ignore are refused, naming the mode they belong to.
  expectUsageError(runBench({"--enqueue-cost", "--chain", "blur"}),
                   "--enqueue-cost times single OpenCL calls, no chain");
  expectUsageError(runBench({"--chain", "blur", "--sizes", "64x48,32x16"}),
                   "--chains, --sizes and --formats are lists for --table");
  // One value beside its list was dropped without a word; an empty --json, a --cv-threads of
  // -1 too.
  expectUsageError(
      runBench({"--table", "--chains", "blur", "--chain", "sobel", "--sizes", "32x32"}),
      "--chain and --chains both given");
  expectUsageError(runBench({"--table", "--chains", "blur", "--size", "64x48", "--sizes", "32x32"}),
                   "--size and --sizes both given");
  expectUsageError(runBench({"--chain", "gray", "--size", "64x48", "--json", ""}),
                   "--json is empty");
  expectUsageError(runBench({"--chain", "gray", "--size", "64x48", "--cv-threads", "-1"}),
                   "--cv-threads must be in [0, 1024]");
  // --check runs with one chain on one size only; elsewhere it would pass without checking.
  expectUsageError(runBench({"--table", "--check", "--chains", "blur", "--sizes", "32x32"}),
                   "--check checks one chain on one frame size");
  expectUsageError(runBench({"--enqueue-cost", "--check"}),
                   "--check checks one chain on one frame size");
  // A side that a factor rounds to 0 (the stage makes it 1) has no OpenCV resize as a peer.
  expectUsageError(runBench({"--chain", "resize=scale=0.5", "--size", "3x1", "--format", "gray",
                             "--frames", "1", "--warmup", "0", "--no-tapi", "--no-engine"}),
                   "which OpenCV's resize refuses: there is no peer to time or check it against");
  // A user's kernel has no OpenCV peer: how to time it without one.
  expectUsageError(
      runBench({"--chain",
                std::string("kernel=") + VIDFILTER_SOURCE_DIR + "/samples/kernels/invert.cl",
                "--size", "64x48", "--frames", "2"}),
      "no OpenCV equivalent for stage 'kernel' to time it against; time the chain on the device "
      "alone with vidfilter bench --table --chains CHAIN");
  const ProcResult table =
      runBench({"--table", "--chains",
                std::string("kernel=") + VIDFILTER_SOURCE_DIR + "/samples/kernels/invert.cl",
                "--sizes", "64x48", "--formats", "gray", "--frames", "2", "--warmup", "1"});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("invert.cl"), std::string::npos) << table.out;
}

// --table --json: a JSON object per row, each with the chain's device time (a frame alone and
// streamed: frames back to back), the copy's, and for a width not a multiple of 64 its aligned
// peer.
TEST(BenchCommand, TableRowsCarryTheirTimesAloneAndStreamed) {
  TempDir dir("bench_table_json");
  const ProcResult r =
      runBench({"--table", "--chains", "blur=ksize=3", "--sizes", "64x48,67x33", "--formats", "bgr",
                "--frames", "3", "--warmup", "1", "--json", dir / "t.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream f(dir / "t.jsonl");
  std::vector<Json> rows;
  for (std::string line; std::getline(f, line);) rows.push_back(Json::parse(line));
  ASSERT_EQ(rows.size(), 2u) << r.out;
  for (const Json& row : rows) {
    for (const char* key : {"us", "copy_us", "streamed_us"})
      EXPECT_GT(row.at(key).get<double>(), 0.0) << key << " " << row;
    EXPECT_EQ(row.at("chain"), "blur=ksize=3");
    EXPECT_EQ(row.at("format"), "bgr");
  }
  EXPECT_EQ(rows[0].at("width"), 64);
  EXPECT_FALSE(rows[0].contains("peer_us"));
  EXPECT_EQ(rows[1].at("width"), 67);
  EXPECT_EQ(rows[1].at("peer_width"), 64);
  EXPECT_GT(rows[1].at("peer_us").get<double>(), 0.0);
}

// --table's lists: each element is required (an empty one is named before the device opens, not
// skipped), a list may be given as one value, several values or the option repeated, and every
// chain x format x size gets its row.
TEST(BenchCommand, TableListsAreCheckedAndEachCellHasItsRow) {
  expectUsageError(runBench({"--table", "--chains", "gray;;blur", "--sizes", "64x48"}),
                   "--chains: element 2 of 'gray;;blur' is empty");
  expectUsageError(runBench({"--table", "--chains", "blur;", "--sizes", "64x48"}),
                   "--chains: element 2 of 'blur;' is empty");
  expectUsageError(runBench({"--table", "--chains", "gray", "--sizes", ",64x48"}),
                   "--sizes: element 1 of ',64x48' is empty");
  expectUsageError(
      runBench({"--table", "--chains", "gray", "--sizes", "64x48", "--formats", "gray,,bgr"}),
      "--formats: element 2 of 'gray,,bgr' is empty");
  expectUsageError(runBench({"--table", "--chains", "gray;nosuch", "--sizes", "64x48"}),
                   "unknown stage 'nosuch'");
  const ProcResult t =
      runBench({"--table", "--chains", "gray;blur=ksize=3", "--sizes", "64x48", "--sizes", "33x17",
                "--formats", "gray", "bgr", "--frames", "2", "--warmup", "1", "--no-peers"});
  ASSERT_EQ(t.status, 0) << t.err;
  std::vector<std::string> cells;
  std::istringstream lines(t.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string chain, size, format;
    if (words >> chain >> size >> format && (chain == "gray" || chain == "blur=ksize=3"))
      cells.push_back(chain + " " + size + " " + format);
  }
  std::sort(cells.begin(), cells.end());
  EXPECT_EQ(cells, (std::vector<std::string>{"blur=ksize=3 33x17 bgr", "blur=ksize=3 33x17 gray",
                                             "blur=ksize=3 64x48 bgr", "blur=ksize=3 64x48 gray",
                                             "gray 33x17 bgr", "gray 33x17 gray", "gray 64x48 bgr",
                                             "gray 64x48 gray"}))
      << t.out;
}

// --check judges every stage through its OpenCV mapping (parameters read from the chain): all
// five stages with non-default parameters, every border mode somewhere (wrap and constant with
// a value need explicit padding on the OpenCV side), odd sizes, every format.
TEST(BenchCommand, CheckCoversEveryStageWithItsParameters) {
  TempDir dir("bench_check");
  const char* chains[] = {
      "gray,blur=sigma=2:border=wrap,sobel=mode=l2:border=constant:value=30,hist,"
      "brightness=mode=auto:clip=2",
      "blur=sigma=0.8:ksize=7:border=constant:value=200,sobel=mode=x:ksize=5:scale=0.5:"
      "border=reflect,hist,brightness=gain=1.7:bias=-20",
      "blur=border=replicate,sobel=mode=y:ksize=1:border=reflect101,hist",
  };
  int n = 0;
  for (const char* chain : chains) {
    for (const char* format : {"gray", "bgr", "bgra"}) {
      const std::string json = dir / ("c" + std::to_string(n++) + ".json");
      const ProcResult r = runBench({"--chain", chain, "--format", format, "--size", "37x23",
                                     "--frames", "1", "--warmup", "0", "--distinct", "2",
                                     "--no-tapi", "--no-engine", "--check", "--json", json});
      SCOPED_TRACE(std::string(chain) + " " + format + "\n" + r.out + r.err);
      EXPECT_EQ(r.status, 0);
      const Json js = readJson(json);
      const auto stages = 1 + std::size_t(std::count(chain, chain + std::strlen(chain), ','));
      std::size_t frames = 0, histograms = 0;
      for (const Json& row : js.at("check").at("stages")) {
        frames += row.at("what") == "frame";
        histograms += row.at("what") == "histogram";
        EXPECT_EQ(row.at("passed"), true) << row;
      }
      EXPECT_EQ(frames, stages);
      EXPECT_EQ(histograms, 1u);
      EXPECT_EQ(js.at("check").at("passed"), true);
      EXPECT_TRUE(js.at("engine").is_null());
    }
  }
}

TEST(BenchCommand, JsonNeverReplacesWhatItReadsNorAFileWithoutY) {
  TempDir dir("bench_json_safety");
  const std::string video = dir / "in.mp4";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 '" +
                  video + "'")
                .status,
            0);
  const std::string before = shellOutput("md5sum < '" + video + "'");
  // The file job's --json over its own input; an existing file without -y (no terminal).
  expectUsageError(runBench({"--input", video, "--frames", "2", "--json", video}), "is the input");
  // Nor a kernel file a chain reads: the file job's, the table's, one chain's.
  const std::string kernel = dir / "k.cl";
  std::filesystem::copy_file(std::string(VIDFILTER_SOURCE_DIR) + "/samples/kernels/invert.cl",
                             kernel);
  const std::string kernelBefore = shellOutput("md5sum < '" + kernel + "'");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--input", video, "--chain", "gray,kernel=" + kernel, "--frames", "2", "--no-ffmpeg"},
           {"--table", "--chains", "gray;kernel=" + kernel, "--sizes", "64x48", "--formats", "bgr",
            "--frames", "2"},
           {"--chain", "kernel=" + kernel, "--size", "64x48", "--frames", "2", "--no-engine"}}) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--json", kernel, "-y"});
    expectUsageError(runBench(all), "is a kernel file");
  }
  EXPECT_EQ(shellOutput("md5sum < '" + kernel + "'"), kernelBefore);
  const std::string old = dir / "old.json";
  std::ofstream(old) << "kept";
  expectUsageError(runBench(kArgs + std::vector<std::string>{"--json", old}), "give -y");
  EXPECT_EQ(shellOutput("md5sum < '" + video + "'"), before);
  EXPECT_EQ(shellOutput("cat '" + old + "'"), "kept");
  // A directory that does not exist is named before anything is measured.
  expectUsageError(runBench(kArgs + std::vector<std::string>{"--json", dir / "no/x.json"}),
                   "does not exist");
  // -y replaces it.
  const ProcResult r = runBench(kArgs + std::vector<std::string>{"--json", old, "-y"});
  expectGoodReport("vidfilter-bench", r, readJson(old));
}

// A --json file that cannot be written whole: exit 1 with the reason, and no part of it left.
TEST(BenchCommand, JsonOnAFullDiskFailsAndLeavesNoFile) {
  TempDir dir("bench_json_full");
  const std::string mounted =
      shellOutput("mount -t tmpfs -o size=4k tmpfs '" + dir.path().string() + "' 2>&1 && echo ok");
  if (mounted.find("ok") == std::string::npos)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << mounted;
  shellOutput("head -c 1M /dev/zero > '" + (dir / "fill") + "' 2>/dev/null; true");
  const std::string json = dir / "b.json";
  const ProcResult r = runBench(kArgs + std::vector<std::string>{"--json", json});
  const bool left = std::filesystem::exists(json);  // on the full disk, before it goes
  shellOutput("umount '" + dir.path().string() + "' 2>&1");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(errorLines(r.err).find("No space left on device"), std::string::npos) << r.err;
  EXPECT_FALSE(left);
}

TEST(BenchCommand, FileJobNumbersAreCheckedAndItsSetupLineIsPrintable) {
  TempDir dir("bench_job_args");
  const std::string video = dir / "in.mkv";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=10 -frames:v 5 "
                  "-c:v ffv1 '" +
                  video + "'")
                .status,
            0);
  const std::vector<std::string> job = {"--input", video, "--frames", "3", "--no-ffmpeg"};
  for (const char* crf : {"abc", "1e999", "20abc", "nan", "-5", "64"}) {
    SCOPED_TRACE(crf);
    expectUsageError(runBench(job + std::vector<std::string>{"--crf", crf}), "--crf");
  }
  for (const char* n : {"-5", "0"}) {
    SCOPED_TRACE(n);
    expectUsageError(runBench(kArgs + std::vector<std::string>{"--engine-frames", n}),
                     "--engine-frames");
  }
  // Any encoder its own scratch files' container holds (ffv1 goes in no MP4).
  const ProcResult ffv1 = runBench(job + std::vector<std::string>{"--codec", "ffv1"});
  EXPECT_EQ(ffv1.status, 0) << ffv1.err;
  // A file shorter than --frames: said, and every part times the frames it holds.
  const ProcResult shortFile = runBench(
      {"--input", video, "--frames", "8", "--no-ffmpeg", "--json", dir / "short.json", "-y"});
  ASSERT_EQ(shortFile.status, 0) << shortFile.err;
  EXPECT_NE(shortFile.out.find("holds 5 frames, fewer than --frames 8"), std::string::npos)
      << shortFile.out;
  std::ifstream shortJson(dir / "short.json");
  const auto doc = Json::parse(shortJson);
  ASSERT_FALSE(doc["parts"].empty());
  for (const auto& part : doc["parts"]) EXPECT_EQ(part["frames"], 5) << part.dump();
  // A file name with an escape sequence and a carriage return: shown escaped.
  const std::string odd = dir / "a\x1b[31mb\rc.mkv";
  std::filesystem::copy_file(video, odd);
  const ProcResult r = runBench({"--input", odd, "--frames", "3", "--no-ffmpeg", "--crf", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find_first_of("\x1b\r"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a\\x1b[31mb\\rc.mkv"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("fewer than --frames"), std::string::npos) << r.out;
  // The ffmpeg command it prints can be pasted into a shell: a name with a space and a ';' is one
  // quoted word.
  const std::string spaced = dir / "a b;touch x.mkv";
  std::filesystem::copy_file(video, spaced);
  const ProcResult withPeer = runBench({"--input", spaced, "--frames", "3", "--chain", "gray"});
  ASSERT_EQ(withPeer.status, 0) << withPeer.err;
  if (withPeer.out.find("ffmpeg command:") != std::string::npos)
    EXPECT_NE(withPeer.out.find(" -i '" + spaced + "' "), std::string::npos) << withPeer.out;
  else
    EXPECT_NE(withPeer.out.find("ffmpeg peer: not run"), std::string::npos) << withPeer.out;
  // Its scratch files go to a new directory of its own under TMPDIR, removed after it; what was
  // there before stays.
  const std::string tmp = dir / "tmp";
  std::filesystem::create_directory(tmp);
  std::ofstream(tmp + "/keep.txt") << "kept";
  ProcOptions underTmp;
  underTmp.setEnv = {"TMPDIR=" + tmp};
  const ProcResult scratch = runBench(job, underTmp);
  ASSERT_EQ(scratch.status, 0) << scratch.err;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp))
    left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"keep.txt"});
  underTmp.setEnv = {"TMPDIR=" + (dir / "missing")};
  expectUsageError(runBench(job, underTmp), "TMPDIR");
}

TEST(BenchCommand, FileJobStoppedBySignalRemovesItsScratchFiles) {
  // SIGTERM or SIGINT killed `bench --input` by their default action: its scratch directory
  // (the encoded files of each part) stayed in TMPDIR. Now the stop removes it and the status is
  // 128 + the signal.
  TempDir dir("bench_job_signal");
  const std::string video = dir / "in.mp4";
  ASSERT_EQ(shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=1280x720:rate=25 -t 4 "
                  "-c:v libx264 '" +
                  video + "'")
                .status,
            0);
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string tmp = dir / ("tmp" + std::to_string(sig));
    std::filesystem::create_directory(tmp);
    ProcOptions o;
    o.setEnv = {"TMPDIR=" + tmp};
    o.timeoutSec = 120;
    Child c(vidfilterBinary(), {"bench", "--input", video, "--frames", "100", "--no-ffmpeg"}, o);
    // Stopped once its scratch directory holds a part's file.
    const auto holdsAFile = [&] {
      for (const auto& d : std::filesystem::directory_iterator(tmp))
        if (!std::filesystem::is_empty(d.path())) return true;
      return false;
    };
    for (int i = 0; i < 1200 && !holdsAFile(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(holdsAFile()) << c.errSoFar();
    c.signal(sig);
    const ProcResult r = c.wait();
    EXPECT_EQ(r.status, 128 + sig) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(tmp)) << r.err;
  }
  // Stopped while its ffmpeg command runs: the command is stopped too (it went on encoding into
  // the removed directory).
  const std::string tmp = dir / "tmp_ffmpeg";
  std::filesystem::create_directory(tmp);
  ProcOptions o;
  o.setEnv = {"TMPDIR=" + tmp};
  o.timeoutSec = 180;
  const std::string json = dir / "r.json";
  Child c(vidfilterBinary(), {"bench", "--input", video, "--frames", "100", "--json", json}, o);
  const std::string children =
      "/proc/" + std::to_string(c.pid()) + "/task/" + std::to_string(c.pid()) + "/children";
  std::string child;  // the ffmpeg command, once it runs
  for (int i = 0; i < 6000 && child.empty(); ++i) {
    std::ifstream list(children);
    for (std::string pid; child.empty() && list >> pid;) {
      std::string comm;
      std::ifstream("/proc/" + pid + "/comm") >> comm;
      if (comm == "ffmpeg") child = pid;
    }
    if (child.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(child.empty()) << c.errSoFar();
  c.signal(SIGTERM);
  const ProcResult r = c.wait();
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << r.err;
  EXPECT_FALSE(std::filesystem::exists("/proc/" + child + "/exe")) << "ffmpeg " << child;
  // No results: neither the table (its stopped command called "failed") nor the JSON file.
  EXPECT_EQ(r.out.find("whole job /"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ffmpeg peer"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// --check's histogram comparison: OpenCV's calcHist counts are floats, so a bin past 2^24 (one
// bin of a 7680x4320 frame can hold 33 million) reads as the nearest float; the device's exact
// count is compared as that float, and any other difference still counts.
TEST(BenchCheck, HistogramCountsCompareAsOpenCVStoresThem) {
  const auto side = [](std::vector<std::uint32_t> counts) {
    std::vector<std::uint8_t> bytes(counts.size() * 4);
    std::memcpy(bytes.data(), counts.data(), bytes.size());
    return std::vector<std::vector<std::uint8_t>>{bytes};
  };
  const std::uint32_t odd = (1u << 24) + 1;  // float: 2^24 (ties to even)
  EXPECT_EQ(vf::bench::maxCountDiff(side({odd, 7, 0}), {1u << 24, 7, 0}), 0);
  EXPECT_EQ(vf::bench::maxCountDiff(side({33177599, 7, 0}), {33177600, 7, 0}), 0);
  EXPECT_EQ(vf::bench::maxCountDiff(side({odd, 8, 0}), {1u << 24, 7, 0}), 1);
  EXPECT_EQ(vf::bench::maxCountDiff(side({(1u << 24) + 4, 7, 0}), {1u << 24, 7, 0}), 4);
  EXPECT_EQ(vf::bench::maxCountDiff(side({5, 7}), {5, 7, 0}), 1 << 30);
}
