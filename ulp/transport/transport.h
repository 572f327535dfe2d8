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
//
// Transport is the facade: it owns the parts (ReliableSender, MessageSender, RdmaPuller,
// ReadChannels, MessageReceiver, EagerRdma, RdmaMulticast, FifoReduction) and routes the ports'
// frames and completions to them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hal/port.h"
#include "hal/task_host.h"
#include "ulp/transport/eager_rdma.h"
#include "ulp/transport/fifo_reduction.h"
#include "ulp/transport/message_receiver.h"
#include "ulp/transport/message_sender.h"
#include "ulp/transport/port_set.h"
#include "ulp/transport/rdma_multicast.h"
#include "ulp/transport/rdma_puller.h"
#include "ulp/transport/read_channels.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/reliable_sender.h"
#include "ulp/transport/transport_config.h"
#include "ulp/transport/transport_context.h"
#include "hal/task_timers.h"
#include "ulp/transport/wire.h"

namespace nicsim::ulp {

/**
 * One task's reliable transport over its ports. The parts each hold one role: the
 * ReliableSender keeps packets until acknowledged, the MessageSender takes a message from
 * Send to its on_done, the RdmaPuller reads offered messages (and the ReadChannels' direct
 * reads of published memory), the MessageReceiver assembles and delivers; this class owns them, the
 * shared settings and counters, and routes what arrives: acknowledgements to the packet layer,
 * fragments and RTSs (acknowledged first) to the receiver, done and fallback notices (acknowledged
 * first) to the sender, RDMA completions to the puller.
 */
class Transport {
 public:
  /** `peer_of(task, i)` names the window task `task` receives on through its port i. */
  using PeerFn = PortSet::PeerFn;
  /**
   * One port per adapter the task uses (all on the same node): messages are spread over the
   * ports, a large message's RDMA chunks are striped over them, and traffic moves off a
   * port that stops working.
   */
  Transport(hal::TaskHost& host, std::vector<hal::Port*> ports, RegistrationCache& regs,
            const TransportConfig& config, PeerFn peer_of);
  /** A task with one port. */
  Transport(hal::TaskHost& host, hal::Port& port, RegistrationCache& regs,
            const TransportConfig& config, std::function<hal::Peer(uint32_t task)> peer_of);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  /** A whole message, delivered once, in order per source. */
  using DeliverFn = MessageReceiver::DeliverFn;
  /** Sets the delivery callback; returns the one it replaces (so a caller can wrap it). */
  DeliverFn OnDeliver(DeliverFn fn) { return receiver_.OnDeliver(std::move(fn)); }

  /**
   * Called once per destination that stops answering (a packet sent max_retransmits times
   * without an acknowledgement), with every message to it that had not completed: those
   * messages never complete, and later sends to that destination fail at once.
   */
  using UnreachableFn = MessageSender::UnreachableFn;
  void OnUnreachable(UnreachableFn fn) { sender_.OnUnreachable(std::move(fn)); }
  /** Called with the reason when a group message or signal is given up on (the job stalls). */
  void OnMulticastGaveUp(RdmaMulticast::GaveUpFn fn) { multicast_.OnGaveUp(std::move(fn)); }
  /** Every message given up so far, in the order they failed. */
  const std::vector<FailedMessage>& failed() const { return sender_.failed(); }

  /**
   * Sends `len` bytes at `vaddr` of the task's memory. The buffer must stay unchanged until
   * `on_done`, which runs once the receiver holds the whole message.
   */
  void Send(uint32_t dest_task, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
            std::function<void()> on_done) {
    sender_.Send(dest_task, context, tag, vaddr, len, std::move(on_done));
  }

  /** One element of a vector send: `len` bytes at `vaddr`. */
  struct Element {
    uint64_t vaddr;
    uint64_t len;
  };
  /**
   * Sends each element as a message of its own to `dest_task` (same context and tag, in
   * order); `on_done` runs once the receiver holds them all. With ulp.eager_rdma each element
   * is checked against the connection's slots: leading small ones go over the small ring, the
   * first that needs a large slot enlarges the connection once, and the rest follow over the
   * large ring when it is ready (by RTS or packets until then).
   */
  void SendVector(uint32_t dest_task, uint32_t context, uint32_t tag,
                  const std::vector<Element>& elements, std::function<void()> on_done);

  /**
   * A rendezvous in one handshake: offers `len` bytes at `vaddr` to `dest_task`, whose upper
   * layer hears of the message in its turn (OnAnnounce) and pulls it once it accepts it
   * (Accept), e.g. when a receive matches it. The buffer must stay unchanged until `on_done`,
   * which runs once the receiver holds the whole message (MessageSender::Announce).
   */
  void Announce(uint32_t dest_task, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
                std::function<void()> on_done) {
    sender_.Announce(dest_task, context, tag, vaddr, len, std::move(on_done));
  }
  /** Sets the callback that hears of announced messages (in order with the deliveries). */
  void OnAnnounce(MessageReceiver::AnnounceFn fn) { receiver_.OnAnnounce(std::move(fn)); }
  /** MessageReceiver::Accept: announced message `seq` from `src` is pulled now, into
   *  `in_place` of the task's memory when that is not 0. */
  bool Accept(uint32_t src, uint32_t seq, uint64_t in_place) {
    return receiver_.Accept(src, seq, in_place);
  }
  /** Sets the callback that gets an accepted message's bytes (none if they landed in place). */
  void OnAccepted(MessageReceiver::AcceptedFn fn) { receiver_.OnAccepted(std::move(fn)); }
  /**
   * A direct read of a peer's published memory (ReadChannels): `len` bytes at `remote_pvo` of
   * `source`'s memory, with no message to the peer, into `in_place` (0: the bytes come in
   * `done`'s data). False: nothing started (the read channel to `source` is not open yet, and
   * opening now; refused; or every pair of it busy): ask another way.
   */
  bool Read(uint32_t source, uint64_t remote_pvo, uint64_t len, uint64_t in_place,
            ReadChannels::DoneFn done) {
    return reads_.Read(source, remote_pvo, len, in_place, std::move(done));
  }
  /** Re-binds to the port's window after the window was rebuilt (adapter recovery). */
  void Reattach();
  /**
   * Port `port`'s window became fatal (an RDMA protection failure stopped it) and its owner
   * is closing and reopening it. Meanwhile what the port sends is lost, like dropped packets.
   */
  void OnWindowFatal(uint32_t port);
  /**
   * Port `port`'s window is open again (fresh FIFOs): rebinds it and redrives the RDMA reads it
   * had in flight; unacknowledged packets go again at their timeouts. Nothing is lost or
   * delivered twice: the reads carry new tids and packets keep their sequence numbers.
   */
  void OnWindowReopened(uint32_t port);
  /** Multicast groups over broadcast RDMA, on the first port's window. */
  RdmaMulticast& multicast() { return multicast_; }
  /** Reduction contributions by half RDMA into the parent's FIFO, on the first port. */
  FifoReduction& fifo_reduction() { return reduction_; }
  /** The eager RDMA rings (ulp.eager_rdma). */
  const EagerRdma& eager() const { return eager_; }
  /** The registration cache the transport registers buffers through. */
  RegistrationCache& registrations() { return context_.regs; }
  /** Messages sent whose on_done has not run yet. */
  size_t pending_sends() const { return sender_.size(); }
  /** True when nothing is in flight either way (no unacked packet, no RDMA in progress). */
  bool Idle() const {
    return packets_.empty() && sender_.empty() && receiver_.empty() && multicast_.Idle() &&
           reduction_.Idle() && eager_.Idle() && reads_.Idle();
  }
  /**
   * Messages in progress by state, named "out.<state>" for those being sent (eager, offered,
   * pushed, done) and "in.<state>" for those being received (fragments, pulling, pushed,
   * complete); states with none are left out.
   */
  std::map<std::string, uint32_t> MessagesByState() const;
  const TransportStats& stats() const { return stats_; }
  const TransportConfig& config() const { return config_; }

 private:
  /** True if the packet probe `probe` asks about (acked kind, seq, offset) has arrived. */
  bool Holds(const Header& probe) const;
  void OnFrame(uint32_t port, const abi::RecvFrameHeader& frame, const uint8_t* payload);
  /** An RDMA completion record: to the multicast, the reduction, the eager rings or the puller. */
  void OnCompletionFrame(uint32_t port, const abi::RecvFrameHeader& frame, const uint8_t* payload);
  /** A transport packet: acknowledged on arrival (all but acks), then handed to its role. */
  void OnPacket(uint32_t port, const Header& h, const uint8_t* data, uint32_t data_len);

  PortSet ports_;
  /** The settings, with the pipeline a multiple of the ports: the parts read these. */
  const TransportConfig config_;
  TransportStats stats_;
  hal::TaskTimers timers_;
  /** References to the above (and the host and registrations) for the parts. */
  TransportContext context_;
  ReliableSender packets_;
  MessageSender sender_;
  RdmaPuller puller_;
  ReadChannels reads_;
  MessageReceiver receiver_;
  EagerRdma eager_;
  RdmaMulticast multicast_;
  FifoReduction reduction_;
};

}  // namespace nicsim::ulp
