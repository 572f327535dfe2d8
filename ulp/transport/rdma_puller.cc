// SPDX-License-Identifier: Apache-2.0
// RDMA pulls: the receiver cuts an offered message into chunks and reads them with RDMA reads
// over its pipeline slots within an in-flight budget; a chunk that times out or is overtaken
// is cancelled and redriven with a higher tid (split, or the message falls back to packet
// mode); the last completion hands the bytes to the receiver and tells the sender.
#include "ulp/transport/rdma_puller.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "abi/rdma.h"

namespace nicsim::ulp {
namespace {
/** The least the in-flight budget is cut to. */
constexpr uint64_t kMinBudget = 64 * 1024;
}  // namespace

RdmaPuller::RdmaPuller(const TransportContext& ctx, ReliableSender& packets, Events events)
    : ctx_(ctx),
      packets_(packets),
      events_(std::move(events)),
      port_failures_(ctx.ports.size(), 0),
      sizer_(ctx.config.rdma_chunk, abi::kRdmaPacketBytes),
      budget_(ctx.config.rdma_inflight_bytes),
      landing_(ctx.host, 64 * 1024, &ctx.regs),
      copies_(ctx.config.copy_ps_per_byte) {}

void RdmaPuller::Offer(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts,
                       uint64_t in_place) {
  if (!ctx_.config.rdma || rts.spans == 0 || rts.spans > kMaxRtsSpans || rts.rcxts == 0 ||
      rts.rcxts > 2 * kMaxPipeline || rts.rcxts % 2 != 0) {
    FallBack(src, seq, nullptr);
    return;
  }
  Begin(src, seq, total, rts, in_place, /*read=*/false, 0);
}

void RdmaPuller::Read(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts,
                      uint64_t in_place, uint32_t first_tid) {
  Begin(src, seq, total, rts, in_place, /*read=*/true, first_tid);
}

void RdmaPuller::Begin(uint32_t src, uint32_t seq, uint64_t total, const RtsBody& rts,
                       uint64_t in_place, bool read, uint32_t first_tid) {
  Pull& m = pulls_[PullKey(src, seq)];
  m.total = total;
  m.rts = rts;
  m.read = read;
  m.first_tid = first_tid;
  if (in_place != 0) {
    m.landing = in_place;
    m.in_place = true;
  }
  StartPull(src, seq, m);
}

void RdmaPuller::Decline(uint32_t src, uint32_t seq) {
  events_.abandoned(src, seq);
  packets_.SendControl(src, Kind::kFallback, seq);
}

void RdmaPuller::End(uint32_t src, uint32_t seq) {
  auto it = pulls_.find(PullKey(src, seq));
  if (it != pulls_.end()) EndPull(it);
}

void RdmaPuller::StartPull(uint32_t src, uint32_t seq, Pull& m) {
  if (!m.in_place) {
    Result<uint64_t> landing = landing_.Take(m.total);
    if (!landing.ok()) {
      FallBack(src, seq, &m);
      return;
    }
    m.landing = *landing;
  }
  m.landing_len = m.total;
  Result<std::vector<RegistrationCache::Span>> spans = ctx_.regs.Acquire(m.landing, m.total);
  if (!spans.ok()) {
    m.landing_len = 0;
    FallBack(src, seq, &m);
    return;
  }
  m.landing_spans = *spans;
  const uint32_t slots = std::min(ctx_.config.rdma_pipeline, m.rts.rcxts / 2);
  for (uint32_t i = 0; i < slots; ++i) {
    Result<uint32_t> r = ctx_.ports[ctx_.ports.SlotPort(i)].AcquireRcxt();
    if (!r.ok()) break;
    m.local_rcxts.push_back(*r);
    rcxt_owner_[RcxtKey(ctx_.ports.SlotPort(i), *r)] = SlotRef{src, seq, i};
  }
  if (m.local_rcxts.empty()) {
    FallBack(src, seq, &m);
    return;
  }
  m.slot_tid.assign(m.local_rcxts.size(), m.first_tid);
  m.in_flight.assign(m.local_rcxts.size(), Chunk{});
  m.slot_generation.assign(m.local_rcxts.size(), 0);
  m.slot_spare.assign(m.local_rcxts.size(), 0);
  // Chunks never cross a fragment of either side's buffer (each has its own PVO); IssueChunk
  // cuts them smaller when loss calls for it.
  uint64_t at = 0;
  while (at < m.total) {
    uint64_t end = std::min<uint64_t>(m.total, at + ctx_.config.rdma_chunk);
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
  order_.emplace_back(src, seq);
  IssueAllPulls();
}

bool RdmaPuller::IssueChunk(uint32_t src, uint32_t seq, Pull& m) {
  for (uint32_t slot = 0; slot < m.in_flight.size(); ++slot) {
    if (m.in_flight[slot].len > 0 || m.todo.empty()) continue;
    // A port whose chunks keep timing out gets none while another port still works.
    if (port_failures_[ctx_.ports.SlotPort(slot)] >= 3 &&
        std::any_of(port_failures_.begin(), port_failures_.end(),
                    [](uint32_t f) { return f < 3; })) {
      continue;
    }
    // A chunk larger than the loss seen lets through is cut; the rest stays next in line.
    if (Chunk& next = m.todo.front(); next.len > sizer_.size()) {
      Chunk rest = next;
      rest.offset += sizer_.size();
      rest.len -= sizer_.size();
      next.len = sizer_.size();
      m.todo.insert(m.todo.begin() + 1, rest);
    }
    // Stay within the in-flight budget (but always let one chunk go, so a pull progresses).
    if (pull_bytes_in_flight_ > 0 && pull_bytes_in_flight_ + m.todo.front().len > budget_) {
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

void RdmaPuller::IssueAllPulls() {
  // One chunk per pull per round, oldest pull first: the budget is shared among the
  // messages (and so the sources) being pulled, rather than spent on the oldest alone while
  // the other sources sit idle.
  bool issued = true;
  while (issued) {
    issued = false;
    for (auto it = order_.begin(); it != order_.end();) {
      auto pull = pulls_.find(PullKey(it->first, it->second));
      if (pull == pulls_.end()) {
        it = order_.erase(it);
        continue;
      }
      issued |= IssueChunk(it->first, it->second, pull->second);
      ++it;
    }
  }
}

void RdmaPuller::CutBudget(uint64_t posted_ps) {
  // One cut per loss event: chunks posted before the last cut were sent at the old budget.
  if (posted_ps < cut_at_ps_) return;
  budget_ = std::max(kMinBudget, budget_ / 2);
  cut_at_ps_ = ctx_.host.NowPs();
  ++ctx_.stats.rdma_budget_cuts;
}

void RdmaPuller::GrowBudget(uint64_t len) {
  // About one chunk more per budget's worth of chunks landed.
  budget_ = std::min<uint64_t>(ctx_.config.rdma_inflight_bytes,
                               budget_ + std::max<uint64_t>(1, len * len / budget_));
}

void RdmaPuller::ChunkLanded(uint64_t len) {
  pull_bytes_in_flight_ -= std::min(pull_bytes_in_flight_, len);
}

void RdmaPuller::PostChunk(uint32_t src, uint32_t seq, Pull& m, uint32_t slot) {
  m.in_flight[slot].order = ++m.posted;
  const Chunk& c = m.in_flight[slot];
  uint64_t remote_pvo = 0, local_pvo = 0;
  for (uint32_t i = 0; i < m.rts.spans; ++i) {
    const RtsSpan& s = m.rts.span[i];
    if (c.offset >= s.offset && c.offset < s.offset + s.len) {
      remote_pvo = s.pvo + (c.offset - s.offset);
    }
  }
  for (const RegistrationCache::Span& s : m.landing_spans) {
    const uint64_t off = s.vaddr - m.landing;
    if (c.offset >= off && c.offset < off + s.len) local_pvo = s.pvo + (c.offset - off);
  }
  abi::RdmaRequest r{};
  r.local_rcxt = m.local_rcxts[slot];
  r.remote_rcxt = m.rts.rcxt[SourceRcxtIndex(m, slot)];
  r.tid = ++m.slot_tid[slot];
  r.length = static_cast<uint32_t>(c.len);
  r.local_pvo = local_pvo;
  r.remote_pvo = remote_pvo;
  r.flags = abi::kReqNotifyInitiator;
  const uint32_t port = ctx_.ports.SlotPort(slot);
  ctx_.ports[port].Post(abi::SlotType::kRdmaRead, ctx_.ports.PeerOf(src, port), r, seq);
  ++ctx_.stats.rdma_chunks;
  ++m.slot_generation[slot];
  m.in_flight[slot].posted_ps = ctx_.host.NowPs();
  // Everything this task has in flight is ahead of (or beside) this chunk on its link: the
  // timeout covers all of it there. Longer waits (a source serving other readers first, a
  // loss) are told apart by asking the source, and a redrive does not lengthen the next
  // timeout: the budget holds the load back.
  m.in_flight[slot].timeout_ps = ctx_.config.rdma_timeout_base_ps + LinkTime(pull_bytes_in_flight_);
  ArmLate(src, seq, m, slot);
}

uint64_t RdmaPuller::LinkTime(uint64_t bytes) const {
  return static_cast<uint64_t>(static_cast<double>(bytes) * ctx_.config.rdma_timeout_ps_per_byte);
}

void RdmaPuller::Redrive(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation,
                         RedriveCause cause) {
  Pull* pull = Attempt(src, seq, slot, generation);
  if (pull == nullptr) return;
  Pull& m = *pull;
  ++ctx_.stats.rdma_redrives;
  switch (cause) {
    case RedriveCause::kTimeout:
      ++ctx_.stats.rdma_redrives_timeout;
      break;
    case RedriveCause::kOvertaken:
      ++ctx_.stats.rdma_redrives_overtaken;
      break;
    case RedriveCause::kNotThere:
      ++ctx_.stats.rdma_redrives_not_there;
      break;
  }
  const uint32_t port = ctx_.ports.SlotPort(slot);
  ++port_failures_[port];
  CutBudget(m.in_flight[slot].posted_ps);
  // Whatever of this attempt still arrives must not count: cancel, then redrive higher.
  Chunk c = Withdraw(seq, m, slot);
  ++c.attempts;
  sizer_.Lost(c.len);
  if (c.len > abi::kRdmaPacketBytes) {
    // A chunk that keeps failing is split: smaller pieces get through more loss.
    const uint64_t half =
        (c.len / 2 + abi::kRdmaPacketBytes - 1) / abi::kRdmaPacketBytes * abi::kRdmaPacketBytes;
    m.todo.push_front(Chunk{c.offset + half, c.len - half, 0});
    m.todo.push_front(Chunk{c.offset, half, 0});
    ++ctx_.stats.rdma_splits;
    IssueAllPulls();
    return;
  }
  // Given up only when the failures are not the loss every read meets here.
  if (c.len <= abi::kRdmaPacketBytes && c.attempts >= ctx_.config.rdma_attempts &&
      !sizer_.LossExplains(c.attempts)) {
    FallBack(src, seq, &m);
    IssueAllPulls();
    return;
  }
  // Redrive from the front of the queue: the next free slot (maybe on another port) takes it.
  m.todo.push_front(c);
  IssueAllPulls();
}

void RdmaPuller::CancelSlot(uint32_t seq, const Pull& m, uint32_t slot) {
  abi::RdmaRequest cancel{};
  cancel.local_rcxt = m.local_rcxts[slot];
  hal::Port& p = ctx_.ports[ctx_.ports.SlotPort(slot)];
  p.Post(abi::SlotType::kRcxtCancel, p.self(), cancel, seq);
}

RdmaPuller::Chunk RdmaPuller::Withdraw(uint32_t seq, Pull& m, uint32_t slot) {
  CancelSlot(seq, m, slot);
  m.slot_spare[slot] ^= 1;  // the next attempt names the sender's other rCxt
  const Chunk c = m.in_flight[slot];
  ChunkLanded(c.len);
  m.in_flight[slot] = Chunk{};
  ++m.slot_generation[slot];  // the attempt's timers end here
  return c;
}

void RdmaPuller::RedrivePort(uint32_t port) {
  for (const auto& [src, seq] : order_) {
    auto it = pulls_.find(PullKey(src, seq));
    if (it == pulls_.end()) continue;
    Pull& m = it->second;
    for (uint32_t slot = 0; slot < m.in_flight.size(); ++slot) {
      if (ctx_.ports.SlotPort(slot) != port || m.in_flight[slot].len == 0) continue;
      m.todo.push_front(Withdraw(seq, m, slot));
    }
  }
  IssueAllPulls();
}

void RdmaPuller::OnCompletion(uint32_t port, const abi::CompletionRecord& c) {
  auto owner = rcxt_owner_.find(RcxtKey(port, c.rcxt));
  if (owner == rcxt_owner_.end()) return;
  const SlotRef ref = owner->second;
  auto it = pulls_.find(PullKey(ref.src, ref.seq));
  if (it == pulls_.end()) return;
  Pull& m = it->second;
  if (ref.slot >= m.in_flight.size() || c.tid != m.slot_tid[ref.slot] ||
      m.in_flight[ref.slot].len == 0) {
    return;  // a completion of an attempt already given up
  }
  port_failures_[port] = 0;
  sizer_.Landed(m.in_flight[ref.slot].len);
  m.landed += m.in_flight[ref.slot].len;
  GrowBudget(m.in_flight[ref.slot].len);
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
    if (other.len > 0 && ctx_.ports.SlotPort(k) == port && other.order < done_order) {
      lagging.emplace_back(k, m.slot_generation[k]);
    }
  }
  const bool busy =
      std::any_of(m.in_flight.begin(), m.in_flight.end(), [](const Chunk& k) { return k.len > 0; });
  if (m.landed < m.total || !m.todo.empty() || busy) {
    const uint32_t src = ref.src, seq = ref.seq;
    // Requests and packets may take different paths, and the source sends one chunk whole
    // before the next: the lagging chunk gets the fabric's reordering window plus its own
    // time at the source to complete before it counts as lost.
    for (const auto& [slot, generation] : lagging) {
      const uint64_t window = ctx_.config.rdma_reorder_window_ps + LinkTime(m.in_flight[slot].len);
      ctx_.timers.After(window, [this, src, seq, slot = slot, generation = generation] {
        OnOvertaken(src, seq, slot, generation);
      });
    }
    IssueAllPulls();
    return;
  }
  // In place, the bytes are in the receiver's buffer already; else they are copied out.
  std::vector<uint8_t> data;
  if (!m.in_place) {
    ctx_.host.ReadAppend(m.landing, m.total, data);
    ++ctx_.stats.host_copies;
    ctx_.stats.host_copy_bytes += m.total;
  }
  const uint32_t src = ref.src, seq = ref.seq;
  const bool read = m.read;
  const uint32_t last_tid = LastTid(m);
  EndPull(it);
  if (!read) packets_.SendControl(src, Kind::kDone, seq);
  IssueAllPulls();
  if (read) {
    HandOver(std::move(data), [this, src, seq, last_tid](std::vector<uint8_t> bytes) {
      events_.read_ended(src, seq, last_tid, true, std::move(bytes));
    });
    return;
  }
  HandOver(std::move(data), [this, src, seq](std::vector<uint8_t> bytes) {
    events_.landed(src, seq, std::move(bytes));
  });
}

void RdmaPuller::HandOver(std::vector<uint8_t> data, std::function<void(std::vector<uint8_t>)> to) {
  if (data.empty() || copies_.free()) {
    to(std::move(data));
    return;
  }
  // The CPU copied the bytes out of the landing area: the taker has them when it is done.
  const uint64_t len = data.size();
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(data));
  copies_.Then(ctx_.host.NowPs(), len, ctx_.timers,
               [to = std::move(to), bytes] { to(std::move(*bytes)); });
}

uint32_t RdmaPuller::LastTid(const Pull& m) {
  uint32_t tid = m.first_tid;
  for (uint32_t t : m.slot_tid) tid = std::max(tid, t);
  return tid;
}

void RdmaPuller::FallBack(uint32_t src, uint32_t seq, Pull* m) {
  if (m != nullptr) {
    for (uint32_t slot = 0; slot < m->in_flight.size(); ++slot) {
      if (m->in_flight[slot].len > 0) CancelSlot(seq, *m, slot);
    }
  }
  if (m != nullptr && m->read) {
    // A direct read has no sender to push it: its taker is told, and asks another way.
    ++ctx_.stats.rdma_reads_given_up;
    const uint32_t last_tid = LastTid(*m);
    EndPull(pulls_.find(PullKey(src, seq)));
    events_.read_ended(src, seq, last_tid, false, {});
    return;
  }
  ++ctx_.stats.fallbacks;
  events_.abandoned(src, seq);
  if (m != nullptr) EndPull(pulls_.find(PullKey(src, seq)));
  packets_.SendControl(src, Kind::kFallback, seq);
}

void RdmaPuller::EndPull(PullMap::iterator it) {
  Pull& m = it->second;
  if (m.landing_len > 0 && !m.landing_spans.empty()) ctx_.regs.Release(m.landing, m.landing_len);
  if (m.landing != 0 && !m.in_place) landing_.Give(m.landing);
  for (uint32_t i = 0; i < m.local_rcxts.size(); ++i) {
    rcxt_owner_.erase(RcxtKey(ctx_.ports.SlotPort(i), m.local_rcxts[i]));
    ctx_.ports[ctx_.ports.SlotPort(i)].ReleaseRcxt(m.local_rcxts[i]);
  }
  for (const Chunk& c : m.in_flight) ChunkLanded(c.len);
  pulls_.erase(it);
}

}  // namespace nicsim::ulp
