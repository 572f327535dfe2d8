// SPDX-License-Identifier: Apache-2.0
// Transport, sending and the whole: a message is sent eagerly in packet mode or offered by
// RTS for the receiver to pull; it ends when every fragment is acknowledged, or when the
// receiver says its pull is done (or asks for the bytes to be pushed instead). Frames from
// the ports are dispatched here; a destination that never answers is given up.
#include "ulp/transport.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <tuple>

#include "abi/limits.h"
#include "abi/packet.h"

namespace nicsim::ulp {

bool Transport::PacketKey::operator<(const PacketKey& o) const {
  return std::tie(dest, kind, seq, offset) < std::tie(o.dest, o.kind, o.seq, o.offset);
}

Transport::Transport(hal::TaskHost& host, std::vector<hal::Port*> ports, RegistrationCache& regs,
                     const TransportConfig& config, PeerFn peer_of)
    : host_(host),
      ports_(std::move(ports)),
      port_failures_(ports_.size(), 0),
      regs_(regs),
      config_(config),
      peer_of_(std::move(peer_of)),
      landing_(host, 64 * 1024) {
  // Slots are striped over the ports; an RTS carries at most kMaxPipeline of them.
  const auto n = static_cast<uint32_t>(ports_.size());
  config_.rdma_pipeline = std::clamp<uint32_t>(config_.rdma_pipeline * n, n, kMaxPipeline);
  config_.rdma_pipeline -= config_.rdma_pipeline % n;
  config_.rdma_chunk = std::max<uint32_t>(config_.rdma_chunk, abi::kRdmaPacketBytes);
  chunk_size_ = config_.rdma_chunk;
  Reattach();
}

Transport::Transport(hal::TaskHost& host, hal::Port& port, RegistrationCache& regs,
                     const TransportConfig& config, std::function<hal::Peer(uint32_t)> peer_of)
    : Transport(host, std::vector<hal::Port*>{&port}, regs, config,
                [peer_of = std::move(peer_of)](uint32_t task, uint32_t) { return peer_of(task); }) {}

Transport::~Transport() {
  *alive_ = false;
  for (hal::Port* p : ports_) p->OnReceive(nullptr);
}

void Transport::Reattach() {
  for (uint32_t i = 0; i < ports_.size(); ++i) {
    ports_[i]->OnReceive(
        [this, i](const abi::RecvFrameHeader& f, const uint8_t* p) { OnFrame(i, f, p); });
  }
}

namespace {

constexpr const char* kOutStateNames[] = {"eager", "offered", "pushed", "done"};

constexpr const char* kInStateNames[] = {"fragments", "pulling", "pushed", "complete"};

}  // namespace

std::map<std::string, uint32_t> Transport::MessagesByState() const {
  static_assert(std::size(kOutStateNames) == static_cast<size_t>(OutState::kDone) + 1);
  static_assert(std::size(kInStateNames) == static_cast<size_t>(InState::kComplete) + 1);
  std::map<std::string, uint32_t> counts;
  for (const auto& [key, m] : out_msgs_) {
    ++counts[std::string("out.") + kOutStateNames[static_cast<size_t>(m.state)]];
  }
  for (const auto& [src, conn] : in_) {
    for (const auto& [seq, m] : conn.msgs) {
      ++counts[std::string("in.") + kInStateNames[static_cast<size_t>(m.state)]];
    }
  }
  return counts;
}

uint32_t Transport::FragmentBytes() const {
  uint32_t payload = ports_[0]->max_payload();
  for (const hal::Port* p : ports_) payload = std::min(payload, p->max_payload());
  return payload - static_cast<uint32_t>(sizeof(Header));
}

bool Transport::Idle() const {
  if (!out_packets_.empty() || !out_msgs_.empty()) return false;
  for (const auto& [src, conn] : in_) {
    if (!conn.msgs.empty()) return false;
  }
  return true;
}

// ---- Sender --------------------------------------------------------------------------------

void Transport::Send(uint32_t dest, uint32_t context, uint32_t tag, uint64_t vaddr, uint64_t len,
                     std::function<void()> on_done) {
  const uint32_t seq = next_seq_[dest]++;
  ++stats_.messages_sent;
  if (unreachable_.count(dest) > 0) {
    // Nothing reaches that task any more: the message fails now, reported like the others.
    const FailedMessage f{dest, seq, len};
    failed_.push_back(f);
    ++stats_.messages_failed;
    if (unreachable_fn_) unreachable_fn_(dest, {f});
    return;
  }
  const uint64_t key = MsgKey(dest, seq);
  OutMsg& m = out_msgs_[key];
  m.dest = dest;
  m.seq = seq;
  m.context = context;
  m.tag = tag;
  m.vaddr = vaddr;
  m.len = len;
  m.on_done = std::move(on_done);
  if (config_.send_overhead_ps == 0) {
    StartSend(key);
    return;
  }
  // Messages leave in order: every one waits the same software time.
  host_.After(config_.send_overhead_ps, [this, alive = alive_, key] {
    if (*alive) StartSend(key);
  });
}

void Transport::StartSend(uint64_t key) {
  OutMsg& m = out_msgs_.at(key);
  const uint64_t vaddr = m.vaddr, len = m.len;
  if (config_.rdma && len > config_.rdma_threshold) {
    Result<std::vector<RegistrationCache::Span>> spans = regs_.Acquire(vaddr, len);
    if (spans.ok() && spans->size() <= kMaxRtsSpans) {
      // A slot and its spare (slot + pipeline) are on the same port: the pipeline is a
      // multiple of the ports.
      for (uint32_t i = 0; i < 2 * config_.rdma_pipeline; ++i) {
        Result<uint32_t> r = ports_[SlotPort(i)]->AcquireRcxt();
        if (!r.ok()) break;
        m.rcxts.push_back(*r);
      }
      if (m.rcxts.size() == 2 * config_.rdma_pipeline) {
        m.state = OutState::kOffered;
        ++rdma_open_[m.dest];
        ++stats_.rdma_messages;
        SendRts(m, *spans);
        return;
      }
      for (uint32_t i = 0; i < m.rcxts.size(); ++i) ports_[SlotPort(i)]->ReleaseRcxt(m.rcxts[i]);
      m.rcxts.clear();
    }
    if (spans.ok()) regs_.Release(vaddr, len);
  }
  SendEager(m);
}

void Transport::SendEager(OutMsg& m) {
  std::vector<uint8_t> bytes(m.len);
  if (m.len > 0) host_.Read(m.vaddr, bytes.data(), m.len);
  const uint32_t frag = FragmentBytes();
  uint64_t offset = 0;
  do {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(frag, m.len - offset));
    Header h{};
    h.kind = static_cast<uint8_t>(Kind::kData);
    h.src_task = config_.task;
    h.seq = m.seq;
    h.offset = static_cast<uint32_t>(offset);
    h.total = static_cast<uint32_t>(m.len);
    h.context = m.context;
    h.tag = m.tag;
    h.frag_len = n;
    ++m.unacked;
    QueueReliable(m.dest, h, bytes.data() + offset, n);
    offset += n;
  } while (offset < m.len);
}

void Transport::SendRts(OutMsg& m, const std::vector<RegistrationCache::Span>& spans) {
  RtsBody body{};
  body.spans = static_cast<uint32_t>(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    body.span[i] = RtsSpan{spans[i].vaddr - m.vaddr, spans[i].len, spans[i].pvo};
  }
  body.rcxts = static_cast<uint32_t>(m.rcxts.size());
  for (size_t i = 0; i < m.rcxts.size(); ++i) body.rcxt[i] = m.rcxts[i];
  body.readers = static_cast<uint32_t>(rdma_open_.size());
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kRts);
  h.src_task = config_.task;
  h.seq = m.seq;
  h.total = static_cast<uint32_t>(m.len);
  h.context = m.context;
  h.tag = m.tag;
  h.frag_len = sizeof(body);
  ++m.unacked;
  QueueReliable(m.dest, h, reinterpret_cast<const uint8_t*>(&body), sizeof(body));
}

void Transport::MaybeFinish(uint64_t msg_key) {
  auto it = out_msgs_.find(msg_key);
  if (it == out_msgs_.end()) return;
  const OutMsg& m = it->second;
  // An offered message waits for the receiver's word, whatever has been acknowledged.
  const bool done = m.state == OutState::kDone ||
                    (m.state != OutState::kOffered && m.unacked == 0);
  if (done) FinishOut(msg_key);
}

void Transport::FinishOut(uint64_t msg_key) {
  auto it = out_msgs_.find(msg_key);
  OutMsg& m = it->second;
  // Packets of the message still unacknowledged are not needed any more.
  for (auto p = out_packets_.lower_bound(PacketKey{m.dest, 0, 0, 0});
       p != out_packets_.end() && p->first.dest == m.dest;) {
    const auto kind = static_cast<Kind>(p->first.kind);
    if (p->first.seq == m.seq && (kind == Kind::kData || kind == Kind::kRts)) {
      if (p->second.sent && in_flight_[m.dest] > 0) --in_flight_[m.dest];
      p = out_packets_.erase(p);
    } else {
      ++p;
    }
  }
  if (m.state != OutState::kEager) ReleaseRdma(m);
  std::function<void()> done = std::move(m.on_done);
  const uint32_t dest = m.dest;
  out_msgs_.erase(it);
  PumpWindow(dest);
  if (done) done();
}

void Transport::ReleaseRdma(OutMsg& m) {
  auto open = rdma_open_.find(m.dest);
  if (open != rdma_open_.end() && --open->second == 0) rdma_open_.erase(open);
  regs_.Release(m.vaddr, m.len);
  for (uint32_t i = 0; i < m.rcxts.size(); ++i) ports_[SlotPort(i)]->ReleaseRcxt(m.rcxts[i]);
  m.rcxts.clear();
}

void Transport::GiveUp(uint32_t dest) {
  if (!unreachable_.insert(dest).second) return;
  // No more packets to it: queued, in flight and control packets alike.
  for (auto p = out_packets_.lower_bound(PacketKey{dest, 0, 0, 0});
       p != out_packets_.end() && p->first.dest == dest;) {
    p = out_packets_.erase(p);
  }
  waiting_.erase(dest);
  in_flight_.erase(dest);
  std::vector<FailedMessage> failed;
  for (auto it = out_msgs_.begin(); it != out_msgs_.end();) {
    if (it->second.dest != dest) {
      ++it;
      continue;
    }
    OutMsg& m = it->second;
    if (m.state != OutState::kEager) ReleaseRdma(m);
    failed.push_back(FailedMessage{dest, m.seq, m.len});
    it = out_msgs_.erase(it);
  }
  // Reported in send order (the map's order is not).
  std::sort(failed.begin(), failed.end(),
            [](const FailedMessage& a, const FailedMessage& b) { return a.seq < b.seq; });
  stats_.messages_failed += failed.size();
  failed_.insert(failed_.end(), failed.begin(), failed.end());
  if (unreachable_fn_) unreachable_fn_(dest, failed);
}

// ---- Receiver ------------------------------------------------------------------------------

void Transport::OnFrame(uint32_t port, const abi::RecvFrameHeader& frame,
                        const uint8_t* payload) {
  if (frame.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
    abi::CompletionRecord c;
    std::memcpy(&c, payload, sizeof(c));
    OnCompletion(port, c);
    return;
  }
  if (frame.type != static_cast<uint8_t>(abi::PacketType::kFifo) ||
      frame.len_bytes < sizeof(Header)) {
    return;
  }
  Header h;
  std::memcpy(&h, payload, sizeof(h));
  const uint8_t* data = payload + sizeof(h);
  const uint32_t data_len = frame.len_bytes - static_cast<uint32_t>(sizeof(h));
  switch (static_cast<Kind>(h.kind)) {
    case Kind::kData:
      if (h.frag_len <= data_len) OnData(port, h, data);
      break;
    case Kind::kAck:
      OnAck(h);
      break;
    case Kind::kRts:
      OnRts(port, h, data, data_len);
      break;
    case Kind::kDone:
    case Kind::kFallback:
      OnControl(port, h);
      break;
  }
}

void Transport::OnControl(uint32_t port, const Header& h) {
  Ack(port, h.src_task, h);
  auto it = out_msgs_.find(MsgKey(h.src_task, h.seq));
  if (it == out_msgs_.end()) return;  // already finished: the ack was what was missing
  OutMsg& m = it->second;
  if (static_cast<Kind>(h.kind) == Kind::kDone) {
    m.state = OutState::kDone;
  } else if (m.state == OutState::kOffered) {
    m.state = OutState::kPushed;
    ++stats_.fallbacks;
    SendEager(m);
  }
  MaybeFinish(it->first);
}

}  // namespace nicsim::ulp
