// SPDX-License-Identifier: Apache-2.0
// A set of byte ranges [begin, end) of one buffer, kept merged: which bytes of a transfer have
// arrived or been used, whatever attempt (tid) brought them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace nicsim::ulp {

/** Disjoint, merged byte ranges; adjacent ranges join. */
class ByteRanges {
 public:
  using Range = std::pair<uint64_t, uint64_t>;

  /** The parts of [begin, end) not in the set, in order. */
  std::vector<Range> Missing(uint64_t begin, uint64_t end) const {
    std::vector<Range> out;
    uint64_t at = begin;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < end; ++it) {
      if (it->second <= at) continue;
      if (it->first > at) out.emplace_back(at, it->first);
      at = it->second;
      if (at >= end) break;
    }
    if (at < end) out.emplace_back(at, end);
    return out;
  }
  /** True if every byte of [begin, end) is in the set (ranges are merged: one holds them). */
  bool Contains(uint64_t begin, uint64_t end) const {
    if (begin >= end) return true;
    auto it = ranges_.upper_bound(begin);
    if (it == ranges_.begin()) return false;
    return std::prev(it)->second >= end;
  }
  /** True if some byte of [begin, end) is in the set. */
  bool Overlaps(uint64_t begin, uint64_t end) const {
    const std::vector<Range> gaps = Missing(begin, end);
    return !(gaps.size() == 1 && gaps[0] == Range{begin, end}) && begin < end;
  }
  /** Adds [begin, end); returns the merged range that now holds it. */
  Range Add(uint64_t begin, uint64_t end) {
    if (begin >= end) return {begin, end};
    // Bytes that come in order extend the last range where it stands.
    if (!ranges_.empty() && std::prev(ranges_.end())->second == begin) {
      auto last = std::prev(ranges_.end());
      last->second = end;
      bytes_ += end - begin;
      return *last;
    }
    for (const Range& gap : Missing(begin, end)) bytes_ += gap.second - gap.first;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
    while (it != ranges_.end() && it->first <= end) {
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(begin, end);
    return {begin, end};
  }
  /** Bytes in the set. */
  uint64_t bytes() const { return bytes_; }
  /** True when no byte is in the set. */
  bool empty() const { return ranges_.empty(); }

 private:
  std::map<uint64_t, uint64_t> ranges_;
  uint64_t bytes_ = 0;
};

}  // namespace nicsim::ulp
