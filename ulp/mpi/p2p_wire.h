// SPDX-License-Identifier: Apache-2.0
// How the MPI layer's point-to-point messages name themselves on the transport: a message's
// kind (eager, RTS, CTS, data) in the top bits of its transport context, and what an RTS says.
#pragma once

#include <cstdint>

namespace nicsim::mpi {

/** A point-to-point message's kind: an eager message, a rendezvous request (RTS), the
 *  receiver's clear to send (CTS), or a rendezvous message's data. */
enum class MessageKind : uint32_t { kEager = 0, kRts = 1, kCts = 2, kData = 3 };

inline constexpr uint32_t kKindShift = 30;
inline constexpr uint32_t kContextMask = (1u << kKindShift) - 1;

/** The transport context of a message of `kind` in MPI context `context`. */
inline uint32_t Wire(uint32_t kind, uint32_t context) {
  return (kind << kKindShift) | (context & kContextMask);
}

/** An RTS: the message's length and the rendezvous it opens. */
struct RtsPayload {
  uint64_t bytes;
  uint64_t rdv_id;
};

}  // namespace nicsim::mpi
