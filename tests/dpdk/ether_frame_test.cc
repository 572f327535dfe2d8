// SPDX-License-Identifier: Apache-2.0
// The DPDK port's Ethernet decoder without DPDK: the checks in their order (runt, MTU, then
// EtherType), what a passing frame carries, and the adapter MACs.
#include "hw/dpdk/ether_frame.h"

#include <gtest/gtest.h>

#include <vector>

#include "abi/rdma.h"

namespace nicsim::hw::dpdk {
namespace {

std::vector<uint8_t> EthernetFrame(uint16_t ether_type, size_t inner_bytes) {
  std::vector<uint8_t> bytes;
  const std::array<uint8_t, 6> dst = AdapterMac(0x0102);
  const std::array<uint8_t, 6> src = AdapterMac(7);
  bytes.insert(bytes.end(), dst.begin(), dst.end());
  bytes.insert(bytes.end(), src.begin(), src.end());
  bytes.push_back(static_cast<uint8_t>(ether_type >> 8));
  bytes.push_back(static_cast<uint8_t>(ether_type & 0xFF));
  for (size_t i = 0; i < inner_bytes; ++i) bytes.push_back(static_cast<uint8_t>(i));
  return bytes;
}

PortDrop DropOf(const std::vector<uint8_t>& bytes, uint32_t mtu) {
  Frame frame;
  PortDrop drop = PortDrop::kCount;
  EXPECT_FALSE(
      DecodeEthernetFrame(bytes.data(), static_cast<uint32_t>(bytes.size()), mtu, &frame, &drop));
  return drop;
}

TEST(EtherFrameTest, PassesTheNicsimBytesAndTheAdaptersOfTheMacs) {
  const std::vector<uint8_t> bytes = EthernetFrame(kNicsimEtherType, 100);
  Frame frame;
  frame.crc_deferred = true;
  PortDrop drop = PortDrop::kCount;
  ASSERT_TRUE(
      DecodeEthernetFrame(bytes.data(), static_cast<uint32_t>(bytes.size()), 100, &frame, &drop));
  EXPECT_EQ(frame.bytes, std::vector<uint8_t>(bytes.begin() + kEthernetHeaderBytes, bytes.end()));
  EXPECT_EQ(frame.dest_adapter, 0x0102);
  EXPECT_EQ(frame.src_adapter, 7);
  EXPECT_FALSE(frame.crc_deferred);
  EXPECT_EQ(drop, PortDrop::kCount);
}

TEST(EtherFrameTest, AHeaderAloneOrATruncatedNicsimFrameStillPasses) {
  for (size_t inner : {0, 1, 47}) {
    const std::vector<uint8_t> bytes = EthernetFrame(kNicsimEtherType, inner);
    Frame frame;
    PortDrop drop;
    EXPECT_TRUE(DecodeEthernetFrame(bytes.data(), static_cast<uint32_t>(bytes.size()), 2000, &frame,
                                    &drop));
    EXPECT_EQ(frame.bytes.size(), inner);
  }
}

TEST(EtherFrameTest, DropsRuntsThenOversizeThenWrongEtherType) {
  std::vector<uint8_t> runt = EthernetFrame(kNicsimEtherType, 0);
  runt.pop_back();
  EXPECT_EQ(DropOf(runt, 2000), PortDrop::kRunt);
  EXPECT_EQ(DropOf({}, 2000), PortDrop::kRunt);
  // Size is checked before the type, as a MAC does.
  EXPECT_EQ(DropOf(EthernetFrame(0x0800, 101), 100), PortDrop::kOverMtu);
  EXPECT_EQ(DropOf(EthernetFrame(0x0800, 100), 100), PortDrop::kWrongEtherType);
  EXPECT_EQ(DropOf(EthernetFrame(0xB588, 10), 100), PortDrop::kWrongEtherType);
  EXPECT_EQ(DropOf(EthernetFrame(0x8100, 10), 100), PortDrop::kWrongEtherType);  // VLAN tag
}

TEST(EtherFrameTest, AdapterMacRoundTrips) {
  for (uint16_t adapter : {0, 1, 0x00FF, 0x0100, 0xFFFE}) {
    const std::array<uint8_t, 6> mac = AdapterMac(adapter);
    EXPECT_EQ(mac[0], 0x02);  // locally administered, unicast
    EXPECT_EQ(AdapterOfMac(mac.data()), adapter);
  }
}

TEST(EtherFrameTest, TheBroadcastAdapterIsTheEthernetBroadcastAddress) {
  const std::array<uint8_t, 6> mac = AdapterMac(abi::kBroadcastAdapter);
  EXPECT_EQ(mac, (std::array<uint8_t, 6>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(AdapterOfMac(mac.data()), abi::kBroadcastAdapter);
}

}  // namespace
}  // namespace nicsim::hw::dpdk
