// SPDX-License-Identifier: Apache-2.0
// Transmit engine states. Windows are served round robin through the work manager; no
// ordering is kept between transmit tasks, so packets of one window may leave out of order.
#include "firmware/tx_engine.h"

#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "base/check.h"
#include "firmware/rdma_post.h"

namespace nicsim::fw {

void TxEngine::Fork() {
  uint32_t window;
  while (ctx_.work.NextWindow(&window)) {
    // Every transmit task busy: they take the ready windows as they finish their packets.
    Task* task = ctx_.tasks.Allocate(TaskKind::kTx);
    if (task == nullptr) return;
    Run(*task, TxState::kSelect);
  }
}

void TxEngine::Run(Task& task, TxState state) {
  task.waiting = Resource::kNone;
  if (RunStates(*this, kStates, ctx_.platform, TraceKind::kTxState, task, state)) {
    ctx_.tasks.Release(task);
  }
}

uint64_t TxEngine::SlotAddr(const Task& task) {
  const abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  return lmt.send_fifo_addr +
         static_cast<uint64_t>(task.seq % lmt.send_fifo_slots) * abi::SendSlotBytes(lmt.line_bytes);
}

TxEngine::Next TxEngine::Select(Task& task) {
  uint32_t window;
  if (!ctx_.work.NextWindow(&window)) {
    UnbindTaskCb(ctx_, task);
    return Next{TxState::kDone, false};
  }
  // A CB kept from the last packet serves only that window.
  if (task.cb != kNoCb && task.window != window) UnbindTaskCb(ctx_, task);
  task.window = window;
  if (task.cb == kNoCb) {
    task.cb = ctx_.cbs.Bind(window, TaskKind::kTx);
    if (task.cb == kNoCb) {
      ctx_.scheduler.WaitFor(task, Resource::kChannelBuffer);
      return Next{TxState::kSelect, true};
    }
  }
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  if (!WindowOpen(lmt) || (lmt.ready_to_send == 0 && lmt.rcxt_count == 0)) {
    // Nothing to claim after all (closed, or claimed while this task waited): try again.
    ctx_.work.SetReady(window, false);
    UnbindTaskCb(ctx_, task);
    return Next{TxState::kSelect, false};
  }
  if (task.packets_served > 0) ++ctx_.counters.work_manager_handoffs;
  // With both kinds of work, send FIFO slots and RDMA packets take turns.
  const bool rdma = lmt.rcxt_count > 0 && (lmt.ready_to_send == 0 || (lmt.tx_turn++ & 1));
  if (rdma) return ClaimRdmaPacket(task, lmt);
  task.seq = lmt.send_head++;
  --lmt.ready_to_send;
  ctx_.work.Claimed(window, lmt.ready_to_send + lmt.rcxt_count);
  task.dma_status = DmaStatus::kOk;
  task.rejected = false;
  ctx_.scheduler.BeginOperation(task.id);
  return Next{TxState::kFetchHeader, false};
}

TxEngine::Next TxEngine::FetchHeader(Task& task) {
  task.header_buffer = ctx_.platform.AllocHeaderBuffer();
  if (task.header_buffer == kNoHeaderBuffer) {
    ctx_.scheduler.WaitFor(task, Resource::kHeaderBuffer);
    return Next{TxState::kFetchHeader, true};
  }
  DmaFromHost dma;
  dma.host_addr = SlotAddr(task);
  dma.len = abi::kSlotFetchBytes;
  dma.target = DmaTarget::kHeaderBuffer;
  dma.header_buffer = task.header_buffer;
  dma.tag = task.id;
  ctx_.platform.StartDmaFromHost(dma);
  return Next{TxState::kFetchBody, true};
}

TxEngine::Next TxEngine::FetchBody(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  abi::SendSlotHeader slot;
  std::memcpy(&slot, ctx_.platform.HeaderBuffer(task.header_buffer), sizeof(slot));
  const abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  const bool request = IsRequestSlot(slot.type);
  const bool bad = task.dma_status != DmaStatus::kOk ||
                   slot.status != static_cast<uint8_t>(abi::SendSlotStatus::kPosted) ||
                   (slot.type != static_cast<uint8_t>(abi::PacketType::kFifo) && !request) ||
                   (!request && slot.len_bytes > abi::MaxPacketPayload(lmt.line_bytes));
  if (bad) {
    CountDrop(ctx_, &task,
              task.dma_status != DmaStatus::kOk ? DropReason::kDmaError : DropReason::kTxBadSlot,
              task.window);
    task.payload_len = 0;
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  // A request's body came in with the slot header (kSlotFetchBytes).
  if (request) return Next{TxState::kPost, false};
  task.dtb = ctx_.platform.AllocDtb();
  if (task.dtb == kNoDtb) {
    ctx_.scheduler.WaitFor(task, Resource::kDtb);
    return Next{TxState::kFetchBody, true};
  }
  task.header = abi::WireHeader{};
  task.header.dest_adapter = slot.dest_adapter;
  task.header.dest_window = slot.dest_window;
  task.header.src_adapter = ctx_.platform.AdapterId();
  task.header.src_window = static_cast<uint16_t>(task.window);
  task.header.len_bytes = slot.len_bytes;
  task.header.type = slot.type;
  task.header.ulp_word = slot.ulp_word;
  task.payload_len = slot.len_bytes;
  if (slot.len_bytes == 0) return Next{TxState::kInject, false};
  DmaFromHost dma;
  dma.host_addr = SlotAddr(task) + abi::kSendHeaderBytes;
  dma.len = slot.len_bytes;
  dma.target = DmaTarget::kDtb;
  dma.dtb = task.dtb;
  dma.tag = task.id;
  ctx_.platform.StartDmaFromHost(dma);
  return Next{TxState::kInject, true};
}

TxEngine::Next TxEngine::Inject(Task& task) {
  if (ClosedUnderTask(ctx_, task)) return Abandon(task);
  if (task.dma_status == DmaStatus::kOk && !ctx_.platform.LinkHasRoom()) {
    ctx_.scheduler.WaitFor(task, Resource::kLinkSlot);  // the payload stays in its DTB
    return Next{TxState::kInject, true};
  }
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(ctx_, &task, DropReason::kDmaError, task.window);
    task.rejected = true;
  } else {
    // The window's key goes on every packet; receivers check it against their LMT.
    task.header.protection_key = ctx_.cbs.Lmt(task.cb).protection_key;
    ctx_.platform.Transmit(task.header, task.dtb, task.payload_len);
    ++ctx_.counters.tx_packets;
    ctx_.counters.tx_bytes += task.payload_len;
  }
  ReleaseTaskDtb(ctx_, task);
  return Next{TxState::kMarkDone, false};
}

TxEngine::Next TxEngine::MarkDone(Task& task) {
  // Runs straight after Inject (or a rejection) in the same dispatch, which checked the window.
  // Rewrite the slot's header so the ULP sees which slots the adapter has processed.
  abi::SendSlotHeader slot;
  std::memcpy(&slot, ctx_.platform.HeaderBuffer(task.header_buffer), sizeof(slot));
  slot.status = static_cast<uint8_t>(task.rejected ? abi::SendSlotStatus::kRejected
                                                   : abi::SendSlotStatus::kComplete);
  DmaToHost dma;
  dma.host_addr = SlotAddr(task);
  std::memcpy(dma.prefix, &slot, sizeof(slot));
  dma.prefix_len = sizeof(slot);
  dma.tag = task.id;
  ctx_.platform.StartDmaToHost(dma);
  return Next{TxState::kFinish, true};
}

TxEngine::Next TxEngine::Finish(Task& task) {
  abi::LmtEntry& lmt = ctx_.cbs.Lmt(task.cb);
  ++lmt.send_done;
  MaybeInterrupt(ctx_, task.window, lmt.send_done, lmt.send_intr_threshold,
                 abi::InterruptCause::kSendThreshold);
  ++task.packets_served;
  EndPacket(task);
  return Next{TxState::kSelect, false};
}

TxEngine::Next TxEngine::Abandon(Task& task) {
  CountDrop(ctx_, &task, DropReason::kClosedInFlight, task.window);
  EndPacket(task);
  return Next{TxState::kSelect, false};
}

void TxEngine::EndPacket(Task& task) {
  ReleaseTaskDtb(ctx_, task);
  ReleaseTaskHeaderBuffer(ctx_, task);
  // The window the task serves next is this one: its LMT stays in the CB (no write-back and
  // fetch between its packets). Any other window, or none, and the CB goes.
  uint32_t next;
  if (task.cb != kNoCb && WindowOpen(ctx_.cbs.Lmt(task.cb)) && ctx_.work.NextWindow(&next) &&
      next == task.window) {
    ++ctx_.counters.cb_kept;
  } else {
    UnbindTaskCb(ctx_, task);
  }
  ctx_.scheduler.EndOperation(task.id);
}

}  // namespace nicsim::fw
