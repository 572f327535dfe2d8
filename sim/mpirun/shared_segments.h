// SPDX-License-Identifier: Apache-2.0
// Memory the rank processes of one node share (MPI_Win_allocate_shared): one anonymous file
// per window, made when the first member's server asks for it and mapped here too, so the
// window the MPI layer exposes is the very memory the programs load and store. Each member's
// server hands the file to its program over the rank's channel; the last member to let go
// unmaps it. One per program run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "base/status.h"

namespace nicsim::sim {

class SharedSegments {
 public:
  /** A window's segment: its file (this process's descriptor) and its mapping here. */
  struct Segment {
    int fd = -1;
    uint8_t* base = nullptr;
    size_t bytes = 0;
    /** Members that took it and have not let go. */
    int holders = 0;
  };
  /** A window: its communicator's context, that communicator's lowest world rank, and how
   *  many shared windows the members made on it before (they make them in one order). */
  using Key = std::tuple<uint32_t, int, uint64_t>;

  SharedSegments() = default;
  SharedSegments(const SharedSegments&) = delete;
  SharedSegments& operator=(const SharedSegments&) = delete;
  ~SharedSegments();

  /** The segment of `bytes` for window `key`, made if no member made it yet; an error if the
   *  system cannot make or map it. */
  Result<Segment*> Take(const Key& key, size_t bytes);
  /** Window `key`'s segment, if some member holds it. */
  Segment* Find(const Key& key) {
    auto it = segments_.find(key);
    return it != segments_.end() ? &it->second : nullptr;
  }
  /** A member is done with window `key`'s segment; the last one unmaps it. */
  void Release(const Key& key);

 private:
  static void Unmap(Segment& s);
  std::map<Key, Segment> segments_;
};

}  // namespace nicsim::sim
