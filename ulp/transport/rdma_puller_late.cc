// SPDX-License-Identifier: Apache-2.0
// RDMA pulls, a read that is late: its timer, the questions to its source about it and the
// source's answers, after which it waits on, is redriven, or is overtaken.
#include "ulp/transport/rdma_puller.h"

#include <algorithm>
#include <utility>

namespace nicsim::ulp {
namespace {

/** "Sending" answers without progress after which a late read is redriven anyway (each one
 *  doubles the wait before the next question: a read queued behind many others at its source
 *  sends nothing for a long time). */
constexpr uint32_t kMaxStalledAnswers = 8;
/** Questions in a row without an answer after which a late read is redriven (each one doubles
 *  the wait before the next). */
constexpr uint32_t kMaxUnanswered = 4;

}  // namespace

void RdmaPuller::ArmLate(uint32_t src, uint32_t seq, const Pull& m, uint32_t slot) {
  const uint32_t generation = m.slot_generation[slot];
  const Chunk& c = m.in_flight[slot];
  // Every question that went unanswered, or was answered "sending" with nothing more sent,
  // doubles the wait for the next.
  const uint32_t doublings = std::min<uint32_t>(c.unanswered + c.stalled, 16);
  ctx_.timers.After(c.timeout_ps << doublings,
                    [this, src, seq, slot, generation, question = c.questions] {
                      OnLate(src, seq, slot, generation, question);
                    });
}

RdmaPuller::Pull* RdmaPuller::Attempt(uint32_t src, uint32_t seq, uint32_t slot,
                                      uint32_t generation) {
  auto it = pulls_.find(PullKey(src, seq));
  if (it == pulls_.end()) return nullptr;
  Pull& m = it->second;
  if (slot >= m.slot_generation.size() || m.slot_generation[slot] != generation ||
      m.in_flight[slot].len == 0) {
    return nullptr;
  }
  return &m;
}

void RdmaPuller::OnLate(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation,
                        uint32_t question) {
  Pull* m = Attempt(src, seq, slot, generation);
  if (m == nullptr) return;  // done, or redriven
  Chunk* c = &m->in_flight[slot];
  if (c->questions != question) return;  // asked since
  const RedriveCause cause = c->overtaken ? RedriveCause::kOvertaken : RedriveCause::kTimeout;
  // Every packet had left the source when it answered, and the answer came behind them on
  // the same way: what has not landed by now (the fabric's reordering window after the
  // answer) was lost.
  if (c->probe == Probe::kSent) {
    Redrive(src, seq, slot, generation, cause);
    return;
  }
  // A question with no answer gets more chances (the answer may wait behind the source's own
  // sends); then the source is taken to be gone or cut off. A read the source keeps "sending"
  // without a byte more through several questions is stuck there.
  if (c->probe == Probe::kAsked) ++c->unanswered;
  if (c->unanswered >= kMaxUnanswered || c->stalled >= kMaxStalledAnswers) {
    Redrive(src, seq, slot, generation, cause);
    return;
  }
  Ask(src, seq, *m, slot);
}

void RdmaPuller::Ask(uint32_t src, uint32_t seq, Pull& m, uint32_t slot) {
  Chunk& c = m.in_flight[slot];
  c.probe = Probe::kAsked;
  ++c.questions;
  ++ctx_.stats.rdma_queries;
  Header q{};
  q.kind = static_cast<uint8_t>(Kind::kRdmaQuery);
  q.src_task = ctx_.config.task;
  q.seq = seq;
  q.offset = SourceRcxtIndex(m, slot);
  q.context = m.slot_tid[slot];
  ctx_.ports.SendHeader(ctx_.ports.SlotPort(slot), src, q);
  ArmLate(src, seq, m, slot);
}

void RdmaPuller::OnOvertaken(uint32_t src, uint32_t seq, uint32_t slot, uint32_t generation) {
  Pull* m = Attempt(src, seq, slot, generation);
  if (m == nullptr) return;
  // Most likely a packet of it was lost; the source says whether it was.
  Chunk& c = m->in_flight[slot];
  c.overtaken = true;
  if (c.probe == Probe::kNone || c.probe == Probe::kSending) Ask(src, seq, *m, slot);
}

void RdmaPuller::OnStatus(const Header& h) {
  auto it = pulls_.find(PullKey(h.src_task, h.seq));
  if (it == pulls_.end()) return;
  Pull& m = it->second;
  for (uint32_t slot = 0; slot < m.in_flight.size(); ++slot) {
    Chunk& c = m.in_flight[slot];
    if (c.len == 0 || c.probe != Probe::kAsked || m.slot_tid[slot] != h.context ||
        SourceRcxtIndex(m, slot) != h.offset) {
      continue;  // an answer about an attempt given up since, or asked about before
    }
    switch (static_cast<RdmaReadStatus>(h.total)) {
      case RdmaReadStatus::kNotThere:
        // The request never reached the source's rCxt: no point waiting any longer.
        Redrive(h.src_task, h.seq, slot, m.slot_generation[slot], RedriveCause::kNotThere);
        return;
      case RdmaReadStatus::kSending:
        c.probe = Probe::kSending;
        c.unanswered = 0;
        c.stalled = h.tag > c.source_sent ? 0 : c.stalled + 1;
        c.source_sent = std::max(c.source_sent, h.tag);
        return;
      case RdmaReadStatus::kSent: {
        c.probe = Probe::kSent;
        const uint32_t src = h.src_task, seq = h.seq, generation = m.slot_generation[slot];
        ctx_.timers.After(ctx_.config.rdma_reorder_window_ps,
                          [this, src, seq, slot, generation, question = c.questions] {
                            OnLate(src, seq, slot, generation, question);
                          });
        return;
      }
    }
    return;
  }
}

}  // namespace nicsim::ulp
