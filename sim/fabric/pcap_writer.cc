// SPDX-License-Identifier: Apache-2.0
// pcapng block encoding (Section Header, Interface Description, Enhanced Packet) written
// little endian byte by byte, so the file is the same on any host.
#include "sim/fabric/pcap_writer.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

namespace nicsim::sim {
namespace {

/** pcapng option codes used here. */
constexpr uint16_t kOptEndOfOpt = 0;
constexpr uint16_t kOptShbUserAppl = 4;
constexpr uint16_t kOptIfName = 2;
constexpr uint16_t kOptIfDescription = 3;
constexpr uint16_t kOptIfTsResol = 9;

/** Builds one block: type and length first, body, then the length again. */
class BlockBuilder {
 public:
  explicit BlockBuilder(uint32_t type) {
    U32(type);
    U32(0);  // total length, patched by Finish()
  }
  void U8(uint8_t v) { bytes_.push_back(v); }
  void U16(uint16_t v) {
    for (int i = 0; i < 2; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  /** Raw bytes, zero-padded to a 32-bit boundary as every pcapng field must be. */
  void Padded(const uint8_t* data, size_t len) {
    bytes_.insert(bytes_.end(), data, data + len);
    while (bytes_.size() % 4 != 0) U8(0);
  }
  /** One option: code, length, value padded to 32 bits. */
  void Option(uint16_t code, const void* value, uint16_t len) {
    U16(code);
    U16(len);
    Padded(static_cast<const uint8_t*>(value), len);
  }
  void Option(uint16_t code, std::string_view text) {
    Option(code, text.data(), static_cast<uint16_t>(text.size()));
  }
  /** Appends the trailing length and patches the leading one. */
  std::vector<uint8_t> Finish() {
    const auto total = static_cast<uint32_t>(bytes_.size() + 4);
    U32(total);
    for (int i = 0; i < 4; ++i) bytes_[4 + i] = static_cast<uint8_t>(total >> (8 * i));
    return std::move(bytes_);
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

Result<std::unique_ptr<PcapWriter>> PcapWriter::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Status::Error(path + ": cannot open for writing: " + std::strerror(errno));
  }
  std::unique_ptr<PcapWriter> writer(new PcapWriter(path, file));

  BlockBuilder shb(kSectionHeaderBlock);
  shb.U32(kByteOrderMagic);
  shb.U16(1);  // major version
  shb.U16(0);  // minor version
  // Section length -1: not given, so readers walk the blocks.
  shb.U64(std::numeric_limits<uint64_t>::max());
  shb.Option(kOptShbUserAppl, "nicsim");
  shb.Option(kOptEndOfOpt, nullptr, 0);
  writer->WriteBlock(shb.Finish());

  BlockBuilder idb(kInterfaceDescriptionBlock);
  idb.U16(kLinkType);
  idb.U16(0);  // reserved
  idb.U32(0);  // snap length: no limit, every frame is captured whole
  idb.Option(kOptIfName, "fabric");
  idb.Option(kOptIfDescription, "nicsim switch fabric: frames as handed to the destination");
  idb.Option(kOptIfTsResol, &kTsResolPower10, 1);
  idb.Option(kOptEndOfOpt, nullptr, 0);
  writer->WriteBlock(idb.Finish());

  if (!writer->ok()) return Status::Error(path + ": cannot write the pcapng header");
  return writer;
}

PcapWriter::~PcapWriter() { Close(); }

bool PcapWriter::WriteBlock(const std::vector<uint8_t>& block) {
  if (failed_ || file_ == nullptr) return false;
  if (std::fwrite(block.data(), 1, block.size(), file_) != block.size()) failed_ = true;
  return !failed_;
}

bool PcapWriter::Write(uint64_t time_ps, const uint8_t* data, size_t len_bytes) {
  // The block length is 32 bits; a frame that cannot fit is refused, not truncated.
  if (len_bytes > std::numeric_limits<uint32_t>::max() - 64) return false;
  BlockBuilder epb(kEnhancedPacketBlock);
  epb.U32(0);  // interface: the fabric
  // The timestamp is in if_tsresol units (nanoseconds), split high word first.
  const uint64_t ticks = time_ps / kPsPerTick;
  epb.U32(static_cast<uint32_t>(ticks >> 32));
  epb.U32(static_cast<uint32_t>(ticks));
  epb.U32(static_cast<uint32_t>(len_bytes));  // captured length
  epb.U32(static_cast<uint32_t>(len_bytes));  // original length
  epb.Padded(data, len_bytes);
  if (!WriteBlock(epb.Finish())) return false;
  ++packets_;
  return true;
}

bool PcapWriter::Close() {
  if (file_ == nullptr) return !failed_;
  // fclose flushes: a full disk shows up here, not at the buffered fwrite.
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  return !failed_;
}

}  // namespace nicsim::sim
