// SPDX-License-Identifier: Apache-2.0
// Transport, the facade: builds the parts, wires their events to each other, and routes each
// frame from the ports to the part whose role it is.
#include "ulp/transport/transport.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "abi/limits.h"
#include "abi/packet.h"
#include "ulp/transport/message_states.h"

namespace nicsim::ulp {
namespace {

/** `config` for `ports` ports: slots are striped over the ports (a multiple of them, an RTS
 *  carries at most kMaxPipeline), and a chunk is at least one RDMA packet. */
TransportConfig ForPorts(TransportConfig config, uint32_t ports) {
  config.rdma_pipeline = std::clamp<uint32_t>(config.rdma_pipeline * ports, ports, kMaxPipeline);
  config.rdma_pipeline -= config.rdma_pipeline % ports;
  config.rdma_chunk = std::max<uint32_t>(config.rdma_chunk, abi::kRdmaPacketBytes);
  return config;
}

}  // namespace

Transport::Transport(hal::TaskHost& host, std::vector<hal::Port*> ports, RegistrationCache& regs,
                     const TransportConfig& config, PeerFn peer_of)
    : ports_(std::move(ports), std::move(peer_of)),
      config_(ForPorts(config, ports_.size())),
      timers_(host),
      context_{host, ports_, regs, config_, stats_, timers_},
      packets_(context_, ReliableSender::Events{[this](uint32_t dest, uint32_t seq) {
                                                  sender_.OnPacketAcked(dest, seq);
                                                },
                                                [this](uint32_t dest) {
                                                  eager_.GiveUp(dest);
                                                  sender_.GiveUp(dest);
                                                }}),
      sender_(context_, packets_),
      puller_(context_, packets_,
              RdmaPuller::Events{
                  [this](uint32_t src, uint32_t seq, std::vector<uint8_t> data) {
                    receiver_.OnPullLanded(src, seq, std::move(data));
                  },
                  [this](uint32_t src, uint32_t seq) { receiver_.OnPullAbandoned(src, seq); },
                  [this](uint32_t src, uint32_t seq, uint32_t last_tid, bool landed,
                         std::vector<uint8_t> data) {
                    reads_.OnEnded(src, seq, last_tid, landed, std::move(data));
                  }}),
      reads_(context_, packets_, puller_),
      receiver_(context_, puller_),
      eager_(context_, packets_,
             EagerRdma::Events{
                 [this](uint32_t src, uint32_t seq, uint32_t context, uint32_t tag,
                        std::vector<uint8_t> data) {
                   receiver_.OnRingLanded(src, seq, context, tag, std::move(data));
                 },
                 [this](uint32_t dest, uint32_t seq) { sender_.OnRingDelivered(dest, seq); },
                 [this](uint32_t dest, uint32_t seq) { sender_.OnRingFellBack(dest, seq); }}),
      multicast_(context_),
      reduction_(context_, packets_) {
  if (config_.eager_rdma) sender_.UseRing(&eager_);
  Reattach();
}

Transport::Transport(hal::TaskHost& host, hal::Port& port, RegistrationCache& regs,
                     const TransportConfig& config, std::function<hal::Peer(uint32_t)> peer_of)
    : Transport(host, std::vector<hal::Port*>{&port}, regs, config,
                [peer_of = std::move(peer_of)](uint32_t task, uint32_t) { return peer_of(task); }) {
}

Transport::~Transport() {
  for (uint32_t i = 0; i < ports_.size(); ++i) ports_[i].OnReceive(nullptr);
}

void Transport::SendVector(uint32_t dest_task, uint32_t context, uint32_t tag,
                           const std::vector<Element>& elements, std::function<void()> on_done) {
  if (elements.empty()) {
    if (on_done) on_done();
    return;
  }
  // The last element's on_done runs after every earlier one's: one connection, in order.
  auto left = std::make_shared<size_t>(elements.size());
  auto done = std::make_shared<std::function<void()>>(std::move(on_done));
  for (const Element& e : elements) {
    Send(dest_task, context, tag, e.vaddr, e.len, [left, done] {
      if (--*left == 0 && *done) (*done)();
    });
  }
}

void Transport::Reattach() {
  sender_.OnWindowRebuilt();
  reads_.OnWindowRebuilt();
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    ports_[i].OnReceive(
        [this, i](const abi::RecvFrameHeader& f, const uint8_t* p) { OnFrame(i, f, p); });
  }
}

void Transport::OnWindowFatal(uint32_t /*port*/) { ++stats_.window_fatals; }

void Transport::OnWindowReopened(uint32_t port) {
  Reattach();
  puller_.RedrivePort(port);
}

std::map<std::string, uint32_t> Transport::MessagesByState() const {
  std::map<std::string, uint32_t> counts;
  const OutStateCounts out = sender_.CountByState();
  for (size_t s = 0; s < out.size(); ++s) {
    if (out[s] > 0) counts["out." + std::string(kOutStateNames[s])] = out[s];
  }
  const InStateCounts in = receiver_.CountByState();
  for (size_t s = 0; s < in.size(); ++s) {
    if (in[s] > 0) counts["in." + std::string(kInStateNames[s])] = in[s];
  }
  return counts;
}

bool Transport::Holds(const Header& probe) const {
  switch (static_cast<Kind>(probe.acked)) {
    case Kind::kData:
    case Kind::kRts:
      return receiver_.Holds(probe.src_task, static_cast<Kind>(probe.acked), probe.seq,
                             probe.offset);
    case Kind::kDone:
    case Kind::kFallback:
      return sender_.HasNotice(probe.src_task, probe.seq);
    default:
      // The other notices keep no record of having come; their handlers take a copy twice.
      return false;
  }
}

void Transport::OnFrame(uint32_t port, const abi::RecvFrameHeader& frame, const uint8_t* payload) {
  if (frame.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
    OnCompletionFrame(port, frame, payload);
    return;
  }
  // RDMA data in the FIFO (half RDMA): only reduction contributions are written that way.
  if (frame.type == static_cast<uint8_t>(abi::PacketType::kRdmaWrite)) {
    reduction_.OnFifoData(frame, payload);
    return;
  }
  if (frame.type != static_cast<uint8_t>(abi::PacketType::kFifo) ||
      frame.len_bytes < sizeof(Header)) {
    return;
  }
  Header h;
  std::memcpy(&h, payload, sizeof(h));
  OnPacket(port, h, payload + sizeof(h), frame.len_bytes - static_cast<uint32_t>(sizeof(h)));
}

void Transport::OnCompletionFrame(uint32_t port, const abi::RecvFrameHeader& frame,
                                  const uint8_t* payload) {
  abi::CompletionRecord c;
  std::memcpy(&c, payload, sizeof(c));
  // Every cancel here comes before a redrive or a replacement already posted: the notice
  // only confirms that nothing more of the old transfer will count.
  if (c.status == static_cast<uint32_t>(abi::RdmaStatus::kCancelled)) {
    ++stats_.rdma_cancel_notices;
    return;
  }
  if (!multicast_.OnCompletion(frame, c) && !reduction_.OnCompletion(c) &&
      !eager_.OnCompletion(c)) {
    puller_.OnCompletion(port, c);
  }
}

void Transport::OnPacket(uint32_t port, const Header& h, const uint8_t* data, uint32_t data_len) {
  // Every packet but an ack is acknowledged on arrival, duplicates too (their ack may have
  // been what was lost), then handed to its role.
  switch (static_cast<Kind>(h.kind)) {
    case Kind::kData:
      if (h.frag_len <= data_len) {
        packets_.Acknowledge(port, h);
        receiver_.OnData(h, data);
      }
      break;
    case Kind::kAck:
      packets_.OnAck(h);
      break;
    case Kind::kRts:
      packets_.Acknowledge(port, h);
      receiver_.OnRts(h, data, data_len);
      break;
    case Kind::kDone:
    case Kind::kFallback:
      packets_.Acknowledge(port, h);
      sender_.OnControl(h);
      break;
    case Kind::kMcastAck:
      multicast_.OnAck(h);
      break;
    case Kind::kMcastNack:
      multicast_.OnNack(h);
      break;
    case Kind::kMcastQuery:
      multicast_.OnQuery(h);
      break;
    case Kind::kMcastNotYet:
      multicast_.OnNotYet(h);
      break;
    case Kind::kReduceCts:
      packets_.Acknowledge(port, h);
      reduction_.OnCts(h, data, data_len);
      break;
    case Kind::kReduceDone:
      packets_.Acknowledge(port, h);
      reduction_.OnDone(h);
      break;
    case Kind::kReduceStarted:
      packets_.Acknowledge(port, h);
      reduction_.OnStarted(h);
      break;
    case Kind::kEagerOpen:
      packets_.Acknowledge(port, h);
      eager_.OnOpen(h);
      break;
    case Kind::kEagerReady:
      packets_.Acknowledge(port, h);
      eager_.OnReady(h, data, data_len);
      break;
    case Kind::kEagerAck:
      eager_.OnAck(h);
      break;
    case Kind::kProbe:
      packets_.AnswerProbe(port, h, Holds(h));
      break;
    case Kind::kNack:
      packets_.OnNack(h);
      break;
    case Kind::kRdmaQuery:
      if (IsReadSeq(h.seq)) {
        reads_.OnQuery(port, h);
      } else {
        sender_.OnRdmaQuery(port, h);
      }
      break;
    case Kind::kRdmaStatus:
      puller_.OnStatus(h);
      break;
    case Kind::kEagerRelease:
      packets_.Acknowledge(port, h);
      eager_.OnRelease(h);
      break;
    case Kind::kReadOpen:
      packets_.Acknowledge(port, h);
      reads_.OnOpen(h);
      break;
    case Kind::kReadReady:
      packets_.Acknowledge(port, h);
      reads_.OnReady(h, data, data_len);
      break;
  }
}

}  // namespace nicsim::ulp
