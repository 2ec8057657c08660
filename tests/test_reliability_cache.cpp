// Reliability: the caches and the kernel files, through the real binary. PoCL (the CPU device)
// that cannot create its cache directory is named as the cause (not "no device, install pocl");
// vidfilter's own program cache never fails a run when it cannot be written; a .cl file under
// VIDFILTER_KERNEL_DIR that is empty, a directory, or holds no kernel is one clear error. The
// program cache's entries themselves: test_runtime.cpp (ProgramCache.*). docs/RELIABILITY.md
// lists them all.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vf::test;

namespace fs = std::filesystem;

namespace {

// A run whose caches come only from `env`: PoCL's and vidfilter's variables removed first. As
// root (who may write anywhere) it runs as nobody, so that a mode takes effect.
vf::test::ProcOptions cacheEnv(std::vector<std::string> env) {
  vf::test::ProcOptions o;
  o.unsetEnv = {"POCL_CACHE_DIR", "XDG_CACHE_HOME", "VIDFILTER_CACHE_DIR", "POCL_KERNEL_CACHE"};
  o.setEnv = std::move(env);
  o.asNobody = geteuid() == 0;
  o.timeoutSec = 120;
  return o;
}

// A directory the run (nobody, when root) can read but not write: a home without write access.
void readOnly(const TempDir& dir) { ::chmod(dir.path().c_str(), 0555); }
// One the run may write (a fresh PoCL cache).
void writable(const TempDir& dir) { ::chmod(dir.path().c_str(), 0777); }

// The kernels directory of the source tree, copied, for VIDFILTER_KERNEL_DIR.
void copyKernels(const TempDir& to) {
  for (const auto& e : fs::directory_iterator(fs::path(VIDFILTER_SOURCE_DIR) / "kernels"))
    fs::copy_file(e.path(), to.path() / e.path().filename());
}

void expectPoclCacheNamed(const vf::test::ProcResult& r, const std::string& dir,
                          const std::string& from) {
  expectOneError(r, 1, "PoCL (the CPU device) cannot create its kernel cache '" + dir + "'");
  EXPECT_NE(r.err.find("(from " + from + ")"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Set POCL_CACHE_DIR to a writable directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("install"), std::string::npos) << "the cause is not a missing package";
}

}  // namespace

// --- PoCL's cache -------------------------------------------------------------------------------

TEST(ReliabilityCache, PoclCacheUnderAnUnwritableHome) {
  // Run as nobody, whose HOME cannot be written.
  TempDir home("cache_home");
  readOnly(home);
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray"},
                              cacheEnv({"HOME=" + home.path().string(), "XDG_CACHE_HOME="}));
  expectPoclCacheNamed(r, home / ".cache/pocl/kcache", "HOME");
  // --list-devices says the same.
  const auto list = runVidfilter({"--list-devices"}, cacheEnv({"HOME=" + home.path().string()}));
  EXPECT_NE(list.out.find("cannot create its kernel cache"), std::string::npos) << list.out;
}

TEST(ReliabilityCache, PoclCacheUnderAnUnwritableXdgCacheHomeOrPoclCacheDir) {
  TempDir home("cache_home2"), xdg("cache_xdg");
  writable(home);
  readOnly(xdg);
  expectPoclCacheNamed(runVidfilter({"-i", kVideo, "--chain", "gray"},
                                    cacheEnv({"HOME=" + home.path().string(),
                                              "XDG_CACHE_HOME=" + xdg.path().string()})),
                       xdg / "pocl/kcache", "XDG_CACHE_HOME");
  expectPoclCacheNamed(
      runVidfilter({"-i", kVideo, "--chain", "gray"},
                   cacheEnv({"HOME=" + home.path().string(), "POCL_CACHE_DIR=" + (xdg / "pocl")})),
      xdg / "pocl", "POCL_CACHE_DIR");
}

// A regular file where PoCL's cache goes: PoCL lists its device, then fails every build with an
// empty log; the run names the cache instead, before anything opens.
TEST(ReliabilityCache, PoclCacheDirThatIsAFile) {
  TempDir home("cache_home4");
  writable(home);
  std::ofstream(home / "file") << "x";
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "3", "-o", home / "o.mkv"},
                   cacheEnv({"HOME=" + home.path().string(), "POCL_CACHE_DIR=" + (home / "file")}));
  expectPoclCacheNamed(r, home / "file", "POCL_CACHE_DIR");
  EXPECT_FALSE(fs::exists(home / "o.mkv"));
}

// POCL_CACHE_DIR set to nothing (a script's `POCL_CACHE_DIR=$UNSET`) is taken as not set; PoCL
// itself stops the process on it with an assertion (SIGABRT).
TEST(ReliabilityCache, EmptyPoclCacheDirIsTakenAsNotSet) {
  TempDir home("cache_home5");
  writable(home);
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "3", "-o", home / "o.mkv"},
                   cacheEnv({"HOME=" + home.path().string(), "XDG_CACHE_HOME=" + (home / "xdg"),
                             "POCL_CACHE_DIR="}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(home / "o.mkv").frames, 3);
  EXPECT_TRUE(fs::is_directory(home / "xdg/pocl/kcache")) << "PoCL's cache by its own rules";
}

TEST(ReliabilityCache, UnwritableProgramCacheWarnsOnceAndTheRunSucceeds) {
  // PoCL given a cache of its own, vidfilter's cache left under the read-only home: one
  // warning, every kernel compiled, the run done.
  TempDir home("cache_home3"), pocl("cache_pocl");
  readOnly(home);
  writable(pocl);
  TempDir out("cache_out");
  writable(out);
  const auto r = runVidfilter(
      {"-i", kVideo, "--chain", "gray,blur,sobel", "--frames", "5", "-o", out / "o.mkv"},
      cacheEnv({"HOME=" + home.path().string(), "POCL_CACHE_DIR=" + pocl.path().string()}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probe(out / "o.mkv").frames, 5);
  const std::string warning = "program cache " + (home / ".cache/vidfilter") + " unusable";
  EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning), r.err.rfind(warning)) << "warned more than once:\n" << r.err;
}

TEST(ReliabilityCache, ProgramCacheThatCannotBeCreatedNeverFailsARun) {
  // Below a regular file no directory can be made, for root either.
  TempDir dir("cache_file");
  std::ofstream(dir / "file") << "x";
  vf::test::ProcOptions o;
  o.setEnv = {"VIDFILTER_CACHE_DIR=" + (dir / "file/cache")};
  const auto r = runVidfilter({"-i", kVideo, "--chain", "gray", "--frames", "3"}, o);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string e = errorLines(r.err);
  const auto warning = e.find(": warning: ");
  EXPECT_NE(warning, std::string::npos) << e;
  EXPECT_EQ(warning, e.rfind(": warning: ")) << "one warning only:\n" << e;
  EXPECT_NE(r.err.find("program cache " + (dir / "file/cache") + " unusable"), std::string::npos)
      << r.err;
}

// --- kernel files under VIDFILTER_KERNEL_DIR ----------------------------------------------------

TEST(ReliabilityCache, EmptyOrMissingKernelsAreOneClearError) {
  // An empty blur.cl (the blur's two-pass kernel, named in the chain) would build into a
  // program without kernels, and the run fail later with CL_INVALID_KERNEL_NAME; so would a
  // directory in its place, or a file with nothing but a comment (it builds, and holds no
  // kernel).
  struct Case {
    std::string name, expected;
  };
  for (const Case& c : {Case{"empty", "is empty (VIDFILTER_KERNEL_DIR is set"},
                        Case{"directory", "is a directory (VIDFILTER_KERNEL_DIR is set"},
                        Case{"comment",
                             "OpenCL program blur.cl defines no kernel (read from "
                             "VIDFILTER_KERNEL_DIR="}}) {
    SCOPED_TRACE(c.name);
    TempDir kernels("cache_kdir_" + c.name), out("cache_kdir_out");
    copyKernels(kernels);
    const std::string blur = kernels / "blur.cl";
    fs::remove(blur);
    if (c.name == "empty") std::ofstream{blur};
    if (c.name == "directory") fs::create_directory(blur);
    if (c.name == "comment") std::ofstream(blur) << "// nothing here yet\n";
    vf::test::ProcOptions o;
    o.setEnv = {"VIDFILTER_KERNEL_DIR=" + kernels.path().string(), "VIDFILTER_CACHE_DIR=off"};
    const auto r =
        runVidfilter({"-i", kVideo, "--chain", "gray,blur=kernel=cpu", "-o", out / "never.mkv"}, o);
    expectOneError(r, 1, c.expected);
    EXPECT_EQ(r.err.find("CL_INVALID_KERNEL_NAME"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out / "never.mkv"));
  }
}

TEST(ReliabilityCache, RenamedKernelSaysWhereToLook) {
  // A blur.cl that builds but whose blur_cols is now called blur_colz: OpenCL's own error,
  // with what to check.
  TempDir kernels("cache_kdir_renamed"), out("cache_kdir_out");
  copyKernels(kernels);
  std::string text;
  {
    std::ifstream in(kernels / "blur.cl");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto at = text.find("void blur_cols(");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "void blur_colz(");
  std::ofstream(kernels / "blur.cl", std::ios::trunc) << text;
  vf::test::ProcOptions o;
  o.setEnv = {"VIDFILTER_KERNEL_DIR=" + kernels.path().string(), "VIDFILTER_CACHE_DIR=off"};
  const auto r =
      runVidfilter({"-i", kVideo, "--chain", "gray,blur=kernel=cpu", "-o", out / "never.mkv"}, o);
  expectOneError(r, 1,
                 "CL_INVALID_KERNEL_NAME; a kernel vidfilter needs is missing from the .cl files "
                 "in VIDFILTER_KERNEL_DIR=" +
                     kernels.path().string());
  EXPECT_FALSE(fs::exists(out / "never.mkv"));
}
