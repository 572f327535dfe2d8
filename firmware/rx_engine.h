// SPDX-License-Identifier: Apache-2.0
// The receive engine: moves a validated packet-mode packet into the window's receive FIFO,
// body first and the first cache line last, so that line is the ULP's arrival signal.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "abi/lmt.h"
#include "firmware/internal.h"
#include "firmware/states.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Runs receive tasks through RxState. */
class RxEngine {
 public:
  explicit RxEngine(Context& ctx) : ctx_(ctx) {}

  /** Starts `task` at kValidate; returns false if the packet was dropped (task released). */
  bool Start(Task& task);
  /** The payload arrived in `dtb`; true if the task was waiting for it and must be woken. */
  bool OnPayload(Task& task, DtbId dtb);
  /** Runs a dispatched task from where it suspended. */
  void Resume(Task& task) { Run(task, static_cast<RxState>(task.state)); }

 private:
  using Next = Step<RxState>;
  void Run(Task& task, RxState state);
  Next Validate(Task& task);
  Next Bind(Task& task);
  Next Admit(Task& task);
  Next MoveBody(Task& task);
  Next Signal(Task& task);
  Next Finish(Task& task);
  Next Discard(Task& task);
  // RDMA states (rx_rdma.cc).
  Next RdmaAdmit(Task& task);
  Next RdmaTranslate(Task& task);
  Next RdmaPlace(Task& task);
  Next RdmaMove(Task& task);
  Next RdmaLanded(Task& task);
  Next RdmaNotify(Task& task);
  Next RdmaNotified(Task& task);
  Next RdmaFifoAdmit(Task& task);
  /**
   * rCxt and tid checks shared by data bound for memory and data bound for the FIFO that
   * owes a completion: resolves the rCxt, starts a new transfer on it if this packet is the
   * first of one, and returns its landing map. False (with `*reason`) drops the packet.
   */
  bool OpenInbound(Task& task, Inbound** in, DropReason* reason);
  /** A data packet's rCxt, tid and duplicate checks; claims its bytes. */
  Next AdmitData(Task& task, abi::LmtEntry& lmt);
  /** A read request: the rCxt becomes a data source queued on the window's send list. */
  Next AdmitReadRequest(Task& task, abi::LmtEntry& lmt);
  /** A completion packet for an rCxt of this window. */
  Next AdmitCompletion(Task& task, abi::LmtEntry& lmt);
  /** The rest of the packet is not needed: free the payload when it comes. */
  Next Consumed(Task& task);
  /** Sends the completion packet for a landed transfer back to whoever asked for it. */
  void SendCompletion(const Task& task, const abi::LmtEntry& lmt, uint32_t length);
  /** Drops the packet; a task still owed its payload waits for it in kDiscard. */
  Next Drop(Task& task, DropReason reason);
  /** Releases the task's DTB, CB and the task itself. */
  void End(Task& task);
  uint64_t FrameAddr(const Task& task);

  using StateFn = Next (RxEngine::*)(Task&);
  static constexpr std::array<StateFn, static_cast<size_t>(RxState::kDone)> kStates = {
      &RxEngine::Validate,   &RxEngine::Bind,         &RxEngine::Admit,
      &RxEngine::MoveBody,   &RxEngine::Signal,       &RxEngine::Finish,
      &RxEngine::Discard,    &RxEngine::RdmaAdmit,    &RxEngine::RdmaTranslate,
      &RxEngine::RdmaPlace,  &RxEngine::RdmaMove,     &RxEngine::RdmaLanded,
      &RxEngine::RdmaNotify, &RxEngine::RdmaNotified, &RxEngine::RdmaFifoAdmit};

  Context& ctx_;
};

}  // namespace nicsim::fw
