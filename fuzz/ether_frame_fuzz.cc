// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the DPDK port's Ethernet decoder. Input: the port's MTU (two bytes), then one
// received Ethernet frame. The verdict must follow the checks in order, and a frame that passes
// must carry exactly the bytes after the Ethernet header and the adapters its MACs name.
#include <cstring>

#include "base/check.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_targets.h"
#include "hw/dpdk/ether_frame.h"

namespace nicsim::fuzz {

int FuzzEtherFrame(const uint8_t* data, size_t size) {
  using hw::dpdk::kEthernetHeaderBytes;
  using hw::dpdk::PortDrop;
  ByteReader in(data, size);
  const uint32_t mtu = in.U16();
  const std::vector<uint8_t> wire = in.Bytes(in.left());
  const auto len = static_cast<uint32_t>(wire.size());

  hw::Frame frame;
  frame.crc_deferred = true;
  PortDrop drop = PortDrop::kCount;
  const bool ok = hw::dpdk::DecodeEthernetFrame(wire.data(), len, mtu, &frame, &drop);
  if (len < kEthernetHeaderBytes) {
    NICSIM_CHECK(!ok && drop == PortDrop::kRunt, "a %u-byte frame is not a runt", len);
    return 0;
  }
  if (len - kEthernetHeaderBytes > mtu) {
    NICSIM_CHECK(!ok && drop == PortDrop::kOverMtu, "%u bytes over an MTU of %u passed", len, mtu);
    return 0;
  }
  const bool nicsim_type = wire[12] == 0x88 && wire[13] == 0xB5;
  if (!nicsim_type) {
    NICSIM_CHECK(!ok && drop == PortDrop::kWrongEtherType, "EtherType %02x%02x passed", wire[12],
                 wire[13]);
    return 0;
  }
  NICSIM_CHECK(ok && drop == PortDrop::kCount, "a good frame was dropped");
  NICSIM_CHECK(frame.bytes.size() == len - kEthernetHeaderBytes, "inner length");
  NICSIM_CHECK(frame.bytes.empty() ||
                   std::memcmp(frame.bytes.data(), wire.data() + 14, frame.bytes.size()) == 0,
               "inner bytes");
  NICSIM_CHECK(!frame.crc_deferred, "a frame from the wire has its CRC to check");
  // The MACs name the adapters, and AdapterMac gives back the MAC of the adapter it names.
  NICSIM_CHECK(frame.dest_adapter == ((wire[4] << 8) | wire[5]), "destination adapter");
  NICSIM_CHECK(frame.src_adapter == ((wire[10] << 8) | wire[11]), "source adapter");
  const std::array<uint8_t, 6> mac = hw::dpdk::AdapterMac(frame.src_adapter);
  NICSIM_CHECK(hw::dpdk::AdapterOfMac(mac.data()) == frame.src_adapter, "AdapterMac round trip");
  return 0;
}

}  // namespace nicsim::fuzz
