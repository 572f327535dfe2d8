// SPDX-License-Identifier: Apache-2.0
// The sending side of push-pull messaging: the first (BTP1) and second (BTP2) pushes into
// each receiver's pushed buffer, then pull rounds served from the caller's own buffer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "ulp/pushpull/channel_layout.h"
#include "ulp/pushpull/config.h"
#include "ulp/pushpull/platform.h"
#include "ulp/pushpull/stats.h"
#include "ulp/pushpull/zero_buffer.h"

namespace nicsim::ulp::pushpull {

/** Names one accepted send. */
using SendHandle = uint64_t;

/**
 * One sending process. Send() queues a message and pushes what the receiver's pushed buffer
 * has room for; Progress() pushes more and serves the receivers' pull requests, copying the
 * pulled part straight from the caller's buffer into the receiver's (one copy) or, where the
 * platform cannot, through the channel's staging area. No threads; nothing blocks; nothing is
 * dropped: a push that finds the ring full waits for the receiver to empty a slot.
 */
class Sender {
 public:
  /** A sender for rank `self` of `ranks`; checks the ranks and the parameters. */
  static Result<std::unique_ptr<Sender>> Create(Platform* platform, uint32_t ranks, uint32_t self,
                                                Params params);
  /** Unmaps the channels it attached (the receivers own them). */
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  /**
   * Accepts `bytes` bytes at `data` for rank `to` under `tag`. Zero-copy: the caller keeps the
   * bytes alive and unchanged until Done(handle). Errors: unknown or own rank, null data with
   * a length, a message over max_message_bytes.
   */
  Result<SendHandle> Send(uint32_t to, uint32_t tag, const void* data, size_t bytes);

  /**
   * Attaches channels that have appeared, pushes what fits and serves pull requests. Returns
   * the pushes posted plus the rounds served (0: nothing to do), or the first protocol error.
   */
  Result<size_t> Progress();

  /** True once send `handle` is finished: its buffer is the caller's again. */
  bool Done(SendHandle handle) const {
    return handle != 0 && handle < next_handle_ && pending_.count(handle) == 0;
  }

  /** True when every accepted send is finished. */
  bool Idle() const { return pending_.empty(); }

  /** Counters. */
  const SenderStats& stats() const { return stats_; }

 private:
  /** One message on its way. */
  struct OutMessage {
    SendHandle handle = 0;
    uint32_t tag = 0;
    const uint8_t* data = nullptr;
    uint64_t size = 0;
    uint64_t push_bytes = 0;  // how many of its bytes go by push
    uint64_t pushed = 0;      // of those, posted so far
    uint32_t pushes = 0;      // slots posted so far
    bool acked = false;       // its first pull request has been served
    bool pull_done = false;   // the receiver's last pull request has been served
    ZeroBuffer source;        // translation of the whole buffer (pulled part sliced from it)
  };
  /** This sender's end of one channel. */
  struct Outbound {
    uint32_t to = 0;
    bool attached = false;
    bool cross_copy_ok = true;  // false after the platform said it cannot (sticky)
    Mapping mapping;
    ChannelView view;
    uint64_t receiver_token = 0;
    uint64_t next_push_index = 0;             // slots posted so far
    uint64_t next_seq = 1;                    // sequence number of the next message accepted
    uint64_t push_cursor = 1;                 // the message being pushed
    uint64_t served_gen = 0;                  // pull requests served
    bool waiting = false;                     // in a push-wait episode
    std::map<uint64_t, OutMessage> messages;  // by seq: unpushed or awaiting pulls
  };

  Sender(Platform* platform, uint32_t ranks, uint32_t self, Params params);
  Status TryAttach(Outbound& out);
  size_t Push(Outbound& out);
  Result<size_t> Serve(Outbound& out);
  void Finish(Outbound& out, std::map<uint64_t, OutMessage>::iterator it);

  Platform* platform_;
  uint32_t ranks_;
  uint32_t self_;
  Params params_;
  ChannelLayout layout_;
  std::vector<Outbound> outbound_;  // by receiver rank
  std::unordered_set<SendHandle> pending_;
  SendHandle next_handle_ = 1;
  std::vector<Extent> local_scratch_;
  SenderStats stats_;
};

}  // namespace nicsim::ulp::pushpull
