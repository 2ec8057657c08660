// The program cache: memory and disk hits, variants, and entries that are damaged, hold another
// program or come from an older format (each rebuilt, never a failed build), build errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipeline/cl/context.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/error.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using namespace vf;

namespace {

fs::path freshDir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("vidfilter-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const char* kTinyKernel = "__kernel void k(__global int* p) { p[get_global_id(0)] = VALUE; }\n";

// A program cache entry's fields (format 2: magic, then key, kernel names and binary, each a
// uint64 length and its bytes, then the checksum over all three).
struct Entry {
  std::string magic, key, names;
  std::vector<unsigned char> binary;
};

template <typename Bytes>
void readBlock(std::istream& in, Bytes& b) {
  std::uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), sizeof n);
  b.resize(n);
  in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(n));
}
template <typename Bytes>
void writeBlock(std::ostream& out, const Bytes& b) {
  const std::uint64_t n = b.size();
  out.write(reinterpret_cast<const char*>(&n), sizeof n);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(n));
}

Entry readEntry(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  Entry e;
  e.magic.resize(8);
  in.read(e.magic.data(), 8);
  readBlock(in, e.key);
  readBlock(in, e.names);
  readBlock(in, e.binary);
  EXPECT_TRUE(in) << path;
  return e;
}

// Writes a complete entry with a correct checksum.
void writeEntry(const fs::path& path, const Entry& e) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(e.magic.data(), 8);
  writeBlock(out, e.key);
  writeBlock(out, e.names);
  writeBlock(out, e.binary);
  std::uint64_t sum = fnv1a64(e.key.data(), e.key.size());
  sum = fnv1a64(e.names.data(), e.names.size(), sum);
  sum = fnv1a64(e.binary.data(), e.binary.size(), sum);
  out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
}

int runTiny(const cl::Program& prog) {
  auto& ctx = test::context();
  cl::Buffer buf(ctx.context(), CL_MEM_READ_WRITE, sizeof(int));
  cl::Kernel k(prog, "k");
  k.setArg(0, buf);
  auto& q = test::queue();
  q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1));
  int v = -12345;
  q.enqueueReadBuffer(buf, CL_TRUE, 0, sizeof v, &v);
  return v;
}
// The tiny program's entry in `dir` is whole again: a new cache (a new process) loads it from
// disk, without a rebuild or a rejection, and it computes the right value.
void expectGoodEntry(const fs::path& dir) {
  ProgramCache again(test::context().context(), test::context().info(), dir);
  EXPECT_EQ(runTiny(again.buildSource("tiny", kTinyKernel, "-DVALUE=3")), 3);
  EXPECT_EQ(again.stats().diskHits, 1);
  EXPECT_EQ(again.stats().rejected, 0);
  EXPECT_EQ(again.stats().builds, 0);
}
}  // namespace

TEST(ProgramCache, HitOnSecondBuildMissOnChange) {
  const fs::path dir = freshDir("cache");
  auto& ctx = test::context();
  {
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=7")), 7);
    EXPECT_EQ(cache.stats().builds, 1);
    EXPECT_TRUE(fs::exists(cache.entryPath(kTinyKernel, "-DVALUE=7")));
    // Same process: from memory.
    cache.buildSource("tiny", kTinyKernel, "-DVALUE=7");
    EXPECT_EQ(cache.stats().memoryHits, 1);
  }
  {
    // A new process (new cache object): from disk, not compiled.
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=7")), 7);
    EXPECT_EQ(cache.stats().diskHits, 1);
    EXPECT_EQ(cache.stats().builds, 0);
    // Changed options: a miss.
    EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=8")), 8);
    EXPECT_EQ(cache.stats().builds, 1);
    // Changed source: a miss.
    const std::string other = std::string(kTinyKernel) + "// changed\n";
    EXPECT_EQ(runTiny(cache.buildSource("tiny", other, "-DVALUE=7")), 7);
    EXPECT_EQ(cache.stats().builds, 2);
    EXPECT_EQ(cache.stats().diskHits, 1);
  }
  fs::remove_all(dir);
}

// Under a variant the same source and options build a program of their own (another
// cl_program, compiled once, then a memory hit under the same variant); the variant ends with
// its scope, and nested ones restore the outer.
TEST(ProgramCache, VariantsBuildProgramsOfTheirOwn) {
  const fs::path dir = freshDir("cache_variant");
  auto& ctx = test::context();
  ProgramCache cache(ctx.context(), ctx.info(), dir);
  const cl::Program plain = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
  cl::Program a, a2, b, inner, after;
  {
    const ProgramVariant va("640x480 bgr");
    a = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
    a2 = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
    {
      const ProgramVariant vb("1920x1080 bgr");
      b = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
    }
    inner = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
  }
  after = cache.buildSource("tiny", kTinyKernel, "-DVALUE=5");
  EXPECT_EQ(cache.stats().builds, 3);  // none, 640x480, 1920x1080
  EXPECT_EQ(cache.stats().memoryHits, 3);
  EXPECT_NE(a(), plain());
  EXPECT_NE(b(), a());
  EXPECT_EQ(a2(), a());
  EXPECT_EQ(inner(), a());
  EXPECT_EQ(after(), plain());
  for (const cl::Program& p : {plain, a, b}) EXPECT_EQ(runTiny(p), 5);
  fs::remove_all(dir);
}

TEST(ProgramCache, CorruptEntryIsRebuiltAndReplaced) {
  // What the cache promises for a damaged entry: never trusted (the program still computes the
  // right thing), counted as rejected, rebuilt from source, and replaced by an entry that the
  // next process loads. (Not the entry's size: PoCL's binary for one program differs between a
  // cold and a warm PoCL cache.)
  const fs::path dir = freshDir("corrupt");
  auto& ctx = test::context();
  fs::path entry;
  {
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    cache.buildSource("tiny", kTinyKernel, "-DVALUE=3");
    entry = cache.entryPath(kTinyKernel, "-DVALUE=3");
  }
  ASSERT_TRUE(fs::exists(entry));
  const auto goodSize = fs::file_size(entry);
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    if (mode == 0) {  // flip bytes in the middle of the binary
      std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(goodSize / 2));
      f.write("\xde\xad\xbe\xef", 4);
    } else if (mode == 1) {  // truncated
      fs::resize_file(entry, goodSize / 3);
    } else {  // garbage
      std::ofstream(entry, std::ios::binary | std::ios::trunc) << "not a program";
    }
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=3")), 3);
    EXPECT_EQ(cache.stats().rejected, 1);
    EXPECT_EQ(cache.stats().builds, 1);
    expectGoodEntry(dir);
  }
  fs::remove_all(dir);
}

TEST(ProgramCache, EntryHoldingAnotherProgramIsRebuilt) {
  // A whole, checksummed entry with the right key whose binary is another program's (its kernel
  // is "other", not "k"): was loaded, and failed at clCreateKernel with CL_INVALID_KERNEL_NAME.
  const fs::path dir = freshDir("otherprog");
  auto& ctx = test::context();
  fs::path entry;
  {
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    cache.buildSource("tiny", kTinyKernel, "-DVALUE=3");
    entry = cache.entryPath(kTinyKernel, "-DVALUE=3");
  }
  ProgramCache uncached(ctx.context(), ctx.info(), fs::path{});
  const auto otherBinary =
      uncached.buildSource("other", "__kernel void other(__global int* p) { p[0] = 99; }", "")
          .getInfo<CL_PROGRAM_BINARIES>()
          .at(0);
  Entry e = readEntry(entry);
  ASSERT_EQ(e.names, "k");
  e.binary = otherBinary;
  writeEntry(entry, e);

  ProgramCache cache(ctx.context(), ctx.info(), dir);
  EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=3")), 3);
  EXPECT_EQ(cache.stats().rejected, 1);
  EXPECT_EQ(cache.stats().builds, 1);
  expectGoodEntry(dir);
  fs::remove_all(dir);
}

TEST(ProgramCache, EntriesFromAnOlderFormatAndUnusableEntriesNeverFailABuild) {
  const fs::path dir = freshDir("olderfmt");
  auto& ctx = test::context();
  fs::path entry;
  {
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    cache.buildSource("tiny", kTinyKernel, "-DVALUE=3");
    entry = cache.entryPath(kTinyKernel, "-DVALUE=3");
  }
  {
    // The format before kernel names were stored ("VFCLBIN1"): a plain miss, replaced.
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7);
    f.write("1", 1);
  }
  {
    ProgramCache cache(ctx.context(), ctx.info(), dir);
    EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=3")), 3);
    EXPECT_EQ(cache.stats().builds, 1);
    EXPECT_EQ(cache.stats().rejected, 0);
  }
  expectGoodEntry(dir);
  // A directory where the entry goes: it cannot be read or replaced; the build still works.
  fs::remove(entry);
  fs::create_directory(entry);
  ProgramCache cache(ctx.context(), ctx.info(), dir);
  EXPECT_EQ(runTiny(cache.buildSource("tiny", kTinyKernel, "-DVALUE=3")), 3);
  EXPECT_EQ(cache.stats().builds, 1);
  // A cache directory that cannot be created (below a regular file) likewise.
  std::ofstream(dir / "file") << "x";
  ProgramCache nowhere(ctx.context(), ctx.info(), dir / "file" / "cache");
  EXPECT_EQ(runTiny(nowhere.buildSource("tiny", kTinyKernel, "-DVALUE=4")), 4);
  EXPECT_TRUE(nowhere.directory().empty()) << "the unusable directory is dropped";
  fs::remove_all(dir);
}

TEST(ProgramCache, BuildFailureCarriesLogFileAndOptions) {
  auto& ctx = test::context();
  ProgramCache cache(ctx.context(), ctx.info(), fs::path{});
  try {
    cache.buildSource("broken.cl", "__kernel void k(__global int* p) { p[0] = undeclared_thing; }",
                      "-DFOO=1");
    FAIL() << "a broken kernel built";
  } catch (const KernelBuildError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("broken.cl"), std::string::npos) << msg;
    EXPECT_NE(msg.find("-DFOO=1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_thing"), std::string::npos) << "build log missing: " << msg;
  }
}
