// The OpenCL runtime layer: device selection, CL error names, kernel sources (the program cache
// has tests/test_program_cache.cpp).
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
#include "tests/support/temp_dir.hpp"
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

// What is too little to name a device is refused, never matched as part of a name: a bare
// number (the 1 of "H100" or "avx512"; GPU 1 to a CUDA user), one character, no letter, blanks.
TEST(DeviceSelection, TooLittleToNameADeviceIsRefused) {
  for (const char* sel : {"1", "100", "0", "x", ".", "(", "-1", "  "}) {
    try {
      const DeviceInfo d = selectDevice(fakeDevices(), sel);
      FAIL() << "'" << sel << "' chose " << d.name;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--device"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(selectDevice(fakeDevices(), "h1").name, "NVIDIA H100");  // two characters, a letter
}

// An index written another way than P:D is named as one, not as too little of a name.
TEST(DeviceSelection, AnIndexNotWrittenPColonDSaysHowToWriteIt) {
  for (const char* sel : {"0:0:0", "1:", ":1", "0::1"}) {
    try {
      const DeviceInfo d = selectDevice(fakeDevices(), sel);
      FAIL() << "'" << sel << "' chose " << d.name;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("a device's index is P:D"), std::string::npos)
          << e.what();
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

TEST(KernelSource, EmbeddedAndOverride) {
  const auto files = embeddedKernelFiles();
  ASSERT_FALSE(files.empty());
  const std::string gray = kernelSource("gray.cl");
  EXPECT_NE(gray.find("bgr_to_gray"), std::string::npos);
  // Developer override: a directory with an edited kernel, no rebuild.
  const test::TempDir tmp("kernels");
  const fs::path& dir = tmp.path();
  std::ofstream(dir / "gray.cl") << "#include \"extra.cl\"\n__kernel void edited() {}\n";
  std::ofstream(dir / "extra.cl") << "// included helper\n#define EXTRA 1\n";
  setenv("VIDFILTER_KERNEL_DIR", dir.c_str(), 1);
  const std::string edited = kernelSource("gray.cl");
  unsetenv("VIDFILTER_KERNEL_DIR");
  EXPECT_NE(edited.find("edited"), std::string::npos);
  EXPECT_NE(edited.find("#define EXTRA 1"), std::string::npos) << "include not expanded";
  EXPECT_THROW(kernelSource("no_such_kernel.cl"), std::runtime_error);
}
