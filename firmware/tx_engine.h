// SPDX-License-Identifier: Apache-2.0
// The transmit engine: a transmit task takes a ready window from the work manager, fetches
// the slot header into a header buffer and the payload into a DTB, stamps the window's key,
// injects, and marks the slot complete; then it asks for more work.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "abi/fifo.h"
#include "abi/lmt.h"
#include "abi/rdma.h"
#include "firmware/internal.h"
#include "firmware/states.h"
#include "firmware/task.h"

namespace nicsim::fw {

/** Runs transmit tasks through TxState. */
class TxEngine {
 public:
  explicit TxEngine(Context& ctx) : ctx_(ctx) {}

  /** Forks transmit tasks for ready windows while tasks are free. */
  void Fork();
  /** Runs a dispatched task from where it suspended. */
  void Resume(Task& task) { Run(task, static_cast<TxState>(task.state)); }

 private:
  using Next = Step<TxState>;
  void Run(Task& task, TxState state);
  Next Select(Task& task);
  Next FetchHeader(Task& task);
  Next FetchBody(Task& task);
  Next Inject(Task& task);
  Next MarkDone(Task& task);
  Next Finish(Task& task);
  // RDMA states (tx_rdma.cc).
  Next Post(Task& task);
  Next RdmaTranslate(Task& task);
  Next RdmaCheck(Task& task);
  Next RdmaLoad(Task& task);
  Next RdmaInject(Task& task);
  /** A cancel stopped a transfer: write its kCancelled completion record to the FIFO. */
  Next CancelNotify(Task& task);
  Next CancelNotified(Task& task);
  /** Claims the next packet of the rCxt at the head of the window's send list. */
  Next ClaimRdmaPacket(Task& task, abi::LmtEntry& lmt);
  /** A write piece slot: fetch its data and build the packet's RDMA header. */
  Next LoadPiece(Task& task, const abi::SendSlotHeader& slot, const abi::RdmaRequest& request);
  /** The source's rCxt cannot go on (protection failure): stop sending it. */
  Next FailSource(Task& task);
  /** A packet of the rCxt is done (sent or not): the rCxt may be finished. */
  void PacketDone(Task& task);
  /** Ends the packet's operation: releases buffers and the CB. */
  void EndPacket(Task& task);
  /** The window closed under the packet: no completion is written. */
  Next Abandon(Task& task);
  uint64_t SlotAddr(const Task& task);

  using StateFn = Next (TxEngine::*)(Task&);
  static constexpr std::array<StateFn, static_cast<size_t>(TxState::kDone)> kStates = {
      &TxEngine::Select,        &TxEngine::FetchHeader,   &TxEngine::FetchBody,
      &TxEngine::Inject,        &TxEngine::MarkDone,      &TxEngine::Finish,
      &TxEngine::Post,          &TxEngine::RdmaTranslate, &TxEngine::RdmaCheck,
      &TxEngine::RdmaLoad,      &TxEngine::RdmaInject,    &TxEngine::CancelNotify,
      &TxEngine::CancelNotified};

  Context& ctx_;
};

}  // namespace nicsim::fw
