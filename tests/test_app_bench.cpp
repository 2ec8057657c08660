// `vidfilter bench` end to end: the real binaries (`vidfilter bench` and `vidfilter-bench`) on a
// small chain with --check and --json; the JSON holds every number and the check passed. No
// timing assertions.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::filesystem::path binDir() {
  if (const char* b = std::getenv("VIDFILTER_BIN"); b && *b)
    return std::filesystem::path(b).parent_path();
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "app";
}

struct ProcOut {
  int status = -1;
  std::string out;  // stdout and stderr
};

ProcOut run(const std::string& cmd) {
  ProcOut r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Every { and [ closed in order, strings skipped: the file is one well-formed JSON value.
bool balanced(const std::string& s) {
  std::string stack;
  bool inStr = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (inStr) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inStr = false;
      continue;
    }
    if (c == '"') inStr = true;
    if (c == '{' || c == '[') stack += c;
    if (c == '}' || c == ']') {
      if (stack.empty() || stack.back() != (c == '}' ? '{' : '[')) return false;
      stack.pop_back();
    }
  }
  return stack.empty() && !inStr;
}

void expectGoodReport(const std::string& label, const ProcOut& r, const std::string& json) {
  SCOPED_TRACE(label + "\n" + r.out);
  ASSERT_EQ(r.status, 0);
  // The method comes first, then the table.
  const auto method = r.out.find("method:"), table = r.out.find("vidfilter p50 / p99");
  ASSERT_NE(method, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(method, table);
  EXPECT_NE(r.out.find("warm-up"), std::string::npos);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos);

  ASSERT_FALSE(json.empty());
  EXPECT_TRUE(balanced(json)) << json;
  for (const char* key : {"\"chain\":\"gray,brightness=gain=1.3:bias=-7\"",
                          "\"width\":64",
                          "\"height\":48",
                          "\"format\":\"bgr\"",
                          "\"method\":{",
                          "\"device\":",
                          "\"opencv_version\":",
                          "\"opencv_threads\":",
                          "\"tapi_device\":",
                          "\"warmup\":",
                          "\"frames\":5",
                          "\"stages\":[",
                          "\"chain_total\":{",
                          "\"vidfilter_device_span\":{",
                          "\"vidfilter_wall\":{",
                          "\"opencv_cpu\":{",
                          "\"opencv_tapi\":",
                          "\"ratio_vs_cpu\":",
                          "\"engine\":{",
                          "\"engine_fps\":",
                          "\"latency_ms\":",
                          "\"check\":{\"ran\":true"})
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  EXPECT_EQ(count(json, "\"name\":\"gray\""), 1);
  EXPECT_EQ(count(json, "\"name\":\"brightness\""), 1);
  // Median and p99 for each stage and peer; 5 timed runs each.
  EXPECT_GE(count(json, "\"median_ms\":"), 2 * 2 + 3);
  EXPECT_GE(count(json, "\"p99_ms\":"), 2 * 2 + 3);
  EXPECT_GE(count(json, "\"runs\":5"), 2 * 2 + 3);
  // The check: both stages compared, within the limit, and passed overall.
  EXPECT_EQ(count(json, "\"what\":\"frame\""), 2);
  EXPECT_EQ(count(json, "\"passed\":false"), 0);
  EXPECT_NE(json.find("\"chain_max_diff\":0"), std::string::npos);
  EXPECT_TRUE(json.size() > 20 &&
              json.substr(json.size() - 30).find("\"passed\":true}") != std::string::npos)
      << "overall check result";
}

class BenchCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("vf-bench-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

const char* kArgs = " --chain gray,brightness=gain=1.3:bias=-7 --size 64x48 --frames 5 --check";

}  // namespace

TEST_F(BenchCommand, VidfilterBenchWritesJsonAndTheCheckPasses) {
  const auto json = dir_ / "f.json";
  const ProcOut r =
      run((binDir() / "vidfilter").string() + " bench" + kArgs + " --json " + json.string());
  expectGoodReport("vidfilter bench", r, slurp(json));
}

TEST_F(BenchCommand, StandaloneVidfilterBenchIsTheSameTool) {
  const auto json = dir_ / "g.json";
  const ProcOut r =
      run((binDir() / "vidfilter-bench").string() + kArgs + " --json " + json.string());
  expectGoodReport("vidfilter-bench", r, slurp(json));
  // Linked without OpenCV's video and GUI libraries (runs on hosts that lack them).
  const ProcOut ldd = run("ldd " + (binDir() / "vidfilter-bench").string());
  ASSERT_EQ(ldd.status, 0) << ldd.out;
  EXPECT_EQ(ldd.out.find("opencv_videoio"), std::string::npos) << ldd.out;
  EXPECT_EQ(ldd.out.find("opencv_highgui"), std::string::npos) << ldd.out;
  EXPECT_NE(ldd.out.find("opencv_imgproc"), std::string::npos) << ldd.out;
}

TEST_F(BenchCommand, BadArgumentsAreOneLineErrors) {
  const std::string bin = (binDir() / "vidfilter-bench").string();
  // What the user wrote: exit status 2, as vidfilter's.
  ProcOut r = run(bin + " --chain gray --size 64");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--size must be WxH"), std::string::npos) << r.out;
  r = run(bin + " --chain gray,nosuch --size 64x48");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown stage 'nosuch'"), std::string::npos) << r.out;
  r = run(bin + " --chain gray --size 64x48 --format yuv");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--format must be gray, bgr or bgra"), std::string::npos) << r.out;
  r = run(bin + " --size 64x48");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--chain"), std::string::npos) << r.out;
}

// --check judges every stage through its OpenCV mapping (parameters read from the chain): all
// five stages with non-default parameters, every border mode somewhere (wrap and constant with
// a value need explicit padding on the OpenCV side), odd sizes, every format.
TEST_F(BenchCommand, CheckCoversEveryStageWithItsParameters) {
  const std::string bin = (binDir() / "vidfilter-bench").string();
  const char* chains[] = {
      "gray,blur=sigma=2:border=wrap,sobel=mode=l2:border=constant:value=30,hist,"
      "brightness=mode=auto:clip=2",
      "blur=sigma=0.8:ksize=7:border=constant:value=200,sobel=mode=x:ksize=5:scale=0.5:"
      "border=reflect,hist,brightness=gain=1.7:bias=-20",
      "blur=border=replicate,sobel=mode=y:ksize=1:border=reflect101,hist",
  };
  int run_ = 0;
  for (const char* chain : chains) {
    for (const char* format : {"gray", "bgr", "bgra"}) {
      const auto json = dir_ / ("c" + std::to_string(run_++) + ".json");
      const ProcOut r = run(bin + " --chain '" + chain + "' --format " + format +
                            " --size 37x23 --frames 1 --warmup 0 --distinct 2 --no-tapi "
                            "--no-engine --check --json " +
                            json.string());
      SCOPED_TRACE(std::string(chain) + " " + format + "\n" + r.out);
      EXPECT_EQ(r.status, 0);
      const std::string js = slurp(json);
      EXPECT_TRUE(balanced(js));
      const int stages = 1 + count(chain, ",");
      EXPECT_EQ(count(js, "\"what\":\"frame\""), stages);
      EXPECT_EQ(count(js, "\"what\":\"histogram\""), 1);
      EXPECT_EQ(count(js, "\"passed\":true"), stages + 1 + 1);  // rows + the histogram + overall
      EXPECT_EQ(count(js, "\"passed\":false"), 0);
      EXPECT_NE(js.find("\"engine\":null"), std::string::npos);
    }
  }
}
