// SPDX-License-Identifier: Apache-2.0
#include "ulp/transport.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
  OutMsg& m = out_msgs_[MsgKey(dest, seq)];
  m.dest = dest;
  m.seq = seq;
  m.context = context;
  m.tag = tag;
  m.vaddr = vaddr;
  m.len = len;
  m.on_done = std::move(on_done);
  ++stats_.messages_sent;
  const uint64_t key = MsgKey(dest, seq);
  if (unreachable_.count(dest) > 0) {
    // Nothing reaches that task any more: the message fails now, reported like the others.
    const FailedMessage f{dest, seq, len};
    failed_.push_back(f);
    ++stats_.messages_failed;
    out_msgs_.erase(key);
    if (unreachable_fn_) unreachable_fn_(dest, {f});
    return;
  }
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
        m.rdma = true;
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

void Transport::QueueReliable(uint32_t dest, const Header& h, const uint8_t* data, uint32_t len) {
  const PacketKey key{dest, h.kind, h.seq, h.offset};
  if (out_packets_.count(key) > 0) return;
  OutPacket& p = out_packets_[key];
  p.dest = dest;
  p.bytes.resize(sizeof(h) + len);
  std::memcpy(p.bytes.data(), &h, sizeof(h));
  if (len > 0) std::memcpy(p.bytes.data() + sizeof(h), data, len);
  p.rto_ps = RtoFor(dest);
  // Different messages go out through different ports.
  p.port = h.seq % static_cast<uint32_t>(ports_.size());
  waiting_[dest].push_back(key);
  PumpWindow(dest);
}

void Transport::PumpWindow(uint32_t dest) {
  std::deque<PacketKey>& q = waiting_[dest];
  uint32_t& flying = in_flight_[dest];
  while (flying < config_.window && !q.empty()) {
    const PacketKey key = q.front();
    q.pop_front();
    auto it = out_packets_.find(key);
    if (it == out_packets_.end() || it->second.acked) continue;
    ++flying;
    Transmit(key, it->second);
  }
}

uint64_t Transport::RtoFor(uint32_t dest) const {
  auto it = rtt_.find(dest);
  if (it == rtt_.end()) return config_.rto_ps;
  const RttEstimate& e = it->second;
  const uint64_t estimate =
      e.rtt.valid ? static_cast<uint64_t>(e.rtt.Bound()) : config_.rto_ps;
  return std::clamp<uint64_t>(std::max(estimate, e.backoff_ps), config_.rto_min_ps,
                              config_.rto_max_ps);
}

void Transport::Transmit(const PacketKey& key, OutPacket& p) {
  const uint32_t port = p.port;
  ports_[port]->Send(peer_of_(p.dest, port), p.bytes.data(),
                     static_cast<uint32_t>(p.bytes.size()), 0);
  // A retransmission tries the next port: a dead adapter or path is left behind.
  p.port = (port + 1) % static_cast<uint32_t>(ports_.size());
  ++stats_.packets_sent;
  p.retransmitted = p.sent;
  p.sent = true;
  p.sent_ps = host_.NowPs();
  ArmRetransmit(key, p);
}

void Transport::ArmRetransmit(const PacketKey& key, const OutPacket& p) {
  const uint32_t generation = p.generation;
  host_.After(p.rto_ps, [this, alive = alive_, key, generation] {
    if (!*alive) return;
    auto it = out_packets_.find(key);
    if (it == out_packets_.end() || it->second.acked || it->second.generation != generation) {
      return;
    }
    OutPacket& packet = it->second;
    if (packet.generation + 1 >= config_.max_retransmits) {
      GiveUp(packet.dest);
      return;
    }
    ++packet.generation;
    packet.rto_ps = std::min(packet.rto_ps * 2, config_.rto_max_ps);
    uint64_t& backoff = rtt_[packet.dest].backoff_ps;
    backoff = std::max(backoff, packet.rto_ps);
    ++stats_.retransmits;
    Transmit(key, packet);
  });
}

void Transport::OnAck(const Header& h) {
  const PacketKey key{h.src_task, h.acked, h.seq, h.offset};
  auto it = out_packets_.find(key);
  if (it == out_packets_.end()) return;
  if (!it->second.retransmitted) {
    // Karn: only packets sent once give a round-trip sample.
    const double sample = static_cast<double>(host_.NowPs() - it->second.sent_ps);
    RttEstimate& e = rtt_[h.src_task];
    e.backoff_ps = 0;
    e.rtt.Add(sample);
  }
  out_packets_.erase(it);
  uint32_t& flying = in_flight_[h.src_task];
  if (flying > 0) --flying;
  const auto kind = static_cast<Kind>(h.acked);
  if (kind == Kind::kData || kind == Kind::kRts) {
    auto m = out_msgs_.find(MsgKey(h.src_task, h.seq));
    if (m != out_msgs_.end()) {
      if (m->second.unacked > 0) --m->second.unacked;
      MaybeFinish(m->first);
    }
  }
  PumpWindow(h.src_task);
}

void Transport::MaybeFinish(uint64_t msg_key) {
  auto it = out_msgs_.find(msg_key);
  if (it == out_msgs_.end()) return;
  const OutMsg& m = it->second;
  const bool done = m.rdma ? (m.finished || (m.fell_back && m.unacked == 0)) : m.unacked == 0;
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
  if (m.rdma) ReleaseRdma(m);
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
    if (m.rdma) ReleaseRdma(m);
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

void Transport::Ack(uint32_t port, uint32_t dest, const Header& h) {
  Header a{};
  a.kind = static_cast<uint8_t>(Kind::kAck);
  a.acked = h.kind;
  a.src_task = config_.task;
  a.seq = h.seq;
  a.offset = h.offset;
  // The ack goes back the way the packet came.
  ports_[port]->Send(peer_of_(dest, port), reinterpret_cast<const uint8_t*>(&a), sizeof(a), 0);
}

void Transport::OnData(uint32_t port, const Header& h, const uint8_t* data) {
  Ack(port, h.src_task, h);
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0) {
    ++stats_.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  if (m.fragments.empty() && !m.rdma) {
    m.context = h.context;
    m.tag = h.tag;
    m.total = h.total;
  }
  if (m.complete) {
    ++stats_.duplicates;
    return;
  }
  if (m.rdma && !m.fallback) {
    // The sender is pushing the bytes in packet mode: the pull is over.
    m.fallback = true;
    EndPull(m);
  }
  if (m.data.size() != m.total) m.data.resize(m.total);
  if (uint64_t{h.offset} + h.frag_len > m.total || !m.fragments.insert(h.offset).second) {
    ++stats_.duplicates;
    return;
  }
  if (h.frag_len > 0) std::memcpy(m.data.data() + h.offset, data, h.frag_len);
  m.received += h.frag_len;
  if (m.received == m.total) {
    m.complete = true;
    TryDeliver(h.src_task);
  }
}

void Transport::OnRts(uint32_t port, const Header& h, const uint8_t* body, uint32_t len) {
  Ack(port, h.src_task, h);
  InConn& conn = in_[h.src_task];
  if (static_cast<int32_t>(h.seq - conn.next_deliver) < 0 || conn.msgs.count(h.seq) > 0 ||
      len < sizeof(RtsBody)) {
    ++stats_.duplicates;
    return;
  }
  InMsg& m = conn.msgs[h.seq];
  m.rdma = true;
  m.context = h.context;
  m.tag = h.tag;
  m.total = h.total;
  std::memcpy(&m.rts, body, sizeof(m.rts));
  source_readers_[h.src_task] = m.rts.readers;
  if (!config_.rdma || m.rts.spans == 0 || m.rts.spans > kMaxRtsSpans || m.rts.rcxts == 0 ||
      m.rts.rcxts > 2 * kMaxPipeline || m.rts.rcxts % 2 != 0) {
    FallBack(h.src_task, h.seq, m);
    return;
  }
  StartPull(h.src_task, h.seq, m);
}

void Transport::StartPull(uint32_t src, uint32_t seq, InMsg& m) {
  Result<uint64_t> landing = landing_.Take(m.total);
  if (!landing.ok()) {
    FallBack(src, seq, m);
    return;
  }
  m.landing = *landing;
  m.landing_len = m.total;
  Result<std::vector<RegistrationCache::Span>> spans = regs_.Acquire(m.landing, m.total);
  if (!spans.ok()) {
    m.landing_len = 0;
    FallBack(src, seq, m);
    return;
  }
  m.landing_spans = *spans;
  const uint32_t slots = std::min(config_.rdma_pipeline, m.rts.rcxts / 2);
  for (uint32_t i = 0; i < slots; ++i) {
    Result<uint32_t> r = ports_[SlotPort(i)]->AcquireRcxt();
    if (!r.ok()) break;
    m.local_rcxts.push_back(*r);
    rcxt_owner_[RcxtKey(SlotPort(i), *r)] = SlotRef{src, seq, i};
  }
  if (m.local_rcxts.empty()) {
    FallBack(src, seq, m);
    return;
  }
  m.slot_tid.assign(m.local_rcxts.size(), 0);
  m.in_flight.assign(m.local_rcxts.size(), Chunk{});
  m.slot_generation.assign(m.local_rcxts.size(), 0);
  m.slot_spare.assign(m.local_rcxts.size(), 0);
  // Chunks never cross a fragment of either side's buffer (each has its own PVO).
  uint64_t at = 0;
  while (at < m.total) {
    uint64_t end = std::min<uint64_t>(m.total, at + chunk_size_);
    for (uint32_t i = 0; i < m.rts.spans; ++i) {
      const RtsSpan& s = m.rts.span[i];
      if (at >= s.offset && at < s.offset + s.len) end = std::min(end, s.offset + s.len);
    }
    for (const RegistrationCache::Span& s : m.landing_spans) {
      const uint64_t off = s.vaddr - m.landing;
      if (at >= off && at < off + s.len) end = std::min(end, off + s.len);
    }
    m.todo.push_back(Chunk{at, end - at, 0});
    at = end;
  }
  pulls_.emplace_back(src, seq);
  IssueAllPulls();
}

bool Transport::IssueChunk(uint32_t src, uint32_t seq, InMsg& m) {
  for (uint32_t slot = 0; slot < m.in_flight.size(); ++slot) {
    if (m.in_flight[slot].len > 0 || m.todo.empty()) continue;
    // A port whose chunks keep timing out gets none while another port still works.
    if (port_failures_[SlotPort(slot)] >= 3 &&
        std::any_of(port_failures_.begin(), port_failures_.end(),
                    [](uint32_t f) { return f < 3; })) {
      continue;
    }
    // Stay within the in-flight budget (but always let one chunk go, so a pull progresses).
    if (pull_bytes_in_flight_ > 0 &&
        pull_bytes_in_flight_ + m.todo.front().len > config_.rdma_inflight_bytes) {
      return false;
    }
    m.in_flight[slot] = m.todo.front();
    m.todo.pop_front();
    pull_bytes_in_flight_ += m.in_flight[slot].len;
    PostChunk(src, seq, m, slot);
    return true;
  }
  return false;
}

void Transport::IssueAllPulls() {
  // One chunk per pull per round, oldest pull first: the budget is shared among the
  // messages (and so the sources) being pulled, rather than spent on the oldest alone while
  // the other sources sit idle.
  bool issued = true;
  while (issued) {
    issued = false;
    for (auto it = pulls_.begin(); it != pulls_.end();) {
      auto conn = in_.find(it->first);
      InMsg* m = nullptr;
      if (conn != in_.end()) {
        auto found = conn->second.msgs.find(it->second);
        if (found != conn->second.msgs.end()) m = &found->second;
      }
      if (m == nullptr || !m->rdma || m->fallback || m->complete) {
        it = pulls_.erase(it);
        continue;
      }
      issued |= IssueChunk(it->first, it->second, *m);
      ++it;
    }
  }
}

void Transport::ChunkLanded(uint64_t len) {
  pull_bytes_in_flight_ -= std::min(pull_bytes_in_flight_, len);
}

void Transport::PostChunk(uint32_t src, uint32_t seq, InMsg& m, uint32_t slot) {
  m.in_flight[slot].order = ++source_posts_[src];
  const Chunk& c = m.in_flight[slot];
  uint64_t remote_pvo = 0, local_pvo = 0;
  for (uint32_t i = 0; i < m.rts.spans; ++i) {
    const RtsSpan& s = m.rts.span[i];
    if (c.offset >= s.offset && c.offset < s.offset + s.len) remote_pvo = s.pvo + (c.offset - s.offset);
  }
  for (const RegistrationCache::Span& s : m.landing_spans) {
    const uint64_t off = s.vaddr - m.landing;
    if (c.offset >= off && c.offset < off + s.len) local_pvo = s.pvo + (c.offset - off);
  }
  abi::RdmaRequest r{};
  r.local_rcxt = m.local_rcxts[slot];
  r.remote_rcxt = m.rts.rcxt[slot + m.slot_spare[slot] * (m.rts.rcxts / 2)];
  r.tid = ++m.slot_tid[slot];
  r.length = static_cast<uint32_t>(c.len);
  r.local_pvo = local_pvo;
  r.remote_pvo = remote_pvo;
  r.flags = abi::kReqNotifyInitiator;
  const uint32_t port = SlotPort(slot);
  ports_[port]->Post(abi::SlotType::kRdmaRead, peer_of_(src, port), r, seq);
  ++stats_.rdma_chunks;
  const uint32_t generation = ++m.slot_generation[slot];
  m.in_flight[slot].posted_ps = host_.NowPs();
  m.in_flight[slot].inflight_at_post = pull_bytes_in_flight_;
  // Everything this task has in flight is ahead of (or beside) this chunk, and the source
  // serves every reader it offered messages to: the timeout covers all of it, and doubles
  // with every attempt.
  const uint64_t timeout = (config_.rdma_timeout_base_ps + SourcePaceTime(src, m, pull_bytes_in_flight_))
                           << std::min<uint32_t>(c.attempts, 6);
  host_.After(timeout, [this, alive = alive_, src, seq, slot, generation] {
    if (*alive) Redrive(src, seq, slot, generation, RedriveCause::kTimeout);
  });
}

double Transport::SourcePace(uint32_t src, const InMsg& m) const {
  double pace = config_.rdma_timeout_ps_per_byte;
  auto measured = pace_.find(src);
  if (measured != pace_.end() && measured->second.valid) {
    return std::max(pace, measured->second.Bound());
  }
  uint32_t readers = std::max<uint32_t>(1, m.rts.readers);
  auto latest = source_readers_.find(src);
  if (latest != source_readers_.end()) readers = std::max(readers, latest->second);
  return pace * readers;
}

uint64_t Transport::SourcePaceTime(uint32_t src, const InMsg& m, uint64_t bytes) const {
  return static_cast<uint64_t>(static_cast<double>(bytes) * SourcePace(src, m));
}

void Transport::SamplePace(uint32_t src, const Chunk& c) {
  if (c.inflight_at_post == 0) return;
  // Every attempt has its own tid, so a completion times exactly one post (no Karn rule).
  const double sample = static_cast<double>(host_.NowPs() - c.posted_ps) /
                        static_cast<double>(c.inflight_at_post);
  pace_[src].Add(sample);
}

void Transport::Redrive(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation,
                        RedriveCause cause) {
  auto conn = in_.find(src);
  if (conn == in_.end()) return;
  auto it = conn->second.msgs.find(seq);
  if (it == conn->second.msgs.end()) return;
  InMsg& m = it->second;
  if (!m.rdma || m.fallback || m.complete || slot >= m.slot_generation.size() ||
      m.slot_generation[slot] != generation || m.in_flight[slot].len == 0) {
    return;
  }
  ++stats_.rdma_redrives;
  ++(cause == RedriveCause::kTimeout ? stats_.rdma_redrives_timeout
                                     : stats_.rdma_redrives_overtaken);
  const uint32_t port = SlotPort(slot);
  ++port_failures_[port];
  // Whatever of this attempt still arrives must not count: cancel, then redrive higher.
  abi::RdmaRequest cancel{};
  cancel.local_rcxt = m.local_rcxts[slot];
  ports_[port]->Post(abi::SlotType::kRcxtCancel, ports_[port]->self(), cancel, seq);
  m.slot_spare[slot] ^= 1;
  Chunk c = m.in_flight[slot];
  ++c.attempts;
  ChunkLanded(c.len);
  chunk_size_ = std::max<uint64_t>(abi::kRdmaPacketBytes, std::min(chunk_size_, c.len / 2));
  if (c.len > abi::kRdmaPacketBytes) {
    // A chunk that keeps failing is split: smaller pieces get through more loss.
    const uint64_t half = (c.len / 2 + abi::kRdmaPacketBytes - 1) / abi::kRdmaPacketBytes *
                          abi::kRdmaPacketBytes;
    m.todo.push_front(Chunk{c.offset + half, c.len - half, 0});
    m.todo.push_front(Chunk{c.offset, half, 0});
    m.in_flight[slot] = Chunk{};
    ++m.slot_generation[slot];
    ++stats_.rdma_splits;
    IssueAllPulls();
    return;
  }
  if (c.len <= abi::kRdmaPacketBytes && c.attempts >= config_.rdma_attempts) {
    m.in_flight[slot] = Chunk{};
    FallBack(src, seq, m);
    IssueAllPulls();
    return;
  }
  // Redrive from the front of the queue: the next free slot (maybe on another port) takes it.
  m.in_flight[slot] = Chunk{};
  ++m.slot_generation[slot];
  m.todo.push_front(c);
  IssueAllPulls();
}

void Transport::OnCompletion(uint32_t port, const abi::CompletionRecord& c) {
  auto owner = rcxt_owner_.find(RcxtKey(port, c.rcxt));
  if (owner == rcxt_owner_.end()) return;
  const SlotRef ref = owner->second;
  auto conn = in_.find(ref.src);
  if (conn == in_.end()) return;
  auto it = conn->second.msgs.find(ref.seq);
  if (it == conn->second.msgs.end()) return;
  InMsg& m = it->second;
  if (!m.rdma || m.fallback || m.complete || ref.slot >= m.in_flight.size() ||
      c.tid != m.slot_tid[ref.slot] || m.in_flight[ref.slot].len == 0) {
    return;  // a completion of an attempt already given up
  }
  port_failures_[port] = 0;
  SamplePace(ref.src, m.in_flight[ref.slot]);
  if (m.in_flight[ref.slot].len >= chunk_size_) {
    chunk_size_ = std::min<uint64_t>(config_.rdma_chunk, chunk_size_ * 2);
  }
  m.landed += m.in_flight[ref.slot].len;
  ChunkLanded(m.in_flight[ref.slot].len);
  const uint64_t done_order = m.in_flight[ref.slot].order;
  m.in_flight[ref.slot] = Chunk{};
  ++m.slot_generation[ref.slot];
  // A chunk of this message posted on the same port before this one and overtaken by it has
  // most likely lost a packet (the source serves a window's reads in order): redrive it soon
  // rather than at its timeout, the way duplicate acks end a TCP wait. Ports complete
  // independently. (Only chunks of one message: those of other messages from the same
  // source queue behind other readers' reads and overtake each other without any loss.)
  std::vector<std::pair<uint32_t, uint32_t>> lagging;  // slot, generation
  for (uint32_t k = 0; k < m.in_flight.size(); ++k) {
    const Chunk& other = m.in_flight[k];
    if (other.len > 0 && SlotPort(k) == port && other.order < done_order) {
      lagging.emplace_back(k, m.slot_generation[k]);
    }
  }
  const bool busy = std::any_of(m.in_flight.begin(), m.in_flight.end(),
                                [](const Chunk& k) { return k.len > 0; });
  if (m.landed < m.total || !m.todo.empty() || busy) {
    const uint32_t src = ref.src, seq = ref.seq;
    // Requests and packets may take different paths, and the source sends one chunk whole
    // before the next: the lagging chunk gets the fabric's reordering window plus its own
    // time at the source to complete before it counts as lost.
    for (const auto& [slot, generation] : lagging) {
      const uint64_t window =
          config_.rdma_reorder_window_ps + SourcePaceTime(src, m, m.in_flight[slot].len);
      host_.After(window, [this, alive = alive_, src, seq, slot = slot, generation = generation] {
        if (*alive) Redrive(src, seq, slot, generation, RedriveCause::kOvertaken);
      });
    }
    IssueAllPulls();
    return;
  }
  m.data.resize(m.total);
  host_.Read(m.landing, m.data.data(), m.total);
  m.complete = true;
  EndPull(m);
  SendControl(ref.src, Kind::kDone, ref.seq);
  IssueAllPulls();
  TryDeliver(ref.src);
}

void Transport::FallBack(uint32_t src, uint32_t seq, InMsg& m) {
  ++stats_.fallbacks;
  for (uint32_t slot = 0; slot < m.in_flight.size(); ++slot) {
    if (m.in_flight[slot].len == 0) continue;
    abi::RdmaRequest cancel{};
    cancel.local_rcxt = m.local_rcxts[slot];
    hal::Port& p = *ports_[SlotPort(slot)];
    p.Post(abi::SlotType::kRcxtCancel, p.self(), cancel, seq);
  }
  m.fallback = true;
  EndPull(m);
  m.data.assign(m.total, 0);
  m.fragments.clear();
  m.received = 0;
  SendControl(src, Kind::kFallback, seq);
}

void Transport::EndPull(InMsg& m) {
  if (m.landing_len > 0 && !m.landing_spans.empty()) regs_.Release(m.landing, m.landing_len);
  if (m.landing != 0) landing_.Give(m.landing);
  m.landing = 0;
  m.landing_spans.clear();
  m.landing_len = 0;
  for (uint32_t i = 0; i < m.local_rcxts.size(); ++i) {
    rcxt_owner_.erase(RcxtKey(SlotPort(i), m.local_rcxts[i]));
    ports_[SlotPort(i)]->ReleaseRcxt(m.local_rcxts[i]);
  }
  m.local_rcxts.clear();
  for (const Chunk& c : m.in_flight) ChunkLanded(c.len);
  m.in_flight.clear();
  m.todo.clear();
}

void Transport::SendControl(uint32_t dest, Kind kind, uint32_t seq) {
  Header h{};
  h.kind = static_cast<uint8_t>(kind);
  h.src_task = config_.task;
  h.seq = seq;
  QueueReliable(dest, h, nullptr, 0);
}

void Transport::OnControl(uint32_t port, const Header& h) {
  Ack(port, h.src_task, h);
  auto it = out_msgs_.find(MsgKey(h.src_task, h.seq));
  if (it == out_msgs_.end()) return;  // already finished: the ack was what was missing
  OutMsg& m = it->second;
  if (static_cast<Kind>(h.kind) == Kind::kDone) {
    m.finished = true;
  } else if (!m.fell_back) {
    m.fell_back = true;
    ++stats_.fallbacks;
    SendEager(m);
  }
  MaybeFinish(it->first);
}

void Transport::TryDeliver(uint32_t src) {
  InConn& conn = in_[src];
  for (;;) {
    auto it = conn.msgs.find(conn.next_deliver);
    if (it == conn.msgs.end() || !it->second.complete) return;
    InMsg m = std::move(it->second);
    conn.msgs.erase(it);
    ++conn.next_deliver;
    ++stats_.messages_delivered;
    if (config_.recv_overhead_ps == 0) {
      if (deliver_) deliver_(src, m.context, m.tag, std::move(m.data));
      continue;
    }
    auto shared = std::make_shared<InMsg>(std::move(m));
    host_.After(config_.recv_overhead_ps, [this, alive = alive_, src, shared] {
      if (*alive && deliver_) deliver_(src, shared->context, shared->tag, std::move(shared->data));
    });
  }
}

}  // namespace nicsim::ulp
