// SPDX-License-Identifier: Apache-2.0
// Half RDMA reduction contributions: the parent's clear-to-send, watch timer and per-packet
// combining; the child's writes from its registered buffer.
#include "ulp/transport/fifo_reduction.h"

#include <algorithm>
#include <cstring>

#include "base/backoff.h"
#include "base/check.h"

namespace nicsim::ulp {
namespace {

/** Writes, clear-to-sends and done notices all go through the first port. */
constexpr uint32_t kPort = 0;
/** Contributions a child remembers having finished (late duplicate clear-to-sends). */
constexpr size_t kFinishedKept = 256;
/** A retry asks for the gaps no more than this many landed bytes apart in one span. */
constexpr uint64_t kRetryJoinBytes = 16 * 1024;
/** The watch waits at least this many times the contribution's packet spacing so far. */
constexpr uint64_t kPaceLooks = 8;
/** Looks without progress double the watch interval, 4 times at most. */
constexpr Backoff kWatchBackoff{4};
/** How often a child looks whether its adapter has taken its write yet. */
constexpr uint64_t kTakenPollPs = 2'000'000;

uint64_t RoundDown(uint64_t v, uint64_t unit) { return v / unit * unit; }
uint64_t RoundUp(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

}  // namespace

FifoReduction::FifoReduction(TransportContext& ctx, ReliableSender& packets)
    : ctx_(ctx), packets_(packets), copies_(ctx.config.copy_ps_per_byte) {}

FifoReduction::~FifoReduction() {
  hal::Port& port = ctx_.ports[kPort];
  for (uint32_t ref : targets_) port.ReleaseRcxt(ref);
  for (const auto& [ref, tid] : sources_) port.ReleaseRcxt(ref);
  for (const auto& [key, out] : outs_) {
    if (!out.spans.empty()) ctx_.regs.Release(out.vaddr, out.len);
  }
}

// ---------------------------------------------------------------------------------------
// Parent: clear-to-send, watch, combine.

uint32_t FifoReduction::TargetRcxt() {
  if (!free_targets_.empty()) {
    const uint32_t ref = free_targets_.back();
    free_targets_.pop_back();
    return ref;
  }
  Result<uint32_t> ref = ctx_.ports[kPort].AcquireRcxt();
  NICSIM_CHECK(ref.ok(), "half RDMA reduction: no rCxt for a contribution: %s",
               ref.status().message().c_str());
  targets_.push_back(*ref);
  return *ref;
}

void FifoReduction::Expect(uint32_t src, uint32_t context, uint32_t seq, uint64_t len,
                           uint32_t unit, CombineFn combine, std::function<void()> on_done) {
  const Key key{src, context, seq};
  NICSIM_CHECK(ins_.count(key) == 0,
               "half RDMA reduction: contribution %u of %u from task %u "
               "expected twice",
               seq, context, src);
  In& in = ins_[key];
  in.key = key;
  in.len = len;
  in.unit = std::max<uint32_t>(unit, 1);
  in.combine = std::move(combine);
  in.on_done = std::move(on_done);
  in.staged.resize(len);
  ++ctx_.stats.half_rdma_transfers;
  if (len == 0) {
    // Nothing to move: the child does not wait for a done notice either (Contribute).
    Finish(key);
    return;
  }
  in.rcxt = TargetRcxt();
  in_of_rcxt_[in.rcxt] = key;
  SendCts(in, 0, std::min<uint64_t>(len, ctx_.config.rdma_chunk));
}

void FifoReduction::StartWatch(In& in) {
  if (in.watching) return;
  in.watching = true;
  ArmWatch(in);
}

void FifoReduction::OnStarted(const Header& h) {
  auto it = ins_.find(Key{h.src_task, h.context, h.seq});
  if (it != ins_.end()) StartWatch(it->second);
}

void FifoReduction::SendCts(In& in, uint64_t base, uint64_t len) {
  const auto [src, context, seq] = in.key;
  ReduceCtsBody body{};
  body.rcxt = in.rcxt;
  body.tid = next_tid_++;
  if (next_tid_ == 0) next_tid_ = 1;  // tid 0 is what a fresh rCxt holds: never a transfer's
  body.base = base;
  body.len = len;
  in.attempts[body.tid] = base;
  in.asked = {base, base + len};
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kReduceCts);
  h.src_task = ctx_.config.task;
  h.seq = seq;
  h.offset = body.tid;
  h.total = static_cast<uint32_t>(in.len);
  h.context = context;
  packets_.Queue(src, h, reinterpret_cast<const uint8_t*>(&body), sizeof(body));
}

void FifoReduction::ArmWatch(In& in) {
  // A contribution is making progress while its bytes keep coming. How often they come
  // depends on what else the two adapters and links carry (the child's window may be serving
  // RDMA reads of a broadcast, ahead of this write): the look waits at least the shortest
  // packet timeout, kPaceLooks times the spacing of this contribution's packets so far, and
  // the bytes asked for not yet seen past the last one that came (the tail still to come) at the
  // RDMA timeout pace. A lost packet with bytes after it is asked for once the tail has come
  // (the look finds no progress then); a lost last packet is a short tail, asked for soon. A
  // look that finds nothing new waits twice as long the next time, up to 16 times.
  uint64_t base = ctx_.config.rto_min_ps;
  if (in.arrivals > 1) {
    const uint64_t pace = (in.last_arrival_ps - in.first_arrival_ps) / (in.arrivals - 1);
    base = std::max(base, kPaceLooks * pace);
  }
  // Every contribution this parent takes in comes through its one link, and the packets of
  // all of them queue there: the tail is that many times slower.
  const std::vector<ByteRanges::Range> gaps = in.landed.Missing(in.asked.first, in.asked.second);
  if (!gaps.empty() && gaps.back().second == in.asked.second) {
    const double tail = static_cast<double>(gaps.back().second - gaps.back().first);
    base = std::max(base, static_cast<uint64_t>(tail * ctx_.config.rdma_timeout_ps_per_byte *
                                                static_cast<double>(ins_.size())));
  }
  // Not capped at the packet layer's longest timeout: a tail of megabytes behind other
  // transfers can take longer than that, and restarting it would only send it again.
  const uint64_t delay = kWatchBackoff.Wait(base, in.stalls);
  ctx_.timers.After(delay, [this, key = in.key, look = in.look] { OnWatch(key, look); });
}

void FifoReduction::OnWatch(const Key& key, uint32_t look) {
  auto it = ins_.find(key);
  if (it == ins_.end() || it->second.look != look) return;
  In& in = it->second;
  ++in.look;
  // Progress is any packet of the contribution, even one with nothing new: packets of an
  // attempt still coming mean the path is delivering (a retry now would only restart it).
  if (in.arrivals > in.arrivals_at_look) {
    in.arrivals_at_look = in.arrivals;
    in.stalls = 0;
    ArmWatch(in);
    return;
  }
  // Nothing new since the last look: a packet was lost (or every packet of an attempt).
  ++in.stalls;
  AskForGaps(in, /*stalled=*/true);
  ArmWatch(in);
}

void FifoReduction::AskForGaps(In& in, bool stalled) {
  // Ask, with a newer tid, for the first gap and the gaps close behind it (re-sending the few
  // bytes between them costs less than a round trip each), at most one chunk (ulp.rdma_chunk):
  // a parent's children all write through its one link, and whole contributions at once
  // overflow the switch's output port. Once that span is in, the next is asked for at once
  // (OnFifoData). Bytes already in are not combined again if they come back.
  const std::vector<ByteRanges::Range> gaps = in.landed.Missing(0, in.len);
  if (gaps.empty()) return;
  // A gap with bytes after it, or one the watch found stalled, was lost: a retry. The rest
  // of the contribution after a chunk that is all in is the next chunk.
  if (stalled || gaps.front().second < in.len) {
    ++ctx_.stats.half_rdma_retries;
  } else {
    ++ctx_.stats.half_rdma_chunks;
  }
  uint64_t end = gaps.front().second;
  for (size_t i = 1; i < gaps.size() && gaps[i].first - end <= kRetryJoinBytes; ++i) {
    end = gaps[i].second;
  }
  end = std::min(end, gaps.front().first + ctx_.config.rdma_chunk);
  SendCts(in, gaps.front().first, end - gaps.front().first);
}

void FifoReduction::OnFifoData(const abi::RecvFrameHeader& frame, const uint8_t* payload) {
  if (frame.len_bytes < sizeof(abi::RdmaFrameInfo)) return;
  abi::RdmaFrameInfo info;
  std::memcpy(&info, payload, sizeof(info));
  const uint8_t* data = payload + sizeof(info);
  const uint64_t n = frame.len_bytes - sizeof(info);
  auto owner = in_of_rcxt_.find(info.rcxt);
  if (owner == in_of_rcxt_.end()) {
    ++ctx_.stats.half_rdma_stale;
    return;
  }
  In& in = ins_.at(owner->second);
  // A frame of an attempt this contribution did not make (an earlier contribution's, on the
  // same rCxt, that the adapter had not yet seen superseded) is not this contribution's data.
  auto attempt = in.attempts.find(info.tid);
  if (attempt == in.attempts.end()) {
    ++ctx_.stats.half_rdma_stale;
    return;
  }
  const uint64_t begin = attempt->second + info.offset;
  const uint64_t end = begin + n;
  if (end > in.len || end < begin) {
    ++ctx_.stats.half_rdma_stale;
    return;
  }
  ++ctx_.stats.half_rdma_packets;
  const uint64_t now = ctx_.host.NowPs();
  if (in.arrivals++ == 0) in.first_arrival_ps = now;
  in.last_arrival_ps = now;
  StartWatch(in);
  const std::vector<ByteRanges::Range> fresh = in.landed.Missing(begin, end);
  if (fresh.empty()) ++ctx_.stats.half_rdma_duplicate_packets;
  for (const auto& [b, e] : fresh) {
    std::memcpy(in.staged.data() + b, data + (b - begin), e - b);
    CombineCompleted(in, b, e);
  }
  if (in.combined.bytes() == in.len) {
    Finish(in.key);
  } else if (!fresh.empty() && in.landed.Contains(in.asked.first, in.asked.second)) {
    // What the last clear-to-send asked for is in and gaps remain elsewhere: the next.
    AskForGaps(in, /*stalled=*/false);
  }
}

void FifoReduction::CombineCompleted(In& in, uint64_t begin, uint64_t end) {
  // Only the elements that [begin, end) touches can have become whole now; of those, the ones
  // inside the landed range around it are. Each was missing a byte until now, so none of them
  // has been combined before.
  const uint64_t unit = in.unit;
  const auto [landed_begin, landed_end] = in.landed.Add(begin, end);
  const uint64_t whole_begin = RoundUp(landed_begin, unit);
  const uint64_t whole_end = landed_end == in.len ? in.len : RoundDown(landed_end, unit);
  const uint64_t b = std::max(RoundDown(begin, unit), whole_begin);
  const uint64_t e = std::min(std::min(RoundUp(end, unit), in.len), whole_end);
  if (b >= e) return;
  NICSIM_CHECK(!in.combined.Overlaps(b, e),
               "half RDMA reduction: bytes [%llu, %llu) combined "
               "twice",
               static_cast<unsigned long long>(b), static_cast<unsigned long long>(e));
  in.combined.Add(b, e);
  in.combine(b, in.staged.data() + b, e - b);
  ctx_.stats.half_rdma_combined_bytes += e - b;
  // The CPU combines one packet after another as they come: the reduction overlaps the rest
  // of the data arriving.
  copies_.Copy(ctx_.host.NowPs(), e - b);
}

void FifoReduction::Finish(Key key) {
  auto it = ins_.find(key);
  In in = std::move(it->second);
  ins_.erase(it);
  if (in.rcxt != abi::kNoRcxt) {
    in_of_rcxt_.erase(in.rcxt);
    free_targets_.push_back(in.rcxt);
  }
  if (in.len > 0) {
    const auto [src, context, seq] = key;
    packets_.SendControl(src, Kind::kReduceDone, seq, context);
  }
  if (in.on_done) copies_.Then(ctx_.host.NowPs(), 0, ctx_.timers, std::move(in.on_done));
}

bool FifoReduction::OnCompletion(const abi::CompletionRecord& c) const {
  // The writes ask for the target's completion only so that its adapter tracks each transfer
  // (duplicates dropped, a full FIFO's losses left unlanded); the bytes say when all is in.
  return std::find(targets_.begin(), targets_.end(), c.rcxt) != targets_.end();
}

// ---------------------------------------------------------------------------------------
// Child: write what the clear-to-send asks for.

void FifoReduction::Contribute(uint32_t dest, uint32_t context, uint32_t seq, uint64_t vaddr,
                               uint64_t len, std::function<void()> on_done) {
  const Key key{dest, context, seq};
  if (len == 0) {
    // The parent expects nothing and sends no done notice.
    if (on_done) on_done();
    return;
  }
  Out& out = outs_[key];  // a clear-to-send may be here already
  out.vaddr = vaddr;
  out.len = len;
  out.on_done = std::move(on_done);
  out.ready = true;
  Result<std::vector<RegistrationCache::Span>> spans = ctx_.regs.Acquire(vaddr, len);
  NICSIM_CHECK(spans.ok(), "half RDMA reduction: registering the contribution: %s",
               spans.status().message().c_str());
  out.spans = std::move(*spans);
  Write(key, out);
}

void FifoReduction::OnCts(const Header& h, const uint8_t* body, uint32_t len) {
  if (len < sizeof(ReduceCtsBody)) return;
  const Key key{h.src_task, h.context, h.seq};
  if (finished_.count(key) != 0) return;
  ReduceCtsBody cts;
  std::memcpy(&cts, body, sizeof(cts));
  Out& out = outs_[key];
  // Clear-to-sends may come out of order or twice: the newest attempt (highest tid) stands.
  if (out.cts.tid != 0 && static_cast<int32_t>(cts.tid - out.cts.tid) <= 0) return;
  out.cts = cts;
  Write(key, out);
}

uint32_t FifoReduction::SourceRcxt() {
  hal::Port& port = ctx_.ports[kPort];
  // Idle once the adapter has taken the last write posted on it (its tid) and sent it all.
  for (auto& [ref, tid] : sources_) {
    const abi::RcxtRecord rec = port.ReadRcxt(ref);
    if (rec.state == static_cast<uint8_t>(abi::RcxtState::kIdle) && rec.tid == tid) return ref;
  }
  Result<uint32_t> ref = port.AcquireRcxt();
  NICSIM_CHECK(ref.ok(), "half RDMA reduction: no source rCxt: %s", ref.status().message().c_str());
  sources_[*ref] = 0;
  return *ref;
}

void FifoReduction::Write(const Key& key, Out& out) {
  if (!out.ready || out.cts.tid == 0 || out.cts.tid == out.written_tid) return;
  hal::Port& port = ctx_.ports[kPort];
  // The attempt this one replaces may still be sending: its packets would only be dropped as
  // stale at the parent, so stop it.
  CancelSending(out);
  const uint64_t base = std::min(out.cts.base, out.len);
  uint64_t end = std::min(base + out.cts.len, out.len);
  // One write covers one registered span; the parent asks again for what lies beyond it.
  uint64_t pvo = 0;
  for (const RegistrationCache::Span& s : out.spans) {
    const uint64_t s_begin = s.vaddr - out.vaddr, s_end = s_begin + s.len;
    if (base >= s_begin && base < s_end) {
      pvo = s.pvo + (base - s_begin);
      end = std::min(end, s_end);
    }
  }
  out.written_tid = out.cts.tid;
  if (end <= base) return;
  abi::RdmaRequest r{};
  r.local_rcxt = SourceRcxt();
  r.remote_rcxt = out.cts.rcxt;
  r.tid = out.cts.tid;
  r.length = static_cast<uint32_t>(end - base);
  r.local_pvo = pvo;
  r.remote_pvo = 0;
  // kReqNotifyTarget makes the parent's adapter track the transfer through its rCxt.
  r.flags = abi::kReqRemoteFifo | abi::kReqNotifyTarget;
  sources_[r.local_rcxt] = r.tid;
  out.source = r.local_rcxt;
  ++ctx_.stats.half_rdma_writes;
  port.Post(abi::SlotType::kRdmaWrite, ctx_.ports.PeerOf(std::get<0>(key), kPort), r,
            ctx_.config.task);
  if (!out.started) AnnounceWhenTaken(key);
}

void FifoReduction::AnnounceWhenTaken(const Key& key) {
  auto it = outs_.find(key);
  if (it == outs_.end() || it->second.started) return;
  Out& out = it->second;
  // The parent times the transfer from this notice, so it goes once the adapter has taken
  // the write (the rCxt holds its tid): a window busy with other transfers (the RDMA reads
  // of a broadcast) may leave the write queued in the send FIFO for a long while first.
  const abi::RcxtRecord rec = ctx_.ports[kPort].ReadRcxt(out.source);
  if (rec.tid != out.written_tid) {
    ctx_.timers.After(kTakenPollPs, [this, key] { AnnounceWhenTaken(key); });
    return;
  }
  out.started = true;
  const auto [dest, context, seq] = key;
  packets_.SendControl(dest, Kind::kReduceStarted, seq, context);
}

void FifoReduction::CancelSending(const Out& out) {
  if (out.source == abi::kNoRcxt) return;
  hal::Port& port = ctx_.ports[kPort];
  // Done only once the adapter has taken the write (its tid) and sent it all. A write still
  // queued in the send FIFO (the window busy with other transfers) shows the rCxt's older
  // state: the cancel, behind it in the same FIFO, stops it as soon as it starts.
  const abi::RcxtRecord rec = port.ReadRcxt(out.source);
  if (rec.tid == out.written_tid && rec.state != static_cast<uint8_t>(abi::RcxtState::kSending)) {
    return;
  }
  abi::RdmaRequest cancel{};
  cancel.local_rcxt = out.source;
  port.Post(abi::SlotType::kRcxtCancel, port.self(), cancel, ctx_.config.task);
}

void FifoReduction::OnDone(const Header& h) {
  const Key key{h.src_task, h.context, h.seq};
  auto it = outs_.find(key);
  if (it == outs_.end() || !it->second.ready) return;
  Out out = std::move(it->second);
  outs_.erase(it);
  // A retry the parent no longer needs may still be reading the buffer: stop it, the buffer
  // is the caller's again.
  CancelSending(out);
  ctx_.regs.Release(out.vaddr, out.len);
  finished_.insert(key);
  finished_order_.push_back(key);
  if (finished_order_.size() > kFinishedKept) {
    finished_.erase(finished_order_.front());
    finished_order_.pop_front();
  }
  if (out.on_done) out.on_done();
}

}  // namespace nicsim::ulp
