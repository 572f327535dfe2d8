// SPDX-License-Identifier: Apache-2.0
// Channel buffer binding, fetch and flush.
#include "firmware/channel_buffers.h"

#include "base/check.h"

namespace nicsim::fw {

ChannelBuffers::ChannelBuffers(Platform& platform, Counters& counters, uint32_t count)
    : platform_(platform),
      counters_(counters),
      entries_(count),
      cb_of_window_(abi::kMaxWindows, kNoCb) {}

CbId ChannelBuffers::Bind(uint32_t window, TaskKind kind) {
  NICSIM_CHECK(window < abi::kMaxWindows, "bind of window %u", window);
  CbId cb = cb_of_window_[window];
  if (cb != kNoCb) {
    ++counters_.cb_shared;
  } else {
    for (CbId i = 0; i < entries_.size(); ++i) {
      if (!entries_[i].bound) {
        cb = i;
        break;
      }
    }
    if (cb == kNoCb) return kNoCb;
    Entry& e = entries_[cb];
    e.bound = true;
    e.window = window;
    e.rx = e.tx = 0;
    platform_.SramRead(abi::LmtAddr(window), &e.lmt, sizeof(e.lmt));
    cb_of_window_[window] = cb;
    ++counters_.cb_loads;
    TraceLmt(TraceKind::kLmtFetch, window, cb);
  }
  ++(kind == TaskKind::kRx ? entries_[cb].rx : entries_[cb].tx);
  return cb;
}

bool ChannelBuffers::CanBind(uint32_t window) const {
  if (cb_of_window_[window] != kNoCb) return true;
  for (const Entry& e : entries_) {
    if (!e.bound) return true;
  }
  return false;
}

void ChannelBuffers::Unbind(CbId cb, TaskKind kind) {
  NICSIM_CHECK(cb < entries_.size() && entries_[cb].bound, "unbind of free CB %u", cb);
  Entry& e = entries_[cb];
  uint32_t& n = kind == TaskKind::kRx ? e.rx : e.tx;
  NICSIM_CHECK(n > 0, "unbind with no task of that kind bound to CB %u", cb);
  --n;
  if (e.rx + e.tx > 0) return;
  platform_.SramWrite(abi::LmtAddr(e.window), &e.lmt, sizeof(e.lmt));
  ++counters_.cb_flushes;
  TraceLmt(TraceKind::kLmtFlush, e.window, cb);
  cb_of_window_[e.window] = kNoCb;
  e.bound = false;
  platform_.RxResourcesFreed();
}

abi::LmtEntry ChannelBuffers::Read(uint32_t window) {
  const CbId cb = cb_of_window_[window];
  if (cb != kNoCb) return entries_[cb].lmt;
  abi::LmtEntry lmt;
  platform_.SramRead(abi::LmtAddr(window), &lmt, sizeof(lmt));
  return lmt;
}

void ChannelBuffers::Write(uint32_t window, const abi::LmtEntry& lmt) {
  const CbId cb = cb_of_window_[window];
  if (cb != kNoCb) {
    entries_[cb].lmt = lmt;
  } else {
    platform_.SramWrite(abi::LmtAddr(window), &lmt, sizeof(lmt));
  }
}

void ChannelBuffers::Flush(uint32_t window) {
  const CbId cb = cb_of_window_[window];
  if (cb == kNoCb) return;
  platform_.SramWrite(abi::LmtAddr(window), &entries_[cb].lmt, sizeof(abi::LmtEntry));
  ++counters_.cb_flushes;
  TraceLmt(TraceKind::kLmtFlush, window, cb);
}

void ChannelBuffers::TraceLmt(TraceKind kind, uint32_t window, CbId cb) {
  TraceEvent ev;
  ev.kind = kind;
  ev.window = window;
  ev.cb = cb;
  platform_.Trace(ev);
}

BufferManagerResponse ChannelBuffers::Bmr(uint32_t window) const {
  BufferManagerResponse r;
  if (window >= abi::kMaxWindows) return r;
  r.cb = cb_of_window_[window];
  if (r.cb != kNoCb) {
    r.rx_tasks = entries_[r.cb].rx;
    r.tx_tasks = entries_[r.cb].tx;
  }
  return r;
}

void ChannelBuffers::Reset() {
  for (Entry& e : entries_) e = Entry{};
  for (CbId& c : cb_of_window_) c = kNoCb;
}

}  // namespace nicsim::fw
