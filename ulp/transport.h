// SPDX-License-Identifier: Apache-2.0
// A LAPI-style reliable transport for one task over one window. Small messages go in packet
// mode: fragments with sequence numbers, per-fragment acknowledgements, retransmission with
// back-off, duplicate suppression. Large messages go by RDMA: the sender registers the buffer
// (lazily, through the registration cache) and sends a request-to-send; the receiver reads
// the data in chunks, pipelined over several rCxts, each chunk redriven with a higher tid and
// a growing timeout when its completion does not come, halved when it keeps failing, and the
// whole message falls back to packet mode when RDMA cannot get through (a dead path, an
// adapter recovery, heavy loss). Every message is delivered exactly once and in order per
// (source, destination).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/counter_table.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "ulp/buffer_pool.h"
#include "ulp/registration_cache.h"
#include "ulp/wire.h"

namespace nicsim::ulp {

struct TransportConfig {
  /** This task's rank. */
  uint32_t task = 0;
  /** RDMA for messages above rdma_threshold bytes; off sends everything in packet mode. */
  bool rdma = true;
  uint64_t rdma_threshold = 16 * 1024;
  /** First chunk size of an RDMA read; a failing chunk is halved down to one packet. */
  uint32_t rdma_chunk = 256 * 1024;
  /** Chunks in flight per message (rCxt pairs). */
  uint32_t rdma_pipeline = 4;
  /** Bytes of RDMA reads in flight at once over all messages this task receives. */
  uint64_t rdma_inflight_bytes = 2u << 20;
  /** Tries of a one-packet chunk before the message falls back to packet mode. */
  uint32_t rdma_attempts = 6;
  /**
   * Packet-mode retransmit timeout before any round trip is measured; afterwards the
   * timeout follows the measured round trip (srtt + 4 rttvar, at least rto_min_ps). Doubled
   * per retry up to rto_max_ps.
   */
  uint64_t rto_ps = 200'000'000;
  uint64_t rto_min_ps = 20'000'000;
  uint64_t rto_max_ps = 2'000'000'000;
  /**
   * Sends of one reliable packet without an acknowledgement after which its destination is
   * unreachable: every message to it fails (OnUnreachable) and nothing more is sent there.
   */
  uint32_t max_retransmits = 64;
  /** RDMA chunk timeout: base plus this task's bytes of RDMA reads in flight times a pace,
   *  doubled per attempt. The pace is measured per source from its completed chunks and
   *  never below rdma_timeout_ps_per_byte; before a source's first completion it is that
   *  pace times the readers the source serves (its RTS says how many): under all-to-all
   *  incast the source's link carries every reader's reads, not only this task's. */
  uint64_t rdma_timeout_base_ps = 60'000'000;
  double rdma_timeout_ps_per_byte = 2000.0;
  /**
   * A chunk overtaken by a later chunk of its message on the same port is redriven if it
   * has not completed this long after plus its own time at the source's pace (the
   * fabric's paths reorder packets by less).
   */
  uint64_t rdma_reorder_window_ps = 20'000'000;
  /** Unacknowledged packets in flight per destination. */
  uint32_t window = 48;
  /** Host CPU time the protocol stack spends per message sent and per message delivered
   *  (the software path of LAPI and MPI on the node). */
  uint64_t send_overhead_ps = 0;
  uint64_t recv_overhead_ps = 0;
};

struct TransportStats {
  uint64_t messages_sent = 0;
  uint64_t messages_delivered = 0;
  uint64_t packets_sent = 0;
  uint64_t retransmits = 0;
  uint64_t duplicates = 0;
  uint64_t rdma_messages = 0;
  uint64_t rdma_chunks = 0;
  uint64_t rdma_redrives = 0;
  uint64_t rdma_redrives_timeout = 0;
  uint64_t rdma_redrives_overtaken = 0;
  uint64_t rdma_splits = 0;
  uint64_t fallbacks = 0;
  uint64_t messages_failed = 0;

  /** Every figure with its stats.json name and meaning, in one table: totals, reports and
   *  docs loop over it. */
  static constexpr auto Fields() {
    using S = TransportStats;
    return std::array<CounterField<S>, 13>{{
        {"messages_sent", &S::messages_sent, "messages handed to the transport"},
        {"messages_delivered", &S::messages_delivered, "messages delivered to the receiver, once each"},
        {"messages_failed", &S::messages_failed,
         "messages given up because their destination stopped answering"},
        {"packets_sent", &S::packets_sent, "reliable packets sent, retransmissions included"},
        {"retransmits", &S::retransmits, "packets sent again after their timeout"},
        {"duplicates_suppressed", &S::duplicates, "packets that arrived again and were dropped"},
        {"rdma_messages", &S::rdma_messages, "messages offered for RDMA (their request to send went out)"},
        {"rdma_chunks", &S::rdma_chunks, "RDMA read chunks posted, redrives included"},
        {"rdma_redrives", &S::rdma_redrives, "RDMA chunks given up and posted again, all causes"},
        {"rdma_redrives_timeout", &S::rdma_redrives_timeout,
         "redrives whose completion did not come within the chunk timeout"},
        {"rdma_redrives_overtaken", &S::rdma_redrives_overtaken,
         "redrives of a chunk that a later chunk on the same port overtook (a lost packet is "
         "likely)"},
        {"rdma_splits", &S::rdma_splits, "chunks halved after a failure"},
        {"fallbacks", &S::fallbacks, "RDMA messages finished in packet mode instead (the reader gave up or declined)"},
    }};
  }

  /** Adds another task's figures (job totals). */
  TransportStats& operator+=(const TransportStats& o) {
    for (const auto& field : Fields()) this->*field.member += o.*field.member;
    return *this;
  }
};

/** A message the transport gave up on: its destination never acknowledged a packet of it. */
struct FailedMessage {
  uint32_t dest_task = 0;
  uint32_t seq = 0;
  uint64_t len = 0;
};

class Transport {
 public:
  /** `peer_of(task, i)` names the window task `task` receives on through its port i. */
  using PeerFn = std::function<hal::Peer(uint32_t task, uint32_t port)>;
  /**
   * One port per adapter the task uses (all on the same node): messages are spread over the
   * ports, a large message's RDMA chunks are striped over them, and traffic moves off a
   * port that stops working.
   */
  Transport(hal::TaskHost& host, std::vector<hal::Port*> ports, RegistrationCache& regs,
            const TransportConfig& config, PeerFn peer_of);
  /** A task with one port. */
  Transport(hal::TaskHost& host, hal::Port& port, RegistrationCache& regs, const TransportConfig& config,
            std::function<hal::Peer(uint32_t task)> peer_of);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  /** A whole message, delivered once, in order per source. */
  using DeliverFn = std::function<void(uint32_t src_task, uint32_t context, uint32_t tag,
                                       std::vector<uint8_t> data)>;
  /** Sets the delivery callback; returns the one it replaces (so a caller can wrap it). */
  DeliverFn OnDeliver(DeliverFn fn) { return std::exchange(deliver_, std::move(fn)); }

  /**
   * Called once per destination that stops answering (a packet sent max_retransmits times
   * without an acknowledgement), with every message to it that had not completed: those
   * messages never complete, and later sends to that destination fail at once.
   */
  using UnreachableFn = std::function<void(uint32_t dest_task,
                                           const std::vector<FailedMessage>& failed)>;
  void OnUnreachable(UnreachableFn fn) { unreachable_fn_ = std::move(fn); }
  /** Every message given up so far, in the order they failed. */
  const std::vector<FailedMessage>& failed() const { return failed_; }

  /**
   * Sends `len` bytes at `vaddr` of the task's memory. The buffer must stay unchanged until
   * `on_done`, which runs once the receiver holds the whole message.
   */
  void Send(uint32_t dest_task, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
            std::function<void()> on_done);

  /** Re-binds to the port's window after the window was rebuilt (adapter recovery). */
  void Reattach();
  /** Messages sent whose on_done has not run yet. */
  size_t pending_sends() const { return out_msgs_.size(); }
  /** True when nothing is in flight either way (no unacked packet, no RDMA in progress). */
  bool Idle() const;
  /**
   * Messages in progress by state, named "out.<state>" for those being sent (eager, offered,
   * pushed, done) and "in.<state>" for those being received (fragments, pulling, pushed,
   * complete); states with none are left out.
   */
  std::map<std::string, uint32_t> MessagesByState() const;
  const TransportStats& stats() const { return stats_; }
  const TransportConfig& config() const { return config_; }

 private:
  // ---- Sender side ------------------------------------------------------------------------
  /** A packet kept until acknowledged. */
  struct OutPacket {
    uint32_t dest = 0;
    std::vector<uint8_t> bytes;  // header + data
    uint64_t rto_ps = 0;
    uint32_t generation = 0;
    bool acked = false;
    bool sent = false;
    /** Port for the next transmission (each retransmission moves to the next port). */
    uint32_t port = 0;
    /** When it was last sent; an ack of a packet sent once is a round-trip sample. */
    uint64_t sent_ps = 0;
    bool retransmitted = false;
  };
  /** A smoothed mean and mean deviation (Jacobson/Karels: gains 1/8 and 1/4). */
  struct Smoothed {
    double mean = 0;
    double dev = 0;
    bool valid = false;
    void Add(double sample) {
      if (!valid) {
        mean = sample;
        dev = sample / 2;
        valid = true;
        return;
      }
      dev = 0.75 * dev + 0.25 * std::abs(mean - sample);
      mean = 0.875 * mean + 0.125 * sample;
    }
    /** The mean plus four deviations: what a timeout allows for. */
    double Bound() const { return mean + 4 * dev; }
  };
  /** Round-trip estimate per destination, in picoseconds. */
  struct RttEstimate {
    Smoothed rtt;
    /** The timeout a retransmission backed off to: new packets to the destination wait at
     *  least this long until an ack of a packet sent once gives a new sample (RFC 6298 5.5;
     *  without it, queueing longer than the estimate retransmits every packet, and those
     *  give no samples under Karn's rule, so the estimate never catches up). */
    uint64_t backoff_ps = 0;
  };
  /** The retransmit timeout for a first transmission to `dest`. */
  uint64_t RtoFor(uint32_t dest) const;
  /** Key of an OutPacket: (dest, kind, seq, offset). */
  struct PacketKey {
    uint32_t dest;
    uint8_t kind;
    uint32_t seq;
    uint32_t offset;
    bool operator<(const PacketKey& o) const;
  };
  /** Where a message being sent is in its life. */
  enum class OutState : uint8_t {
    /** Its fragments go in packet mode; it ends when all are acknowledged. */
    kEager,
    /** Its RTS offers the registered buffer; the receiver pulls it by RDMA. */
    kOffered,
    /** The receiver gave up pulling: its fragments are pushed in packet mode. */
    kPushed,
    /** The receiver said its pull is done. */
    kDone,
  };
  /** Where a message being received is in its life. */
  enum class InState : uint8_t {
    /** Its fragments arrive in packet mode. */
    kFragments,
    /** An RTS came: it is pulled by RDMA reads. */
    kPulling,
    /** The pull was given up: the sender pushes the fragments. */
    kPushed,
    /** Every byte is here; it waits for its turn to be delivered. */
    kComplete,
  };
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
    std::function<void()> on_done;
  };
  /** Send after the send overhead has passed. */
  void StartSend(uint64_t msg_key);
  void SendEager(OutMsg& m);
  void SendRts(OutMsg& m, const std::vector<RegistrationCache::Span>& spans);
  /** Queues a reliable packet (sent when the destination's window allows). */
  void QueueReliable(uint32_t dest, const Header& h, const uint8_t* data, uint32_t len);
  void PumpWindow(uint32_t dest);
  void Transmit(const PacketKey& key, OutPacket& p);
  void ArmRetransmit(const PacketKey& key, const OutPacket& p);
  void OnAck(const Header& h);
  void MaybeFinish(uint64_t msg_key);
  void FinishOut(uint64_t msg_key);
  /** `dest` stopped answering: its messages fail and its packets are dropped. */
  void GiveUp(uint32_t dest);
  /** Releases what an RDMA message holds (registration, rCxts). */
  void ReleaseRdma(OutMsg& m);

  // ---- Receiver side ----------------------------------------------------------------------
  struct Chunk {
    uint64_t offset = 0;
    uint64_t len = 0;
    uint32_t attempts = 0;
    /** Post order within its message (a later chunk on the same port completing first
     *  overtakes it). */
    uint32_t order = 0;
    /** When it was posted, and this task's reads in flight then (itself included): its
     *  completion samples how long its source takes per byte in flight. */
    uint64_t posted_ps = 0;
    uint64_t inflight_at_post = 0;
  };
  struct InMsg {
    uint32_t context = 0;
    uint32_t tag = 0;
    uint64_t total = 0;
    std::vector<uint8_t> data;
    InState state = InState::kFragments;
    std::set<uint32_t> fragments;
    uint64_t received = 0;
    // RDMA pull.
    RtsBody rts{};
    uint64_t landing = 0;
    uint64_t landing_len = 0;
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
  struct InConn {
    uint32_t next_deliver = 0;
    std::map<uint32_t, InMsg> msgs;
  };
  void OnFrame(uint32_t port, const abi::RecvFrameHeader& frame, const uint8_t* payload);
  void OnData(uint32_t port, const Header& h, const uint8_t* data);
  void OnRts(uint32_t port, const Header& h, const uint8_t* body, uint32_t len);
  void OnControl(uint32_t port, const Header& h);
  void OnCompletion(uint32_t port, const abi::CompletionRecord& c);
  void Ack(uint32_t port, uint32_t dest, const Header& h);
  /** The port a pipeline slot uses. */
  uint32_t SlotPort(uint32_t slot) const { return slot % static_cast<uint32_t>(ports_.size()); }
  /** Owner-map key of a local rCxt of a port. */
  static uint64_t RcxtKey(uint32_t port, uint32_t ref) { return (uint64_t{port} << 32) | ref; }
  void StartPull(uint32_t src, uint32_t seq, InMsg& m);
  /** Posts the next chunk of `m` on a free slot if the in-flight budget allows; true if
   *  one was posted. */
  bool IssueChunk(uint32_t src, uint32_t seq, InMsg& m);
  /** Issues chunks of every pull in progress, oldest first, within the in-flight budget. */
  void IssueAllPulls();
  /** A chunk left flight (completed, split or given up): its bytes leave the budget. */
  void ChunkLanded(uint64_t len);
  void PostChunk(uint32_t src, uint32_t seq, InMsg& m, uint32_t slot);
  enum class RedriveCause { kTimeout, kOvertaken };
  /** Gives up the chunk in `slot` (if still the attempt `generation`) and posts it again. */
  /** How long `bytes` of reads in flight may take from `src`: at the pace measured from its
   *  completions (never below rdma_timeout_ps_per_byte); before the first one, at that pace
   *  times the readers it serves through its one link (its RTSs say how many). */
  uint64_t SourcePaceTime(uint32_t src, const InMsg& m, uint64_t bytes) const;
  /** Picoseconds per byte of SourcePaceTime. */
  double SourcePace(uint32_t src, const InMsg& m) const;
  /** A chunk from `src` completed: its time per byte in flight updates the pace. */
  void SamplePace(uint32_t src, const Chunk& c);
  void Redrive(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation,
               RedriveCause cause);
  void FallBack(uint32_t src, uint32_t seq, InMsg& m);
  void EndPull(InMsg& m);
  void TryDeliver(uint32_t src);
  /** Sends an unsequenced control packet (done, fallback) reliably. */
  void SendControl(uint32_t dest, Kind kind, uint32_t seq);

  static uint64_t MsgKey(uint32_t dest, uint32_t seq) { return (uint64_t{dest} << 32) | seq; }
  uint32_t FragmentBytes() const;

  hal::TaskHost& host_;
  std::vector<hal::Port*> ports_;
  /** Consecutive RDMA chunk timeouts per port: a port that keeps failing gets no chunks. */
  std::vector<uint32_t> port_failures_;
  RegistrationCache& regs_;
  TransportConfig config_;
  PeerFn peer_of_;
  DeliverFn deliver_;
  UnreachableFn unreachable_fn_;
  /** Destinations given up on. */
  std::set<uint32_t> unreachable_;
  std::vector<FailedMessage> failed_;
  std::unordered_map<uint32_t, uint32_t> next_seq_;
  std::map<PacketKey, OutPacket> out_packets_;
  std::unordered_map<uint32_t, std::deque<PacketKey>> waiting_;
  std::unordered_map<uint32_t, uint32_t> in_flight_;
  std::unordered_map<uint32_t, RttEstimate> rtt_;
  /** RDMA messages open (offered, not finished) per receiver. */
  std::map<uint32_t, uint32_t> rdma_open_;
  /** Readers each source said it serves in its latest RTS. */
  std::unordered_map<uint32_t, uint32_t> source_readers_;
  /** Per source: picoseconds per byte of this task's RDMA reads in flight that its chunks
   *  took to complete. A source that other readers also pull from serves each of them
   *  slower than its link. */
  std::unordered_map<uint32_t, Smoothed> pace_;
  std::unordered_map<uint64_t, OutMsg> out_msgs_;
  std::unordered_map<uint32_t, InConn> in_;
  /** Local rCxt reference -> (source, seq, slot) of the pull it serves. */
  struct SlotRef {
    uint32_t src;
    uint32_t seq;
    uint32_t slot;
  };
  std::unordered_map<uint64_t, SlotRef> rcxt_owner_;
  /** Pulls in progress, oldest first: (source, seq). */
  std::deque<std::pair<uint32_t, uint32_t>> pulls_;
  uint64_t pull_bytes_in_flight_ = 0;
  /** Size new pulls are cut into: halved when a chunk times out, doubled when one lands
   *  (up to rdma_chunk), so chunks settle where they get through the loss there is. */
  uint64_t chunk_size_ = 0;
  /** Landing areas of pulls (they stay mapped and registered for reuse). */
  BufferPool landing_;
  TransportStats stats_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace nicsim::ulp
