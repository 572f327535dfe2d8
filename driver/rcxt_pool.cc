// SPDX-License-Identifier: Apache-2.0
// rCxt pool: round-robin free list, SRAM record writes when a context changes hands, and
// the reset of ownership after an adapter recovery.
#include "driver/rcxt_pool.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "base/check.h"

namespace nicsim::driver {

std::unique_ptr<RcxtPool> RcxtPool::ForDriver(DeviceAccess& adapter, uint32_t count,
                                              const AdapterDriver& driver) {
  return std::make_unique<RcxtPool>(adapter, count, [&driver] { return driver.recovery_count(); });
}

RcxtPool::RcxtPool(DeviceAccess& adapter, uint32_t count, std::function<uint64_t()> recovery_count)
    : adapter_(adapter), recovery_count_(std::move(recovery_count)), count_(count) {
  NICSIM_CHECK(count <= abi::kRcxtIndexMask, "rcxt pool: count %u must be below 2^20", count);
  NICSIM_CHECK(recovery_count_ != nullptr, "rcxt pool: recovery_count is required");
}

Result<uint32_t> RcxtPool::Acquire(uint32_t window, bool group) {
  if (window >= abi::kMaxWindows) {
    return Status::Error("acquire rCxt: window " + std::to_string(window) + " must be below " +
                         std::to_string(abi::kMaxWindows));
  }
  while (fresh_ < count_ && taken_ahead_.erase(fresh_) > 0) ++fresh_;
  if (fresh_ < count_) return Assign(fresh_++, window, group);
  if (returned_.empty()) {
    return Status::Error("acquire rCxt for window " + std::to_string(window) + ": all " +
                         std::to_string(size()) + " rCxts are in use");
  }
  const uint32_t index = returned_.front();
  returned_.pop_front();
  return Assign(index, window, group);
}

Result<uint32_t> RcxtPool::AcquireIndex(uint32_t index, uint32_t window, bool group) {
  const std::string what = "acquire rCxt " + std::to_string(index) + ": ";
  if (window >= abi::kMaxWindows) {
    return Status::Error(what + "window " + std::to_string(window) + " must be below " +
                         std::to_string(abi::kMaxWindows));
  }
  if (index >= size()) {
    return Status::Error(what + "the pool holds " + std::to_string(size()));
  }
  if (IsHeld(index)) return Status::Error(what + "not free");
  if (index >= fresh_ && taken_ahead_.insert(index).second) return Assign(index, window, group);
  // Handed out before and returned since (a taken-ahead index too): it is in returned_.
  returned_.erase(std::find(returned_.begin(), returned_.end(), index));
  return Assign(index, window, group);
}

uint32_t RcxtPool::Assign(uint32_t index, uint32_t window, bool group) {
  const auto key = static_cast<uint16_t>((recovery_count_() & (abi::kRcxtGroupKey - 1)) |
                                         (group ? abi::kRcxtGroupKey : 0));
  if (index >= held_.size()) held_.resize(index + 1);
  held_[index] = Held{true, static_cast<uint16_t>(window), key};
  abi::RcxtRecord record{};
  record.state = static_cast<uint8_t>(abi::RcxtState::kIdle);
  record.window = static_cast<uint16_t>(window);
  record.key = key;
  record.tid = 0;
  record.next = abi::kNoRcxt;
  Write(index, record);
  return abi::MakeRcxtRef(index, key);
}

Status RcxtPool::Release(uint32_t ref) {
  const uint32_t index = abi::RcxtIndex(ref);
  const std::string what = "release rCxt " + std::to_string(index) + ": ";
  if (!IsHeld(index)) return Status::Error(what + "not held");
  if (abi::RcxtKey(ref) != held_[index].key) {
    return Status::Error(what + "stale key " + std::to_string(abi::RcxtKey(ref)) +
                         ", the rCxt has key " + std::to_string(held_[index].key));
  }
  // The window and key stay in the record for diagnostics; the free state is what counts.
  abi::RcxtRecord record{};
  record.state = static_cast<uint8_t>(abi::RcxtState::kFree);
  record.window = held_[index].window;
  record.key = held_[index].key;
  record.next = abi::kNoRcxt;
  Write(index, record);
  held_[index].held = false;
  returned_.push_back(index);
  return Status();
}

Result<uint32_t> RcxtPool::AcquireQueue() {
  for (uint32_t q = 0; q < abi::kConditionalQueues; ++q) {
    if (queues_.test(q)) continue;
    queues_.set(q);
    return q;
  }
  return Status::Error("every conditional queue of the adapter is taken");
}

void RcxtPool::ReleaseQueue(uint32_t queue) {
  if (queue < abi::kConditionalQueues) queues_.reset(queue);
}

void RcxtPool::OnRecovery() {
  // SRAM already reads zero (kFree) for every record; only the driver's books change.
  for (uint32_t i = 0; i < held_.size(); ++i) {
    if (!held_[i].held) continue;
    held_[i].held = false;
    returned_.push_back(i);
  }
}

void RcxtPool::Write(uint32_t index, const abi::RcxtRecord& record) {
  uint64_t words[sizeof(record) / 8];
  std::memcpy(words, &record, sizeof(record));
  for (uint32_t i = 0; i < sizeof(record) / 8; ++i) {
    adapter_.MmioWrite(abi::kMmioSramBase + abi::RcxtAddr(index) + 8 * i, words[i]);
  }
}

abi::RcxtRecord RcxtPool::Read(uint32_t index) {
  abi::RcxtRecord record{};
  if (index >= size()) return record;
  uint64_t words[sizeof(record) / 8];
  for (uint32_t i = 0; i < sizeof(record) / 8; ++i) {
    words[i] = adapter_.MmioRead(abi::kMmioSramBase + abi::RcxtAddr(index) + 8 * i);
  }
  std::memcpy(&record, words, sizeof(record));
  return record;
}

}  // namespace nicsim::driver
