// `vidfilter bench` end to end: the real binaries (`vidfilter bench` and `vidfilter-bench`) on a
// small chain with --check and --json; the JSON holds every number and the check passed. No
// timing assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench/check.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/test_bench_util.hpp"

using namespace vf::test;

TEST(BenchCommand, VidfilterBenchWritesJsonAndTheCheckPasses) {
  TempDir dir("bench_json");
  const ProcResult r = runVidfilter(std::vector<std::string>{"bench"} + kBenchArgs +
                                    std::vector<std::string>{"--json", dir / "f.json"});
  expectGoodReport("vidfilter bench", r, readJson(dir / "f.json"));
}

TEST(BenchCommand, StandaloneVidfilterBenchIsTheSameTool) {
  TempDir dir("bench_standalone");
  const ProcResult r = runBench(kBenchArgs + std::vector<std::string>{"--json", dir / "g.json"});
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
