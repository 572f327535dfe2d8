// SPDX-License-Identifier: Apache-2.0
// The source rCxts a part posts its RDMA writes on: an idle one is reused, a new one taken
// from the port when all are busy. Shared by the multicast groups and the eager RDMA rings.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "abi/rdma.h"
#include "hal/port.h"

namespace nicsim::ulp {

/**
 * Source rCxts of one user on one port. An rCxt is idle once the adapter holds the tid last
 * posted on it and has sent all of that write: a write posted on a busy source would be lost.
 * The tid the rCxt shows is how the adapter's taking of a post is seen, so two posts in a row
 * on one rCxt never carry the same tid (the second would find it idle under the first's tid
 * before the adapter took the first; writes of one message to several peers, or of several
 * connections, share tids).
 */
class SourceRcxts {
 public:
  /** An idle source rCxt for a write with `tid`, its last post not of that tid (a new one if
   *  all are busy; the oldest if the port has none left; kNoRcxt if it never had one). */
  uint32_t Take(hal::Port& port, uint32_t tid) {
    for (uint32_t ref : refs_) {
      const abi::RcxtRecord rec = port.ReadRcxt(ref);
      if (rec.state == static_cast<uint8_t>(abi::RcxtState::kIdle) && rec.tid == posted_[ref] &&
          posted_[ref] != tid) {
        return ref;
      }
    }
    Result<uint32_t> ref = port.AcquireRcxt();
    if (!ref.ok()) return refs_.empty() ? abi::kNoRcxt : refs_.front();
    refs_.push_back(*ref);
    posted_[*ref] = 0;
    return *ref;
  }
  /** Notes that a write with `tid` was posted on `ref`. */
  void Posted(uint32_t ref, uint32_t tid) { posted_[ref] = tid; }
  /** Gives every rCxt back to `port`. */
  void ReleaseAll(hal::Port& port) {
    for (uint32_t ref : refs_) port.ReleaseRcxt(ref);
    refs_.clear();
    posted_.clear();
  }

 private:
  std::vector<uint32_t> refs_;
  /** The tid last posted on each rCxt. */
  std::map<uint32_t, uint32_t> posted_;
};

}  // namespace nicsim::ulp
