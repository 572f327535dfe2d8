// SPDX-License-Identifier: Apache-2.0
// Adapter MACs and the receive-side Ethernet checks of a nicsim frame (what DpdkPort::Decode
// does once it has one contiguous segment).
#include "hw/dpdk/ether_frame.h"

#include "abi/rdma.h"

namespace nicsim::hw::dpdk {

std::array<uint8_t, 6> AdapterMac(uint16_t adapter) {
  if (adapter == abi::kBroadcastAdapter) return {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  const auto hi = static_cast<uint8_t>(adapter >> 8);
  const auto lo = static_cast<uint8_t>(adapter & 0xFF);
  return {0x02, 0x6e, 0x73, 0x00, hi, lo};
}

uint16_t AdapterOfMac(const uint8_t* mac) { return static_cast<uint16_t>((mac[4] << 8) | mac[5]); }

bool DecodeEthernetFrame(const uint8_t* data, uint32_t len, uint32_t mtu_bytes, Frame* frame,
                         PortDrop* drop) {
  if (len < kEthernetHeaderBytes) {
    *drop = PortDrop::kRunt;
    return false;
  }
  // Size before type, as a MAC checks a giant frame before any filter looks at it.
  if (len - kEthernetHeaderBytes > mtu_bytes) {
    *drop = PortDrop::kOverMtu;
    return false;
  }
  // Destination MAC (6), source MAC (6), then the EtherType in network byte order.
  constexpr size_t kDstMac = 0;
  constexpr size_t kSrcMac = 6;
  constexpr size_t kEtherType = 12;
  if (data[kEtherType] != (kNicsimEtherType >> 8) ||
      data[kEtherType + 1] != (kNicsimEtherType & 0xFF)) {
    *drop = PortDrop::kWrongEtherType;
    return false;
  }
  // Whatever follows goes to the adapter, even if shorter than a wire header: the microcode
  // counts that as truncated_header, and a bad CRC as bad_crc, as on the simulated fabric.
  frame->bytes.assign(data + kEthernetHeaderBytes, data + len);
  frame->src_adapter = AdapterOfMac(data + kSrcMac);
  frame->dest_adapter = AdapterOfMac(data + kDstMac);
  frame->crc_deferred = false;
  return true;
}

}  // namespace nicsim::hw::dpdk
