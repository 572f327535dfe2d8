// SPDX-License-Identifier: Apache-2.0
// The messages of one-sided communication between ranks' OneSided objects: the header before a
// put's, an accumulate's or a get reply's bytes, a get's request, a synchronisation message,
// and how a header frames bytes and is read back. Private to ulp/mpi/one_sided*.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace nicsim::mpi::one_sided_wire {

/** Before the bytes of a put that travels as a message. */
struct PutHeader {
  uint64_t disp;
};
/** Before the bytes of an accumulate. */
struct AccumulateHeader {
  uint64_t disp;
  /** 0, or the get id whose reply carries the elements as they were (a fetching one). */
  uint64_t fetch;
  uint8_t op;
  uint8_t base;
  uint8_t update;
  uint8_t reserved[5];
};
/** A get's request. */
struct GetRequest {
  uint64_t disp;
  uint64_t len;
  uint64_t id;
};
/** Before the bytes of a get's reply that travels as a message. */
struct GetReplyHeader {
  uint64_t id;
};

/** `h`, then `len` bytes at `data`. */
template <typename Header>
std::vector<uint8_t> Framed(const Header& h, const uint8_t* data, size_t len) {
  std::vector<uint8_t> out(sizeof(h) + len);
  std::memcpy(out.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(out.data() + sizeof(h), data, len);
  return out;
}

/** The header at the front of `data`, if it is long enough for one. */
template <typename Header>
std::optional<Header> HeaderOf(const std::vector<uint8_t>& data) {
  if (data.size() < sizeof(Header)) return std::nullopt;
  Header h;
  std::memcpy(&h, data.data(), sizeof(h));
  return h;
}

/** What a synchronisation message says. */
enum class Control : uint8_t {
  kLock,       // to a target: its lock, please (`exclusive`)
  kGranted,    // to an origin: the lock is yours
  kUnlock,     // to a target: `issued` operations came from me; answer once applied (`release`)
  kAnswered,   // to an origin: they are applied (and the lock given back if released)
  kPosted,     // to an origin: my window is exposed to you (post)
  kCompleted,  // to a target: my access epoch ended after `issued` operations (complete)
};
struct ControlHeader {
  uint64_t issued;
  uint8_t what;
  uint8_t exclusive;
  uint8_t release;
  uint8_t reserved[5];
};
}  // namespace nicsim::mpi::one_sided_wire
