// SPDX-License-Identifier: Apache-2.0
// Microcode tasks: a fixed pool allocated at reset, handed out by kind.
// A task's fields are its task registers; a suspended task keeps its state to resume in.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/packet.h"
#include "firmware/platform.h"

namespace nicsim::fw {

enum class TaskKind : uint8_t { kRx, kTx };

/** One hardware task: its registers and where it resumes. */
struct Task {
  TaskId id = kNoTask;
  TaskKind kind = TaskKind::kRx;
  bool busy = false;
  /** Engine state to run when the task is next dispatched. */
  uint8_t state = 0;
  /** Receive: the packet header as the hardware copied it in. */
  abi::WireHeader header{};
  /** Receive: payload bytes that arrived behind the header. */
  uint32_t payload_len = 0;
  /** Receive: the payload is in `dtb`. */
  bool payload_arrived = false;
  /** Window being served. */
  uint32_t window = 0;
  /** Receive: frame sequence number; transmit: slot sequence number. */
  uint32_t seq = 0;
  DtbId dtb = kNoDtb;
  /** Transmit: the slot is refused and will be marked rejected. */
  bool rejected = false;
  /** Status of the last DMA completion. */
  DmaStatus dma_status = DmaStatus::kOk;
};

/** The fixed pool: receive tasks first, then transmit tasks. */
class TaskPool {
 public:
  TaskPool(uint32_t rx_tasks, uint32_t tx_tasks) {
    tasks_.resize(rx_tasks + tx_tasks);
    for (uint32_t i = 0; i < tasks_.size(); ++i) {
      tasks_[i].id = static_cast<TaskId>(i);
      tasks_[i].kind = i < rx_tasks ? TaskKind::kRx : TaskKind::kTx;
    }
  }

  /** A free task of `kind`, now busy; nullptr if all are busy. */
  Task* Allocate(TaskKind kind) {
    for (Task& t : tasks_) {
      if (t.kind == kind && !t.busy) {
        const TaskId id = t.id;
        t = Task{};
        t.id = id;
        t.kind = kind;
        t.busy = true;
        return &t;
      }
    }
    return nullptr;
  }
  void Release(Task& task) { task.busy = false; }
  bool HasFree(TaskKind kind) const {
    for (const Task& t : tasks_) {
      if (t.kind == kind && !t.busy) return true;
    }
    return false;
  }
  /** The task with this id, or nullptr if the id is out of range. */
  Task* Find(TaskId id) { return id < tasks_.size() ? &tasks_[id] : nullptr; }
  size_t size() const { return tasks_.size(); }

 private:
  std::vector<Task> tasks_;
};

}  // namespace nicsim::fw
