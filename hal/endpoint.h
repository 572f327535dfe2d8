// SPDX-License-Identifier: Apache-2.0
// A process's use of one open window: what it sends waits in a user-side backlog while the
// send FIFO is full; doorbells ring per post, once per read batch or once per turn; arriving
// frames are read in FIFO order, handed up and consumed. Whatever wakes the process (the
// simulated CPU of sim/cluster/window_process.h, which the real-port node uses too) calls
// ReadFrames, then DrainBacklog, and Flush when it rings once per turn.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "abi/rdma.h"
#include "hal/peer.h"
#include "hal/window.h"

namespace nicsim::hal {

class Endpoint {
 public:
  using ReceiveFn = std::function<void(const RecvPacket&)>;
  using SendableFn = std::function<void()>;
  /** A frame was consumed: its sequence number on the window. */
  using ConsumedFn = std::function<void(uint64_t seq)>;

  explicit Endpoint(Window& window)
      : window_(window), serial_(NextSerial()), first_seq_(window.send().posted()) {}
  virtual ~Endpoint() = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  Peer addr() const {
    return {window_.info().adapter_id, static_cast<uint16_t>(window_.info().window)};
  }
  Window& window() { return window_; }
  uint32_t max_payload() const { return window_.send().max_payload(); }

  /** Called for each arriving packet, in FIFO order; the frame is consumed afterwards. */
  void OnReceive(ReceiveFn fn) { on_receive_ = std::move(fn); }
  /** Called after the adapter completes send slots and the backlog has drained. */
  void OnSendable(SendableFn fn) { on_sendable_ = std::move(fn); }
  /** Called after each frame is consumed. */
  void OnConsumed(ConsumedFn fn) { on_consumed_ = std::move(fn); }
  /**
   * True: every post rings the doorbell (StartTransmit) at once. False: the doorbell rings
   * once per Flush for every slot posted since the last one (a CPU spinning in a loop).
   */
  void SetRingEachPost(bool each) { ring_each_post_ = each; }
  /**
   * With ring-each-post: the posts a batch of ReadFrames makes (replies from OnReceive) ring
   * one doorbell when the batch has been read, instead of one each; posts made anywhere else
   * still ring at once. The real-port node sets it: a burst's replies go in one doorbell.
   */
  void SetRingOncePerRead(bool once) { ring_once_per_read_ = once; }
  /** Stops reading the receive FIFO (a receiver that stops consuming), or resumes. */
  void SetConsuming(bool consuming) { consuming_ = consuming; }
  bool consuming() const { return consuming_; }

  /**
   * Sends a packet now, or queues it until a slot frees (data is copied). False, and
   * nothing sent, if `len` exceeds max_payload().
   */
  bool Send(Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word);
  /**
   * Posts an RDMA request (or conditional-queue command) now, or queues it behind earlier
   * sends until a slot frees. Requests and packets leave in the order they were given.
   */
  void PostRequest(abi::SlotType type, Peer dest, const abi::RdmaRequest& request,
                   uint32_t ulp_word);
  /** True if Send would post at once (no backlog, a free slot): nothing is copied aside. */
  bool CanSendNow() const { return backlog_.empty() && window_.send().CanPost(); }
  /** Packets waiting in the user-side backlog. */
  size_t backlog() const { return backlog_.size(); }
  /** Sends given so far (packets and requests, posted at once or queued aside). */
  uint64_t given() const { return given_; }
  /** How many of them have reached the send FIFO: the backlog leaves in order, so the n-th
   *  send given still waits in it while posted() < n. */
  uint64_t posted() const { return given_ - backlog_.size(); }
  /** True once the `place`-th send given (1-based) has left through the adapter: posted, and
   *  its send FIFO slot finished with (each send given takes one slot, in order). */
  bool Transmitted(uint64_t place) const {
    return place != 0 && place <= posted() && window_.send().Finished(first_seq_ + place - 1);
  }
  /** Tells this endpoint from the one a reopened window gets in its place. */
  uint64_t serial() const { return serial_; }

  /** Reads, hands up and consumes every frame that has arrived; returns how many. */
  uint64_t ReadFrames();
  /** Posts what the send FIFO takes of the backlog; OnSendable once it is empty. */
  void DrainBacklog();
  /** Rings the doorbell for every slot posted and not yet announced. */
  void Flush() { window_.send().Flush(); }

  uint64_t received() const { return received_; }

 private:
  struct Pending {
    Peer dest;
    std::vector<uint8_t> data;
    uint32_t ulp_word;
    /** A request instead of a packet when set. */
    bool is_request = false;
    abi::SlotType type = abi::SlotType::kFifo;
    abi::RdmaRequest request{};
  };
  /** Posts one backlog entry into the send FIFO (which has room). */
  void PostPending(const Pending& p);
  void RingDoorbell() {
    if (ring_each_post_ && !reading_) window_.send().Flush();
  }
  static uint64_t NextSerial();

  Window& window_;
  bool ring_each_post_ = true;
  bool ring_once_per_read_ = false;
  /** ReadFrames is handing a batch up and holds the doorbell (ring_once_per_read_). */
  bool reading_ = false;
  bool consuming_ = true;
  ReceiveFn on_receive_;
  SendableFn on_sendable_;
  ConsumedFn on_consumed_;
  std::deque<Pending> backlog_;
  uint64_t received_ = 0;
  uint64_t given_ = 0;
  uint64_t serial_;
  /** The send FIFO slot of the first send given here (the FIFO may have served another). */
  uint64_t first_seq_;
};

}  // namespace nicsim::hal
