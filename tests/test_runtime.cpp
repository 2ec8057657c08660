// The OpenCL runtime layer: device selection, program cache, build errors, CL error names.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/cl/device.hpp"
#include "pipeline/cl/kernel_source.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/error.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using namespace vf;

namespace {
DeviceInfo fake(int p, int d, const std::string& platform, const std::string& name,
                cl_device_type type) {
  DeviceInfo i;
  i.platformIndex = p;
  i.deviceIndex = d;
  i.platform = platform;
  i.name = name;
  i.type = type;
  return i;
}

std::vector<DeviceInfo> fakeDevices() {
  auto pocl = fake(0, 0, "Portable Computing Language", "pthread-skylake", CL_DEVICE_TYPE_CPU);
  pocl.version = "OpenCL 3.0 PoCL HSTR: pthread-x86_64";
  return {pocl, fake(1, 0, "NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),
          fake(1, 1, "NVIDIA CUDA", "NVIDIA H100", CL_DEVICE_TYPE_GPU)};
}

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

TEST(DeviceSelection, DefaultPrefersFirstGpu) {
  EXPECT_EQ(selectDevice(fakeDevices(), "").name, "NVIDIA H200");
}

TEST(DeviceSelection, DefaultFallsBackToFirstDevice) {
  auto devs = fakeDevices();
  devs.resize(1);
  EXPECT_EQ(selectDevice(devs, "").name, "pthread-skylake");
}

TEST(DeviceSelection, ByIndex) {
  EXPECT_EQ(selectDevice(fakeDevices(), "1:1").name, "NVIDIA H100");
  EXPECT_EQ(selectDevice(fakeDevices(), "0:0").name, "pthread-skylake");
}

TEST(DeviceSelection, ByTypeAndName) {
  EXPECT_EQ(selectDevice(fakeDevices(), "cpu").name, "pthread-skylake");
  EXPECT_EQ(selectDevice(fakeDevices(), "GPU").name, "NVIDIA H200");
  EXPECT_EQ(selectDevice(fakeDevices(), "h100").name, "NVIDIA H100");
  EXPECT_EQ(selectDevice(fakeDevices(), "PoCL").name, "pthread-skylake");  // platform name
  EXPECT_EQ(selectDevice(fakeDevices(), "nvidia").name, "NVIDIA H200");
}

TEST(DeviceSelection, BadSelectorListsDevices) {
  for (const char* sel : {"7:0", "amd", "accelerator"}) {
    try {
      selectDevice(fakeDevices(), sel);
      FAIL() << sel << " should not match";
    } catch (const UserError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(sel), std::string::npos) << msg;
      EXPECT_NE(msg.find("1:1  NVIDIA H100"), std::string::npos) << msg;
      EXPECT_NE(msg.find("0:0  pthread-skylake"), std::string::npos) << msg;
    }
  }
}

TEST(DeviceSelection, NoDeviceNamesPocl) {
  try {
    selectDevice(std::vector<DeviceInfo>{}, "");
    FAIL();
  } catch (const RuntimeError& e) {  // the machine's, not the command's: exit status 1
    EXPECT_NE(std::string(e.what()).find("pocl-opencl-icd"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelection, RealDevicesAreListed) {
  const auto devs = listDevices();
  ASSERT_FALSE(devs.empty());
  const std::string table = formatDeviceTable(devs);
  for (const auto& d : devs) {
    EXPECT_NE(table.find(d.index()), std::string::npos);
    EXPECT_NE(table.find(d.name.substr(0, 20)), std::string::npos);
    EXPECT_GT(d.computeUnits, 0u);
    EXPECT_GT(d.globalMemBytes, 0u);
  }
  // Every form selects a real device.
  EXPECT_EQ(selectDevice(devs, devs[0].index()).name, devs[0].name);
  EXPECT_NO_THROW(selectDevice(devs, devs[0].name));
}

TEST(ClErrors, NamesNotNumbers) {
  EXPECT_EQ(clErrorName(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(clErrorName(-9999), "CL_ERROR(-9999)");
  ClError e(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel(blur_rows)");
  EXPECT_STREQ(e.what(), "clEnqueueNDRangeKernel(blur_rows): CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_EQ(e.code(), CL_INVALID_WORK_GROUP_SIZE);
}

// One hierarchy: a bad parameter is something the user fixes, like any UserError.
TEST(ClErrors, ParamErrorIsAUserError) {
  try {
    Chain::parse("blur").stage(0).params().set("sigma", "-1");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(dynamic_cast<const ParamError*>(&e), nullptr);
    EXPECT_STREQ(e.what(), "sigma must be in (0, 50], got -1");
  }
}

// A stage whose own OpenCL call fails (here clSetKernelArg with no such argument) reaches the
// caller as a ClError naming the stage and the call, never as CLHPP's cl::Error.
TEST(ClErrors, AStagesOpenClFailureIsAClErrorNamingTheStage) {
  class BadArgStage : public Stage {
   public:
    BadArgStage() : Stage(info()) {}
    static const StageInfo& info() {
      static const StageInfo i{"badarg", "", "", {}, nullptr};
      return i;
    }
    FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
      kernel_ = cl::Kernel(ctx.cl.programs().buildSource(
                               "badarg", "kernel void k(global uchar* p) { p[0] = 1; }", ""),
                           "k");
      return in;
    }
    StageEvents enqueue(cl::CommandQueue&, const cl::Buffer& in, const cl::Buffer&,
                        const std::vector<cl::Event>&) override {
      kernel_.setArg(7, in);
      return {};
    }

   private:
    cl::Kernel kernel_;
  };
  Chain chain;
  chain.add(std::make_unique<BadArgStage>());
  chain.configure(test::context(), {8, 8, PixelFormat::Gray8});
  cl::Buffer in(test::context().context(), CL_MEM_READ_WRITE, 64);
  cl::Buffer out(test::context().context(), CL_MEM_READ_WRITE, 64);
  try {
    chain.enqueue(test::queue(), in, out, {});
    FAIL();
  } catch (const ClError& e) {
    EXPECT_EQ(e.code(), CL_INVALID_ARG_INDEX);
    EXPECT_STREQ(e.what(), "badarg [clSetKernelArg]: CL_INVALID_ARG_INDEX");
  }
}

TEST(ClErrors, ClCallRethrowsWithContext) {
  try {
    clCall("clCreateBuffer(huge)", [&] {
      return cl::Buffer(test::context().context(), CL_MEM_READ_WRITE, 0);  // size 0 is invalid
    });
    FAIL();
  } catch (const ClError& e) {
    EXPECT_EQ(e.code(), CL_INVALID_BUFFER_SIZE);
    EXPECT_NE(std::string(e.what()).find("clCreateBuffer(huge)"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_BUFFER_SIZE"), std::string::npos);
  }
}

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

TEST(KernelSource, EmbeddedAndOverride) {
  const auto files = embeddedKernelFiles();
  ASSERT_FALSE(files.empty());
  const std::string gray = kernelSource("gray.cl");
  EXPECT_NE(gray.find("bgr_to_gray"), std::string::npos);
  // Developer override: a directory with an edited kernel, no rebuild.
  const fs::path dir = freshDir("kernels");
  std::ofstream(dir / "gray.cl") << "#include \"extra.cl\"\n__kernel void edited() {}\n";
  std::ofstream(dir / "extra.cl") << "// included helper\n#define EXTRA 1\n";
  setenv("VIDFILTER_KERNEL_DIR", dir.c_str(), 1);
  const std::string edited = kernelSource("gray.cl");
  unsetenv("VIDFILTER_KERNEL_DIR");
  EXPECT_NE(edited.find("edited"), std::string::npos);
  EXPECT_NE(edited.find("#define EXTRA 1"), std::string::npos) << "include not expanded";
  EXPECT_THROW(kernelSource("no_such_kernel.cl"), std::runtime_error);
  fs::remove_all(dir);
}
