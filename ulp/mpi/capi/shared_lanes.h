// SPDX-License-Identifier: Apache-2.0
// The shared-memory half of the channel between a rank's program and the simulator (wire.h):
// two lanes in one mapping both processes hold, one per direction, each carrying one message
// at a time. A message that fits its lane is copied in and posted by bumping a counter the
// other end watches, so a call whose answer comes within microseconds costs no system call at
// all; a reader that has waited long enough to block says so first, and only then does the
// writer ring it (an eventfd the simulator polls beside the rank's output pipes and its
// socket; a futex the program sleeps on). A message longer than its lane goes over the
// stream socket (stream_io.h), which also carries descriptors, aborts and a dead rank's end.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "ulp/mpi/capi/stream_io.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::wire {

/** Bytes one lane holds (header included); a longer message goes over the socket. */
inline constexpr uint64_t kLaneBytes = uint64_t{128} << 10;
/** A replies lane's length when the message is on the socket instead. */
inline constexpr uint64_t kOnSocket = ~uint64_t{0};

/** One direction: written by one end, read by the other, one message at a time. */
struct Lane {
  /** Moves (release) once a message is in place; the reader remembers the last it took. */
  alignas(64) std::atomic<uint32_t> posted{0};
  /** Set by the reader before it blocks; the writer then wakes it. */
  alignas(64) std::atomic<uint32_t> asleep{0};
  /** Bytes of the message (header included), or kOnSocket. */
  uint64_t length = 0;
  alignas(64) uint8_t bytes[kLaneBytes];
};

/** The shared mapping: calls from the program, replies (and op requests) from the simulator. */
struct Lanes {
  Lane calls;
  Lane replies;
};

/** A part of a message, copied in order. */
struct Piece {
  const void* data;
  size_t n;
};

/** Copies a message made of `pieces` into `lane`; false (nothing written) when it does not
 *  fit. Post makes it visible. */
inline bool Place(Lane& lane, std::initializer_list<Piece> pieces) {
  uint64_t total = 0;
  for (const Piece& p : pieces) total += p.n;
  if (total > kLaneBytes) return false;
  uint8_t* at = lane.bytes;
  for (const Piece& p : pieces) {
    if (p.n > 0) std::memcpy(at, p.data, p.n);
    at += p.n;
  }
  lane.length = total;
  return true;
}

/** Makes the lane's message visible; true when the reader blocked and must be woken. The
 *  store and the load are ordered against the reader's (Asleep), so one of the two sees the
 *  other's. */
inline bool Post(Lane& lane) {
  lane.posted.fetch_add(1, std::memory_order_seq_cst);
  return lane.asleep.load(std::memory_order_seq_cst) != 0;
}

/** A message newer than the `seen`th is posted. */
inline bool Moved(const Lane& lane, uint32_t seen) {
  return lane.posted.load(std::memory_order_acquire) != seen;
}

/** The reader is about to block: false (and not marked) when a message came meanwhile. */
inline bool Asleep(Lane& lane, uint32_t seen) {
  lane.asleep.store(1, std::memory_order_seq_cst);
  if (lane.posted.load(std::memory_order_seq_cst) == seen) return true;
  lane.asleep.store(0, std::memory_order_relaxed);
  return false;
}

inline void Awake(Lane& lane) { lane.asleep.store(0, std::memory_order_relaxed); }

/** Blocks on the lane's futex while nothing newer than `seen` is posted (or until a signal). */
inline void SleepOn(Lane& lane, uint32_t seen) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&lane.posted), FUTEX_WAIT, seen, nullptr, nullptr,
          0);
}

/** Wakes the reader sleeping on the lane's futex. */
inline void WakeOn(Lane& lane) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&lane.posted), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

/**
 * Sends one message (its header, the window `changes` if any, `args`, as SendMessage lays it
 * out) in `lane` when it fits, else posts kOnSocket there and writes it to socket `fd`; calls
 * `wake()` when the reader had blocked. False once the socket is closed.
 */
template <typename Wake>
bool SendOverLane(Lane& lane, int fd, Call call, const std::vector<uint8_t>& changes,
                  const std::vector<uint8_t>& args, uint64_t compute_ns, Wake wake) {
  const Header h = HeaderOf(call, changes.size(), args.size(), compute_ns);
  const uint64_t length = changes.size();
  const bool placed = changes.empty() ? Place(lane, {{&h, sizeof(h)}, {args.data(), args.size()}})
                                      : Place(lane, {{&h, sizeof(h)},
                                                     {&length, sizeof(length)},
                                                     {changes.data(), changes.size()},
                                                     {args.data(), args.size()}});
  if (!placed) lane.length = kOnSocket;
  if (Post(lane)) wake();
  return placed || SendMessage(fd, call, args, changes, compute_ns);
}

/**
 * Takes the message posted in `lane` into `header` and `args` (copied out: the writer may
 * reuse the lane once it has an answer). False when the lane holds no whole message (a
 * length too short for the header, longer than the lane, or other than the header says).
 */
inline bool TakeFromLane(const Lane& lane, Header* header, std::vector<uint8_t>* args) {
  const uint64_t length = lane.length;
  if (length < sizeof(Header) || length > kLaneBytes) return false;
  std::memcpy(header, lane.bytes, sizeof(Header));
  if (header->bytes != length - sizeof(Header)) return false;
  args->assign(lane.bytes + sizeof(Header), lane.bytes + length);
  return true;
}

/**
 * Waits for something without sleeping, for a while that follows how soon the other end has
 * been answering: an answer that comes within the spin is taken without the sleep and wake-up
 * a blocking wait costs both ends (most of a call's cost when the simulator answers in
 * microseconds). A spin that ends without one halves the next (down to kLeastNs), one that
 * gets it doubles it (up to kMostNs), so a rank whose calls wait long (a receive whose message
 * is far off) soon stops burning a CPU the simulator needs. When both ends share one CPU it
 * does not spin at all: the other end cannot answer until this one sleeps.
 */
class Spinner {
 public:
  explicit Spinner(bool spins = true) : spins_(spins) {}
  void set_spins(bool spins) { spins_ = spins; }

  static constexpr uint64_t kLeastNs = 1'000;
  static constexpr uint64_t kMostNs = 20'000;

  /** Spins until `ready()` or the budget ends; returns `ready()`'s last answer. */
  template <typename Ready>
  bool Until(Ready ready) {
    if (!spins_) return ready();
    const uint64_t start = NowNs();
    for (unsigned i = 0;; ++i) {
      if (ready()) {
        budget_ns_ = budget_ns_ * 2 > kMostNs ? kMostNs : budget_ns_ * 2;
        return true;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      // The clock is read every few turns: it costs more than a look at the lane.
      if ((i & 15) == 15 && NowNs() - start >= budget_ns_) {
        budget_ns_ = budget_ns_ / 2 < kLeastNs ? kLeastNs : budget_ns_ / 2;
        return false;
      }
    }
  }

 private:
  static uint64_t NowNs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_nsec);
  }

  bool spins_;
  uint64_t budget_ns_ = kMostNs;
};

}  // namespace nicsim::mpi::wire
