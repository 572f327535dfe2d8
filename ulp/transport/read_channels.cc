// SPDX-License-Identifier: Apache-2.0
// Read channels: the handshake that reserves a source's rCxts for one reader, the reads over
// them (handed to the puller with the pair's rCxts as a one-span request to send), and the
// source's answers about late reads.
#include "ulp/transport/read_channels.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "ulp/transport/rdma_status.h"

namespace nicsim::ulp {
namespace {

/** A read's seq: kReadSeqBit, a count of reads, then the pair in the low bits. */
constexpr uint32_t kPairBits = 2;
static_assert(kMaxReadPairs <= (1u << kPairBits), "a read's seq names its pair");

uint32_t ReadSeq(uint32_t count, uint32_t pair) {
  return kReadSeqBit | ((count << kPairBits) & ~kReadSeqBit) | pair;
}

uint32_t PairOf(uint32_t seq) { return seq & ((1u << kPairBits) - 1); }

}  // namespace

ReadChannels::ReadChannels(const TransportContext& ctx, ReliableSender& packets, RdmaPuller& puller)
    : ctx_(ctx), packets_(packets), puller_(puller) {}

void ReadChannels::Open(uint32_t source) {
  if (!ctx_.config.rdma) return;
  OutChannel& out = out_[source];
  if (out.state != OutChannel::State::kClosed) return;
  ++out.generation;
  out.state = OutChannel::State::kOpening;
  packets_.SendControl(source, Kind::kReadOpen, out.generation);
}

bool ReadChannels::Read(uint32_t source, uint64_t remote_pvo, uint64_t len, uint64_t in_place,
                        DoneFn done) {
  Open(source);
  OutChannel& out = out_[source];
  if (out.state != OutChannel::State::kOpen || len == 0) return false;
  auto free =
      std::find_if(out.pairs.begin(), out.pairs.end(), [](const Pair& p) { return !p.busy; });
  if (free == out.pairs.end()) return false;
  const auto pair = static_cast<uint32_t>(free - out.pairs.begin());
  const uint32_t seq = ReadSeq(next_read_++, pair);
  RtsBody rts{};
  rts.spans = 1;
  rts.span[0] = RtsSpan{0, len, remote_pvo};
  rts.rcxts = 2;
  rts.rcxt[0] = free->rcxt[0];
  rts.rcxt[1] = free->rcxt[1];
  free->busy = true;
  reads_[ReadKey(source, seq)] = Pending{out.generation, pair, std::move(done)};
  ++ctx_.stats.rdma_reads;
  puller_.Read(source, seq, len, rts, in_place, out.tid);
  return true;
}

void ReadChannels::OnOpen(const Header& h) {
  InChannel& in = in_[h.src_task];
  // A generation seen before (a duplicate request): its answer is reliable already.
  if (h.seq <= in.generation) return;
  ReleaseRcxts(in);
  in.generation = h.seq;
  in.windows_at_open = windows_rebuilt_;
  for (uint32_t p = 0; p < kMaxReadPairs; ++p) {
    Result<uint32_t> first = ctx_.ports[kPort].AcquireRcxt();
    if (!first.ok()) break;
    Result<uint32_t> second = ctx_.ports[kPort].AcquireRcxt();
    if (!second.ok()) {
      ctx_.ports[kPort].ReleaseRcxt(*first);
      break;
    }
    in.rcxts.push_back(*first);
    in.rcxts.push_back(*second);
  }
  if (in.rcxts.empty()) {
    ++ctx_.stats.read_channels_refused;
  } else {
    ++ctx_.stats.read_channels_opened;
  }
  SendReady(h.src_task, in);
}

void ReadChannels::SendReady(uint32_t reader, const InChannel& in) {
  ReadReadyBody body{};
  body.pairs = static_cast<uint32_t>(in.rcxts.size() / 2);
  std::copy(in.rcxts.begin(), in.rcxts.end(), body.rcxt);
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kReadReady);
  h.src_task = ctx_.config.task;
  h.seq = in.generation;
  h.frag_len = sizeof(body);
  packets_.Queue(reader, h, reinterpret_cast<const uint8_t*>(&body), sizeof(body));
}

void ReadChannels::ReleaseRcxts(InChannel& in) {
  for (uint32_t ref : in.rcxts) ctx_.ports[kPort].ReleaseRcxt(ref);
  in.rcxts.clear();
}

void ReadChannels::OnReady(const Header& h, const uint8_t* body, uint32_t len) {
  auto it = out_.find(h.src_task);
  if (it == out_.end() || len < sizeof(ReadReadyBody)) return;
  OutChannel& out = it->second;
  // An answer to an older request, or a second copy of this one.
  if (out.state != OutChannel::State::kOpening || h.seq != out.generation) return;
  ReadReadyBody ready;
  std::copy(body, body + sizeof(ready), reinterpret_cast<uint8_t*>(&ready));
  const uint32_t pairs = std::min(ready.pairs, kMaxReadPairs);
  if (pairs == 0) {
    out.state = OutChannel::State::kRefused;
    return;
  }
  out.pairs.assign(pairs, Pair{});
  for (uint32_t p = 0; p < pairs; ++p) {
    out.pairs[p].rcxt[0] = ready.rcxt[2 * p];
    out.pairs[p].rcxt[1] = ready.rcxt[2 * p + 1];
  }
  out.state = OutChannel::State::kOpen;
}

void ReadChannels::OnQuery(uint32_t port, const Header& h) {
  std::optional<abi::RcxtRecord> named;
  auto it = in_.find(h.src_task);
  if (it != in_.end() && it->second.windows_at_open == windows_rebuilt_) {
    const size_t index = 2 * size_t{PairOf(h.seq)} + h.offset;
    if (h.offset < 2 && index < it->second.rcxts.size()) {
      named = ctx_.ports[kPort].ReadRcxt(it->second.rcxts[index]);
    }
  }
  ctx_.ports.SendHeader(port, h.src_task,
                        RdmaStatusAnswer(h, ctx_.config.task, named ? &*named : nullptr));
}

void ReadChannels::OnEnded(uint32_t source, uint32_t seq, uint32_t last_tid, bool landed,
                           std::vector<uint8_t> data) {
  auto it = reads_.find(ReadKey(source, seq));
  if (it == reads_.end()) return;
  Pending read = std::move(it->second);
  reads_.erase(it);
  OutChannel& out = out_[source];
  out.tid = std::max(out.tid, last_tid);
  if (read.generation == out.generation && out.state == OutChannel::State::kOpen) {
    out.pairs[read.pair].busy = false;
    if (!landed) {
      // RDMA did not get through to that source: the next read opens a new channel.
      out.state = OutChannel::State::kClosed;
      out.pairs.clear();
    }
  }
  read.done(landed, std::move(data));
}

}  // namespace nicsim::ulp
