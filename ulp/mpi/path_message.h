// SPDX-License-Identifier: Apache-2.0
// How the shared-memory paths (postbox, push-pull) frame an MPI message: the transport's wire
// context and tag in front of the bytes, so the receiving rank hands over what the transport
// would have.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/check.h"

namespace nicsim::mpi {

/** What every path message starts with. */
struct PathHeader {
  uint32_t wire;
  uint32_t tag;
};

/** The header, then `bytes`: what the path's engine carries for one message. */
inline std::vector<uint8_t> FramePathMessage(uint32_t wire, uint32_t tag,
                                             const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> framed(sizeof(PathHeader) + bytes.size());
  const PathHeader h{wire, tag};
  std::memcpy(framed.data(), &h, sizeof(h));
  if (!bytes.empty()) std::memcpy(framed.data() + sizeof(h), bytes.data(), bytes.size());
  return framed;
}

/** The header of a framed message (at least a header long: the path's own engines made it). */
inline PathHeader PathHeaderOf(const std::vector<uint8_t>& framed) {
  NICSIM_CHECK(framed.size() >= sizeof(PathHeader), "path message of %zu B", framed.size());
  PathHeader h;
  std::memcpy(&h, framed.data(), sizeof(h));
  return h;
}

/** Drops the header, leaving the MPI layer's bytes. */
inline void StripPathHeader(std::vector<uint8_t>* framed) {
  framed->erase(framed->begin(), framed->begin() + sizeof(PathHeader));
}

}  // namespace nicsim::mpi
