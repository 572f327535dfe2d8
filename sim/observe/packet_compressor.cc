// SPDX-License-Identifier: Apache-2.0
// compressed_packets chunks: zlib's compress2 over the pending packets, default level.
#include "sim/observe/packet_compressor.h"

#include <zlib.h>

#include <string>

#include "base/check.h"

namespace nicsim::sim {
namespace {

constexpr uint32_t kCompressedPackets = 50;  // TracePacket: bytes compressed_packets

}  // namespace

void PacketCompressor::Add(const ProtoEncoder& packet) {
  pending_.Message(kTracePacketField, packet);
  if (pending_.bytes().size() >= chunk_bytes_) Flush();
}

void PacketCompressor::Flush() {
  if (pending_.empty()) return;
  const std::string& input = pending_.bytes();
  uLongf size = compressBound(static_cast<uLong>(input.size()));
  std::string deflated(size, '\0');
  const int status = compress2(reinterpret_cast<Bytef*>(deflated.data()), &size,
                               reinterpret_cast<const Bytef*>(input.data()),
                               static_cast<uLong>(input.size()), Z_DEFAULT_COMPRESSION);
  // compress2 fails only for want of memory or room, and compressBound gives the room.
  NICSIM_CHECK(status == Z_OK, "zlib compress2 failed: %d", status);
  deflated.resize(size);
  ProtoEncoder packet;
  packet.Bytes(kCompressedPackets, deflated);
  trace_.Message(kTracePacketField, packet);
  pending_.Clear();
}

}  // namespace nicsim::sim
