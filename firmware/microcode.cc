// SPDX-License-Identifier: Apache-2.0
// Microcode entry points: decode commands, hand headers to receive tasks, route payloads and
// DMA completions to the dispatch queue, and run the queue until it is empty.
#include "firmware/microcode.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "abi/limits.h"
#include "abi/lmt.h"
#include "base/check.h"
#include "firmware/channel_buffers.h"
#include "firmware/internal.h"
#include "firmware/interrupts.h"
#include "firmware/rdma_state.h"
#include "firmware/rx_engine.h"
#include "firmware/scheduler.h"
#include "firmware/task.h"
#include "firmware/tx_engine.h"
#include "firmware/work_engine.h"
#include "firmware/work_manager.h"

namespace nicsim::fw {

struct Microcode::Engines {
  Engines(Platform& platform, const MicrocodeConfig& config)
      : tasks(config.tasks, config.rx_tasks, config.tx_tasks),
        scheduler(platform, counters),
        cbs(platform, counters, config.channel_buffers),
        work(platform, config.tx_switch_every),
        irq(platform, counters, config.interrupt_handlers),
        rdma(platform, config.rcxts),
        ctx{platform, counters, tasks, scheduler, cbs, work, irq, rdma},
        rx(ctx),
        tx(ctx),
        wm(ctx) {}
  Counters counters;
  TaskPool tasks;
  Scheduler scheduler;
  ChannelBuffers cbs;
  WorkManager work;
  InterruptController irq;
  RdmaState rdma;
  Context ctx;
  RxEngine rx;
  TxEngine tx;
  WorkEngine wm;
};

Microcode::Microcode(Platform& platform, const MicrocodeConfig& config)
    : platform_(platform), config_(config), engines_(std::make_unique<Engines>(platform, config)) {
  NICSIM_CHECK(config.tasks >= 2 && config.tasks <= abi::kMaxTasks, "tasks %u", config.tasks);
  NICSIM_CHECK(config.rx_tasks > 0 && config.tx_tasks > 0 && config.tx_switch_every > 0,
               "microcode needs at least one task of each kind and k >= 1");
  NICSIM_CHECK(config.channel_buffers > 0, "at least one channel buffer");
  NICSIM_CHECK(config.rcxts <= abi::kRcxtIndexMask, "rcxts %u", config.rcxts);
  NICSIM_CHECK(
      config.interrupt_handlers > 0 && config.interrupt_handlers <= abi::kMaxInterruptHandlers,
      "interrupt handlers %u", config.interrupt_handlers);
}

const Counters& Microcode::counters() const { return engines_->counters; }

Microcode::~Microcode() = default;

uint32_t Microcode::active_tasks(TaskKind kind) const { return engines_->tasks.active(kind); }

uint32_t Microcode::conditional_counter(uint32_t queue) const {
  return engines_->rdma.counter(queue);
}

BufferManagerResponse Microcode::Bmr(uint32_t window) const { return engines_->cbs.Bmr(window); }

void Microcode::OnMmioCommand(uint64_t offset, uint64_t value) {
  TraceEvent ev;
  ev.kind = TraceKind::kMmio;
  ev.value = value;
  if (offset >= abi::kMmioGlobalBase && offset % 8 == 0 &&
      offset < abi::GlobalCommandOffset(abi::GlobalCommand::kCount)) {
    const auto cmd = static_cast<abi::GlobalCommand>((offset - abi::kMmioGlobalBase) / 8);
    ++engines_->counters.mmio_commands;
    ev.state = 0x100 + static_cast<uint32_t>(cmd);
    platform_.Trace(ev);
    OnGlobalCommand(cmd, value);
  } else if (const abi::DecodedCommand cmd = abi::DecodeWindowCommand(offset); cmd.valid) {
    ++engines_->counters.mmio_commands;
    ev.state = static_cast<uint32_t>(cmd.command);
    ev.window = cmd.window;
    platform_.Trace(ev);
    if (value > 0xFFFFFFFFu) {
      ++engines_->counters.bad_mmio;
    } else {
      OnWindowCommand(cmd.window, cmd.command, static_cast<uint32_t>(value));
    }
  } else {
    ++engines_->counters.bad_mmio;
  }
  Dispatch();
}

void Microcode::OnWindowCommand(uint32_t window, abi::MmioCommand command, uint32_t v) {
  abi::LmtEntry lmt = engines_->cbs.Read(window);
  if (lmt.state != static_cast<uint32_t>(abi::WindowState::kOpen)) {
    ++engines_->counters.bad_mmio;
    return;
  }
  switch (command) {
    case abi::MmioCommand::kStartTransmit:
      // More packets than the FIFO has slots cannot be posted: refuse the command.
      if (v == 0 || lmt.ready_to_send + v > lmt.send_fifo_slots) {
        ++engines_->counters.bad_mmio;
        return;
      }
      if (!engines_->tasks.CanAllocate(TaskKind::kTx)) {
        // Every transmit task is busy: the work manager task takes the count (it runs in this
        // command's dispatch, so no count waits for it past the command).
        ++engines_->counters.start_transmit_no_task;
        engines_->wm.Notify(window, v);
        return;
      }
      PostReadyToSend(engines_->ctx, window, lmt, v);
      engines_->tx.Fork();
      return;
    case abi::MmioCommand::kReturnRecvFrames:
      // Frames cannot be returned before they were written.
      if (static_cast<int32_t>(lmt.recv_tail - (lmt.recv_returned + v)) < 0) {
        ++engines_->counters.bad_mmio;
        return;
      }
      lmt.recv_returned += v;
      break;
    case abi::MmioCommand::kSetRecvInterruptThreshold: {
      // A threshold already reached interrupts at once (early mode counts reserved frames).
      lmt.recv_intr_threshold = v;
      const uint32_t count =
          (lmt.intr_flags & abi::kEarlyInterrupt) ? lmt.recv_next : lmt.recv_tail;
      MaybeInterrupt(engines_->ctx, window, count, lmt.recv_intr_threshold,
                     abi::InterruptCause::kRecvThreshold);
      break;
    }
    case abi::MmioCommand::kSetSendInterruptThreshold:
      lmt.send_intr_threshold = v;
      MaybeInterrupt(engines_->ctx, window, lmt.send_done, lmt.send_intr_threshold,
                     abi::InterruptCause::kSendThreshold);
      break;
    case abi::MmioCommand::kSetInterruptMode:
      lmt.intr_flags = v & abi::kEarlyInterrupt;
      break;
    case abi::MmioCommand::kCount:
      break;
  }
  engines_->cbs.Write(window, lmt);
}

void Microcode::OnGlobalCommand(abi::GlobalCommand command, uint64_t value) {
  switch (command) {
    case abi::GlobalCommand::kCloseWindow: {
      if (value >= abi::kMaxWindows) {
        ++engines_->counters.bad_mmio;
        return;
      }
      const auto window = static_cast<uint32_t>(value);
      abi::LmtEntry lmt = engines_->cbs.Read(window);
      lmt.state = static_cast<uint32_t>(abi::WindowState::kClosed);
      lmt.ready_to_send = 0;
      engines_->cbs.Write(window, lmt);
      engines_->work.SetReady(window, false);
      // Tasks live now may still hold the window's old state: the host waits until every
      // one of them has finished its operation, i.e. until the snapshot reads zero.
      TraceEvent ev;
      ev.kind = TraceKind::kCloseWindow;
      ev.window = window;
      ev.value = engines_->scheduler.TakeSnapshot();
      platform_.Trace(ev);
      ++engines_->counters.windows_closed;
      return;
    }
    case abi::GlobalCommand::kFlushLmt:
      if (value >= abi::kMaxWindows) {
        ++engines_->counters.bad_mmio;
        return;
      }
      engines_->cbs.Flush(static_cast<uint32_t>(value));
      return;
    case abi::GlobalCommand::kInterruptHandlerReady:
      engines_->irq.HandlerReady(static_cast<uint32_t>(value));
      return;
    case abi::GlobalCommand::kResetAdapter:
    case abi::GlobalCommand::kCount:
      // Reset is performed by the hardware, which then calls Reset().
      return;
  }
}

bool Microcode::CanAcceptHeader(const uint8_t* header, uint32_t header_len) const {
  if (!engines_->tasks.CanAllocate(TaskKind::kRx)) return false;
  if (header_len < sizeof(abi::WireHeader)) return true;  // dropped without a CB
  uint16_t window;
  std::memcpy(&window, header + offsetof(abi::WireHeader, dest_window), sizeof(window));
  return window >= abi::kMaxWindows || engines_->cbs.CanBind(window);
}

TaskId Microcode::OnHeaderArrived(const uint8_t* header, uint32_t header_len, uint32_t payload_len,
                                  bool crc_ok) {
  // Checks the link makes before a task is spent.
  if (header_len < sizeof(abi::WireHeader)) {
    CountDrop(engines_->ctx, nullptr, DropReason::kTruncatedHeader, 0);
    return kNoTask;
  }
  if (!crc_ok) {
    CountDrop(engines_->ctx, nullptr, DropReason::kBadCrc, 0);
    return kNoTask;
  }
  Task* task = engines_->tasks.Allocate(TaskKind::kRx);
  NICSIM_CHECK(task != nullptr, "the hardware dispatched a header with no free receive task");
  std::memcpy(&task->header, header, sizeof(abi::WireHeader));
  // The first payload bytes come into the task's registers with the header.
  const uint32_t ext = std::min<uint32_t>(header_len, kHeaderRegisterBytes) -
                       static_cast<uint32_t>(sizeof(abi::WireHeader));
  std::memcpy(task->header_ext, header + sizeof(abi::WireHeader), ext);
  task->payload_len = payload_len;
  const TaskId id = engines_->rx.Start(*task) ? task->id : kNoTask;
  Dispatch();
  return id;
}

void Microcode::OnPayloadArrived(TaskId id, DtbId dtb) {
  Task* task = engines_->tasks.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy && task->kind == TaskKind::kRx,
               "payload for task %u which is not a busy receive task", id);
  if (engines_->rx.OnPayload(*task, dtb)) engines_->scheduler.Wake(id);
  Dispatch();
}

void Microcode::OnDmaComplete(TaskId id, DmaStatus status) {
  Task* task = engines_->tasks.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy, "DMA completion for idle task %u", id);
  if (status != DmaStatus::kOk) task->dma_status = status;
  // A task that issued several DMAs resumes when the last of them completes.
  if (task->dma_pending > 1) {
    --task->dma_pending;
    return;
  }
  task->dma_pending = 0;
  engines_->scheduler.Wake(id);
  Dispatch();
}

void Microcode::OnLinkRoom() {
  engines_->scheduler.Released(Resource::kLinkSlot);
  Dispatch();
}

void Microcode::Dispatch() {
  TaskId id;
  while (engines_->scheduler.Next(&id)) {
    Task* task = engines_->tasks.Find(id);
    if (task == nullptr || !task->busy) continue;  // dropped by a reset
    switch (task->kind) {
      case TaskKind::kRx:
        engines_->rx.Resume(*task);
        break;
      case TaskKind::kTx:
        engines_->tx.Resume(*task);
        break;
      case TaskKind::kWork:
        engines_->wm.Resume(*task);
        break;
    }
  }
  // Receive-side work (a read request, a fired conditional request) may have readied a
  // window while transmit tasks were free.
  if (engines_->work.AnyReady() && engines_->tasks.CanAllocate(TaskKind::kTx)) {
    engines_->tx.Fork();
  }
}

std::vector<Microcode::TaskInfo> Microcode::BusyTasks() const {
  std::vector<TaskInfo> out;
  for (const Task& t : engines_->tasks.all()) {
    const bool idle_manager =
        t.kind == TaskKind::kWork && t.state == static_cast<uint8_t>(WorkState::kDone);
    if (t.busy && !idle_manager) out.push_back({t.id, t.kind, t.state, t.window, t.waiting});
  }
  return out;
}

void Microcode::Reset() {
  engines_->tasks.Reset();
  engines_->cbs.Reset();
  engines_->scheduler.Reset();
  engines_->work.Reset();
  engines_->irq.Reset();
  engines_->rdma.Reset();
  ++engines_->counters.resets;
  TraceEvent ev;
  ev.kind = TraceKind::kReset;
  platform_.Trace(ev);
}

}  // namespace nicsim::fw
