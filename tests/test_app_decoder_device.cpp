// The GPU NVIDIA's decoders run on is the one that runs the input's chain: the OpenCL device's PCI
// address, read from its driver, meets CUDA's bus ID of the same card in one form.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "app/media/decoder_device.hpp"
#include "pipeline/cl/device.hpp"

using vf::pciAddressName;
using vf::media::cudaPciAddress;

TEST(DecoderDevice, AnAddressIsDomainBusAndDeviceInLowerCaseHex) {
  EXPECT_EQ(pciAddressName(0, 0x3b, 0), "0000:3b:00");
  EXPECT_EQ(pciAddressName(0x10, 0xc1, 0x1f), "0010:c1:1f");
  EXPECT_EQ(pciAddressName(0xabcd, 0x05, 5), "abcd:05:05");
}

TEST(DecoderDevice, CudasBusIdMeetsTheOpenClDevicesAddress) {
  // cuDeviceGetPCIBusId writes upper-case hex, with the function, which a GPU's address does
  // not need.
  EXPECT_EQ(cudaPciAddress("0000:3B:00.0"), pciAddressName(0, 0x3b, 0));
  EXPECT_EQ(cudaPciAddress("0000:c1:00.0"), pciAddressName(0, 0xc1, 0));
  EXPECT_EQ(cudaPciAddress("0001:07:1E.1"), pciAddressName(1, 7, 0x1e));
  // Two cards on one bus (a virtual machine's flat bus) stay apart, and so do two buses.
  EXPECT_NE(cudaPciAddress("0000:00:05.0"), cudaPciAddress("0000:00:06.0"));
  EXPECT_NE(cudaPciAddress("0000:3B:00.0"), cudaPciAddress("0000:3C:00.0"));
  EXPECT_NE(cudaPciAddress("0000:3B:00.0"), cudaPciAddress("0001:3B:00.0"));
}

TEST(DecoderDevice, WhatIsNoBusIdMatchesNothing) {
  for (const char* text : {"", "0000:3B", "0000:3B:00", "0000:3B:00.0x", "GPU-5f2e", "3B:00.0 "})
    EXPECT_EQ(cudaPciAddress(text), "") << text;
}

TEST(DecoderDevice, DevicesTellTheirAddressOrNothing) {
  const std::regex addresses(
      "[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}(,[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})?");
  for (const vf::DeviceInfo& d : vf::listDevices()) {
    if (d.type & CL_DEVICE_TYPE_CPU) {
      EXPECT_EQ(d.pciAddresses, "") << d.name;  // no card of its own
    } else if (!d.pciAddresses.empty()) {
      EXPECT_TRUE(std::regex_match(d.pciAddresses, addresses)) << d.name << ": " << d.pciAddresses;
    }
  }
}
