// SPDX-License-Identifier: Apache-2.0
// Encoding and decoding of UD messages: link header plus nicsim frame; the receive side skips
// the GRH space and checks only the link layer, leaving the nicsim checks to the microcode.
#include "hw/verbs/verbs_frame.h"

#include <cstring>

namespace nicsim::hw::verbs {
namespace {

void PutLe16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xFF);
  p[1] = static_cast<uint8_t>(v >> 8);
}

uint16_t GetLe16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

}  // namespace

uint64_t VerbsPortCounters::total_drops() const {
  uint64_t total = 0;
  for (uint64_t d : drops) total += d;
  return total;
}

uint32_t EncodeMessage(const Frame& frame, uint8_t* out) {
  out[0] = static_cast<uint8_t>(kNicsimProtocol >> 8);
  out[1] = static_cast<uint8_t>(kNicsimProtocol & 0xFF);
  PutLe16(out + offsetof(VerbsLinkHeader, dest_adapter), frame.dest_adapter);
  PutLe16(out + offsetof(VerbsLinkHeader, src_adapter), frame.src_adapter);
  PutLe16(out + offsetof(VerbsLinkHeader, reserved), 0);
  const auto inner = static_cast<uint32_t>(frame.bytes.size());
  if (inner > 0) std::memcpy(out + kLinkHeaderBytes, frame.bytes.data(), inner);
  return MessageBytes(inner);
}

bool DecodeMessage(const uint8_t* buffer, uint32_t byte_len, uint32_t mtu_bytes, Frame* frame,
                   VerbsPortCounters* counters) {
  if (byte_len < kGrhBytes + kLinkHeaderBytes) {
    counters->CountDrop(VerbsPortDrop::kRunt);
    return false;
  }
  // Size before protocol, as the DPDK port checks a giant frame before its EtherType.
  const uint32_t inner = byte_len - kGrhBytes - kLinkHeaderBytes;
  if (inner > mtu_bytes) {
    counters->CountDrop(VerbsPortDrop::kOverMtu);
    return false;
  }
  const uint8_t* link = buffer + kGrhBytes;
  if (link[0] != (kNicsimProtocol >> 8) || link[1] != (kNicsimProtocol & 0xFF)) {
    counters->CountDrop(VerbsPortDrop::kWrongProtocol);
    return false;
  }
  // Whatever follows goes to the adapter, even if shorter than a wire header: the microcode
  // counts that as truncated_header, as it does for frames from the DPDK port.
  const uint8_t* inner_bytes = link + kLinkHeaderBytes;
  frame->bytes.assign(inner_bytes, inner_bytes + inner);
  frame->dest_adapter = GetLe16(link + offsetof(VerbsLinkHeader, dest_adapter));
  frame->src_adapter = GetLe16(link + offsetof(VerbsLinkHeader, src_adapter));
  frame->crc_deferred = false;
  ++counters->rx_frames;
  counters->rx_bytes += inner;
  return true;
}

}  // namespace nicsim::hw::verbs
