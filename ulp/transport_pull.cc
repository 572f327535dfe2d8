// SPDX-License-Identifier: Apache-2.0
// Transport, RDMA pulls: the receiver cuts an offered message into chunks and reads them with
// RDMA reads over its pipeline slots within an in-flight budget; a chunk that times out or is
// overtaken is cancelled and redriven with a higher tid (split, or the message falls back to
// packet mode); the last completion delivers the message and tells the sender.
#include "ulp/transport.h"

#include <algorithm>
#include <vector>

#include "abi/rdma.h"

namespace nicsim::ulp {

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
      if (m == nullptr || m->state != InState::kPulling) {
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
  m.in_flight[slot].order = ++m.posted;
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
  if (m.state != InState::kPulling || slot >= m.slot_generation.size() ||
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
  if (m.state != InState::kPulling || ref.slot >= m.in_flight.size() ||
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
  const uint32_t done_order = m.in_flight[ref.slot].order;
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
  m.state = InState::kComplete;
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
  m.state = InState::kPushed;
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

}  // namespace nicsim::ulp
