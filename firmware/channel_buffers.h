// SPDX-License-Identifier: Apache-2.0
// Channel buffers: microcode-managed caches of window LMTs. Tasks working for the same
// window share one CB; the LMT is fetched from SRAM on the first bind and flushed back on the
// last unbind or on request, so an SRAM read in between may see a stale copy.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/limits.h"
#include "abi/lmt.h"
#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/states.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** The pool of channel buffers. */
class ChannelBuffers {
 public:
  ChannelBuffers(Platform& platform, Counters& counters, uint32_t count);

  /**
   * Binds a task of `kind` to `window`'s CB, fetching the LMT from SRAM when the window has
   * none. Returns the CB, or kNoCb when every CB caches another window.
   */
  CbId Bind(uint32_t window, TaskKind kind);
  /** True if Bind(window) would succeed now. */
  bool CanBind(uint32_t window) const;
  /** Drops a task's binding; the last one flushes the LMT to SRAM and frees the CB. */
  void Unbind(CbId cb, TaskKind kind);
  /** The cached LMT of a bound CB. */
  abi::LmtEntry& Lmt(CbId cb) { return entries_[cb].lmt; }
  uint32_t WindowOf(CbId cb) const { return entries_[cb].window; }

  /** The window's current LMT: the CB copy if one is bound, else SRAM. */
  abi::LmtEntry Read(uint32_t window);
  /** Replaces the window's current LMT wherever it lives. */
  void Write(uint32_t window, const abi::LmtEntry& lmt);
  /** Writes the window's CB copy to SRAM (it stays cached). No-op if not cached. */
  void Flush(uint32_t window);

  BufferManagerResponse Bmr(uint32_t window) const;
  /** Frees every CB without flushing (adapter reset). */
  void Reset();

 private:
  struct Entry {
    bool bound = false;
    uint32_t window = 0;
    uint32_t rx = 0;
    uint32_t tx = 0;
    /** The LMT copy, within the buffer's first 256-byte half. The rest of the buffer is not
     *  modelled: per-packet state lives in the task (docs/architecture.md, "Departures from
     *  reference 002"). */
    abi::LmtEntry lmt{};
  };
  static_assert(sizeof(abi::LmtEntry) <= abi::kChannelBufferBytes / 2, "an LMT fits half a CB");

  void TraceLmt(TraceKind kind, uint32_t window, CbId cb);

  Platform& platform_;
  Counters& counters_;
  std::vector<Entry> entries_;
  /** Window -> CB holding its LMT, or kNoCb. */
  std::vector<CbId> cb_of_window_;
};

}  // namespace nicsim::fw
