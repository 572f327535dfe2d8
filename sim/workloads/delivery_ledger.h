// SPDX-License-Identifier: Apache-2.0
// Exactly-once bookkeeping for a workload: which of its messages arrived, how often, and
// whether intact. Every workload counts deliveries through one, so the verdict rule (each
// message delivered once, bytes identical) is the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/event_queue.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

class DeliveryLedger {
 public:
  /**
   * `what` names the messages in errors ("stream packet", "pingpong size 64: ping"). Ids are
   * dense from `first_id`; an id below it belongs to an earlier phase of the same workload,
   * which finished with every message delivered, so it can only arrive as a duplicate.
   */
  explicit DeliveryLedger(std::string what, uint64_t first_id = 0)
      : what_(std::move(what)), first_id_(first_id) {}

  /** Message `id` was sent (a resend of the same id is not counted again). */
  void Sent(uint64_t id, WorkloadResult& out);

  /**
   * One arrival of message `id` of `bytes` bytes, `intact` if its length and bytes are right.
   * The first intact arrival is the delivery (true); a later one is a duplicate, a damaged
   * one is damage, an id never sent is an error: each counted and reported in `out`.
   */
  bool Arrived(uint64_t id, bool intact, uint32_t bytes, WorkloadResult& out);

  /**
   * Errors of arrivals are keyed by the event that found them (WorkloadResult::AddErrorAt),
   * so a split run's processes merge them in one process's order.
   */
  void KeyErrorsBy(const kernel::EventQueue* events) { events_ = events; }

  /** Messages delivered so far. */
  uint64_t delivered() const { return delivered_; }
  uint64_t sent() const { return seen_.size(); }
  /** The id after the last one sent: where a following phase's ids start. */
  uint64_t end_id() const { return first_id_ + seen_.size(); }

  /**
   * Ids below `first_id + count` may arrive though this ledger saw none of them sent: their
   * sender runs in another process of a split run (which counts them sent). Not counted sent.
   */
  void MayArrive(uint64_t count);

  /** After the run: every message sent and never delivered is lost (counted, reported). */
  void Settle(WorkloadResult& out) { Settle(out, seen_.size()); }
  /** Settle, against the `sent` messages every process sent (ids first_id .. + sent - 1). */
  void Settle(WorkloadResult& out, uint64_t sent);

 private:
  std::string what_;
  uint64_t first_id_;
  /** Per message id - first_id_: intact arrivals so far (saturating). */
  std::vector<uint8_t> seen_;
  uint64_t delivered_ = 0;
  bool settled_ = false;
  const kernel::EventQueue* events_ = nullptr;
  /** AddError, keyed by the running event once KeyErrorsBy was called. */
  void Error(WorkloadResult& out, std::string message) const;
};

}  // namespace nicsim::sim
