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

/** Bytes of one lane. */
inline constexpr uint64_t kLaneBytes = uint64_t{128} << 10;
/** A record's length when its message went over the socket instead. */
inline constexpr uint64_t kOnSocketLength = ~uint64_t{0};

/**
 * One direction, written by one end and read by the other. Its messages are records (u64
 * length, then the message: header and arguments) one after another from the start of
 * `bytes`. Both ends start again at the start with each message from the simulator: the
 * program has then been answered, so every message it posted before has been taken.
 */
struct Lane {
  /** Moves (release) once per message put in place; the reader counts those it took. */
  alignas(64) std::atomic<uint32_t> posted{0};
  /** Set by the reader before it blocks; the writer then wakes it. */
  alignas(64) std::atomic<uint32_t> asleep{0};
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

/** A record of `n` bytes of message fits at offset `at`, leaving room for the kOnSocketLength
 * record that may follow it. */
inline bool Fits(uint64_t at, uint64_t n) {
  return at <= kLaneBytes && n <= kLaneBytes - at && kLaneBytes - at - n >= 2 * sizeof(uint64_t);
}

/** Writes a record of `pieces` at `*at` when it fits, else a kOnSocketLength record; advances `*at`
 *  past it. True when the message is in the lane. Post makes it visible. */
inline bool Place(Lane& lane, uint64_t* at, std::initializer_list<Piece> pieces) {
  uint64_t total = 0;
  for (const Piece& p : pieces) total += p.n;
  const bool fits = Fits(*at, total);
  const uint64_t length = fits ? total : kOnSocketLength;
  std::memcpy(lane.bytes + *at, &length, sizeof(length));
  *at += sizeof(length);
  if (!fits) return false;
  for (const Piece& p : pieces) {
    if (p.n > 0) std::memcpy(lane.bytes + *at, p.data, p.n);
    *at += p.n;
  }
  return true;
}

/** Makes the lane's newest message visible; true when the reader blocked and must be woken.
 *  The store and the load are ordered against the reader's (Asleep), so one of the two sees
 *  the other's. */
inline bool Post(Lane& lane) {
  lane.posted.fetch_add(1, std::memory_order_seq_cst);
  return lane.asleep.load(std::memory_order_seq_cst) != 0;
}

/** A message the reader has not taken is posted (it took `seen`). */
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

/** Where SendOverLane put a message. */
enum class Sent { kInLane, kOnSocket, kLost };

/**
 * Sends one message (header `h`, then the window `changes` if any, then `args`, as
 * SendMessage lays it out) as a record at `*at` in `lane` when it fits, else as a kOnSocketLength
 * record there and over socket `fd`; posts it, and calls `wake()` if the reader had blocked,
 * unless `quiet` and the message is in the lane (then the reader takes it with the next
 * message that wakes it). kLost when the socket is closed.
 */
template <typename Wake>
Sent SendOverLane(Lane& lane, uint64_t* at, int fd, const Header& h,
                  const std::vector<uint8_t>& changes, const std::vector<uint8_t>& args, bool quiet,
                  Wake wake) {
  const uint64_t length = changes.size();
  const bool placed = changes.empty()
                          ? Place(lane, at, {{&h, sizeof(h)}, {args.data(), args.size()}})
                          : Place(lane, at,
                                  {{&h, sizeof(h)},
                                   {&length, sizeof(length)},
                                   {changes.data(), changes.size()},
                                   {args.data(), args.size()}});
  if (Post(lane) && !(quiet && placed)) wake();
  if (placed) return Sent::kInLane;
  return SendStream(fd, h, changes, args) ? Sent::kOnSocket : Sent::kLost;
}

/** What TakeFromLane found. */
enum class Taken { kMessage, kOnSocket, kMalformed };

/**
 * Takes the record at `*at` in `lane` (advancing `*at` past it) into `header` and `args`
 * (copied out: the writer may reuse the lane once it has an answer). kOnSocket: the message
 * follows on the socket. kMalformed: no whole message there (a length beyond the lane, too
 * short for the header, or other than the header says).
 */
inline Taken TakeFromLane(const Lane& lane, uint64_t* at, Header* header,
                          std::vector<uint8_t>* args) {
  if (*at > kLaneBytes - sizeof(uint64_t)) return Taken::kMalformed;
  uint64_t length = 0;
  std::memcpy(&length, lane.bytes + *at, sizeof(length));
  if (length == kOnSocketLength) {
    *at += sizeof(length);
    return Taken::kOnSocket;
  }
  const uint64_t start = *at + sizeof(length);
  if (length < sizeof(Header) || length > kLaneBytes - start) return Taken::kMalformed;
  std::memcpy(header, lane.bytes + start, sizeof(Header));
  if (header->bytes != length - sizeof(Header)) return Taken::kMalformed;
  args->assign(lane.bytes + start + sizeof(Header), lane.bytes + start + length);
  *at = start + length;
  return Taken::kMessage;
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
