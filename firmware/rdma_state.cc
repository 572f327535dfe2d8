// SPDX-License-Identifier: Apache-2.0
#include "firmware/rdma_state.h"

#include <iterator>

namespace nicsim::fw {

bool LandedRanges::Claim(uint32_t begin, uint32_t end) {
  if (begin == end) {
    // Only a zero-length transfer sends an empty packet.
    if (zero_claimed_) return false;
    zero_claimed_ = true;
    return true;
  }
  auto next = ranges_.upper_bound(begin);
  if (next != ranges_.end() && next->first < end) return false;
  if (next != ranges_.begin()) {
    auto prev = std::prev(next);
    if (prev->second > begin) return false;
    if (prev->second == begin) {  // merge with the range just before
      begin = prev->first;
      ranges_.erase(prev);
    }
  }
  if (next != ranges_.end() && next->first == end) {  // merge with the range just after
    end = next->second;
    ranges_.erase(next);
  }
  ranges_[begin] = end;
  return true;
}

bool LandedRanges::Free(uint32_t begin, uint32_t end) const {
  if (begin == end) return !zero_claimed_;
  auto next = ranges_.upper_bound(begin);
  if (next != ranges_.end() && next->first < end) return false;
  return next == ranges_.begin() || std::prev(next)->second <= begin;
}

bool LandedRanges::Covers(uint32_t end) const {
  if (end == 0) return zero_claimed_ && ranges_.empty();
  return ranges_.size() == 1 && ranges_.begin()->first == 0 && ranges_.begin()->second == end;
}

RdmaState::RdmaState(Platform& platform, uint32_t rcxts) : platform_(platform), rcxts_(rcxts) {}

bool RdmaState::Load(uint32_t index, abi::RcxtRecord* rec) const {
  if (index >= rcxts_) return false;
  platform_.SramRead(abi::RcxtAddr(index), rec, sizeof(*rec));
  return true;
}

void RdmaState::Store(uint32_t index, const abi::RcxtRecord& rec, TaskId task) {
  abi::RcxtRecord old;
  platform_.SramRead(abi::RcxtAddr(index), &old, sizeof(old));
  platform_.SramWrite(abi::RcxtAddr(index), &rec, sizeof(rec));
  if (old.state != rec.state || old.tid != rec.tid) TraceRcxt(index, rec, task);
}

void RdmaState::TraceRcxt(uint32_t index, const abi::RcxtRecord& rec, TaskId task) const {
  TraceEvent ev;
  ev.kind = TraceKind::kRcxt;
  ev.task = task;
  ev.state = rec.state;
  ev.window = rec.window;
  ev.value = index | (uint64_t{rec.tid} << 32);
  platform_.Trace(ev);
}

bool RdmaState::Resolve(uint32_t ref, uint32_t window, abi::RcxtRecord* rec,
                        uint32_t* index) const {
  const uint32_t i = abi::RcxtIndex(ref);
  if (!Load(i, rec)) return false;
  if (rec->state == static_cast<uint8_t>(abi::RcxtState::kFree)) return false;
  if (rec->window != window || (rec->key & abi::kRcxtKeyMask) != abi::RcxtKey(ref)) return false;
  *index = i;
  return true;
}

void RdmaState::Enqueue(abi::LmtEntry& lmt, uint32_t index) {
  abi::RcxtRecord rec;
  Load(index, &rec);
  rec.next = abi::kNoRcxt;
  platform_.SramWrite(abi::RcxtAddr(index), &rec, sizeof(rec));
  abi::RcxtRecord tail;
  if (lmt.rcxt_count > 0 && !Load(lmt.rcxt_tail, &tail)) DropList(lmt);
  if (lmt.rcxt_count == 0) {
    lmt.rcxt_head = index;
  } else {
    tail.next = index;
    platform_.SramWrite(abi::RcxtAddr(lmt.rcxt_tail), &tail, sizeof(tail));
  }
  lmt.rcxt_tail = index;
  ++lmt.rcxt_count;
}

void RdmaState::Unlink(abi::LmtEntry& lmt, uint32_t index) {
  uint32_t prev = abi::kNoRcxt;
  uint32_t at = lmt.rcxt_head;
  for (uint32_t n = 0; n < lmt.rcxt_count; ++n) {
    abi::RcxtRecord rec;
    if (!Load(at, &rec)) {
      DropList(lmt);
      return;
    }
    if (at == index) {
      if (prev == abi::kNoRcxt) {
        lmt.rcxt_head = rec.next;
      } else {
        abi::RcxtRecord p;
        Load(prev, &p);
        p.next = rec.next;
        platform_.SramWrite(abi::RcxtAddr(prev), &p, sizeof(p));
      }
      if (lmt.rcxt_tail == index) lmt.rcxt_tail = prev;
      --lmt.rcxt_count;
      return;
    }
    prev = at;
    at = rec.next;
  }
}

void RdmaState::PopHead(abi::LmtEntry& lmt, uint32_t next) {
  lmt.rcxt_head = next;
  if (--lmt.rcxt_count == 0) lmt.rcxt_head = lmt.rcxt_tail = abi::kNoRcxt;
}

void RdmaState::DropList(abi::LmtEntry& lmt) {
  lmt.rcxt_head = lmt.rcxt_tail = abi::kNoRcxt;
  lmt.rcxt_count = 0;
}

Inbound& RdmaState::BeginInbound(uint32_t index) {
  Inbound& in = inbound_[index];
  in = Inbound{};
  return in;
}

Inbound* RdmaState::FindInbound(uint32_t index) {
  auto it = inbound_.find(index);
  return it == inbound_.end() ? nullptr : &it->second;
}

std::vector<ParkedRequest> RdmaState::SetCounter(uint32_t queue, uint32_t value) {
  counters_[queue] = value;
  TraceEvent ev;
  ev.kind = TraceKind::kCondition;
  ev.state = queue;
  ev.value = value;
  platform_.Trace(ev);
  std::vector<ParkedRequest> ready;
  std::vector<ParkedRequest>& parked = parked_[queue];
  for (auto it = parked.begin(); it != parked.end();) {
    if (value >= it->request.count) {
      ready.push_back(*it);
      it = parked.erase(it);
    } else {
      ++it;
    }
  }
  return ready;
}

void RdmaState::Reset() {
  inbound_.clear();
  counters_.fill(0);
  for (auto& q : parked_) q.clear();
}

}  // namespace nicsim::fw
