// SPDX-License-Identifier: Apache-2.0
// MPI's matching: the receives posted and not yet matched, and the messages that arrived
// before any receive matched them, each oldest first (MPI's non-overtaking rule). Matching
// keeps no protocol state: what a match sets off (a copy, a clear to send, a pull) is the
// protocol's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <vector>

#include "ulp/mpi/p2p_wire.h"
#include "ulp/mpi/request.h"

namespace nicsim::mpi {

/** A message that arrived before any receive matched it. */
struct UnexpectedMessage {
  uint32_t context;
  int source;  // world rank
  int tag;
  MessageKind kind;
  /** An eager message's bytes (push-pull: the pushed bytes arrived so far). */
  std::vector<uint8_t> data;
  uint64_t rdv_id = 0;
  /** A rendezvous message's length. */
  uint64_t bytes = 0;
  /** Push-pull: bytes the sender pushes. */
  uint64_t pushed = 0;
  /** A kRts that the transport announced (`rdv_id` is its transport seq): accepted
   *  through the transport, not cleared to send. */
  bool announced = false;
};

class Matcher {
 public:
  /** A message (context, world rank, tag) matches receive `r`: wildcards included. */
  static bool Matches(const RequestState& r, uint32_t context, int source_world, int tag);

  /** The oldest posted receive the message matches, taken off the queue; null if none. */
  Request TakePosted(uint32_t context, int source_world, int tag);
  void Post(Request r) { posted_.push_back(std::move(r)); }
  /** Takes `r` off the posted receives; false if it is not there (a message matched it). */
  bool Unpost(const Request& r);
  /** Forgets every posted receive. */
  void ForgetPosted() { posted_.clear(); }

  /** Keeps a message no receive matched; returns how many are kept. */
  size_t KeepUnexpected(UnexpectedMessage u);
  /** The oldest unexpected message receive `r` matches, taken off the queue. */
  std::optional<UnexpectedMessage> TakeUnexpected(const RequestState& r);
  /** The oldest unexpected message `probe` matches, left in place; null if none. */
  const UnexpectedMessage* PeekUnexpected(const RequestState& probe) const;
  /** The unexpected rendezvous message `rdv_id` from `source_world`; null if none. */
  UnexpectedMessage* FindRendezvous(int source_world, uint64_t rdv_id);
  size_t unexpected_queued() const { return unexpected_.size(); }

 private:
  std::list<Request> posted_;
  std::list<UnexpectedMessage> unexpected_;
};

}  // namespace nicsim::mpi
