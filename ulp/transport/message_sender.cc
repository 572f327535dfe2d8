// SPDX-License-Identifier: Apache-2.0
// The sending side of messages: eager fragments or an RTS offer, then the end of each message
// (all acknowledged, the reader's done, or its destination given up).
#include "ulp/transport/message_sender.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "ulp/transport/rdma_status.h"

namespace nicsim::ulp {

MessageSender::MessageSender(const TransportContext& ctx, ReliableSender& packets)
    : ctx_(ctx), packets_(packets) {}

void MessageSender::Start(uint32_t dest, uint32_t context, uint32_t tag, uint64_t vaddr,
                          uint64_t len, bool announce, std::function<void()> on_done) {
  const uint32_t seq = next_seq_[dest]++;
  ++ctx_.stats.messages_sent;
  if (unreachable_.count(dest) > 0) {
    // Nothing reaches that task any more: the message fails now, reported like the others.
    const FailedMessage f{dest, seq, len};
    failed_.push_back(f);
    ++ctx_.stats.messages_failed;
    if (unreachable_fn_) unreachable_fn_(dest, {f});
    return;
  }
  const uint64_t key = MsgKey(dest, seq);
  OutMsg& m = msgs_[key];
  m.dest = dest;
  m.seq = seq;
  m.context = context;
  m.tag = tag;
  m.vaddr = vaddr;
  m.len = len;
  m.announce = announce;
  m.on_done = std::move(on_done);
  if (ctx_.config.send_overhead_ps == 0) {
    StartSend(key);
    return;
  }
  // Messages leave in order: every one waits the same software time.
  ctx_.timers.After(ctx_.config.send_overhead_ps, [this, key] { StartSend(key); });
}

void MessageSender::StartSend(uint64_t key) {
  OutMsg& m = msgs_.at(key);
  std::vector<RegistrationCache::Span> spans;
  if (m.announce) {
    const bool rdma = ctx_.config.rdma && m.len > ctx_.config.rdma_threshold && TakeRdma(m, spans);
    if (rdma) ++ctx_.stats.rdma_messages;
    m.state = OutState::kOffered;
    m.windows_at_offer = windows_rebuilt_;
    SendRts(m, spans);
    return;
  }
  if (ring_ != nullptr && ring_->TrySend(m.dest, m.seq, m.context, m.tag, m.vaddr, m.len)) {
    m.state = OutState::kRing;
    return;
  }
  if (ctx_.config.rdma && m.len > ctx_.config.rdma_threshold && TakeRdma(m, spans)) {
    m.state = OutState::kOffered;
    m.windows_at_offer = windows_rebuilt_;
    ++ctx_.stats.rdma_messages;
    SendRts(m, spans);
    return;
  }
  SendEager(m);
}

bool MessageSender::TakeRdma(OutMsg& m, std::vector<RegistrationCache::Span>& spans) {
  Result<std::vector<RegistrationCache::Span>> got = ctx_.regs.Acquire(m.vaddr, m.len);
  if (!got.ok()) return false;
  if (got->size() <= kMaxRtsSpans) {
    // A slot and its spare (slot + pipeline) are on the same port: the pipeline is a
    // multiple of the ports.
    for (uint32_t i = 0; i < 2 * ctx_.config.rdma_pipeline; ++i) {
      Result<uint32_t> r = ctx_.ports[ctx_.ports.SlotPort(i)].AcquireRcxt();
      if (!r.ok()) break;
      m.rcxts.push_back(*r);
    }
    if (m.rcxts.size() == 2 * ctx_.config.rdma_pipeline) {
      spans = std::move(*got);
      return true;
    }
    for (uint32_t i = 0; i < m.rcxts.size(); ++i) {
      ctx_.ports[ctx_.ports.SlotPort(i)].ReleaseRcxt(m.rcxts[i]);
    }
    m.rcxts.clear();
  }
  ctx_.regs.Release(m.vaddr, m.len);
  return false;
}

void MessageSender::SendEager(OutMsg& m) {
  std::vector<uint8_t> bytes;
  ctx_.host.ReadAppend(m.vaddr, m.len, bytes);
  const uint32_t frag = ctx_.ports.FragmentBytes();
  uint64_t offset = 0;
  do {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(frag, m.len - offset));
    Header h{};
    h.kind = static_cast<uint8_t>(Kind::kData);
    h.src_task = ctx_.config.task;
    h.seq = m.seq;
    h.offset = static_cast<uint32_t>(offset);
    h.total = static_cast<uint32_t>(m.len);
    h.context = m.context;
    h.tag = m.tag;
    h.frag_len = n;
    ++m.unacked;
    packets_.Queue(m.dest, h, bytes.data() + offset, n);
    offset += n;
  } while (offset < m.len);
}

void MessageSender::SendRts(OutMsg& m, const std::vector<RegistrationCache::Span>& spans) {
  RtsBody body{};
  body.spans = static_cast<uint32_t>(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    body.span[i] = RtsSpan{spans[i].vaddr - m.vaddr, spans[i].len, spans[i].pvo};
  }
  body.rcxts = static_cast<uint32_t>(m.rcxts.size());
  for (size_t i = 0; i < m.rcxts.size(); ++i) body.rcxt[i] = m.rcxts[i];
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kRts);
  h.flags = m.announce ? kRtsAwaitsAccept : 0;
  h.src_task = ctx_.config.task;
  h.seq = m.seq;
  h.total = static_cast<uint32_t>(m.len);
  h.context = m.context;
  h.tag = m.tag;
  h.frag_len = sizeof(body);
  ++m.unacked;
  packets_.Queue(m.dest, h, reinterpret_cast<const uint8_t*>(&body), sizeof(body));
}

void MessageSender::OnControl(const Header& h) {
  auto it = msgs_.find(MsgKey(h.src_task, h.seq));
  if (it == msgs_.end()) return;  // already finished: the ack was what was missing
  OutMsg& m = it->second;
  if (static_cast<Kind>(h.kind) == Kind::kDone) {
    m.state = OutState::kDone;
  } else if (m.state == OutState::kOffered) {
    m.state = OutState::kPushed;
    // An announcement without RDMA is pushed as it meant to be: nothing fell back.
    if (!m.rcxts.empty()) ++ctx_.stats.fallbacks;
    SendEager(m);
  }
  MaybeFinish(it->first);
}

void MessageSender::OnRingDelivered(uint32_t dest, uint32_t seq) {
  const uint64_t key = MsgKey(dest, seq);
  if (msgs_.count(key) > 0) Finish(key);
}

void MessageSender::OnRingFellBack(uint32_t dest, uint32_t seq) {
  auto it = msgs_.find(MsgKey(dest, seq));
  if (it == msgs_.end() || it->second.state != OutState::kRing) return;
  it->second.state = OutState::kEager;
  SendEager(it->second);
}

bool MessageSender::HasNotice(uint32_t dest, uint32_t seq) const {
  auto it = msgs_.find(MsgKey(dest, seq));
  return it == msgs_.end() || it->second.state == OutState::kDone ||
         it->second.state == OutState::kPushed;
}

void MessageSender::OnRdmaQuery(uint32_t port, const Header& h) {
  std::optional<abi::RcxtRecord> named;
  auto it = msgs_.find(MsgKey(h.src_task, h.seq));
  // rCxts taken before a window was rebuilt serve no read any more, whatever their records say.
  if (it != msgs_.end() && Offered(it->second) && h.offset < it->second.rcxts.size() &&
      it->second.windows_at_offer == windows_rebuilt_) {
    // The rCxt of RTS slot i is on port SlotPort(i) (StartSend took them that way).
    named = ctx_.ports[ctx_.ports.SlotPort(h.offset)].ReadRcxt(it->second.rcxts[h.offset]);
  }
  ctx_.ports.SendHeader(port, h.src_task,
                        RdmaStatusAnswer(h, ctx_.config.task, named ? &*named : nullptr));
}

void MessageSender::OnPacketAcked(uint32_t dest, uint32_t seq) {
  auto it = msgs_.find(MsgKey(dest, seq));
  if (it == msgs_.end()) return;
  if (it->second.unacked > 0) --it->second.unacked;
  MaybeFinish(it->first);
}

void MessageSender::MaybeFinish(uint64_t msg_key) {
  auto it = msgs_.find(msg_key);
  if (it == msgs_.end()) return;
  const OutMsg& m = it->second;
  // An offered message waits for the receiver's word, whatever has been acknowledged.
  const bool done = m.state == OutState::kDone || (m.state != OutState::kOffered && m.unacked == 0);
  if (done) Finish(msg_key);
}

void MessageSender::Finish(uint64_t msg_key) {
  auto it = msgs_.find(msg_key);
  OutMsg& m = it->second;
  packets_.DropMessage(m.dest, m.seq);
  if (Offered(m)) ReleaseRdma(m);
  std::function<void()> done = std::move(m.on_done);
  const uint32_t dest = m.dest;
  msgs_.erase(it);
  packets_.PumpWindow(dest);
  if (done) done();
}

void MessageSender::ReleaseRdma(OutMsg& m) {
  if (m.rcxts.empty()) return;
  ctx_.regs.Release(m.vaddr, m.len);
  for (uint32_t i = 0; i < m.rcxts.size(); ++i) {
    ctx_.ports[ctx_.ports.SlotPort(i)].ReleaseRcxt(m.rcxts[i]);
  }
  m.rcxts.clear();
}

void MessageSender::GiveUp(uint32_t dest) {
  if (!unreachable_.insert(dest).second) return;
  packets_.DropDestination(dest);
  std::vector<FailedMessage> failed;
  for (auto it = msgs_.begin(); it != msgs_.end();) {
    if (it->second.dest != dest) {
      ++it;
      continue;
    }
    OutMsg& m = it->second;
    if (Offered(m)) ReleaseRdma(m);
    failed.push_back(FailedMessage{dest, m.seq, m.len});
    it = msgs_.erase(it);
  }
  // Reported in send order (the map's order is not).
  std::sort(failed.begin(), failed.end(),
            [](const FailedMessage& a, const FailedMessage& b) { return a.seq < b.seq; });
  ctx_.stats.messages_failed += failed.size();
  failed_.insert(failed_.end(), failed.begin(), failed.end());
  if (unreachable_fn_) unreachable_fn_(dest, failed);
}

OutStateCounts MessageSender::CountByState() const {
  OutStateCounts counts{};
  for (const auto& [key, m] : msgs_) ++counts[static_cast<size_t>(m.state)];
  return counts;
}

}  // namespace nicsim::ulp
