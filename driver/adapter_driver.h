// SPDX-License-Identifier: Apache-2.0
// The device driver for one adapter: init, open and close windows (waiting on the snapshot
// view before memory is released), LMT flush, interrupt handling and adapter recovery.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

#include "abi/limits.h"
#include "abi/lmt.h"
#include "base/status.h"
#include "driver/device_access.h"

namespace nicsim::driver {

/** What a job asks for when it opens a window. */
struct WindowRequest {
  /** Protection key of the job; every window of the job carries it. */
  uint32_t job_key = 0;
  uint32_t recv_frames = 256;
  uint32_t send_slots = 64;
};

/**
 * Host memory a window of `request` takes: its two FIFOs, each rounded up to whole 4 KiB
 * pages as contiguous allocations are.
 */
inline uint64_t WindowHostBytes(const WindowRequest& request, uint32_t line_bytes) {
  constexpr uint64_t kPage = 4096;
  const auto pages = [](uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; };
  return pages(uint64_t{request.recv_frames} * abi::kRecvFrameBytes) +
         pages(uint64_t{request.send_slots} * abi::SendSlotBytes(line_bytes));
}

/** What the HAL needs to drive an open window. */
struct WindowInfo {
  uint32_t window = 0;
  uint16_t adapter_id = 0;
  uint32_t line_bytes = 0;
  uint32_t job_key = 0;
  host::HostRegion recv_fifo;
  uint32_t recv_frames = 0;
  host::HostRegion send_fifo;
  uint32_t send_slots = 0;
};

/** Driver instance bound to one adapter. */
class AdapterDriver {
 public:
  /** How often a closing window's snapshot view is read. */
  static constexpr uint64_t kSnapshotPollPs = 1'000'000;

  explicit AdapterDriver(DeviceAccess& device);
  ~AdapterDriver();
  AdapterDriver(const AdapterDriver&) = delete;
  AdapterDriver& operator=(const AdapterDriver&) = delete;

  /** Brings the adapter to a known state: every LMT closed. */
  Status Init();
  /** Opens `window` for a job: allocates and zeroes its FIFOs and writes its LMT. */
  Result<WindowInfo> OpenWindow(uint32_t window, const WindowRequest& request);
  /**
   * Closes `window`: the adapter stops its traffic at once. The window's memory is freed
   * (a later device write into it is refused and counted) only when the snapshot view reads zero,
   * i.e. when every task that was working at the time of the close has finished; then `done` runs.
   * A recovery while the close waits releases the memory itself; `done` then runs at the next poll.
   */
  Status CloseWindow(uint32_t window, std::function<void()> done = nullptr);
  /** True from CloseWindow until its memory has been released. */
  bool IsClosing(uint32_t window) const;
  /** Reads a window's LMT from adapter SRAM (may lag the copy a channel buffer holds). */
  abi::LmtEntry ReadLmt(uint32_t window);
  /** Asks the microcode to write a window's cached LMT back to SRAM. */
  void FlushLmt(uint32_t window);
  /** The snapshot view register. */
  uint64_t ReadSnapshot();

  /**
   * Resets the adapter: all in-flight work is dropped and every window closes. Open windows
   * keep their memory and can be reopened with ReopenWindow.
   */
  void RecoverAdapter();
  /** Reopens a window that was open before the last recovery, with fresh FIFOs. */
  Result<WindowInfo> ReopenWindow(uint32_t window);
  uint64_t recovery_count() const { return recovery_count_; }

  /** Interrupt callback for one window: (cause bits). */
  using WindowInterruptFn = std::function<void(uint32_t causes)>;
  void SetWindowInterruptHandler(uint32_t window, WindowInterruptFn fn);
  /**
   * Host CPU time an interrupt handler spends on each event it is given, before it calls that
   * window's handler (0, the default: none). A handler serves its events one after another and
   * tells the adapter it is ready again only after the last: with several handlers
   * (adapter.interrupt_handlers), each on a host thread of its own, events that come while
   * one is busy go to another instead of waiting.
   */
  void SetInterruptServiceTime(uint64_t ps) { service_ps_ = ps; }

  DeviceAccess& device() { return device_; }
  /** True while the window is owned (open, or lost in a recovery) and not closing. */
  bool IsOpen(uint32_t window) const {
    return window < abi::kMaxWindows && open_[window] &&
           open_[window]->phase != WindowPhase::kClosing;
  }
  uint64_t interrupts_delivered() const { return interrupts_delivered_; }
  uint64_t interrupt_events_delivered() const { return interrupt_events_delivered_; }

 private:
  enum class WindowPhase : uint8_t { kOpen, kClosing, kLost };
  struct Slot {
    WindowInfo info;
    WindowPhase phase = WindowPhase::kOpen;
    /** While closing: which close (CloseWindow numbers them); its poll acts only for it. */
    uint64_t close_id = 0;
  };
  void WriteLmt(uint32_t window, const abi::LmtEntry& lmt);
  void WriteOpenLmt(const WindowInfo& info);
  /**
   * Polls the snapshot view for close `close_id` of `window`. A recovery may have released
   * the window meanwhile (and the number may be open again, with new memory): then the close
   * is over, and only `done` runs.
   */
  void PollClose(uint32_t window, uint64_t close_id, std::function<void()> done);
  void Release(uint32_t window);
  void OnInterrupt(uint32_t handler, const std::vector<abi::InterruptEvent>& events);
  /** Calls the window's handler for one event (if the window has one). */
  void Dispatch(const abi::InterruptEvent& ev);

  DeviceAccess& device_;
  std::array<std::optional<Slot>, abi::kMaxWindows> open_;
  std::array<WindowInterruptFn, abi::kMaxWindows> handlers_;
  uint64_t interrupts_delivered_ = 0;
  uint64_t interrupt_events_delivered_ = 0;
  uint64_t recovery_count_ = 0;
  uint64_t closes_started_ = 0;
  uint64_t service_ps_ = 0;
};

}  // namespace nicsim::driver
