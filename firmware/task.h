// SPDX-License-Identifier: Apache-2.0
// Microcode tasks: a fixed pool pre-allocated at reset and handed out by kind, with at most
// a configured number of receive and transmit tasks active at once. The pool's last task is
// the work manager's, allocated for good.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "abi/packet.h"
#include "base/check.h"
#include "firmware/platform.h"
#include "firmware/states.h"

namespace nicsim::fw {

/** One hardware task: its registers and where it resumes. */
struct Task {
  TaskId id = kNoTask;
  TaskKind kind = TaskKind::kRx;
  bool busy = false;
  /** Engine state to run when the task is next dispatched. */
  uint8_t state = 0;
  /** The resource the task is suspended on, if any. */
  Resource waiting = Resource::kNone;
  /** Receive: the packet header as the hardware copied it in. */
  abi::WireHeader header{};
  /** Receive: the payload bytes after the header that the hardware copied into registers. */
  uint8_t header_ext[kHeaderRegisterBytes - sizeof(abi::WireHeader)] = {};
  /** RDMA: the rCxt index the task works for. */
  uint32_t rcxt = 0;
  /** RDMA: this packet's offset in its transfer. */
  uint32_t offset = 0;
  /** RDMA: host segments (real address, bytes) the packet's data occupies. */
  struct Segment {
    uint64_t addr;
    uint32_t len;
  };
  Segment segments[2] = {};
  uint32_t segment_count = 0;
  /** RDMA: the TCEs being fetched (first entry's host address, count, page size). */
  uint64_t tce_addr = 0;
  uint32_t tce_count = 0;
  uint32_t page_shift = 0;
  /** RDMA transmit: the tid of the transfer the packet belongs to. */
  uint32_t tid = 0;
  /** DMAs issued and not yet complete; the task resumes when this reaches zero. */
  uint32_t dma_pending = 0;
  /** Receive: bytes of RdmaFrameInfo placed ahead of the payload in a FIFO frame. */
  uint32_t frame_info_len = 0;
  /** Receive: payload bytes that arrived behind the header. */
  uint32_t payload_len = 0;
  /** Receive: the payload is in `dtb`. */
  bool payload_arrived = false;
  /** Window being served. */
  uint32_t window = 0;
  /** Receive: frame sequence number; transmit: slot sequence number. */
  uint32_t seq = 0;
  CbId cb = kNoCb;
  DtbId dtb = kNoDtb;
  HeaderBufferId header_buffer = kNoHeaderBuffer;
  /** Transmit: the slot is refused and will be marked rejected. */
  bool rejected = false;
  /** Transmit: packets this task has served since it was forked. */
  uint32_t packets_served = 0;
  /** Status of the last failed DMA completion (kOk if none failed). */
  DmaStatus dma_status = DmaStatus::kOk;
};

/**
 * The pool: `total` tasks, at most `rx_limit` receiving and `tx_limit` transmitting; task
 * `total - 1` is the work manager task, never free.
 */
class TaskPool {
 public:
  TaskPool(uint32_t total, uint32_t rx_limit, uint32_t tx_limit)
      : tasks_(total), limit_{rx_limit, tx_limit} {
    NICSIM_CHECK(total >= 2, "%u tasks: the work manager needs one and the others one", total);
    for (uint32_t i = 0; i < total; ++i) tasks_[i].id = static_cast<TaskId>(i);
    Reset();
  }

  /** A free task, now busy as `kind` (receive or transmit); nullptr if the kind is at its
   *  limit or none is free. */
  Task* Allocate(TaskKind kind) {
    if (!CanAllocate(kind) || free_ == 0) return nullptr;
    // The lowest-numbered free task, found in the free mask rather than by a walk.
    const auto id = static_cast<TaskId>(__builtin_ctzll(free_));
    free_ &= free_ - 1;
    Task& t = tasks_[id];
    // A copy of a blank task: plain vector stores, where `Task{}` zeroes a temporary with
    // `rep stos` and then copies it (a hot path: one task per packet).
    static const Task kBlank{};
    t = kBlank;
    t.id = id;
    t.kind = kind;
    t.busy = true;
    ++active_[Index(kind)];
    return &t;
  }
  void Release(Task& task) {
    task.busy = false;
    free_ |= uint64_t{1} << task.id;
    --active_[Index(task.kind)];
  }
  bool CanAllocate(TaskKind kind) const {
    return active_[Index(kind)] < limit_[Index(kind)] &&
           active_[0] + active_[1] < tasks_.size() - 1;
  }
  /** The task with this id, or nullptr if the id is out of range. */
  Task* Find(TaskId id) { return id < tasks_.size() ? &tasks_[id] : nullptr; }
  /** The work manager task (always allocated; idle in WorkState::kDone). */
  Task& work_manager() { return tasks_.back(); }
  const std::vector<Task>& all() const { return tasks_; }
  /** Receive or transmit tasks allocated now. */
  uint32_t active(TaskKind kind) const {
    return kind == TaskKind::kWork ? 1 : active_[Index(kind)];
  }
  size_t size() const { return tasks_.size(); }
  /** Frees every task but the work manager's, which goes idle (adapter reset). */
  void Reset() {
    for (Task& t : tasks_) t.busy = false;
    const auto total = static_cast<uint32_t>(tasks_.size());
    free_ = AllFree(total) & ~(uint64_t{1} << (total - 1));
    active_[0] = active_[1] = 0;
    Task& wm = work_manager();
    wm = Task{};
    wm.id = static_cast<TaskId>(total - 1);
    wm.kind = TaskKind::kWork;
    wm.busy = true;
    wm.state = static_cast<uint8_t>(WorkState::kDone);
  }

 private:
  static size_t Index(TaskKind kind) { return kind == TaskKind::kRx ? 0 : 1; }
  /** A bit per task of a pool of `total` (at most 64: the task view registers have 64 bits). */
  static uint64_t AllFree(uint32_t total) {
    NICSIM_CHECK(total <= 64, "%u tasks: at most 64", total);
    return total == 64 ? ~uint64_t{0} : (uint64_t{1} << total) - 1;
  }
  std::vector<Task> tasks_;
  uint32_t limit_[2];
  /** Bit i set: task i is free. */
  uint64_t free_ = 0;
  /** Receive and transmit tasks allocated. */
  uint32_t active_[2] = {0, 0};
};

}  // namespace nicsim::fw
