#pragma once
// What the tests of `vidfilter bench` share: its JSON report read and checked, the small chain
// they time, and its one-line usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_errors.hpp"
#include "tests/support/json_file.hpp"
#include "tests/support/process.hpp"

namespace vf::test {

using Json = nlohmann::json;

inline void expectSummary(const Json& s, int runs) {
  ASSERT_TRUE(s.is_object()) << s;
  EXPECT_EQ(s.at("runs"), runs) << s;
  const double median = s.at("median_ms"), p99 = s.at("p99_ms"), min = s.at("min_ms");
  EXPECT_LE(min, median) << s;
  EXPECT_LE(median, p99) << s;
  EXPECT_GE(s.at("mean_ms").get<double>(), min) << s;
}

inline void expectGoodReport(const std::string& label, const ProcResult& r, const Json& json) {
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

inline const std::vector<std::string> kBenchArgs = {
    "--chain", "gray,brightness=gain=1.3:bias=-7", "--size", "64x48", "--frames", "5", "--check"};

inline std::vector<std::string> operator+(std::vector<std::string> a,
                                          const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A bad argument: exit status 2 (as vidfilter's), one message on stderr naming it (a chain's
// own lines under it, indented, show where in the chain), nothing timed.
inline void expectUsageError(const ProcResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter bench: ", 0), 0u) << e;
  const std::string first = e.substr(0, e.find('\n'));
  EXPECT_NE(first.find(needle), std::string::npos) << e;
  for (std::size_t nl = e.find('\n'); nl + 1 < e.size(); nl = e.find('\n', nl + 1))
    EXPECT_EQ(e.compare(nl + 1, 2, "  "), 0) << "a second message in:\n" << e;
  EXPECT_EQ(r.out.find("method:"), std::string::npos) << r.out;
}

}  // namespace vf::test
