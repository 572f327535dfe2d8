// SPDX-License-Identifier: Apache-2.0
// What an MPI operation is and reports: a communicator, a receive's status, and the shared
// state of a nonblocking operation (a request) that matching, the protocols and the program
// all see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ulp/mpi/datatype.h"
#include "ulp/mpi/group.h"
#include "ulp/mpi/limits.h"

namespace nicsim::mpi {

struct Status {
  int source = -1;
  int tag = -1;
  /** Bytes received. */
  size_t bytes = 0;
  /** The message was longer than the receive buffer (the rest was cut off). */
  bool truncated = false;
  /** The receive was cancelled before any message matched it (nothing was received). */
  bool cancelled = false;
  size_t Count(const Datatype& t) const { return t.size() ? bytes / t.size() : 0; }
};

/** A communicator: a context id and a group of world ranks (shared, never changed). */
struct Comm {
  uint32_t context = 0;
  std::shared_ptr<const Group> group = Group::Identity(0);
  int rank = 0;
  int size() const { return group->size(); }
};

/** A communicator's collectives have a context of their own: its context with the low bit set
 *  (communicators' contexts are even). */
inline uint32_t CollectiveContext(const Comm& c) { return c.context | 1u; }
inline bool IsCollectiveContext(uint32_t context) { return (context & 1u) != 0; }

/** Shared state of a nonblocking operation. */
struct RequestState {
  bool done = false;
  Status status;
  // Receive side.
  void* buf = nullptr;
  size_t count = 0;
  Datatype type;
  int source = kAnySource;
  int tag = kAnyTag;
  uint32_t context = 0;
  const Comm* comm = nullptr;
  std::shared_ptr<const Group> group;
  /** A rendezvous receive landing in place: the bytes the sender announced (0: not). */
  uint64_t in_place_bytes = 0;
  /** A push-pull receive: the message's bytes are gathered here (pushes first, then the
   *  pulled rest from `pulled_from` on) until all have come, then unpacked. */
  bool gathering = false;
  std::vector<uint8_t> gathered;
  uint64_t gathered_bytes = 0;
  uint64_t pulled_from = 0;
};

using Request = std::shared_ptr<RequestState>;

}  // namespace nicsim::mpi
