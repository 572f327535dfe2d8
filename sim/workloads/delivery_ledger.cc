// SPDX-License-Identifier: Apache-2.0
#include "sim/workloads/delivery_ledger.h"

#include <fmt/format.h>

#include "base/check.h"

namespace nicsim::sim {

void DeliveryLedger::Sent(uint64_t id, WorkloadResult& out) {
  NICSIM_CHECK(id >= first_id_, "message id %llu below the ledger's first %llu",
               static_cast<unsigned long long>(id), static_cast<unsigned long long>(first_id_));
  const uint64_t index = id - first_id_;
  if (index < seen_.size()) return;
  out.messages_sent += index + 1 - seen_.size();
  seen_.resize(index + 1, 0);
}

bool DeliveryLedger::Arrived(uint64_t id, bool intact, uint32_t bytes, WorkloadResult& out) {
  if (id < first_id_) {
    ++out.messages_duplicated;
    Error(out,
          fmt::format("{}: message {} of an earlier phase arrived again (a duplicate)", what_, id));
    return false;
  }
  const uint64_t index = id - first_id_;
  if (index >= seen_.size()) {
    Error(out, fmt::format("{} {} arrived but was never sent", what_, id));
    return false;
  }
  if (!intact) {
    ++out.messages_damaged;
    Error(out, fmt::format("{} {} arrived damaged ({} bytes)", what_, id, bytes));
    return false;
  }
  if (seen_[index] != 0) {
    if (seen_[index] < 255) ++seen_[index];
    ++out.messages_duplicated;
    Error(out, fmt::format("{} {} arrived again (a duplicate)", what_, id));
    return false;
  }
  seen_[index] = 1;
  ++delivered_;
  ++out.messages_delivered;
  out.bytes_delivered += bytes;
  return true;
}

void DeliveryLedger::Error(WorkloadResult& out, std::string message) const {
  if (events_ == nullptr) {
    out.AddError(std::move(message));
  } else {
    out.AddErrorAt(events_->now_ps(), events_->running_tie(), std::move(message));
  }
}

void DeliveryLedger::MayArrive(uint64_t count) {
  if (seen_.size() < count) seen_.resize(count, 0);
}

void DeliveryLedger::Settle(WorkloadResult& out, uint64_t sent) {
  if (settled_) return;
  settled_ = true;
  if (sent <= delivered_) return;
  const uint64_t lost = sent - delivered_;
  out.messages_lost += lost;
  uint64_t first = 0;
  while (first < sent && first < seen_.size() && seen_[first] != 0) ++first;
  out.AddError(fmt::format("{}: {} of {} messages never arrived (the first: {})", what_, lost, sent,
                           first_id_ + first));
}

}  // namespace nicsim::sim
