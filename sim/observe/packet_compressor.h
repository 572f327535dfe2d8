// SPDX-License-Identifier: Apache-2.0
// Groups Perfetto TracePackets into deflated chunks (TracePacket.compressed_packets), the way
// Perfetto's own tracing service compresses a trace; trace_processor and the UI inflate them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/observe/proto_encoder.h"

namespace nicsim::sim {

/** Field number of `repeated TracePacket packet` in message Trace (trace/trace.proto). */
constexpr uint32_t kTracePacketField = 1;

/**
 * Appends packets to a Trace in chunks: each chunk is the packets as a Trace would hold them
 * (field 1, length, packet), zlib-compressed (deflate in the zlib format, as Perfetto's
 * zlib_compressor writes it) into one TracePacket's `bytes compressed_packets = 50`
 * (protos/perfetto/trace/trace_packet.proto). A reader sees the packets in the order added.
 * Chunks start a new one past `chunk_bytes` of input, so each compressed packet stays well
 * under the 512 KB a reader accepts.
 */
class PacketCompressor {
 public:
  /** Writes into `trace` (a perfetto.protos.Trace being built); not owned. */
  explicit PacketCompressor(ProtoEncoder& trace, size_t chunk_bytes = size_t{256} << 10)
      : trace_(trace), chunk_bytes_(chunk_bytes) {}
  /** Flushes what is pending. */
  ~PacketCompressor() { Flush(); }
  PacketCompressor(const PacketCompressor&) = delete;
  PacketCompressor& operator=(const PacketCompressor&) = delete;

  /** Adds one encoded TracePacket. */
  void Add(const ProtoEncoder& packet);
  /** Writes the pending packets as one compressed packet (nothing if none is pending). */
  void Flush();

 private:
  ProtoEncoder& trace_;
  size_t chunk_bytes_;
  ProtoEncoder pending_;
};

}  // namespace nicsim::sim
