// SPDX-License-Identifier: Apache-2.0
// The adapter microcode: inward event entry points and the engines they dispatch to.
// A hardware model owns one Microcode per adapter and calls it on each hardware event.
#pragma once

#include <cstdint>
#include <memory>

#include "firmware/counters.h"
#include "firmware/platform.h"
#include "firmware/rx_engine.h"
#include "firmware/task.h"
#include "firmware/tx_engine.h"

namespace nicsim::fw {

/** Tunables of the microcode image. */
struct MicrocodeConfig {
  /** Receive tasks: the fewest that keep the receive pipeline full. */
  uint32_t rx_tasks = 4;
  /** Transmit tasks. */
  uint32_t tx_tasks = 4;
  /** Transmit switches to the next ready window after this many packets (k >= 1). */
  uint32_t tx_switch_every = 1;
};

/** One adapter's microcode. */
class Microcode {
 public:
  Microcode(Platform& platform, const MicrocodeConfig& config);

  /** A window command written by the host (the hardware passes offset and data through). */
  void OnMmioCommand(uint64_t offset, uint64_t value);
  /** True while a receive task is free to take a header. */
  bool HasFreeRxTask() const { return tasks_.HasFree(TaskKind::kRx); }
  /**
   * A packet header began arriving. `header_len` bytes of header are available (fewer than a
   * WireHeader means the frame was truncated); `payload_len` bytes follow on the wire;
   * `crc_ok` is the link's verdict. Returns the task that took it, or kNoTask if the packet
   * was dropped (the hardware then discards the payload).
   */
  TaskId OnHeaderArrived(const uint8_t* header, uint32_t header_len, uint32_t payload_len,
                         bool crc_ok);
  /** The payload for `task` is staged in `dtb`. */
  void OnPayloadArrived(TaskId task, DtbId dtb);
  /** A DMA tagged with `task` completed. */
  void OnDmaComplete(TaskId task, DmaStatus status);

  const Counters& counters() const { return counters_; }
  const MicrocodeConfig& config() const { return config_; }

 private:
  void OnStartTransmit(uint32_t window, uint64_t count);

  Platform& platform_;
  MicrocodeConfig config_;
  Counters counters_;
  TaskPool tasks_;
  RxEngine rx_;
  TxEngine tx_;
};

}  // namespace nicsim::fw
