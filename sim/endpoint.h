// SPDX-License-Identifier: Apache-2.0
// A simulated process bound to one open window: it drives the HAL the way a polling CPU
// would, waking when the adapter writes its FIFOs, and keeps a user-side backlog of packets
// waiting for a free send slot.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "abi/rdma.h"
#include "base/life_token.h"
#include "driver/adapter_driver.h"
#include "hal/window.h"
#include "kernel/event_queue.h"
#include "host/host_memory.h"
#include "sim/host_trace.h"

namespace nicsim::sim {

/**
 * True if a device write of [addr, addr + len) into a receive FIFO at `fifo_base` covers the
 * first byte of a frame, where the valid marker a spinning CPU watches lives. The adapter
 * writes a frame's first line last, so a write of payload lines alone shows the CPU nothing.
 */
bool CoversFrameStart(uint64_t fifo_base, uint64_t addr, uint64_t len);

/** Address of one window on the fabric. */
struct WindowAddr {
  uint16_t adapter = 0;
  uint16_t window = 0;
  bool operator==(const WindowAddr& o) const { return adapter == o.adapter && window == o.window; }
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
   * A CPU of its own spins on the FIFOs while the adapter runs on another core: nothing
   * wakes the endpoint, its owner calls Spin() in a loop.
   */
  kSpin,
};

/** A process using one window. */
class Endpoint {
 public:
  using ReceiveFn = std::function<void(const hal::RecvPacket&)>;
  using SendableFn = std::function<void()>;

  Endpoint(hal::Window& window, driver::AdapterDriver& driver, kernel::EventQueue& events,
           host::HostMemory& host, uint64_t poll_latency_ps, WaitMode mode);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  WindowAddr addr() const { return {window_.info().adapter_id, static_cast<uint16_t>(window_.info().window)}; }
  hal::Window& window() { return window_; }
  uint32_t max_payload() const { return window_.send().max_payload(); }

  /** Called for each arriving packet, in FIFO order; the frame is consumed afterwards. */
  void OnReceive(ReceiveFn fn) { on_receive_ = std::move(fn); }
  /** Called after the adapter completes send slots and the backlog has drained. */
  void OnSendable(SendableFn fn) { on_sendable_ = std::move(fn); }
  /** Records host events (each receive frame consumed) here; null: none. */
  void SetHostTrace(HostTraceSink* sink) { host_trace_ = sink; }
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
   * Sends a packet now, or queues it until a slot frees (data is copied). False, and
   * nothing sent, if `len` exceeds max_payload().
   */
  bool Send(WindowAddr dest, const uint8_t* data, uint32_t len, uint32_t ulp_word);
  /**
   * Posts an RDMA request (or conditional-queue command) now, or queues it behind earlier
   * sends until a slot frees. Requests and packets leave in the order they were given.
   */
  void PostRequest(abi::SlotType type, WindowAddr dest, const abi::RdmaRequest& request,
                   uint32_t ulp_word);
  /** True if Send would post at once (no backlog, a free slot): nothing is copied aside. */
  bool CanSendNow() const { return backlog_.empty() && window_.send().CanPost(); }
  /** Packets waiting in the user-side backlog. */
  size_t backlog() const { return backlog_.size(); }

  uint64_t received() const { return received_; }
  /** Interrupts that woke this process. */
  uint64_t wakeups() const { return wakeups_; }
  /** Polls after an early interrupt that found the first line not yet written. */
  uint64_t early_spins() const { return early_spins_; }

 private:
  struct Pending {
    WindowAddr dest;
    std::vector<uint8_t> data;
    uint32_t ulp_word;
    /** A request instead of a packet when set. */
    bool is_request = false;
    abi::SlotType type = abi::SlotType::kFifo;
    abi::RdmaRequest request{};
  };
  /** Posts one backlog entry into the send FIFO (which has room). */
  void PostPending(const Pending& p);
  void SchedulePoll();
  void Poll();
  /** Interrupt modes: asks for an interrupt when the next unread frame is written. */
  void ArmInterrupt();
  void DrainBacklog();
  /** kInterrupt or kEarlyInterrupt: the process sleeps until its window interrupts. */
  bool WaitsForInterrupts() const {
    return mode_ == WaitMode::kInterrupt || mode_ == WaitMode::kEarlyInterrupt;
  }
  /** StartTransmit for the slots just posted; kSpin leaves it to the end of the turn. */
  void RingDoorbell();

  hal::Window& window_;
  driver::AdapterDriver& driver_;
  kernel::EventQueue& events_;
  host::HostMemory& host_;
  uint64_t poll_latency_ps_;
  WaitMode mode_;
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
  bool consuming_ = true;
  ReceiveFn on_receive_;
  SendableFn on_sendable_;
  HostTraceSink* host_trace_ = nullptr;
  std::deque<Pending> backlog_;
  uint64_t received_ = 0;
  uint64_t wakeups_ = 0;
  uint64_t early_spins_ = 0;
  /** Ends with the endpoint, so events scheduled for it become no-ops. */
  LifeToken life_;
};

}  // namespace nicsim::sim
