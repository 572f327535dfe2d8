// SPDX-License-Identifier: Apache-2.0
// The transmit engine: serves windows with posted send slots round robin, fetches each
// slot's header and payload, stamps the window's key, injects, and marks the slot complete.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "firmware/counters.h"
#include "firmware/internal.h"
#include "firmware/platform.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Transmit task states. */
enum class TxState : uint8_t {
  kSelect,       // pick the next ready window (round robin) and claim a slot
  kFetchHeader,  // DMA the slot's first cache line into the header buffer
  kFetchBody,    // check the slot header; DMA the payload into a DTB
  kInject,       // build the wire header (with the window's key) and transmit
  kMarkDone,     // rewrite the slot header with a completion status
  kFinish,       // count the completion, maybe interrupt, look for more work
  kDone,         // no ready window: the task goes back to the pool
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(TxState::kCount)>
    kTxStateNames = {"select", "fetch_header", "fetch_body", "inject", "mark_done", "finish",
                     "done"};

constexpr std::string_view ToString(TxState s) { return kTxStateNames[static_cast<size_t>(s)]; }

/** Runs transmit tasks through TxState. */
class TxEngine {
 public:
  TxEngine(Platform& platform, Counters& counters, TaskPool& tasks, uint32_t switch_every)
      : platform_(platform), counters_(counters), tasks_(tasks), switch_every_(switch_every) {}

  /** StartTransmit: adds `count` to the window's readyToSend and sets its ready bit. */
  void Post(uint32_t window, uint32_t count);
  /** Puts every free transmit task to work while windows are ready. */
  void Kick();
  /** A DMA for `task` completed. */
  void OnDmaComplete(Task& task);

 private:
  using Next = Step<TxState>;
  void Run(Task& task, TxState state);
  Next Select(Task& task);
  Next FetchHeader(Task& task);
  Next FetchBody(Task& task);
  Next Inject(Task& task);
  Next MarkDone(Task& task);
  Next Finish(Task& task);

  /** The next window with its ready bit set, starting at the round-robin cursor. */
  bool NextReadyWindow(uint32_t* window);
  void SetReadyBit(uint32_t window, bool on);
  uint64_t SlotAddr(uint32_t window, uint32_t seq);

  using StateFn = Next (TxEngine::*)(Task&);
  static constexpr std::array<StateFn, static_cast<size_t>(TxState::kDone)> kStates = {
      &TxEngine::Select, &TxEngine::FetchHeader, &TxEngine::FetchBody,
      &TxEngine::Inject, &TxEngine::MarkDone,    &TxEngine::Finish};

  Platform& platform_;
  Counters& counters_;
  TaskPool& tasks_;
  /** k: packets taken from one window before moving on. */
  uint32_t switch_every_;
  /** Round-robin cursor and packets taken from it this turn. */
  uint32_t cursor_ = 0;
  uint32_t taken_this_turn_ = 0;
};

}  // namespace nicsim::fw
