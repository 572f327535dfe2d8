// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/matcher.h"

#include <algorithm>

namespace nicsim::mpi {

bool Matcher::Matches(const RequestState& r, uint32_t context, int source_world, int tag) {
  if (r.context != context) return false;
  if (r.tag != kAnyTag && r.tag != tag) return false;
  if (r.source == kAnySource) return r.group->RankOf(source_world) >= 0;
  return r.group->World(r.source) == source_world;
}

Request Matcher::TakePosted(uint32_t context, int source_world, int tag) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (!Matches(**it, context, source_world, tag)) continue;
    Request r = std::move(*it);
    posted_.erase(it);
    return r;
  }
  return nullptr;
}

bool Matcher::Unpost(const Request& r) {
  const auto it = std::find(posted_.begin(), posted_.end(), r);
  if (it == posted_.end()) return false;
  posted_.erase(it);
  return true;
}

size_t Matcher::KeepUnexpected(UnexpectedMessage u) {
  unexpected_.push_back(std::move(u));
  return unexpected_.size();
}

std::optional<UnexpectedMessage> Matcher::TakeUnexpected(const RequestState& r) {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!Matches(r, it->context, it->source, it->tag)) continue;
    UnexpectedMessage u = std::move(*it);
    unexpected_.erase(it);
    return u;
  }
  return std::nullopt;
}

const UnexpectedMessage* Matcher::PeekUnexpected(const RequestState& probe) const {
  for (const UnexpectedMessage& u : unexpected_) {
    if (Matches(probe, u.context, u.source, u.tag)) return &u;
  }
  return nullptr;
}

UnexpectedMessage* Matcher::FindRendezvous(int source_world, uint64_t rdv_id) {
  for (UnexpectedMessage& u : unexpected_) {
    if (u.source == source_world && u.kind == MessageKind::kRts && u.rdv_id == rdv_id) return &u;
  }
  return nullptr;
}

}  // namespace nicsim::mpi
