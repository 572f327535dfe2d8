// SPDX-License-Identifier: Apache-2.0
// Endpoint: device writes into a window's FIFOs wake one poll after the CPU's poll latency,
// standing in for a CPU spinning on the next frame's first cache line (receive writes that
// miss every frame's first line wake nothing).
#include "sim/endpoint.h"

namespace nicsim::sim {

bool CoversFrameStart(uint64_t fifo_base, uint64_t addr, uint64_t len) {
  const uint64_t offset = addr - fifo_base;
  const uint64_t next_start =
      (offset + abi::kRecvFrameBytes - 1) / abi::kRecvFrameBytes * abi::kRecvFrameBytes;
  return next_start < offset + len;
}

Endpoint::Endpoint(hal::Window& window, driver::AdapterDriver& driver,
                   kernel::EventQueue& events, host::HostMemory& host,
                   uint64_t poll_latency_ps, WaitMode mode)
    : window_(window), driver_(driver), events_(events), host_(host),
      poll_latency_ps_(poll_latency_ps), mode_(mode) {
  const auto& info = window.info();
  // A spinning CPU sees the receive FIFO change; a sleeping one waits for the interrupt;
  // one on a core of its own looks for itself (Spin).
  if (mode_ == WaitMode::kSpin) return;
  if (mode_ == WaitMode::kPoll) {
    recv_watch_ = host_.Watch(info.recv_fifo.real_addr, info.recv_fifo.bytes,
                              [this, base = info.recv_fifo.real_addr](uint64_t addr, uint64_t len) {
                                if (CoversFrameStart(base, addr, len)) SchedulePoll();
                              });
  } else {
    driver_.SetWindowInterruptHandler(info.window, [this](uint32_t) {
      ++wakeups_;
      // The frame this interrupt announces may already have been read by an earlier poll.
      expecting_ = window_.recv().consumed() < armed_for_;
      spin_until_ps_ = events_.now_ps() + kMaxSpinPolls * poll_latency_ps_;
      SchedulePoll();
    });
    window_.SetInterruptMode(mode_ == WaitMode::kEarlyInterrupt ? abi::kEarlyInterrupt : 0);
    ArmInterrupt();
  }
  send_watch_ = host_.Watch(info.send_fifo.real_addr, info.send_fifo.bytes,
                            [this](uint64_t, uint64_t) { SchedulePoll(); });
}

Endpoint::~Endpoint() {
  if (recv_watch_ != 0) host_.Unwatch(recv_watch_);
  if (send_watch_ != 0) host_.Unwatch(send_watch_);
  if (WaitsForInterrupts()) driver_.SetWindowInterruptHandler(window_.info().window, nullptr);
}

void Endpoint::ArmInterrupt() {
  armed_for_ = window_.recv().consumed() + 1;
  window_.recv().SetInterruptThreshold(static_cast<uint32_t>(armed_for_));
}

void Endpoint::SetConsuming(bool consuming) {
  consuming_ = consuming;
  if (consuming_) SchedulePoll();
}

void Endpoint::SchedulePoll() {
  if (poll_pending_) return;
  poll_pending_ = true;
  // The process may exit (its window closes) before the poll runs.
  events_.After(poll_latency_ps_, [this, life = life_.watch()] {
    if (!life.alive()) return;
    poll_pending_ = false;
    Poll();
  });
}

void Endpoint::Poll() {
  if (consuming_) {
    hal::RecvFifo& recv = window_.recv();
    hal::RecvPacket packet;
    bool any = false;
    while (consuming_ && recv.Poll(&packet)) {
      ++received_;
      any = true;
      if (on_receive_) on_receive_(packet);
      const uint64_t seq = recv.consumed();  // the frame's sequence number on the window
      recv.Consume();
      TraceHost(host_trace_, events_.now_ps(), window_.info().adapter_id,
                {HostTraceKind::kFrameConsumed, window_.info().window, seq});
    }
    // Frames go back in the HAL's batches (hal.return_batch), not after every poll.
    if (recv.consumed() >= armed_for_) expecting_ = false;
    if (WaitsForInterrupts()) {
      if (expecting_ && events_.now_ps() < spin_until_ps_) {
        // Early interrupt: the data is still on its way; spin on the first line.
        ++early_spins_;
        SchedulePoll();
      } else if (any || expecting_) {
        // Sleep again. An interrupt that was stale (its frame already read) ends here; for a
        // frame still in flight the threshold is already reached and fires at once.
        expecting_ = false;
        ArmInterrupt();
      }
    }
  }
  DrainBacklog();
}

bool Endpoint::Send(WindowAddr dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) {
  if (len > max_payload()) return false;
  if (backlog_.empty() &&
      window_.send().Post(dest.adapter, dest.window, data, len, ulp_word) == hal::SendResult::kOk) {
    RingDoorbell();
    return true;
  }
  backlog_.push_back(Pending{dest, std::vector<uint8_t>(data, data + len), ulp_word});
  return true;
}

void Endpoint::PostRequest(abi::SlotType type, WindowAddr dest, const abi::RdmaRequest& request,
                           uint32_t ulp_word) {
  Pending p;
  p.dest = dest;
  p.ulp_word = ulp_word;
  p.is_request = true;
  p.type = type;
  p.request = request;
  if (backlog_.empty() && window_.send().CanPost()) {
    PostPending(p);
    RingDoorbell();
    return;
  }
  backlog_.push_back(std::move(p));
}

void Endpoint::PostPending(const Pending& p) {
  hal::SendFifo& send = window_.send();
  if (p.is_request) {
    send.PostRequest(p.type, p.dest.adapter, p.dest.window, p.request, p.ulp_word);
  } else {
    send.Post(p.dest.adapter, p.dest.window, p.data.data(), static_cast<uint32_t>(p.data.size()),
              p.ulp_word);
  }
}

void Endpoint::RingDoorbell() {
  // A spinning CPU rings once per turn, for every slot it posted in it (Spin).
  if (mode_ != WaitMode::kSpin) window_.send().Flush();
}

void Endpoint::Spin() {
  Poll();
  window_.send().Flush();
}

void Endpoint::DrainBacklog() {
  hal::SendFifo& send = window_.send();
  bool posted = false;
  while (!backlog_.empty() && send.CanPost()) {
    PostPending(backlog_.front());
    backlog_.pop_front();
    posted = true;
  }
  if (posted) RingDoorbell();
  if (backlog_.empty() && on_sendable_) on_sendable_();
}

}  // namespace nicsim::sim
