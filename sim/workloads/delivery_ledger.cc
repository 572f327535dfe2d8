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
    out.AddError(fmt::format("{}: message {} of an earlier phase arrived again (a duplicate)",
                             what_, id));
    return false;
  }
  const uint64_t index = id - first_id_;
  if (index >= seen_.size()) {
    out.AddError(fmt::format("{} {} arrived but was never sent", what_, id));
    return false;
  }
  if (!intact) {
    ++out.messages_damaged;
    out.AddError(fmt::format("{} {} arrived damaged ({} bytes)", what_, id, bytes));
    return false;
  }
  if (seen_[index] != 0) {
    if (seen_[index] < 255) ++seen_[index];
    ++out.messages_duplicated;
    out.AddError(fmt::format("{} {} arrived again (a duplicate)", what_, id));
    return false;
  }
  seen_[index] = 1;
  ++delivered_;
  ++out.messages_delivered;
  out.bytes_delivered += bytes;
  return true;
}

void DeliveryLedger::Settle(WorkloadResult& out) {
  if (settled_) return;
  settled_ = true;
  const uint64_t lost = seen_.size() - delivered_;
  if (lost == 0) return;
  out.messages_lost += lost;
  uint64_t first = 0;
  while (first < seen_.size() && seen_[first] != 0) ++first;
  out.AddError(fmt::format("{}: {} of {} messages never arrived (the first: {})", what_, lost,
                           seen_.size(), first_id_ + first));
}

}  // namespace nicsim::sim
