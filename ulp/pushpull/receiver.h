// SPDX-License-Identifier: Apache-2.0
// The receiving side of push-pull messaging: makes the channels it receives on, matches
// pushes to posted receives by (source, tag), acknowledges and pulls the rest in rounds.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ulp/pushpull/channel_layout.h"
#include "ulp/pushpull/config.h"
#include "ulp/pushpull/platform.h"
#include "ulp/pushpull/stats.h"
#include "ulp/pushpull/zero_buffer.h"

namespace nicsim::ulp::pushpull {

/** Names one posted receive. */
using ReceiveHandle = uint64_t;

/** A finished receive. */
struct Completion {
  /** Rank that sent the message. */
  uint32_t source = 0;
  /** Its tag. */
  uint32_t tag = 0;
  /** Bytes written into the buffer (the message's length unless truncated). */
  uint64_t bytes = 0;
  /** Length of the message as sent. */
  uint64_t message_bytes = 0;
  /** True if the message was longer than the buffer. */
  bool truncated = false;
};

/**
 * One receiving process. The constructor makes one channel per other rank (the senders
 * attach to it). PostReceive() names a buffer for the next message from (source, tag); Poll()
 * takes pushes out of the pushed buffers in order, copies them into the matched buffer (or
 * sets them aside until a receive matches), sends the acknowledgement that starts the pull,
 * and finishes rounds. Messages from one sender match receives in the order they were sent.
 */
class Receiver {
 public:
  /** A receiver for rank `self` of `ranks`; makes its channels. */
  static Result<std::unique_ptr<Receiver>> Create(Platform* platform, uint32_t ranks, uint32_t self,
                                                  Params params);
  /** Unmaps its channels (the platform unlinks them). */
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  /**
   * Posts a receive of the next message from `source` with `tag` into `capacity` bytes at
   * `buffer` (kept alive until Take returns its completion). The buffer's zero buffer is built
   * here, before the message is likely to arrive. Errors: unknown or own rank, null buffer.
   */
  Result<ReceiveHandle> PostReceive(uint32_t source, uint32_t tag, void* buffer, size_t capacity);

  /** One pass over every channel. Returns receives completed, or the first protocol error. */
  Result<size_t> Poll();

  /** The completion of `handle` if it has finished (then forgotten), else nothing. */
  std::optional<Completion> Take(ReceiveHandle handle);

  /**
   * Called with (source, tag, message bytes) when a message's first push finds no posted
   * receive, before any of its bytes are taken out. A receive the hook posts for it (from
   * inside the call) matches at once, so the pushed bytes go straight into that buffer and are
   * not set aside; if it posts none, the message waits as before. nullptr: no hook.
   */
  using ArrivalFn = std::function<void(uint32_t source, uint32_t tag, uint64_t bytes)>;
  void OnArrival(ArrivalFn fn) { on_arrival_ = std::move(fn); }

  /** Receives posted and not yet taken. */
  size_t Outstanding() const { return receives_.size(); }

  /** Counters. */
  const ReceiverStats& stats() const { return stats_; }

 private:
  struct Posted;
  /** A message whose first push has arrived. */
  struct Incoming {
    uint32_t source = 0;
    uint64_t seq = 0;
    uint32_t tag = 0;
    uint64_t size = 0;
    uint64_t push_bytes = 0;
    uint64_t pushed_in = 0;      // pushed bytes taken out so far
    bool pushes_over = false;    // every push taken out
    std::vector<uint8_t> aside;  // pushed bytes kept until a receive matches
    ReceiveHandle receive = 0;   // 0 until matched
    bool ack_sent = false;
    uint64_t pulled = 0;     // pulled bytes in place
    bool pull_over = false;  // the last round has come back (or none was needed)
  };
  /** A posted receive. */
  struct Posted {
    uint32_t source = 0;
    uint32_t tag = 0;
    uint8_t* buffer = nullptr;
    uint64_t capacity = 0;
    ZeroBuffer dest;
    Incoming* message = nullptr;
    bool done = false;
    Completion completion;
  };
  /** This receiver's end of one channel. */
  struct Inbound {
    uint32_t from = 0;
    Mapping mapping;
    ChannelView view;
    uint64_t next_index = 0;      // next push slot index expected
    Incoming* current = nullptr;  // message whose pushes are arriving
    std::deque<Incoming*> pulls;  // matched messages with bytes to pull, in match order
    bool round_out = false;       // a request is outstanding
    uint64_t gen = 0;
    uint64_t round_bytes = 0;
    uint64_t round_offset = 0;
    bool round_last = false;
    uint64_t next_seq = 1;  // sequence number of the next message expected
    bool broken = false;
  };

  Receiver(Platform* platform, uint32_t ranks, uint32_t self, Params params);
  Status MakeChannels();
  Status Drain(Inbound& in, size_t* completed);
  void Match(Incoming* msg, ReceiveHandle h, Posted& p);
  void CopyIn(Incoming* msg, uint64_t offset, const uint8_t* src, uint64_t len);
  void Pump(Inbound& in, size_t* completed);
  void MaybeComplete(Incoming* msg, size_t* completed);
  uint64_t WantedPull(const Incoming* msg) const;

  Platform* platform_;
  uint32_t ranks_;
  uint32_t self_;
  Params params_;
  ChannelLayout layout_;
  std::vector<Inbound> inbound_;                                // by sender rank (own rank unused)
  std::map<std::pair<uint32_t, uint64_t>, Incoming> incoming_;  // by (source, seq)
  std::deque<Incoming*> unexpected_;                            // arrival order
  std::unordered_map<ReceiveHandle, Posted> receives_;
  std::deque<ReceiveHandle> unmatched_;  // post order
  ReceiveHandle next_handle_ = 1;
  std::vector<Extent> scratch_;
  ReceiverStats stats_;
  ArrivalFn on_arrival_;
};

}  // namespace nicsim::ulp::pushpull
