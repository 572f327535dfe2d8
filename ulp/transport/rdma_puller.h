// SPDX-License-Identifier: Apache-2.0
// RDMA pulls, the reading side of a message offered by RTS: cut into chunks, read over the
// pipeline slots within this task's in-flight budget, each chunk redriven when it times out
// or is overtaken, split when it keeps failing, and the whole pull given up (the sender pushes
// the bytes instead) when RDMA cannot get through.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi/rdma.h"
#include "ulp/transport/buffer_pool.h"
#include "ulp/transport/chunk_sizer.h"
#include "ulp/host_copy_time.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * Every pull in progress at this task, keyed by (source, seq). A pull lands in an area of the
 * landing pool, reads the source's registered buffer with RDMA reads on local rCxts (one per
 * pipeline slot, slot s on port s % ports) and paces its timeouts by what each source's
 * completions measured. It ends in one of three ways: every byte landed (the sender is told
 * done, the receiver gets the bytes), it is given up (the sender is asked to push, the
 * receiver told so), or the receiver ends it because the bytes are being pushed already.
 */
class RdmaPuller {
 public:
  /** What the puller tells the receiver. */
  struct Events {
    /** Every byte of message `seq` from `src` landed (the sender was told done). */
    std::function<void(uint32_t src, uint32_t seq, std::vector<uint8_t> data)> landed;
    /** The pull of message `seq` from `src` was given up: the sender will push it. */
    std::function<void(uint32_t src, uint32_t seq)> abandoned;
    /** Direct read `seq` from `src` ended: every byte landed (`data`: none if in place) or it
     *  was given up; `last_tid` is the newest tid its attempts took. */
    std::function<void(uint32_t src, uint32_t seq, uint32_t last_tid, bool landed,
                       std::vector<uint8_t> data)>
        read_ended;
  };

  RdmaPuller(const TransportContext& ctx, ReliableSender& packets, Events events);

  /**
   * `src` offers message `seq` of `total` bytes by RTS: pull it, or decline at once. A
   * non-zero `in_place` is where in the task's memory it lands (the receiver's buffer, no
   * copy: `landed` then gets no bytes), else it lands in an area of the landing pool.
   */
  void Offer(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts, uint64_t in_place = 0);
  /**
   * Reads `total` bytes of `src`'s registered memory where `rts` says (its span, the rCxts of a
   * read channel pair), with tids after `first_tid`, as direct read `seq` (IsReadSeq): no
   * message of the source's is involved, so no done or fallback notice goes to it, and
   * Events::read_ended tells how it ended. `in_place` as for Offer.
   */
  void Read(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts, uint64_t in_place,
            uint32_t first_tid);
  /**
   * `src` announced message `seq` without RDMA (no rCxts: it had none for it): it is asked to
   * push the bytes, which is no fallback (nothing failed). The receiver is told as when a pull
   * is given up.
   */
  void Decline(uint32_t src, uint32_t seq);
  /** The sender is pushing message `seq` already: the pull ends without a word to anyone. */
  void End(uint32_t src, uint32_t seq);
  /** A source answered (kRdmaStatus) what its rCxt holds of a late read of ours. */
  void OnStatus(const Header& h);
  /** An RDMA completion arrived on `port`. */
  void OnCompletion(uint32_t port, const abi::CompletionRecord& c);
  /**
   * Port `port`'s window was closed and reopened (it had become fatal): every read it had in
   * flight is cancelled and posted again with a higher tid, with no penalty (no split, no
   * attempt counted: the reads did not fail, the window did).
   */
  void RedrivePort(uint32_t port);

 private:
  /** What the source said of a late attempt: nothing asked yet, asked with no answer so
   *  far, queued or being sent there, every packet sent. */
  enum class Probe : uint8_t { kNone, kAsked, kSending, kSent };
  struct Chunk {
    uint64_t offset = 0;
    uint64_t len = 0;
    uint32_t attempts = 0;
    /** How long this attempt may take before the source is asked about it, and again between
     *  two questions. */
    uint64_t timeout_ps = 0;
    Probe probe = Probe::kNone;
    /** Questions about this attempt in a row that got no answer within a timeout. */
    uint32_t unanswered = 0;
    /** Questions in a row answered "sending" with no more bytes sent than before, and the
     *  most bytes the source said it had sent. */
    uint32_t stalled = 0;
    uint32_t source_sent = 0;
    /** Questions asked about this attempt (a timer set before the latest one is stale). */
    uint32_t questions = 0;
    /** A later chunk of its message on its port completed first. */
    bool overtaken = false;
    /** Post order within its message (a later chunk on the same port completing first
     *  overtakes it). */
    uint32_t order = 0;
    /** When it was posted (a loss it meets cuts the budget only if it was posted after the
     *  last cut). */
    uint64_t posted_ps = 0;
  };
  struct Pull {
    uint64_t total = 0;
    RtsBody rts{};
    uint64_t landing = 0;
    uint64_t landing_len = 0;
    /** The landing is the receiver's own buffer (not the pool's; nothing is copied out). */
    bool in_place = false;
    /** A direct read (Read), not a message's pull; its tids start after first_tid. */
    bool read = false;
    uint32_t first_tid = 0;
    std::vector<RegistrationCache::Span> landing_spans;
    std::vector<uint32_t> local_rcxts;
    std::vector<uint32_t> slot_tid;
    /** Chunk in flight per pipeline slot (len 0: slot free). */
    std::vector<Chunk> in_flight;
    std::vector<uint32_t> slot_generation;
    /** Per slot: 1 when its reads name the slot's spare rCxt at the sender (see RtsBody). */
    std::vector<uint8_t> slot_spare;
    /** Chunks of this message posted so far (the next one's order). */
    uint32_t posted = 0;
    std::deque<Chunk> todo;
    uint64_t landed = 0;
  };
  using PullMap = std::unordered_map<uint64_t, Pull>;
  /** Local rCxt reference -> (source, seq, slot) of the pull it serves. */
  struct SlotRef {
    uint32_t src;
    uint32_t seq;
    uint32_t slot;
  };
  enum class RedriveCause { kTimeout, kOvertaken, kNotThere };

  static uint64_t PullKey(uint32_t src, uint32_t seq) { return (uint64_t{src} << 32) | seq; }
  /** Owner-map key of a local rCxt of a port. */
  static uint64_t RcxtKey(uint32_t port, uint32_t ref) { return (uint64_t{port} << 32) | ref; }

  /** Starts pulling (src, seq): a message offered (Offer) or a direct read (Read). */
  void Begin(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts, uint64_t in_place,
             bool read, uint32_t first_tid);
  void StartPull(uint32_t src, uint32_t seq, Pull& m);
  /** Posts the next chunk of `m` on a free slot if the in-flight budget allows; true if
   *  one was posted. */
  bool IssueChunk(uint32_t src, uint32_t seq, Pull& m);
  /** Issues chunks of every pull in progress, oldest first, within the in-flight budget. */
  void IssueAllPulls();
  /** A chunk posted at `posted_ps` was lost: the budget is halved, once per loss event. */
  void CutBudget(uint64_t posted_ps);
  /** A chunk of `len` bytes landed: the budget grows back towards rdma_inflight_bytes. */
  void GrowBudget(uint64_t len);
  /** A chunk left flight (completed, split or given up): its bytes leave the budget. */
  void ChunkLanded(uint64_t len);
  void PostChunk(uint32_t src, uint32_t seq, Pull& m, uint32_t slot);
  /** How long `bytes` take through this task's link at rdma_timeout_ps_per_byte. */
  uint64_t LinkTime(uint64_t bytes) const;
  /** Arms the late timer of the attempt in `slot` (its generation now) for its timeout. */
  void ArmLate(uint32_t src, uint32_t seq, const Pull& m, uint32_t slot);
  /**
   * The attempt `generation` in `slot` is late (`question`: the questions asked when the timer
   * was set): the source is asked whether the read reached it, as a queue at the source is
   * not a loss. Redriven when questions went unanswered, the read stalled there, or the
   * source had sent every packet and they have not all landed.
   */
  void OnLate(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation, uint32_t question);
  /** Asks the source about the attempt in `slot` (kRdmaQuery) and arms the late timer. */
  void Ask(uint32_t src, uint32_t seq, Pull& m, uint32_t slot);
  /** A later chunk overtook the attempt `generation` in `slot`: the source is asked now. */
  void OnOvertaken(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation);
  /** Pull (src, seq) while `slot` still holds its attempt `generation` in flight, else null
   *  (the attempt completed or was given up: its timers end here). */
  Pull* Attempt(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation);
  /** The source's rCxt number an attempt in `slot` names (kRdmaQuery's offset). */
  uint32_t SourceRcxtIndex(const Pull& m, uint32_t slot) const {
    return slot + m.slot_spare[slot] * (m.rts.rcxts / 2);
  }
  /** Gives up the chunk in `slot` (if still the attempt `generation`) and posts it again. */
  void Redrive(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation, RedriveCause cause);
  /** Gives up pulling (`m`: the pull, if it started): the sender is asked to push. */
  void FallBack(uint32_t src, uint32_t seq, Pull* m);
  /** Releases what the pull holds (landing area, registration, rCxts, budget) and forgets
   *  it. */
  void EndPull(PullMap::iterator it);
  /** Gives landed bytes `to` their taker: at once when nothing was copied out (in place, or
   *  copies are free), else once the CPU's copy of `data` is done. */
  void HandOver(std::vector<uint8_t> data, std::function<void(std::vector<uint8_t>)> to);
  /** The newest tid `m`'s attempts took. */
  static uint32_t LastTid(const Pull& m);
  /** Cancels slot `slot`'s attempt at its rCxt (what still arrives of it must not count). */
  void CancelSlot(uint32_t seq, const Pull& m, uint32_t slot);
  /** Gives up slot `slot`'s attempt (cancelled, its slot and budget freed); its chunk. */
  Chunk Withdraw(uint32_t seq, Pull& m, uint32_t slot);

  const TransportContext ctx_;
  ReliableSender& packets_;
  Events events_;
  /** Consecutive RDMA chunk timeouts per port: a port that keeps failing gets no chunks. */
  std::vector<uint32_t> port_failures_;
  /** Pulls in progress by PullKey (found by key only; order_ gives their order). */
  PullMap pulls_;
  /** Pulls in progress, oldest first: (source, seq); ended ones drop out when met. */
  std::deque<std::pair<uint32_t, uint32_t>> order_;
  std::unordered_map<uint64_t, SlotRef> rcxt_owner_;
  uint64_t pull_bytes_in_flight_ = 0;
  /** The size chunks are cut to as they are posted, from the loss their reads meet. */
  ChunkSizer sizer_;
  /**
   * Bytes of reads this task may have in flight: rdma_inflight_bytes at first, halved when a
   * chunk is lost (the switch port in front of this node dropped what it could not hold, or
   * the answer came too late), grown back by about one chunk per budget's worth landed. A
   * node's readers share its link and its switch port: together they settle at what those
   * carry without loss.
   */
  uint64_t budget_ = 0;
  /** When the budget was last cut. */
  uint64_t cut_at_ps_ = 0;
  /** Landing areas of pulls (they stay mapped and registered for reuse). */
  BufferPool landing_;
  /** When this task's CPU is done copying landed messages out. */
  HostCopyTime copies_;
};

}  // namespace nicsim::ulp
