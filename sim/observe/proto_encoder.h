// SPDX-License-Identifier: Apache-2.0
// A minimal protobuf wire-format encoder (varints and length-delimited fields), enough to
// write Perfetto traces without a protobuf library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nicsim::sim {

/**
 * Appends protobuf fields to a byte string. Wire types: 0 (varint: integers, bools, enums)
 * and 2 (length-delimited: strings, bytes, nested messages). A nested message is encoded into
 * its own ProtoEncoder first and added with Message(), which prefixes its length.
 */
class ProtoEncoder {
 public:
  /** Wire type 0: a varint field. Negative int32/int64 values are not used here. */
  void Varint(uint32_t field, uint64_t value) {
    PutVarint(out_, uint64_t{field} << 3 | 0);
    PutVarint(out_, value);
  }
  /** Wire type 2: a string or bytes field. */
  void Bytes(uint32_t field, std::string_view bytes) {
    PutVarint(out_, uint64_t{field} << 3 | 2);
    PutVarint(out_, bytes.size());
    out_.append(bytes);
  }
  /** Wire type 2: a nested message. */
  void Message(uint32_t field, const ProtoEncoder& message) { Bytes(field, message.out_); }

  /** The encoded bytes so far. */
  const std::string& bytes() const { return out_; }
  bool empty() const { return out_.empty(); }
  void Clear() { out_.clear(); }

  /** Appends `value` as a base-128 varint: 7 bits a byte, low group first, high bit = more. */
  static void PutVarint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
      out.push_back(static_cast<char>((value & 0x7F) | 0x80));
      value >>= 7;
    }
    out.push_back(static_cast<char>(value));
  }

 private:
  std::string out_;
};

}  // namespace nicsim::sim
