// SPDX-License-Identifier: Apache-2.0
// Reliable packets: every packet of a message (fragments, RTS, done and fallback notices) is
// queued per destination, sent within the window, retransmitted on a timeout that follows the
// measured round trip, and forgotten when acknowledged; arriving packets are acknowledged.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ulp/transport/rtt_estimator.h"
#include "ulp/transport/transport_context.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * The packet layer of the transport: keeps each reliable packet until its acknowledgement,
 * at most `window` unacknowledged per destination. A packet whose acknowledgement is late is
 * not sent again at once: a probe asks the receiver whether it came (a queue is not a loss),
 * and only a kNack sends it again, unless the way to that destination was last found to lose
 * packets (then a timeout resends at once). One probe per destination is unanswered at a time:
 * other packets there whose time comes wait for its answer. Each timeout doubles the next and
 * moves to the next port. A timeout runs from when the packet left through the adapter, and
 * the first to a destination not heard from follows the round trips measured to the others. A
 * destination that leaves a packet unacknowledged through max_retransmits sends is reported
 * unreachable. It knows packets, not messages: it tells its owner when a packet of a message (a
 * fragment or an RTS) is acknowledged.
 */
class ReliableSender {
 public:
  /** What the sender tells its owner. */
  struct Events {
    /** A fragment or the RTS of message `seq` to `dest` was acknowledged. */
    std::function<void(uint32_t dest, uint32_t seq)> message_packet_acked;
    /** A packet to `dest` went max_retransmits times without an acknowledgement. */
    std::function<void(uint32_t dest)> unreachable;
  };

  ReliableSender(const TransportContext& ctx, Events events);

  /** Queues a reliable packet (sent when the destination's window allows); a packet with the
   *  same (kind, seq, offset) to `dest` already held is not queued again. */
  void Queue(uint32_t dest, const Header& h, const uint8_t* data, uint32_t len);
  /** Queues an unsequenced control packet (done, fallback, a group acknowledgement, a
   *  reduction notice) for message `seq` of `context`; the context goes in `offset` too, so
   *  the same seq of two contexts are two packets. */
  void SendControl(uint32_t dest, Kind kind, uint32_t seq, uint32_t context = 0);
  /** Sends packets waiting for `dest` while its window has room. */
  void PumpWindow(uint32_t dest);
  /** An acknowledgement arrived. */
  void OnAck(const Header& h);
  /** The receiver answered a probe: the packet (h.acked, h.seq, h.offset) never came. */
  void OnNack(const Header& h);
  /** Answers probe `h` (through `port`): the acknowledgement if `held`, else a kNack. */
  void AnswerProbe(uint32_t port, const Header& h, bool held);
  /** Acknowledges packet `h`, back the way it came (through `port`). */
  void Acknowledge(uint32_t port, const Header& h);
  /** Drops the fragments and RTS of message `seq` to `dest`, sent or not: they are not
   *  needed any more. */
  void DropMessage(uint32_t dest, uint32_t seq);
  /** Drops every packet to `dest`: queued, in flight and control packets alike. */
  void DropDestination(uint32_t dest);
  /** True when no packet waits for an acknowledgement. */
  bool empty() const { return packets_.empty(); }

 private:
  /** Key of an OutPacket: (dest, kind, seq, offset). */
  struct PacketKey {
    uint32_t dest;
    uint8_t kind;
    uint32_t seq;
    uint32_t offset;
    bool operator<(const PacketKey& o) const;
    bool operator==(const PacketKey& o) const;
  };
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
    /** Port of the last transmission, and its number among this sender's transmissions (0:
     *  not sent yet). */
    uint32_t last_port = 0;
    uint64_t tx = 0;
    /** The last transmission's place in its port's send backlog. */
    hal::SendTicket ticket;
    /** When it was last sent; an ack of a packet sent once is a round-trip sample. */
    uint64_t sent_ps = 0;
    /** When it was found to have left through the adapter, if it was still queued here at a
     *  deadline (0: not known). */
    uint64_t departed_ps = 0;
    /** It was queued here at its last deadline: the next look starts its timeout if it left. */
    bool awaiting_departure = false;
    bool retransmitted = false;
    /** A probe went since the last transmission: its answer decides whether the packet goes
     *  again, and an acknowledgement then is no round-trip sample. */
    bool probed = false;
    /** Its entry in deadlines_ while it is in flight. */
    std::multimap<uint64_t, PacketKey>::iterator deadline;
    bool has_deadline = false;
  };

  void Transmit(const PacketKey& key, OutPacket& p);
  /** Sets `key`'s retransmission deadline (its rto from now). */
  void ArmRetransmit(const PacketKey& key, OutPacket& p);
  /** Sets `key`'s deadline to `at_ps`. */
  void ArmAt(const PacketKey& key, OutPacket& p, uint64_t at_ps);
  /** Forgets `p`'s deadline (acknowledged, dropped or about to be re-armed). */
  void ClearDeadline(OutPacket& p);
  /** Makes sure a timer runs at `at_ps` or before. */
  void ArmTimer(uint64_t at_ps);
  /** The timer set for `at_ps` ran: retransmits every packet whose deadline has come. */
  void OnTimer(uint64_t at_ps);
  /** `key`'s retransmission deadline came (`packet` is its entry). */
  void OnTimeout(const PacketKey& key, OutPacket& packet);
  /** Asks the receiver whether `packet` came (kProbe) and re-arms its deadline. */
  void Probe(const PacketKey& key, OutPacket& packet);
  /** The packet sent as transmission `tx` through port `via` to `dest` was acknowledged:
   *  probes those sent there through that port before it and still unacknowledged. */
  void ProbeOvertaken(uint32_t dest, uint64_t tx, uint32_t via);
  /** A header-only packet of `kind` (an ack, a probe, a kNack) about the packet
   *  (`packet_kind`, `seq`, `offset`), from this task. */
  Header AboutPacket(Kind kind, uint8_t packet_kind, uint32_t seq, uint32_t offset) const;
  /** `key` was acknowledged or refused: its destination may be asked about another. */
  void ForgetProbe(const PacketKey& key);
  /** Forgets `p`'s place in sent_order_. */
  void Untrack(const OutPacket& p);

  const TransportContext ctx_;
  Events events_;
  RttEstimator rtt_;
  /** Ordered by destination first: a message's or a destination's packets are one range. */
  std::map<PacketKey, OutPacket> packets_;
  /** Packets per destination waiting for room in its window, in queue order. */
  std::unordered_map<uint32_t, std::deque<PacketKey>> waiting_;
  /** Packets sent and not yet acknowledged, per destination. */
  std::unordered_map<uint32_t, uint32_t> in_flight_;
  /** Retransmission deadlines of the packets in flight, earliest first (equal ones in the
   *  order they were set). One timer in the simulator's event queue serves them all, set for
   *  the earliest: a timer per packet left one dead event behind for every packet
   *  acknowledged in time, and the event queue grew with the traffic of the whole cluster. */
  std::multimap<uint64_t, PacketKey> deadlines_;
  /** Destinations whose latest word was a loss (a kNack) rather than a queue (a probed packet
   *  acknowledged): a timeout there sends the packet again at once instead of probing. */
  std::unordered_set<uint32_t> lossy_;
  /** Per destination, the packet a probe asks about and has no answer for yet. */
  std::unordered_map<uint32_t, PacketKey> probing_;
  /** Per destination, its packets in flight by transmission number. */
  std::unordered_map<uint32_t, std::map<uint64_t, PacketKey>> sent_order_;
  /** Transmissions so far (the last one's number). */
  uint64_t transmissions_ = 0;
  /** When the earliest timer set runs (UINT64_MAX: none). */
  uint64_t timer_at_ps_ = UINT64_MAX;
};

}  // namespace nicsim::ulp
