// SPDX-License-Identifier: Apache-2.0
// The receive engine: moves a validated packet-mode packet into the window's receive FIFO,
// body first and the first cache line last, so that line is the ULP's arrival signal.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "firmware/counters.h"
#include "firmware/internal.h"
#include "firmware/platform.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Receive task states, in the order a packet passes through them. */
enum class RxState : uint8_t {
  kValidate,   // header in task registers: check it, reserve a frame
  kMoveBody,   // payload staged: DMA all but the first cache line
  kSignal,     // body coherent: DMA the first cache line (header + first bytes)
  kFinish,     // all coherent: advance the tail, maybe interrupt
  kDone,       // released; not a runnable state
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(RxState::kCount)>
    kRxStateNames = {"validate", "move_body", "signal", "finish", "done"};

constexpr std::string_view ToString(RxState s) { return kRxStateNames[static_cast<size_t>(s)]; }

/** Runs receive tasks through RxState. */
class RxEngine {
 public:
  RxEngine(Platform& platform, Counters& counters, TaskPool& tasks)
      : platform_(platform), counters_(counters), tasks_(tasks) {}

  /** Starts `task` at kValidate; returns false if the packet was dropped (task released). */
  bool Start(Task& task);
  /** The payload arrived in `dtb`. */
  void OnPayload(Task& task, DtbId dtb);
  /** A DMA for `task` completed. */
  void OnDmaComplete(Task& task);

 private:
  using Next = Step<RxState>;
  /** Runs states until the task suspends or ends. */
  void Run(Task& task, RxState state);
  Next Validate(Task& task);
  Next MoveBody(Task& task);
  Next Signal(Task& task);
  Next Finish(Task& task);
  /** Releases the task's DTB and the task itself. */
  void End(Task& task);

  using StateFn = Next (RxEngine::*)(Task&);
  static constexpr std::array<StateFn, static_cast<size_t>(RxState::kDone)> kStates = {
      &RxEngine::Validate, &RxEngine::MoveBody, &RxEngine::Signal, &RxEngine::Finish};

  Platform& platform_;
  Counters& counters_;
  TaskPool& tasks_;
};

}  // namespace nicsim::fw
