// SPDX-License-Identifier: Apache-2.0
// Reads the fields of a fuzz input in order; a field the input is too short for reads as
// zeroes (or as fewer bytes), so every input, however short, means something.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace nicsim::fuzz {

/** NICSIM_FUZZ_VERBOSE=1: a target prints what it does with each input (for writing seeds,
 *  debugging). */
inline bool Verbose() {
  static const bool verbose = std::getenv("NICSIM_FUZZ_VERBOSE") != nullptr;
  return verbose;
}

/** A cursor over the fuzz input. */
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t left() const { return size_ - pos_; }

  uint8_t U8() { return left() > 0 ? data_[pos_++] : 0; }
  /** Two bytes, little endian. */
  uint16_t U16() {
    const uint8_t lo = U8();
    return static_cast<uint16_t>(lo | (U8() << 8));
  }
  /** Up to `n` bytes (fewer if the input ends first). */
  std::vector<uint8_t> Bytes(size_t n) {
    n = std::min(n, left());
    std::vector<uint8_t> out(data_ + pos_, data_ + pos_ + n);
    pos_ += n;
    return out;
  }
  /** Everything not read yet, as text. */
  std::string_view Rest() {
    std::string_view out(reinterpret_cast<const char*>(data_ + pos_), left());
    pos_ = size_;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace nicsim::fuzz
