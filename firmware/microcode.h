// SPDX-License-Identifier: Apache-2.0
// The adapter microcode: inward event entry points, the dispatch loop, and the engines and
// adapter-wide state (tasks, channel buffers, work manager, interrupts) they share.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "abi/rdma.h"
#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/states.h"

namespace nicsim::fw {

/** Tunables of the microcode image and the adapter resources it manages. */
struct MicrocodeConfig {
  /** Tasks pre-allocated by the hardware (2 to abi::kMaxTasks): the last is the work
   *  manager's, the others receive and transmit. */
  uint32_t tasks = 16;
  /** Receive tasks active at once: the fewest that keep the receive pipeline full. */
  uint32_t rx_tasks = 4;
  /** Transmit tasks active at once. */
  uint32_t tx_tasks = 4;
  /** Transmit switches to the next ready window after this many packets (k >= 1). */
  uint32_t tx_switch_every = 1;
  /** Channel buffers (LMT caches). */
  uint32_t channel_buffers = 16;
  /** Interrupt handlers the host registers. */
  uint32_t interrupt_handlers = 1;
  /** rCxts in adapter SRAM (abi::RcxtAddr); the hardware sizes SRAM for them. */
  uint32_t rcxts = abi::kDefaultRcxts;
};

/** One adapter's microcode. */
class Microcode {
 public:
  Microcode(Platform& platform, const MicrocodeConfig& config);
  ~Microcode();
  Microcode(const Microcode&) = delete;
  Microcode& operator=(const Microcode&) = delete;

  /** A command written by the host (the hardware passes offset and data through). */
  void OnMmioCommand(uint64_t offset, uint64_t value);
  /**
   * True if the hardware may hand this header to the microcode now: a receive task is free
   * and the destination window's channel buffer is, or can be, allocated. Otherwise the
   * header waits on the link (the CB is taken at header time, the DTB at payload time).
   */
  bool CanAcceptHeader(const uint8_t* header, uint32_t header_len) const;
  /**
   * A packet header began arriving. `header_len` bytes of header are available (fewer than a
   * WireHeader means the frame was truncated); `payload_len` bytes follow on the wire;
   * `crc_ok` is the link's verdict. Returns the task that took it, or kNoTask if the packet
   * was dropped at once (the hardware then discards the payload).
   */
  TaskId OnHeaderArrived(const uint8_t* header, uint32_t header_len, uint32_t payload_len,
                         bool crc_ok);
  /** The payload for `task` is staged in `dtb`. */
  void OnPayloadArrived(TaskId task, DtbId dtb);
  /** A DMA tagged with `task` completed. */
  void OnDmaComplete(TaskId task, DmaStatus status);
  /** A frame left the link's output queue: a task waiting for link room may transmit. */
  void OnLinkRoom();
  /** The hardware reset the adapter: every task, CB and pending event is dropped. */
  void Reset();

  /** What one busy task is doing (for tests and diagnostics). */
  struct TaskInfo {
    TaskId id;
    TaskKind kind;
    /** RxState or TxState value it resumes in. */
    uint8_t state;
    uint32_t window;
    Resource waiting;
  };
  /** Every busy task (the work manager's while it has work). */
  std::vector<TaskInfo> BusyTasks() const;
  /** Tasks of `kind` active now. */
  uint32_t active_tasks(TaskKind kind) const;
  /** A conditional counter's value (for tests and diagnostics). */
  uint32_t conditional_counter(uint32_t queue) const;
  /** The buffer manager response register for a window. */
  BufferManagerResponse Bmr(uint32_t window) const;
  const Counters& counters() const;
  const MicrocodeConfig& config() const { return config_; }

 private:
  void OnWindowCommand(uint32_t window, abi::MmioCommand command, uint32_t value);
  void OnGlobalCommand(abi::GlobalCommand command, uint64_t value);
  /** Runs every task the dispatch queue holds. */
  void Dispatch();

  Platform& platform_;
  MicrocodeConfig config_;
  /** The engines and their shared state, defined in microcode.cc: nothing of them is part
   *  of this header. */
  struct Engines;
  std::unique_ptr<Engines> engines_;
};

}  // namespace nicsim::fw
