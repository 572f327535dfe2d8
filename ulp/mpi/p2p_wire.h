// SPDX-License-Identifier: Apache-2.0
// How the MPI layer's messages name themselves on the transport: a message's kind (eager, RTS,
// CTS, data) in the top bits of its transport context, what an RTS says, and the contexts of
// one-sided windows' traffic.
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

/** Contexts communicators agree on stay below this (even: point to point, odd: collectives). */
inline constexpr uint32_t kAgreedContextLimit = 1u << 26;
/** Contexts set aside for Idup have this bit. */
inline constexpr uint32_t kDerivedContextBit = 1u << 29;
/** The traffic of a one-sided window has this bit (and not kDerivedContextBit): the window's
 *  agreed context shifted up by two, and a WindowOp in the three low bits. */
inline constexpr uint32_t kWindowContextBit = 1u << 28;

/** What a message in a window's context carries. */
enum class WindowOp : uint32_t {
  kPut = 0,
  kGetRequest = 1,
  kGetReply = 2,
  kAccumulate = 3,
  /** Synchronisation: locks, unlocks and flushes, post and complete (OneSided's Control). */
  kControl = 4,
  /** A put, a get's request and an accumulate over several blocks of the window (a target
   *  datatype with gaps): the target places or gathers the bytes. */
  kPutBlocks = 5,
  kGetBlocks = 6,
  kAccumulateBlocks = 7,
};

/** The context of `op` traffic in the window whose agreed context is `window`. */
inline uint32_t WindowContext(uint32_t window, WindowOp op) {
  return kWindowContextBit | (window << 2) | static_cast<uint32_t>(op);
}
/** True if `context` (without its kind) carries a window's traffic. */
inline bool IsWindowContext(uint32_t context) {
  return (context & (kWindowContextBit | kDerivedContextBit)) == kWindowContextBit;
}
inline uint32_t WindowOf(uint32_t context) { return (context & ~kWindowContextBit & ~7u) >> 2; }
inline WindowOp WindowOpOf(uint32_t context) { return static_cast<WindowOp>(context & 7u); }

/** An RTS: the message's length and the rendezvous it opens. */
struct RtsPayload {
  uint64_t bytes;
  uint64_t rdv_id;
};

}  // namespace nicsim::mpi
