// The GPU NVIDIA's decoders run on is the one that runs the input's chain: the OpenCL device's PCI
// domain and bus, read from its driver, meet CUDA's bus ID of the same card in one form.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "app/media/decoder_device.hpp"
#include "pipeline/cl/device.hpp"

using vf::pciBusName;
using vf::media::cudaPciBus;

TEST(DecoderDevice, PciBusIsDomainAndBusInLowerCaseHex) {
  EXPECT_EQ(pciBusName(0, 0x3b), "0000:3b");
  EXPECT_EQ(pciBusName(0x10, 0xc1), "0010:c1");
  EXPECT_EQ(pciBusName(0xabcd, 0x05), "abcd:05");
}

TEST(DecoderDevice, CudasBusIdMeetsTheOpenClDevicesBus) {
  // cuDeviceGetPCIBusId writes upper-case hex with the device and function, which a bus does
  // not need (one GPU per bus).
  EXPECT_EQ(cudaPciBus("0000:3B:00.0"), pciBusName(0, 0x3b));
  EXPECT_EQ(cudaPciBus("0000:c1:00.0"), pciBusName(0, 0xc1));
  EXPECT_EQ(cudaPciBus("0001:07:00.1"), pciBusName(1, 7));
  // Two cards on two buses stay apart.
  EXPECT_NE(cudaPciBus("0000:3B:00.0"), cudaPciBus("0000:3C:00.0"));
  EXPECT_NE(cudaPciBus("0000:3B:00.0"), cudaPciBus("0001:3B:00.0"));
}

TEST(DecoderDevice, WhatIsNoBusIdMatchesNothing) {
  for (const char* text : {"", "0000:3B", "0000:3B:00", "0000:3B:00.0x", "GPU-5f2e", "3B:00.0 "})
    EXPECT_EQ(cudaPciBus(text), "") << text;
}

TEST(DecoderDevice, DevicesTellTheirBusOrNothing) {
  const std::regex bus("[0-9a-f]{4}:[0-9a-f]{2}");
  for (const vf::DeviceInfo& d : vf::listDevices()) {
    if (d.type & CL_DEVICE_TYPE_CPU) {
      EXPECT_EQ(d.pciBus, "") << d.name;  // no card of its own
    } else if (!d.pciBus.empty()) {
      EXPECT_TRUE(std::regex_match(d.pciBus, bus)) << d.name << ": " << d.pciBus;
    }
  }
}
