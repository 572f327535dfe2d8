// SPDX-License-Identifier: Apache-2.0
// Eager RDMA with multi-phase buffer enlargement (reference 001; docs/ulp.md): each
// (source, destination) connection gets, on first use, a ring of small slots in the
// receiver's memory; a message that fits a slot goes by one RDMA write framed by head and tail
// flags. A message that needs larger slots starts the enlargement: the sender asks for a large
// ring, the receiver provisions and registers it and answers with its address framed by the
// same flags, the sender switches once they match, and the small ring is freed once no write
// to it is in flight. An idle large connection shrinks back the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "hal/task_host.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/rtt_estimator.h"
#include "ulp/transport/source_rcxts.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * Both sides of this task's eager RDMA connections. As a sender it owns, per destination, the
 * ring it writes (a registered staging area here, the receiver's slots there) and the writes in
 * flight, each redriven with a newer tid until the receiver acknowledges its delivery. As a
 * receiver it owns, per source, the rings it provisioned, checks each landed slot's flags and
 * hands the message on once. Messages keep the connection's sequence numbers, so the
 * MessageReceiver puts eager messages in order with those sent in packet mode or by RTS: the
 * switch from one ring to the next loses or reorders nothing.
 */
class EagerRdma {
 public:
  struct Events {
    /** Receiver: message `seq` from `src` landed whole (once per message). */
    std::function<void(uint32_t src, uint32_t seq, uint32_t context, uint32_t tag,
                       std::vector<uint8_t> data)>
        landed;
    /** Sender: the receiver delivered message `seq` to `dest`: it is done. */
    std::function<void(uint32_t dest, uint32_t seq)> delivered;
    /** Sender: the write of message `seq` to `dest` was given up after ulp.eager_redrives
     *  redrives: the caller sends it the usual way (the receiver keeps whichever copy lands
     *  first). */
    std::function<void(uint32_t dest, uint32_t seq)> fell_back;
  };

  EagerRdma(const TransportContext& ctx, ReliableSender& packets, Events events);
  ~EagerRdma();
  EagerRdma(const EagerRdma&) = delete;
  EagerRdma& operator=(const EagerRdma&) = delete;

  /**
   * Sender: sends message `seq` (`len` bytes at `vaddr`) to `dest` by one write into a free
   * slot of the connection's ring if it fits; true if it did (Events::delivered ends it).
   * False: the caller sends it the usual way. A message that fits a large slot but not the
   * ring now starts the enlargement (the message itself goes the usual way meanwhile); the
   * first message to a destination makes its connection.
   */
  bool TrySend(uint32_t dest, uint32_t seq, uint32_t context, uint32_t tag, uint64_t vaddr,
               uint64_t len);
  /** Receiver: a ring request (Kind::kEagerOpen, already acknowledged). */
  void OnOpen(const Header& h);
  /** Sender: the receiver's answer (Kind::kEagerReady, already acknowledged). */
  void OnReady(const Header& h, const uint8_t* body, uint32_t len);
  /** Sender: a write was delivered (Kind::kEagerAck). */
  void OnAck(const Header& h);
  /** Receiver: the sender will not write ring generation h.seq again (Kind::kEagerRelease). */
  void OnRelease(const Header& h);
  /** An RDMA completion: true if it named a ring slot's rCxt (and was handled). */
  bool OnCompletion(const abi::CompletionRecord& c);
  /** `dest` stopped answering: its writes are dropped (the MessageSender fails them). */
  void GiveUp(uint32_t dest);
  /** No write waits for its acknowledgement and no ring request for its answer. */
  bool Idle() const;

  /** Slot bytes of the ring this task writes to `dest` now (0: none yet). */
  uint64_t SlotBytesTo(uint32_t dest) const;
  /** Where the ring `src` writes to this task lies now, for tests: PVO of slot 0 and the
   *  slots' rCxts (empty if none). */
  std::pair<uint64_t, std::vector<uint32_t>> RingFrom(uint32_t src) const;

 private:
  /** One generation of a connection's ring, seen from one side. */
  struct Ring {
    uint32_t generation = 0;
    uint64_t slot_bytes = 0;
    uint32_t slots = 0;
    /** This task's area: the receiver's slots, or the sender's staging copy of them. */
    uint64_t vaddr = 0;
    driver::Registration reg{};
    /** Sender: where the receiver's slots are. Receiver: its slots' rCxts. */
    uint64_t remote_pvo = 0;
    std::vector<uint32_t> rcxts;
  };
  /** A write in flight until its acknowledgement. */
  struct Flight {
    uint32_t generation = 0;
    uint32_t slot = 0;
    uint32_t seq = 0;
    uint32_t length = 0;
    uint32_t attempt = 0;
    /** When its first attempt was posted: the round trip its acknowledgement measures. */
    uint64_t posted_ps = 0;
    /** Given up (its message went in packet mode): it keeps its slot until no attempt of it
     *  can still land, and an acknowledgement still ends it. */
    bool abandoned = false;
  };
  struct OutConn {
    /** The ring written now, and older ones with writes still in flight. */
    std::optional<Ring> ring;
    std::map<uint32_t, Ring> retiring;
    /** The generation asked for and not answered yet (0: none) and its slot size. */
    uint32_t requested = 0;
    uint64_t requested_slot = 0;
    uint32_t next_generation = 1;
    /** Slot sizes the receiver refused: not asked for again. */
    std::vector<uint64_t> refused;
    /** Ring index of the next write (its tids are index * kEagerAttempts + a count). */
    uint32_t next_index = 1;
    std::map<uint32_t, Flight> flights;
    uint64_t last_use_ps = 0;
    bool shrink_armed = false;
  };
  struct InRing {
    Ring ring;
    /** Per slot: the ring index last delivered from it. */
    std::vector<uint32_t> delivered;
  };
  struct InConn {
    std::map<uint32_t, InRing> rings;
    /** Newest generation provisioned. */
    uint32_t newest = 0;
  };
  struct SlotRef {
    uint32_t src;
    uint32_t generation;
    uint32_t slot;
  };

  /** Asks `dest` for a ring of `slot_bytes` slots (generation next). */
  void Request(uint32_t dest, OutConn& conn, uint64_t slot_bytes);
  /** The ring of `conn` with `generation` (the one written now or one retiring), or nullptr. */
  static const Ring* StagingOf(const OutConn& conn, uint32_t generation);
  /** Posts write `index` of `conn` (its staging slot is written). */
  void Post(uint32_t dest, OutConn& conn, uint32_t index);
  /** The wait before write `index` to `dest` is redriven: the measured round trip (at least
   *  the RDMA timeout's base) plus its bytes at the RDMA timeout's pace, doubled per attempt,
   *  at most ulp.rto_max. */
  uint64_t RedriveWait(uint32_t dest, uint32_t attempt, uint32_t length) const;
  void ArmRedrive(uint32_t dest, uint32_t index, uint32_t attempt, uint32_t length);
  void OnRedrive(uint32_t dest, uint32_t index, uint32_t attempt);
  /** Gives write `index` to `dest` up: its message goes the usual way; its slot is free
   *  again after ulp.rto_max (EndAbandoned). */
  void Abandon(uint32_t dest, OutConn& conn, uint32_t index);
  void EndAbandoned(uint32_t dest, uint32_t index);
  /** Retires generation `gen` of `conn` once no write to it is in flight. */
  void MaybeRetire(uint32_t dest, OutConn& conn, uint32_t gen);
  void ArmShrink(uint32_t dest, OutConn& conn);
  void OnShrinkTimer(uint32_t dest);
  /** Maps and registers `bytes` of this task's memory for a ring; false if it cannot. */
  bool Provide(Ring& r);
  /** Deregisters a ring's area and gives its rCxts back. */
  void Withdraw(Ring& r);
  /** Keeps `r` registered for ulp.rto_max before it is released (EndLinger): a write the
   *  fabric or the send FIFO still holds finds it in place. `landing`: a receive ring. */
  void Linger(Ring r, bool landing);
  /** Releases lingering ring `id`: deregistered, a receive ring's rCxts given back. */
  void EndLinger(uint64_t id);
  void SendReady(uint32_t src, const Ring& r);
  void SendAck(uint32_t src, uint32_t generation, uint32_t index);
  /** The tid of `f`'s current attempt. Each attempt of a write of one packet takes a newer
   *  tid: a repeat of a tid that landed is dropped by the adapter unanswered, and what is
   *  most often missing is the answer (an acknowledgement behind the receiver's sends, a
   *  completion its full receive FIFO lost). So does the first redrive of a larger write;
   *  after that, loss is the likely cause, and a write of several packets keeps each newer
   *  tid for kFillPasses attempts: the target's landing map keeps what landed, so each pass
   *  needs only the packets still missing, where a newer tid starts over and under loss
   *  would rarely get all of a large write through. */
  uint32_t TidOf(uint32_t index, const Flight& f) const;
  static constexpr uint32_t kFillPasses = 3;

  static constexpr uint32_t kPort = 0;
  const TransportContext ctx_;
  ReliableSender& packets_;
  Events events_;
  SourceRcxts sources_;
  /** Post-to-acknowledgement round trips per destination (writes sent once only): the
   *  acknowledgement is a packet that may wait behind the receiver's own sends, so a fixed
   *  timeout redrives writes that have landed. */
  RttEstimator rtt_;
  std::unordered_map<uint32_t, OutConn> out_;
  std::unordered_map<uint32_t, InConn> in_;
  /** Landing rCxt reference -> its ring slot. */
  std::unordered_map<uint32_t, SlotRef> slot_of_;
  /** Rings given up (receive rings and staging areas), kept registered for the longest
   *  retransmit timeout before they are released, and the receive rings' rCxts. */
  struct Lingering {
    Ring ring;
    bool landing;
  };
  std::map<uint64_t, Lingering> lingering_;
  std::set<uint32_t> lingering_refs_;
  uint64_t next_lingering_ = 0;
};

}  // namespace nicsim::ulp
