// SPDX-License-Identifier: Apache-2.0
// Microcode entry points: decode window commands, hand headers to receive tasks, and route
// DMA completions and payload arrivals to the engine that owns the task.
#include "firmware/microcode.h"

#include <cstring>

#include "abi/lmt.h"
#include "base/check.h"
#include "firmware/internal.h"

namespace nicsim::fw {

Microcode::Microcode(Platform& platform, const MicrocodeConfig& config)
    : platform_(platform),
      config_(config),
      tasks_(config.rx_tasks, config.tx_tasks),
      rx_(platform, counters_, tasks_),
      tx_(platform, counters_, tasks_, config.tx_switch_every) {
  NICSIM_CHECK(config.rx_tasks > 0 && config.tx_tasks > 0 && config.tx_switch_every > 0,
               "microcode needs at least one task of each kind and k >= 1");
}

void Microcode::OnMmioCommand(uint64_t offset, uint64_t value) {
  const abi::DecodedCommand cmd = abi::DecodeWindowCommand(offset);
  if (!cmd.valid) {
    ++counters_.bad_mmio;
    return;
  }
  ++counters_.mmio_commands;
  platform_.Trace(TraceKind::kMmio, kNoTask, static_cast<uint32_t>(cmd.command),
                  static_cast<uint32_t>(value));
  abi::LmtEntry lmt = LoadLmt(platform_, cmd.window);
  if (lmt.state != static_cast<uint32_t>(abi::WindowState::kOpen) || value > 0xFFFFFFFFu) {
    ++counters_.bad_mmio;
    return;
  }
  const auto v = static_cast<uint32_t>(value);
  switch (cmd.command) {
    case abi::MmioCommand::kStartTransmit:
      // More packets than the FIFO has slots cannot be posted: refuse the command.
      if (v == 0 || lmt.ready_to_send + v > lmt.send_fifo_slots) {
        ++counters_.bad_mmio;
        return;
      }
      tx_.Post(cmd.window, v);
      tx_.Kick();
      return;
    case abi::MmioCommand::kReturnRecvFrames:
      // Frames cannot be returned before they were written.
      if (static_cast<int32_t>(lmt.recv_tail - (lmt.recv_returned + v)) < 0) {
        ++counters_.bad_mmio;
        return;
      }
      lmt.recv_returned += v;
      break;
    case abi::MmioCommand::kSetRecvInterruptThreshold:
      // A threshold already reached interrupts at once.
      lmt.recv_intr_threshold = v;
      MaybeInterrupt(platform_, counters_, cmd.window, lmt.recv_tail, lmt.recv_intr_threshold,
                     abi::InterruptCause::kRecvThreshold);
      break;
    case abi::MmioCommand::kSetSendInterruptThreshold:
      lmt.send_intr_threshold = v;
      MaybeInterrupt(platform_, counters_, cmd.window, lmt.send_done, lmt.send_intr_threshold,
                     abi::InterruptCause::kSendThreshold);
      break;
    case abi::MmioCommand::kCount:
      break;
  }
  StoreLmt(platform_, cmd.window, lmt);
}

TaskId Microcode::OnHeaderArrived(const uint8_t* header, uint32_t header_len,
                                  uint32_t payload_len, bool crc_ok) {
  // Checks the hardware could make before any window state is touched.
  if (header_len < sizeof(abi::WireHeader)) {
    CountDrop(platform_, counters_, kNoTask, DropReason::kTruncatedHeader, 0);
    return kNoTask;
  }
  if (!crc_ok) {
    CountDrop(platform_, counters_, kNoTask, DropReason::kBadCrc, 0);
    return kNoTask;
  }
  Task* task = tasks_.Allocate(TaskKind::kRx);
  NICSIM_CHECK(task != nullptr, "the hardware dispatched a header with no free receive task");
  std::memcpy(&task->header, header, sizeof(abi::WireHeader));
  task->payload_len = payload_len;
  return rx_.Start(*task) ? task->id : kNoTask;
}

void Microcode::OnPayloadArrived(TaskId id, DtbId dtb) {
  Task* task = tasks_.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy && task->kind == TaskKind::kRx,
               "payload for task %u which is not a busy receive task", id);
  rx_.OnPayload(*task, dtb);
}

void Microcode::OnDmaComplete(TaskId id, DmaStatus status) {
  Task* task = tasks_.Find(id);
  NICSIM_CHECK(task != nullptr && task->busy, "DMA completion for idle task %u", id);
  if (status != DmaStatus::kOk) task->dma_status = status;
  if (task->kind == TaskKind::kRx) {
    rx_.OnDmaComplete(*task);
  } else {
    tx_.OnDmaComplete(*task);
  }
}

}  // namespace nicsim::fw
