// SPDX-License-Identifier: Apache-2.0
// Reduction contributions moved by half RDMA (reference 002): the child's adapter reads the
// contribution from its registered buffer (an RDMA write with kReqRemoteFifo, no CPU copy),
// and the packets land in the parent's receive FIFO, where the parent's CPU combines each one
// into its accumulator as it arrives, overlapping the combining with the rest of the transfer.
//
// Rendezvous: the parent opens the contribution (Expect) and sends the child a clear-to-send
// naming one of its rCxts, a tid and the byte range to write (one chunk at a time, the next
// asked for as soon as the last is in); the child writes once it has
// the data (Contribute), says so once its adapter has taken the write (a started notice), and
// keeps its buffer until the parent's done notice. The notices are reliable packets. Retry:
// from the start of the child's write (its notice or its first packet, whichever comes
// first) the parent watches the contribution; when no new byte has come for a while it sends
// a new clear-to-send, with a newer tid, for the first gaps, and for the next ones as soon as
// those are in. A child still busy with its own subtree is not watched, so waiting for it
// costs no retry. Bytes are combined once each whatever attempt brought them: the parent
// tracks the bytes landed per contribution, not per tid, and combines only whole elements.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "ulp/byte_ranges.h"
#include "ulp/host_copy_time.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

class FifoReduction {
 public:
  /** Combines `len` bytes of the contribution, at `offset` in it, into the accumulator. */
  using CombineFn = std::function<void(uint64_t offset, const uint8_t* data, uint64_t len)>;

  FifoReduction(TransportContext& ctx, ReliableSender& packets);
  ~FifoReduction();
  FifoReduction(const FifoReduction&) = delete;
  FifoReduction& operator=(const FifoReduction&) = delete;

  /**
   * Parent: takes in contribution `seq` of collective `context` from task `src`, `len` bytes
   * combined `unit` bytes (one element) at a time, never an element split. Sends the
   * clear-to-send now; `on_done` runs once every byte has been combined and the CPU time the
   * combining takes (host.copy_bandwidth) has passed.
   */
  void Expect(uint32_t src, uint32_t context, uint32_t seq, uint64_t len, uint32_t unit,
              CombineFn combine, std::function<void()> on_done);
  /**
   * Child: contribution `seq` of `context` to task `dest` is `len` bytes at `vaddr` of the
   * task's memory (registered here, through the registration cache). The buffer must stay
   * unchanged until `on_done`, which runs when the parent says it has every byte.
   */
  void Contribute(uint32_t dest, uint32_t context, uint32_t seq, uint64_t vaddr, uint64_t len,
                  std::function<void()> on_done);

  /** A clear-to-send (Kind::kReduceCts), already acknowledged. */
  void OnCts(const Header& h, const uint8_t* body, uint32_t len);
  /** A done notice (Kind::kReduceDone), already acknowledged. */
  void OnDone(const Header& h);
  /** A child's notice that it has started writing (Kind::kReduceStarted), acknowledged. */
  void OnStarted(const Header& h);
  /** A half RDMA data frame (PacketType::kRdmaWrite in the FIFO). */
  void OnFifoData(const abi::RecvFrameHeader& frame, const uint8_t* payload);
  /** An RDMA completion: true if it names one of the parent rCxts (nothing to do then). */
  bool OnCompletion(const abi::CompletionRecord& c) const;
  /** No contribution in progress either way (a clear-to-send waiting for its data is not
   *  one: its parent's contribution is). */
  bool Idle() const {
    if (!ins_.empty()) return false;
    for (const auto& [key, out] : outs_) {
      if (out.ready) return false;
    }
    return true;
  }

 private:
  /** (peer task, context, seq): one contribution, as both sides name it. */
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  /** Parent side of one contribution. */
  struct In {
    Key key;
    uint64_t len = 0;
    uint32_t unit = 1;
    CombineFn combine;
    std::function<void()> on_done;
    uint32_t rcxt = abi::kNoRcxt;
    /** Each attempt's tid -> the contribution offset its transfer starts at. */
    std::map<uint32_t, uint64_t> attempts;
    /** The bytes the last clear-to-send asked for. */
    ByteRanges::Range asked{0, 0};
    /** Bytes that have arrived (staged) and bytes combined into the accumulator. */
    ByteRanges landed;
    ByteRanges combined;
    /** The arrived bytes: each FIFO frame is given back at once, and an element a packet
     *  boundary splits waits here for its other part. */
    std::vector<uint8_t> staged;
    /** Packets that had come when the watch timer last looked, consecutive looks without
     *  progress, and the look the armed timer belongs to. */
    uint64_t arrivals_at_look = 0;
    uint32_t stalls = 0;
    uint32_t look = 0;
    /** Packets that came for this contribution, the first's and the last's arrival: the
     *  contribution's own pace, which the watch interval follows. */
    uint64_t arrivals = 0;
    uint64_t first_arrival_ps = 0;
    uint64_t last_arrival_ps = 0;
    /** The child has started writing: the watch timer runs. */
    bool watching = false;
  };
  /** Child side of one contribution: what to write, once the data and a clear-to-send are here. */
  struct Out {
    uint64_t vaddr = 0;
    uint64_t len = 0;
    bool ready = false;
    std::vector<RegistrationCache::Span> spans;
    std::function<void()> on_done;
    /** The newest clear-to-send (tid 0: none yet) and the tid last written. */
    ReduceCtsBody cts{};
    uint32_t written_tid = 0;
    /** Source rCxt of the last write (cancelled if a newer clear-to-send replaces it). */
    uint32_t source = abi::kNoRcxt;
    /** The started notice has gone. */
    bool started = false;
  };

  void SendCts(In& in, uint64_t base, uint64_t len);
  void ArmWatch(In& in);
  /** Sends a clear-to-send, with a newer tid, for the first gaps, at most a chunk (`stalled`:
   *  the watch found no progress). */
  void AskForGaps(In& in, bool stalled);
  /** The child's write has begun: starts the watch (once). */
  void StartWatch(In& in);
  void OnWatch(const Key& key, uint32_t look);
  /** Combines the whole elements of `in` that the new bytes [begin, end) completed. */
  void CombineCompleted(In& in, uint64_t begin, uint64_t end);
  /** Every byte combined: tells the child, frees the rCxt, runs on_done after the CPU time. */
  void Finish(Key key);  // by value: callers pass in.key, and Finish erases `in`
  /** Posts the write the newest clear-to-send asks for, if the data is there. */
  void Write(const Key& key, Out& out);
  /** Sends the started notice once the adapter has taken the contribution's first write. */
  void AnnounceWhenTaken(const Key& key);
  /** Stops the last write of `out` if the adapter is still sending it. */
  void CancelSending(const Out& out);
  /** An idle source rCxt (a new one if all are busy). */
  uint32_t SourceRcxt();
  uint32_t TargetRcxt();

  TransportContext& ctx_;
  ReliableSender& packets_;
  HostCopyTime copies_;
  std::map<Key, In> ins_;
  /** Parent rCxt reference -> the contribution it is taking in. */
  std::map<uint32_t, Key> in_of_rcxt_;
  std::map<Key, Out> outs_;
  /** Contributions the child finished lately: a late duplicate clear-to-send for one of them
   *  must not open it again. */
  std::set<Key> finished_;
  std::deque<Key> finished_order_;
  /** Tids this parent hands out: one counter for every rCxt, so each only ever rises. */
  uint32_t next_tid_ = 1;
  /** Parent rCxts free for the next contribution, and every one held. */
  std::vector<uint32_t> free_targets_;
  std::vector<uint32_t> targets_;
  /** Child source rCxts and the tid last posted on each (idle once the adapter holds it). */
  std::map<uint32_t, uint32_t> sources_;
};

}  // namespace nicsim::ulp
