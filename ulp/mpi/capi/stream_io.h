// SPDX-License-Identifier: Apache-2.0
// Whole reads and writes on the channel between a rank's program and the simulator (a stream
// socket), and sending one message of wire.h: both ends use these.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::wire {

/** Writes all `n` bytes; false once the other end is gone (never raises SIGPIPE). */
inline bool WriteFully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

/** Reads exactly `n` bytes; false at end of stream or on an error. */
inline bool ReadFully(int fd, void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

/** Sends one message: its header (with `compute_ns`), then `args`. */
inline bool SendMessage(int fd, Call call, const std::vector<uint8_t>& args,
                        uint64_t compute_ns = 0) {
  Header h;
  h.call = static_cast<uint32_t>(call);
  h.bytes = args.size();
  h.compute_ns = compute_ns;
  return WriteFully(fd, &h, sizeof(h)) && WriteFully(fd, args.data(), args.size());
}

}  // namespace nicsim::mpi::wire
