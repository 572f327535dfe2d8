// SPDX-License-Identifier: Apache-2.0
// A simulated process bound to one open window: the simulated CPU that wakes its HAL
// endpoint the way a polling or interrupted CPU would, when the adapter writes its FIFOs.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "abi/rdma.h"
#include "base/life_token.h"
#include "driver/adapter_driver.h"
#include "hal/endpoint.h"
#include "hal/interrupt_arming.h"
#include "hal/window.h"
#include "kernel/event_queue.h"
#include "host/host_memory.h"
#include "sim/observe/host_trace.h"

namespace nicsim::sim {

/**
 * True if a device write of [addr, addr + len) into a receive FIFO at `fifo_base` covers the
 * first byte of a frame, where the valid marker a spinning CPU watches lives. The adapter
 * writes a frame's first line last, so a write of payload lines alone shows the CPU nothing.
 */
bool CoversFrameStart(uint64_t fifo_base, uint64_t addr, uint64_t len);

/** Address of one window on the fabric. */
using WindowAddr = hal::Peer;

/** What the simulator says of the CPU a process runs on. */
struct HostCpu {
  /** Whether it has nothing else to run; null: always idle. */
  std::function<bool()> idle;
  /** Takes `ps` of its time from the work it is running; null: nothing to take it from. */
  std::function<void(uint64_t ps)> take;
};

/** How a process waits for packets. */
enum class WaitMode : uint8_t {
  /** Spin on the next frame's first cache line. */
  kPoll,
  /** Sleep until the window's receive-threshold interrupt, then read. */
  kInterrupt,
  /** As kInterrupt, with the adapter interrupting before the data is coherent. */
  kEarlyInterrupt,
  /**
   * As kInterrupt, with early interrupts for each sleep that starts while the process's CPU
   * is idle (hal::InterruptTiming::kEarlyWhenIdle; the cluster says whether it is).
   */
  kEarlyWhenIdle,
  /**
   * A CPU of its own spins on the FIFOs while the adapter runs on another core: nothing
   * wakes the endpoint, its owner calls Spin() in a loop.
   */
  kSpin,
};

/**
 * A simulated process using one window: the HAL endpoint it drives, and the simulated CPU
 * that wakes it (after the poll latency when the adapter writes its FIFOs, or on an
 * interrupt). Sending, the backlog and reading frames are the HAL's; only waking is here.
 */
class WindowProcess final : public hal::Endpoint {
 public:
  /**
   * `cpu`: whether the process's CPU is idle (kEarlyWhenIdle asks each time it goes to sleep),
   * and where the polls of an early interrupt that finds the CPU busy take their time from.
   */
  WindowProcess(hal::Window& window, driver::AdapterDriver& driver, kernel::EventQueue& events,
                host::HostMemory& host, uint64_t poll_latency_ps, WaitMode mode, HostCpu cpu = {});
  ~WindowProcess() override;

  /** Records host events (each receive frame consumed) here; null: none. */
  void SetHostTrace(HostTraceSink* sink);
  /**
   * kSpin: one turn of the spinning CPU: reads every frame that has arrived, posts what the
   * send FIFO takes of the backlog, calls OnSendable when the backlog is empty, then rings the
   * doorbell once (StartTransmit) for every slot posted since the last turn, its callbacks'
   * sends included. (In the other modes every send rings at once.)
   */
  void Spin();
  /** Stops draining the receive FIFO (a receiver that stops consuming), or resumes. */
  void SetConsuming(bool consuming);

  /**
   * Runs `fn` when the window has become fatal (an RDMA protection failure stopped it): the
   * owner must close and reopen it. Runs as an event of its own, not inside the interrupt.
   */
  void OnWindowFatal(std::function<void()> fn) { on_fatal_ = std::move(fn); }
  uint64_t fatal_interrupts() const { return fatal_interrupts_; }

  /** Sleeps armed with early interrupts, and with interrupts once the data is coherent. */
  uint64_t early_arms() const { return arming_.early_arms(); }
  uint64_t coherent_arms() const { return arming_.coherent_arms(); }
  /** Interrupt mode commands this process wrote (once, then on each change). */
  uint64_t interrupt_mode_writes() const { return arming_.mode_writes(); }

  /**
   * The simulator says the CPU went from idle to busy or back: a sleeping kEarlyWhenIdle
   * process re-arms if that changes its mode.
   */
  void OnCpuStateChanged();
  /**
   * Polls after an early interrupt made while the CPU was busy (each took a poll latency from
   * its work).
   */
  uint64_t busy_early_spins() const { return busy_early_spins_; }

  /** Interrupts that woke this process. */
  uint64_t wakeups() const { return wakeups_; }
  /** Polls after an early interrupt that found the first line not yet written. */
  uint64_t early_spins() const { return early_spins_; }

 private:
  void SchedulePoll();
  void Poll();
  /** The window's interrupt, with its cause bits. */
  void OnInterrupt(uint32_t causes);
  /** Interrupt modes: asks for an interrupt when the next unread frame is written. */
  void ArmInterrupt();
  /** The interrupt modes: the process sleeps until its window interrupts. */
  bool WaitsForInterrupts() const {
    return mode_ == WaitMode::kInterrupt || mode_ == WaitMode::kEarlyInterrupt ||
           mode_ == WaitMode::kEarlyWhenIdle;
  }

  driver::AdapterDriver& driver_;
  kernel::EventQueue& events_;
  host::HostMemory& host_;
  uint64_t poll_latency_ps_;
  WaitMode mode_;
  /** Interrupt modes: the receive threshold and the early-or-coherent choice (hal/). */
  hal::InterruptArming arming_;
  /** Takes time from the work the CPU runs (HostCpu::take). */
  std::function<void(uint64_t)> cpu_take_;
  uint64_t busy_early_spins_ = 0;
  /** Early mode: an interrupt came and its frame has not been seen yet. */
  bool expecting_ = false;
  /** The frame count the armed interrupt waits for. */
  uint64_t armed_for_ = 0;
  /** Polls a woken process spends on a frame not yet written before sleeping again. */
  static constexpr uint64_t kMaxSpinPolls = 64;
  uint64_t spin_until_ps_ = 0;
  int recv_watch_ = 0;
  int send_watch_ = 0;
  bool poll_pending_ = false;
  HostTraceSink* host_trace_ = nullptr;
  uint64_t wakeups_ = 0;
  uint64_t early_spins_ = 0;
  uint64_t fatal_interrupts_ = 0;
  std::function<void()> on_fatal_;
  /** Ends with the endpoint, so events scheduled for it become no-ops. */
  LifeToken life_;
};

}  // namespace nicsim::sim
