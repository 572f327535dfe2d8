// SPDX-License-Identifier: Apache-2.0
// One-sided synchronisation on one rank: locks granted first come first served, unlocks and
// flushes answered once their operations are applied, and post-start-complete-wait epochs.
#include <vector>

#include "base/check.h"
#include "ulp/mpi/one_sided.h"
#include "ulp/mpi/one_sided_wire.h"
#include "ulp/mpi/p2p_wire.h"

namespace nicsim::mpi {

using namespace one_sided_wire;  // NOLINT(google-build-using-namespace): this file's messages

void OneSided::SendControl(int world, uint32_t window, uint8_t what, uint64_t issued,
                           bool exclusive, bool release) {
  const ControlHeader h{
      issued, what, static_cast<uint8_t>(exclusive), static_cast<uint8_t>(release), {}};
  s_.outbox.Send(world, MessageKind::kEager, WindowContext(window, WindowOp::kControl), 0,
                 Framed(h, nullptr, 0), nullptr);
}

void OneSided::Lock(uint32_t window, int target_world, bool exclusive) {
  passive_[{window, target_world}] = Passive{};
  SendControl(target_world, window, static_cast<uint8_t>(Control::kLock), 0, exclusive, false);
}

bool OneSided::Granted(uint32_t window, int target_world) const {
  auto it = passive_.find({window, target_world});
  return it != passive_.end() && it->second.granted;
}

void OneSided::Unlock(uint32_t window, int target_world, uint64_t issued, bool release) {
  passive_[{window, target_world}].answered = false;
  SendControl(target_world, window, static_cast<uint8_t>(Control::kUnlock), issued, false, release);
}

bool OneSided::Answered(uint32_t window, int target_world) const {
  auto it = passive_.find({window, target_world});
  return it != passive_.end() && it->second.answered;
}

void OneSided::Post(uint32_t window, const std::vector<int>& origins_world) {
  Active& a = active_[window];
  a.exposed_to = origins_world;
  for (int origin : origins_world) {
    SendControl(origin, window, static_cast<uint8_t>(Control::kPosted), 0, false, false);
  }
}

bool OneSided::PostedBy(uint32_t window, const std::vector<int>& targets_world) const {
  auto it = active_.find(window);
  if (it == active_.end()) return targets_world.empty();
  for (int t : targets_world) {
    auto p = it->second.posted.find(t);
    if (p == it->second.posted.end() || p->second == 0) return false;
  }
  return true;
}

void OneSided::Start(uint32_t window, const std::vector<int>& targets_world) {
  Active& a = active_[window];
  for (int t : targets_world) --a.posted[t];  // each post opens one access epoch
  a.accessing = targets_world;
}

void OneSided::Complete(uint32_t window) {
  Active& a = active_[window];
  for (int t : a.accessing) {
    SendControl(t, window, static_cast<uint8_t>(Control::kCompleted), TakeIssued(window, t), false,
                false);
  }
  a.accessing.clear();
}

bool OneSided::CompletedBy(uint32_t window) {
  Active& a = active_[window];
  std::map<int, uint64_t>& applied = applied_by_[window];
  for (int origin : a.exposed_to) {
    auto c = a.completed.find(origin);
    if (c == a.completed.end() || applied[origin] < c->second) return false;
  }
  // Every origin's epoch ended and its operations are applied: consumed.
  for (int origin : a.exposed_to) {
    applied[origin] -= a.completed[origin];
    applied_[window] -= a.completed[origin];
    a.completed.erase(origin);
  }
  a.exposed_to.clear();
  return true;
}

void OneSided::OnControl(int source_world, uint32_t window, const std::vector<uint8_t>& data) {
  const ControlHeader h = *HeaderOf<ControlHeader>(data);
  switch (static_cast<Control>(h.what)) {
    case Control::kLock:
      locks_[window].waiting.emplace_back(source_world, h.exclusive != 0);
      GrantWaiting(window);
      return;
    case Control::kUnlock:
      unlocks_[{window, source_world}] = {h.issued, h.release != 0};
      MaybeAnswer(window, source_world);
      return;
    case Control::kGranted:
      passive_[{window, source_world}].granted = true;
      return;
    case Control::kAnswered:
      passive_[{window, source_world}].answered = true;
      return;
    case Control::kPosted:
      ++active_[window].posted[source_world];
      return;
    case Control::kCompleted:
      active_[window].completed[source_world] = h.issued;
      return;
  }
  NICSIM_CHECK(false, "window control message %u from rank %d", h.what, source_world);
}

void OneSided::GrantWaiting(uint32_t window) {
  LockState& lock = locks_[window];
  // First come, first served: a shared request behind a waiting exclusive one waits too.
  while (!lock.waiting.empty()) {
    const auto [origin, exclusive] = lock.waiting.front();
    const bool free = lock.exclusive < 0 && (!exclusive || lock.shared.empty());
    if (!free) return;
    if (exclusive) {
      lock.exclusive = origin;
    } else {
      lock.shared.insert(origin);
    }
    lock.waiting.pop_front();
    SendControl(origin, window, static_cast<uint8_t>(Control::kGranted), 0, false, false);
  }
}

void OneSided::MaybeAnswer(uint32_t window, int source_world) {
  auto it = unlocks_.find({window, source_world});
  if (it == unlocks_.end()) return;
  const auto [issued, release] = it->second;
  uint64_t& applied = applied_by_[window][source_world];
  if (applied < issued) return;
  applied -= issued;
  applied_[window] -= issued;
  unlocks_.erase(it);
  if (release) {
    LockState& lock = locks_[window];
    if (lock.exclusive == source_world) {
      lock.exclusive = -1;
    } else {
      lock.shared.erase(source_world);
    }
  }
  SendControl(source_world, window, static_cast<uint8_t>(Control::kAnswered), 0, false, false);
  if (release) GrantWaiting(window);
}

}  // namespace nicsim::mpi
