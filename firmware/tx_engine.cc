// SPDX-License-Identifier: Apache-2.0
// Transmit engine states. Windows are served round robin, switching every k packets; no
// ordering is kept between transmit tasks, so packets of one window may leave out of order.
#include "firmware/tx_engine.h"

#include <cstring>

#include "abi/fifo.h"
#include "abi/limits.h"
#include "base/check.h"
#include "firmware/internal.h"

namespace nicsim::fw {
namespace {

abi::GlobalReg ReadyReg(uint32_t window) {
  return window < 64 ? abi::GlobalReg::kReadyLow : abi::GlobalReg::kReadyHigh;
}

}  // namespace

void TxEngine::Post(uint32_t window, uint32_t count) {
  abi::LmtEntry lmt = LoadLmt(platform_, window);
  lmt.ready_to_send += count;
  StoreLmt(platform_, window, lmt);
  if (lmt.ready_to_send > 0) SetReadyBit(window, true);
}

void TxEngine::Kick() {
  uint32_t window;
  while (NextReadyWindow(&window)) {
    Task* task = tasks_.Allocate(TaskKind::kTx);
    if (task == nullptr) return;  // busy tasks pick the work up when they finish
    Run(*task, TxState::kSelect);
  }
}

void TxEngine::OnDmaComplete(Task& task) { Run(task, static_cast<TxState>(task.state)); }

void TxEngine::Run(Task& task, TxState state) {
  if (RunStates(*this, kStates, platform_, task, state)) tasks_.Release(task);
}

bool TxEngine::NextReadyWindow(uint32_t* window) {
  static_assert(abi::kMaxWindows == 128, "the ready vector is two 64-bit registers");
  const uint64_t bits[2] = {platform_.ReadGlobalReg(abi::GlobalReg::kReadyLow),
                            platform_.ReadGlobalReg(abi::GlobalReg::kReadyHigh)};
  // Round robin from the cursor: the cursor's word from the cursor up, the other word,
  // then the cursor's word below the cursor.
  const uint32_t first = cursor_ / 64;
  const uint64_t at_or_above = ~uint64_t{0} << (cursor_ % 64);
  const uint64_t candidates[3] = {bits[first] & at_or_above, bits[first ^ 1],
                                  bits[first] & ~at_or_above};
  const uint32_t word_of[3] = {first, first ^ 1, first};
  for (int i = 0; i < 3; ++i) {
    if (candidates[i] != 0) {
      *window = word_of[i] * 64 + static_cast<uint32_t>(__builtin_ctzll(candidates[i]));
      return true;
    }
  }
  return false;
}

void TxEngine::SetReadyBit(uint32_t window, bool on) {
  const abi::GlobalReg reg = ReadyReg(window);
  uint64_t bits = platform_.ReadGlobalReg(reg);
  const uint64_t mask = uint64_t{1} << (window % 64);
  bits = on ? (bits | mask) : (bits & ~mask);
  platform_.WriteGlobalReg(reg, bits);
}

uint64_t TxEngine::SlotAddr(uint32_t window, uint32_t seq) {
  const abi::LmtEntry lmt = LoadLmt(platform_, window);
  return lmt.send_fifo_addr +
         static_cast<uint64_t>(seq % lmt.send_fifo_slots) * abi::SendSlotBytes(lmt.line_bytes);
}

TxEngine::Next TxEngine::Select(Task& task) {
  uint32_t window;
  if (!NextReadyWindow(&window)) return Next{TxState::kDone, false};
  if (window != cursor_) {
    cursor_ = window;
    taken_this_turn_ = 0;
  }
  abi::LmtEntry lmt = LoadLmt(platform_, window);
  NICSIM_CHECK(lmt.ready_to_send > 0, "window %u has its ready bit set with nothing to send",
               window);
  task.window = window;
  task.seq = lmt.send_head++;
  task.dma_status = DmaStatus::kOk;
  task.rejected = false;
  --lmt.ready_to_send;
  StoreLmt(platform_, window, lmt);
  // The ready bit clears when the window's last posted packet is claimed.
  if (lmt.ready_to_send == 0) SetReadyBit(window, false);
  // Switch windows every k packets, even when k is 1.
  if (++taken_this_turn_ >= switch_every_ || lmt.ready_to_send == 0) {
    cursor_ = (window + 1) % abi::kMaxWindows;
    taken_this_turn_ = 0;
  }
  return Next{TxState::kFetchHeader, false};
}

TxEngine::Next TxEngine::FetchHeader(Task& task) {
  DmaFromHost dma;
  dma.host_addr = SlotAddr(task.window, task.seq);
  dma.len = abi::kSendHeaderBytes;
  dma.target = DmaTarget::kHeaderBuffer;
  dma.tag = task.id;
  platform_.StartDmaFromHost(dma);
  return Next{TxState::kFetchBody, true};
}

TxEngine::Next TxEngine::FetchBody(Task& task) {
  abi::SendSlotHeader slot;
  std::memcpy(&slot, platform_.HeaderBuffer(task.id), sizeof(slot));
  const abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  const bool bad = task.dma_status != DmaStatus::kOk ||
                   slot.status != static_cast<uint8_t>(abi::SendSlotStatus::kPosted) ||
                   slot.type != static_cast<uint8_t>(abi::PacketType::kFifo) ||
                   slot.len_bytes > abi::MaxPacketPayload(lmt.line_bytes);
  if (bad) {
    CountDrop(platform_, counters_, task.id,
              task.dma_status != DmaStatus::kOk ? DropReason::kDmaError : DropReason::kTxBadSlot,
              task.window);
    task.payload_len = 0;
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  task.header = abi::WireHeader{};
  task.header.dest_adapter = slot.dest_adapter;
  task.header.dest_window = slot.dest_window;
  task.header.src_adapter = platform_.AdapterId();
  task.header.src_window = static_cast<uint16_t>(task.window);
  task.header.len_bytes = slot.len_bytes;
  task.header.type = slot.type;
  task.header.ulp_word = slot.ulp_word;
  task.payload_len = slot.len_bytes;
  task.dtb = platform_.AllocDtb();
  NICSIM_CHECK(task.dtb != kNoDtb, "DTB pool smaller than the transmit task pool");
  if (slot.len_bytes == 0) return Next{TxState::kInject, false};
  DmaFromHost dma;
  dma.host_addr = SlotAddr(task.window, task.seq) + abi::kSendHeaderBytes;
  dma.len = slot.len_bytes;
  dma.target = DmaTarget::kDtb;
  dma.dtb = task.dtb;
  dma.tag = task.id;
  platform_.StartDmaFromHost(dma);
  return Next{TxState::kInject, true};
}

TxEngine::Next TxEngine::Inject(Task& task) {
  if (task.dma_status != DmaStatus::kOk) {
    CountDrop(platform_, counters_, task.id, DropReason::kDmaError, task.window);
    platform_.ReleaseDtb(task.dtb);
    task.dtb = kNoDtb;
    task.rejected = true;
    return Next{TxState::kMarkDone, false};
  }
  // The window's key goes on every packet; receivers check it against their LMT.
  task.header.protection_key = LoadLmt(platform_, task.window).protection_key;
  platform_.Transmit(task.header, task.dtb, task.payload_len);
  platform_.ReleaseDtb(task.dtb);
  task.dtb = kNoDtb;
  ++counters_.tx_packets;
  counters_.tx_bytes += task.payload_len;
  return Next{TxState::kMarkDone, false};
}

TxEngine::Next TxEngine::MarkDone(Task& task) {
  // Rewrite the slot's header so the ULP sees which slots the adapter has processed.
  abi::SendSlotHeader slot;
  std::memcpy(&slot, platform_.HeaderBuffer(task.id), sizeof(slot));
  slot.status = static_cast<uint8_t>(task.rejected ? abi::SendSlotStatus::kRejected
                                                            : abi::SendSlotStatus::kComplete);
  DmaToHost dma;
  dma.host_addr = SlotAddr(task.window, task.seq);
  std::memcpy(dma.prefix, &slot, sizeof(slot));
  dma.prefix_len = sizeof(slot);
  dma.tag = task.id;
  platform_.StartDmaToHost(dma);
  return Next{TxState::kFinish, true};
}

TxEngine::Next TxEngine::Finish(Task& task) {
  abi::LmtEntry lmt = LoadLmt(platform_, task.window);
  ++lmt.send_done;
  MaybeInterrupt(platform_, counters_, task.window, lmt.send_done, lmt.send_intr_threshold,
                 abi::InterruptCause::kSendThreshold);
  StoreLmt(platform_, task.window, lmt);
  return Next{TxState::kSelect, false};
}

}  // namespace nicsim::fw
