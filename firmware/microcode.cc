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
        tx(ctx) {}
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
};

Microcode::Microcode(Platform& platform, const MicrocodeConfig& config)
    : platform_(platform),
      config_(config),
      engines_(std::make_unique<Engines>(platform, config)),
      counters_(engines_->counters),
      tasks_(engines_->tasks),
      scheduler_(engines_->scheduler),
      cbs_(engines_->cbs),
      work_(engines_->work),
      irq_(engines_->irq),
      rdma_(engines_->rdma),
      ctx_(engines_->ctx),
      rx_(engines_->rx),
      tx_(engines_->tx) {
  NICSIM_CHECK(config.tasks > 0 && config.tasks <= abi::kMaxTasks, "tasks %u", config.tasks);
  NICSIM_CHECK(config.rx_tasks > 0 && config.tx_tasks > 0 && config.tx_switch_every > 0,
               "microcode needs at least one task of each kind and k >= 1");
  NICSIM_CHECK(config.channel_buffers > 0, "at least one channel buffer");
  NICSIM_CHECK(config.rcxts <= abi::kRcxtIndexMask, "rcxts %u", config.rcxts);
  NICSIM_CHECK(config.interrupt_handlers > 0 &&
                   config.interrupt_handlers <= abi::kMaxInterruptHandlers,
               "interrupt handlers %u", config.interrupt_handlers);
}

Microcode::~Microcode() = default;

uint32_t Microcode::active_tasks(TaskKind kind) const { return tasks_.active(kind); }

uint32_t Microcode::conditional_counter(uint32_t queue) const { return rdma_.counter(queue); }

BufferManagerResponse Microcode::Bmr(uint32_t window) const { return cbs_.Bmr(window); }

void Microcode::OnMmioCommand(uint64_t offset, uint64_t value) {
  TraceEvent ev;
  ev.kind = TraceKind::kMmio;
  ev.value = value;
  if (offset >= abi::kMmioGlobalBase && offset % 8 == 0 &&
      offset < abi::GlobalCommandOffset(abi::GlobalCommand::kCount)) {
    const auto cmd = static_cast<abi::GlobalCommand>((offset - abi::kMmioGlobalBase) / 8);
    ++counters_.mmio_commands;
    ev.state = 0x100 + static_cast<uint32_t>(cmd);
    platform_.Trace(ev);
    OnGlobalCommand(cmd, value);
  } else if (const abi::DecodedCommand cmd = abi::DecodeWindowCommand(offset); cmd.valid) {
    ++counters_.mmio_commands;
    ev.state = static_cast<uint32_t>(cmd.command);
    ev.window = cmd.window;
    platform_.Trace(ev);
    if (value > 0xFFFFFFFFu) {
      ++counters_.bad_mmio;
    } else {
      OnWindowCommand(cmd.window, cmd.command, static_cast<uint32_t>(value));
    }
  } else {
    ++counters_.bad_mmio;
  }
  Dispatch();
}

void Microcode::OnWindowCommand(uint32_t window, abi::MmioCommand command, uint32_t v) {
  abi::LmtEntry lmt = cbs_.Read(window);
  if (lmt.state != static_cast<uint32_t>(abi::WindowState::kOpen)) {
    ++counters_.bad_mmio;
    return;
  }
  switch (command) {
    case abi::MmioCommand::kStartTransmit:
      // More packets than the FIFO has slots cannot be posted: refuse the command.
      if (v == 0 || lmt.ready_to_send + v > lmt.send_fifo_slots) {
        ++counters_.bad_mmio;
        return;
      }
      lmt.ready_to_send += v;
      cbs_.Write(window, lmt);
      work_.SetReady(window, true);
      tx_.Fork();
      return;
    case abi::MmioCommand::kReturnRecvFrames:
      // Frames cannot be returned before they were written.
      if (static_cast<int32_t>(lmt.recv_tail - (lmt.recv_returned + v)) < 0) {
        ++counters_.bad_mmio;
        return;
      }
      lmt.recv_returned += v;
      break;
    case abi::MmioCommand::kSetRecvInterruptThreshold: {
      // A threshold already reached interrupts at once (early mode counts reserved frames).
      lmt.recv_intr_threshold = v;
      const uint32_t count =
          (lmt.intr_flags & abi::kEarlyInterrupt) ? lmt.recv_next : lmt.recv_tail;
      MaybeInterrupt(ctx_, window, count, lmt.recv_intr_threshold,
                     abi::InterruptCause::kRecvThreshold);
      break;
    }
    case abi::MmioCommand::kSetSendInterruptThreshold:
      lmt.send_intr_threshold = v;
      MaybeInterrupt(ctx_, window, lmt.send_done, lmt.send_intr_threshold,
                     abi::InterruptCause::kSendThreshold);
      break;
    case abi::MmioCommand::kSetInterruptMode:
      lmt.intr_flags = v & abi::kEarlyInterrupt;
      break;
    case abi::MmioCommand::kCount:
      break;
  }
  cbs_.Write(window, lmt);
}

void Microcode::OnGlobalCommand(abi::GlobalCommand command, uint64_t value) {
  switch (command) {
    case abi::GlobalCommand::kCloseWindow: {
      if (value >= abi::kMaxWindows) {
        ++counters_.bad_mmio;
        return;
      }
      const auto window = static_cast<uint32_t>(value);
      abi::LmtEntry lmt = cbs_.Read(window);
      lmt.state = static_cast<uint32_t>(abi::WindowState::kClosed);
      lmt.ready_to_send = 0;
      cbs_.Write(window, lmt);
      work_.SetReady(window, false);
      // Tasks live now may still hold the window's old state: the host waits until every
      // one of them has finished its operation, i.e. until the snapshot reads zero.
      TraceEvent ev;
      ev.kind = TraceKind::kCloseWindow;
      ev.window = window;
      ev.value = scheduler_.TakeSnapshot();
      platform_.Trace(ev);
      ++counters_.windows_closed;
      return;
    }
    case abi::GlobalCommand::kFlushLmt:
      if (value >= abi::kMaxWindows) {
        ++counters_.bad_mmio;
        return;
      }
      cbs_.Flush(static_cast<uint32_t>(value));
      return;
    case abi::GlobalCommand::kInterruptHandlerReady:
      irq_.HandlerReady(static_cast<uint32_t>(value));
      return;
    case abi::GlobalCommand::kResetAdapter:
    case abi::GlobalCommand::kCount:
      // Reset is performed by the hardware, which then calls Reset().
      return;
  }
}

bool Microcode::CanAcceptHeader(const uint8_t* header, uint32_t header_len) const {
  if (!tasks_.CanAllocate(TaskKind::kRx)) return false;
  if (header_len < sizeof(abi::WireHeader)) return true;  // dropped without a CB
  uint16_t window;
  std::memcpy(&window, header + offsetof(abi::WireHeader, dest_window), sizeof(window));
  return window >= abi::kMaxWindows || cbs_.CanBind(window);
}

TaskId Microcode::OnHeaderArrived(const uint8_t* header, uint32_t header_len,
                                  uint32_t payload_len, bool crc_ok) {
  // Checks the link makes before a task is spent.
  if (header_len < sizeof(abi::WireHeader)) {
    CountDrop(ctx_, nullptr, DropReason::kTruncatedHeader, 0);
    return kNoTask;
  }
  if (!crc_ok) {
    CountDrop(ctx_, nullptr, DropReason::kBadCrc, 0);
    return kNoTask;
  }
  Task* task = tasks_.Allocate(TaskKind::kRx);
  NICSIM_CHECK(task != nullptr, "the hardware dispatched a header with no free receive task");
  std::memcpy(&task->header, header, sizeof(abi::WireHeader));
  // The first payload bytes come into the task's registers with the header.
  const uint32_t ext = std::min<uint32_t>(header_len, kHeaderRegisterBytes) -
                       static_cast<uint32_t>(sizeof(abi::WireHeader));
  std::memcpy(task->header_ext, header + sizeof(abi::WireHeader), ext);
  task->payload_len = payload_len;
  const TaskId id = rx_.Start(*task) ? task->id : kNoTask;
  Dispatch();
  return id;
}

void Microcode::OnPayloadArrived(TaskId id, DtbId dtb) {
  Task* task = tasks_.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy && task->kind == TaskKind::kRx,
               "payload for task %u which is not a busy receive task", id);
  if (rx_.OnPayload(*task, dtb)) scheduler_.Wake(id);
  Dispatch();
}

void Microcode::OnDmaComplete(TaskId id, DmaStatus status) {
  Task* task = tasks_.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy, "DMA completion for idle task %u", id);
  if (status != DmaStatus::kOk) task->dma_status = status;
  // A task that issued several DMAs resumes when the last of them completes.
  if (task->dma_pending > 1) {
    --task->dma_pending;
    return;
  }
  task->dma_pending = 0;
  scheduler_.Wake(id);
  Dispatch();
}

void Microcode::OnLinkRoom() {
  scheduler_.Released(Resource::kLinkSlot);
  Dispatch();
}

void Microcode::Dispatch() {
  TaskId id;
  while (scheduler_.Next(&id)) {
    Task* task = tasks_.Find(id);
    if (task == nullptr || !task->busy) continue;  // dropped by a reset
    if (task->kind == TaskKind::kRx) {
      rx_.Resume(*task);
    } else {
      tx_.Resume(*task);
    }
  }
  // Receive-side work (a read request, a fired conditional request) may have readied a
  // window while transmit tasks were free.
  if (tasks_.CanAllocate(TaskKind::kTx)) tx_.Fork();
}

std::vector<Microcode::TaskInfo> Microcode::BusyTasks() const {
  std::vector<TaskInfo> out;
  for (const Task& t : tasks_.all()) {
    if (t.busy) out.push_back({t.id, t.kind, t.state, t.window, t.waiting});
  }
  return out;
}

void Microcode::Reset() {
  tasks_.Reset();
  cbs_.Reset();
  scheduler_.Reset();
  work_.Reset();
  platform_.WriteGlobalReg(abi::GlobalReg::kReadyLow, 0);
  platform_.WriteGlobalReg(abi::GlobalReg::kReadyHigh, 0);
  irq_.Reset();
  rdma_.Reset();
  ++counters_.resets;
  TraceEvent ev;
  ev.kind = TraceKind::kReset;
  platform_.Trace(ev);
}

}  // namespace nicsim::fw
