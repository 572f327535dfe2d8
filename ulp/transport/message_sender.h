// SPDX-License-Identifier: Apache-2.0
// The sending side of messages: a message goes eagerly in packet mode or is offered by RTS for
// the receiver to pull; it ends when every fragment is acknowledged, or when the receiver says
// its pull is done (or asks for the bytes to be pushed instead). A destination that stops
// answering fails every message to it.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <unordered_map>
#include <vector>

#include "ulp/transport/eager_rdma.h"
#include "ulp/transport/message_states.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/transport_config.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * Every message this task sends, from Send to its on_done (or its failure): eager (fragments
 * in packet mode), offered (an RTS names its registered buffer and rCxts), pushed (the reader
 * declined: fragments after all) or done (the reader's pull finished). Its packets go through
 * the ReliableSender, which says when one is acknowledged.
 */
class MessageSender {
 public:
  /** Called once per destination that stops answering, with its messages that failed. */
  using UnreachableFn =
      std::function<void(uint32_t dest_task, const std::vector<FailedMessage>& failed)>;

  MessageSender(const TransportContext& ctx, ReliableSender& packets);

  /** Sends `len` bytes at `vaddr`; `on_done` runs once the receiver holds them all. */
  void Send(uint32_t dest, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
            std::function<void()> on_done) {
    Start(dest, context, tag, vaddr, len, /*announce=*/false, std::move(on_done));
  }
  /**
   * Offers `len` bytes at `vaddr` by an RTS that awaits the receiver's accept
   * (kRtsAwaitsAccept), whatever its size: with the registered buffer and rCxts when it is
   * larger than rdma_threshold and they can be had, else with none (the receiver then asks for
   * the bytes in packet mode). `on_done` runs once the receiver holds them all, so never
   * before it accepted.
   */
  void Announce(uint32_t dest, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
                std::function<void()> on_done) {
    Start(dest, context, tag, vaddr, len, /*announce=*/true, std::move(on_done));
  }
  /** The receiver's done or fallback notice `h` (already acknowledged) arrived. */
  void OnControl(const Header& h);
  /**
   * A reader asks (kRdmaQuery `h`, through `port`) whether its late read of an offered
   * message reached the rCxt it named: answered from that rCxt's record (kRdmaStatus).
   */
  void OnRdmaQuery(uint32_t port, const Header& h);
  /** True if the receiver's done or fallback notice for message `seq` to `dest` has arrived
   *  (or the message is over: nothing waits for one). */
  bool HasNotice(uint32_t dest, uint32_t seq) const;
  /** A window of the task's was rebuilt (reopened after it became fatal, or its adapter
   *  recovered): the rCxts offered before it no longer serve reads. */
  void OnWindowRebuilt() { ++windows_rebuilt_; }
  /** A fragment or the RTS of message `seq` to `dest` was acknowledged. */
  void OnPacketAcked(uint32_t dest, uint32_t seq);
  /** Messages that fit go by eager RDMA through `ring` (null: never). */
  void UseRing(EagerRdma* ring) { ring_ = ring; }
  /** The receiver delivered message `seq`, sent by eager RDMA, to `dest`. */
  void OnRingDelivered(uint32_t dest, uint32_t seq);
  /** The eager RDMA write of message `seq` to `dest` was given up: it goes in packet mode. */
  void OnRingFellBack(uint32_t dest, uint32_t seq);
  /** `dest` stopped answering: its messages fail and its packets are dropped. */
  void GiveUp(uint32_t dest);

  void OnUnreachable(UnreachableFn fn) { unreachable_fn_ = std::move(fn); }
  /** Every message given up so far, in the order they failed. */
  const std::vector<FailedMessage>& failed() const { return failed_; }
  /** Messages sent whose on_done has not run yet. */
  size_t size() const { return msgs_.size(); }
  bool empty() const { return msgs_.empty(); }
  /** Messages in progress per state. */
  OutStateCounts CountByState() const;

 private:
  struct OutMsg {
    uint32_t dest = 0;
    uint32_t seq = 0;
    uint32_t context = 0;
    uint32_t tag = 0;
    uint64_t vaddr = 0;
    uint64_t len = 0;
    /** Packets of this message not yet acknowledged. */
    uint32_t unacked = 0;
    OutState state = OutState::kEager;
    /** RDMA: the rCxt of each pipeline slot (slot s on port s % ports). */
    std::vector<uint32_t> rcxts;
    /** RDMA: windows_rebuilt_ when the rCxts were taken. */
    uint64_t windows_at_offer = 0;
    /** Offered by an RTS that awaits the receiver's accept (Announce). */
    bool announce = false;
    std::function<void()> on_done;
  };

  void Start(uint32_t dest, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
             bool announce, std::function<void()> on_done);
  /** Send after the send overhead has passed: announced, offered by RDMA if it can be, else
   *  eager. */
  void StartSend(uint64_t msg_key);
  /** Registers m's buffer and takes its rCxts (two per pipeline slot) into `spans` and
   *  m.rcxts; false, with nothing held, if either cannot be had. */
  bool TakeRdma(OutMsg& m, std::vector<RegistrationCache::Span>& spans);
  void SendEager(OutMsg& m);
  /** The RTS of offered message `m` (no spans and no rCxts: an announcement without RDMA). */
  void SendRts(OutMsg& m, const std::vector<RegistrationCache::Span>& spans);
  void MaybeFinish(uint64_t msg_key);
  void Finish(uint64_t msg_key);
  /** True if `m` was offered by RTS (it holds a registration and rCxts). */
  static bool Offered(const OutMsg& m) {
    return m.state != OutState::kEager && m.state != OutState::kRing;
  }
  /** Releases what an RDMA message holds (registration, rCxts; an announcement without RDMA
   *  holds neither). */
  void ReleaseRdma(OutMsg& m);

  static uint64_t MsgKey(uint32_t dest, uint32_t seq) { return (uint64_t{dest} << 32) | seq; }

  const TransportContext ctx_;
  ReliableSender& packets_;
  EagerRdma* ring_ = nullptr;
  UnreachableFn unreachable_fn_;
  /** Destinations given up on. */
  std::set<uint32_t> unreachable_;
  std::vector<FailedMessage> failed_;
  std::unordered_map<uint32_t, uint32_t> next_seq_;
  /** Windows rebuilt so far (OnWindowRebuilt). */
  uint64_t windows_rebuilt_ = 0;
  /** By MsgKey. GiveUp walks it (releasing rCxts in its order), so it stays this map. */
  std::unordered_map<uint64_t, OutMsg> msgs_;
};

}  // namespace nicsim::ulp
