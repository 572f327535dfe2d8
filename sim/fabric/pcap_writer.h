// SPDX-License-Identifier: Apache-2.0
// Writes fabric frames to a pcapng file (link type LINKTYPE_USER0) stamped with simulated time,
// for Wireshark/tshark with the tools/nicsim.lua dissector.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/fabric/frame_capture.h"
#include "sim/observe/trace_selection.h"

namespace nicsim::sim {

/**
 * A pcapng capture of the frames on the fabric.
 *
 * File layout (little endian, pcapng 1.0): one Section Header Block (section length
 * unspecified, shb_userappl "nicsim"), then one Interface Description Block for the whole
 * fabric, interface 0, named "fabric" — every frame of every adapter link goes through it,
 * and the wire header already says who sent it and who receives it — then one Enhanced Packet
 * Block per frame, in the order Write() is called.
 *
 * Link type: LINKTYPE_USER0 (147), reserved by tcpdump.org for private use; each packet is
 * the frame exactly as on our wire: an abi::WireHeader (48 bytes, little endian) followed by
 * the payload. tools/nicsim.lua registers its dissector for this link type.
 *
 * Time: if_tsresol is 10^-9; a timestamp is the simulated picosecond clock truncated to
 * nanoseconds, with time 0 at the epoch. Not 10^-12: Wireshark 4.0's pcapng reader overflows
 * 64 bits converting picosecond stamps past 18.4 ms. Frames stay in exact arrival order in the
 * file even where two share a nanosecond.
 *
 * A TraceSelection (Select) narrows the capture: the fabric writes only the frames Wants()
 * accepts, those arriving inside its window that a selected adapter sent or receives.
 *
 * Write errors never abort: the first failure is remembered, later writes are skipped, and
 * ok() / Close() report it.
 */
class PcapWriter final : public FrameCapture {
 public:
  /** The link type written in the Interface Description Block (LINKTYPE_USER0). */
  static constexpr uint16_t kLinkType = 147;
  /** if_tsresol value: a power of ten (high bit clear), 10^-9 s per tick. */
  static constexpr uint8_t kTsResolPower10 = 9;
  /** Simulated picoseconds per timestamp tick. */
  static constexpr uint64_t kPsPerTick = 1000;
  /** pcapng block types. */
  static constexpr uint32_t kSectionHeaderBlock = 0x0A0D0D0A;
  static constexpr uint32_t kInterfaceDescriptionBlock = 0x00000001;
  static constexpr uint32_t kEnhancedPacketBlock = 0x00000006;
  /** The Section Header Block's byte-order magic. */
  static constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;

  /**
   * Creates `path` (truncating it) and writes the section and interface headers. An error
   * names the path and the reason when the file cannot be opened or the headers not written.
   */
  static Result<std::unique_ptr<PcapWriter>> Open(const std::string& path);

  /** Closes the file if Close() was not called. */
  ~PcapWriter() override;
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  /**
   * Appends one packet seen at simulated time `time_ps` (stamped in whole ns). Returns false (and
   * writes nothing) once any write has failed or the file is closed; never aborts.
   */
  bool Write(uint64_t time_ps, const uint8_t* data, size_t len_bytes);
  /** Write() for a whole byte vector. */
  bool Write(uint64_t time_ps, const std::vector<uint8_t>& bytes) override {
    return Write(time_ps, bytes.data(), bytes.size());
  }

  /** Captures only what `selection` keeps from now on (the default keeps every frame). */
  void Select(TraceSelection selection) { selection_ = std::move(selection); }
  /** True if a frame from `src_adapter` to `dest_adapter` arriving at `time_ps` is captured. */
  bool Wants(uint64_t time_ps, uint16_t src_adapter, uint16_t dest_adapter) const override {
    return selection_.KeepsFrame(time_ps, src_adapter, dest_adapter);
  }

  /** Flushes and closes the file. True if every write and the close succeeded. */
  bool Close();

  /** False once a write has failed. */
  bool ok() const { return !failed_; }
  /** The file's path. */
  const std::string& path() const { return path_; }
  /** Packets written so far. */
  uint64_t packets() const { return packets_; }

 private:
  PcapWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  /** Writes one block (already with both length fields); records failure. */
  bool WriteBlock(const std::vector<uint8_t>& block);

  std::string path_;
  std::FILE* file_;
  bool failed_ = false;
  uint64_t packets_ = 0;
  TraceSelection selection_;
};

}  // namespace nicsim::sim
