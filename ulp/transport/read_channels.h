// SPDX-License-Identifier: Apache-2.0
// Direct reads of a peer's published memory: a reader that knows the PVO of memory a source
// keeps registered (a one-sided window's) reads it by RDMA with no message to the source and
// no work for its CPU. An RDMA read names an rCxt at the source, and an rCxt takes one
// reader's tids in order, so the source reserves rCxts for each reader on its first ask: a
// read channel, opened by one handshake and kept. The reads themselves are the RdmaPuller's
// (timeouts, questions to the source, redrives on the pair's other rCxt); a read given up
// closes the channel and its caller asks another way.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "ulp/transport/rdma_puller.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * Both sides of this task's read channels. As a reader it holds, per source, the channel's
 * state and its pairs of the source's rCxts (one read in flight on each); as a source it holds,
 * per reader, the rCxts it reserved and answers questions about reads at them.
 */
class ReadChannels {
 public:
  ReadChannels(const TransportContext& ctx, ReliableSender& packets, RdmaPuller& puller);
  ReadChannels(const ReadChannels&) = delete;
  ReadChannels& operator=(const ReadChannels&) = delete;

  /** How a read ended: every byte landed (`data`: none if in place), or it was given up. */
  using DoneFn = std::function<void(bool landed, std::vector<uint8_t> data)>;

  /**
   * Reader: reads `len` bytes at `remote_pvo` of `source`'s memory, into `in_place` of this
   * task's memory (0: the bytes come in `done`'s data), over a free pair of the open channel;
   * false (nothing started) if the channel is not open (it is opened now unless refused) or
   * every pair is busy. `done` runs once; a read given up closes the channel.
   */
  bool Read(uint32_t source, uint64_t remote_pvo, uint64_t len, uint64_t in_place, DoneFn done);
  /** Source: a reader asks for a channel (Kind::kReadOpen, already acknowledged). */
  void OnOpen(const Header& h);
  /** Reader: the source's answer (Kind::kReadReady, already acknowledged). */
  void OnReady(const Header& h, const uint8_t* body, uint32_t len);
  /** Source: a reader asks about a late read at one of its channel's rCxts (kRdmaQuery). */
  void OnQuery(uint32_t port, const Header& h);
  /** Reader: the puller ended direct read `seq` from `source`. */
  void OnEnded(uint32_t source, uint32_t seq, uint32_t last_tid, bool landed,
               std::vector<uint8_t> data);
  /** Source: the port's window was rebuilt; rCxts reserved before serve no read any more. */
  void OnWindowRebuilt() { ++windows_rebuilt_; }
  /** No read of this task's is in flight. */
  bool Idle() const { return reads_.empty(); }

 private:
  /** Reads and channels use the first port (the puller's slot 0). */
  static constexpr uint32_t kPort = 0;
  struct Pair {
    uint32_t rcxt[2] = {0, 0};
    bool busy = false;
  };
  struct OutChannel {
    enum class State : uint8_t { kClosed, kOpening, kOpen, kRefused };
    State state = State::kClosed;
    uint32_t generation = 0;
    std::vector<Pair> pairs;
    /** The newest tid any read to this source took: the next one's start after it, so each of
     *  the source's rCxts sees its tids rise. */
    uint32_t tid = 0;
  };
  struct InChannel {
    uint32_t generation = 0;
    /** Windows rebuilt when the rCxts were taken. */
    uint64_t windows_at_open = 0;
    std::vector<uint32_t> rcxts;
  };
  struct Pending {
    uint32_t generation = 0;
    uint32_t pair = 0;
    DoneFn done;
  };
  /** Reader: opens the channel to `source` unless it is open, opening or refused. */
  void Open(uint32_t source);
  static uint64_t ReadKey(uint32_t source, uint32_t seq) { return (uint64_t{source} << 32) | seq; }
  /** Sends `reader` the answer for its channel (the rCxts, none if refused). */
  void SendReady(uint32_t reader, const InChannel& in);
  void ReleaseRcxts(InChannel& in);

  const TransportContext ctx_;
  ReliableSender& packets_;
  RdmaPuller& puller_;
  std::unordered_map<uint32_t, OutChannel> out_;
  std::unordered_map<uint32_t, InChannel> in_;
  /** Reads in flight by ReadKey. */
  std::unordered_map<uint64_t, Pending> reads_;
  /** Reads started (their seqs' count bits). */
  uint32_t next_read_ = 0;
  uint64_t windows_rebuilt_ = 0;
};

}  // namespace nicsim::ulp
