// SPDX-License-Identifier: Apache-2.0
// One end's copy of a window's memory (an image: wire.h), with the bytes as both ends of a
// rank's channel last agreed they were: what changed since is what travels (wire.h's
// kWindowChanges). The section of a message that carries changes is
//   u32 n, n x (i32 image, u32 k, k x (u64 offset, blob bytes))
// and each end applies it to its own copy and to the agreed bytes alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::wire {

class WindowImage {
 public:
  /** `memory` holds what both ends agree on now. */
  WindowImage(uint8_t* memory, size_t bytes) : memory_(memory), agreed_(memory, memory + bytes) {}

  /**
   * Appends (u64 offset, blob) for each run of bytes that changed since the ends last agreed,
   * compared in chunks of kChunk bytes; they agree on those bytes from now on. Returns how
   * many runs it appended.
   */
  uint32_t PutChanges(Writer& w) {
    uint32_t runs = 0;
    const size_t n = agreed_.size();
    size_t at = 0;
    while (at < n) {
      if (Same(at)) {
        at += std::min(kChunk, n - at);
        continue;
      }
      size_t end = at + std::min(kChunk, n - at);
      while (end < n && !Same(end)) end += std::min(kChunk, n - end);
      w.Put<uint64_t>(at).Blob(memory_ + at, end - at);
      std::memcpy(agreed_.data() + at, memory_ + at, end - at);
      ++runs;
      at = end;
    }
    return runs;
  }

  /** Applies `k` runs read from `r` to the memory and the agreed bytes; false if one does not
   *  lie inside the window. */
  bool ApplyChanges(Reader& r, uint32_t k) {
    for (uint32_t i = 0; i < k; ++i) {
      const auto offset = r.Get<uint64_t>();
      const auto [data, len] = r.Blob();
      if (r.failed() || offset > agreed_.size() || len > agreed_.size() - offset) return false;
      if (len == 0) continue;
      std::memcpy(memory_ + offset, data, len);
      std::memcpy(agreed_.data() + offset, data, len);
    }
    return true;
  }

 private:
  static constexpr size_t kChunk = 64;
  bool Same(size_t at) const {
    return std::memcmp(memory_ + at, agreed_.data() + at, std::min(kChunk, agreed_.size() - at)) ==
           0;
  }

  uint8_t* memory_;
  std::vector<uint8_t> agreed_;
};

/**
 * The changes section for the images `images` lists ((number, WindowImage*) pairs), or
 * nothing when none changed.
 */
template <typename Images>
std::vector<uint8_t> ChangesSection(const Images& images) {
  Writer w;
  w.Put<uint32_t>(0);
  uint32_t windows = 0;
  for (const auto& [number, image] : images) {
    const size_t at = w.bytes().size();
    w.Put<int32_t>(static_cast<int32_t>(number)).Put<uint32_t>(0);
    const uint32_t runs = image->PutChanges(w);
    if (runs == 0) {
      w.bytes().resize(at);
      continue;
    }
    std::memcpy(w.bytes().data() + at + sizeof(int32_t), &runs, sizeof(runs));
    ++windows;
  }
  if (windows == 0) return {};
  std::memcpy(w.bytes().data(), &windows, sizeof(windows));
  return std::move(w.bytes());
}

/**
 * Applies a changes section; `find(number)` gives an image (null: none). False if the section
 * is malformed or names an image this end does not have.
 */
template <typename Find>
bool ApplyChangesSection(const uint8_t* data, size_t n, Find find) {
  Reader r(data, n);
  const auto windows = r.Get<uint32_t>();
  for (uint32_t i = 0; i < windows && !r.failed(); ++i) {
    const auto number = r.Get<int32_t>();
    const auto runs = r.Get<uint32_t>();
    WindowImage* image = find(number);
    if (image == nullptr || !image->ApplyChanges(r, runs)) return false;
  }
  return !r.failed() && r.left() == 0;
}

}  // namespace nicsim::mpi::wire
