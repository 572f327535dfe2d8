// SPDX-License-Identifier: Apache-2.0
// ShmPlatform: the one-copy transfer between processes (process_vm_writev) and the errors
// that send the sender to its staging fallback.
#include "ulp/pushpull/shm_platform.h"

#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace nicsim::ulp::pushpull {

std::string ShmPlatform::PrefixForThisProcess() {
  return segments::ShmSegments::PrefixForThisProcess("pp");
}

uint64_t ShmPlatform::ProcessToken() const { return static_cast<uint64_t>(getpid()); }

CrossCopy ShmPlatform::CopyTo(uint64_t token, const Extent* local, size_t local_count,
                              const Extent* remote, size_t remote_count) {
  if (force_fallback_) return CrossCopy::kUnsupported;
  uint64_t want = 0;
  for (size_t i = 0; i < local_count; ++i) want += local[i].len;
  // Pages that are neighbours in the virtual space go as one iovec: the kernel pins and maps
  // them page by page anyway, and fewer entries are fewer checks on its side.
  auto coalesce = [](const Extent* e, size_t count, std::vector<iovec>* out) {
    out->clear();
    for (size_t i = 0; i < count; ++i) {
      if (!out->empty() &&
          reinterpret_cast<uint64_t>(out->back().iov_base) + out->back().iov_len == e[i].addr) {
        out->back().iov_len += e[i].len;
      } else {
        out->push_back({reinterpret_cast<void*>(e[i].addr), static_cast<size_t>(e[i].len)});
      }
    }
  };
  std::vector<iovec> l, r;
  coalesce(local, local_count, &l);
  coalesce(remote, remote_count, &r);
  // Params keeps a round under IOV_MAX extents on each side, so one call moves it all.
  const ssize_t n =
      process_vm_writev(static_cast<pid_t>(token), l.data(), l.size(), r.data(), r.size(), 0);
  if (n < 0) {
    return errno == EPERM || errno == ENOSYS ? CrossCopy::kUnsupported : CrossCopy::kFailed;
  }
  // A short write means a destination page went bad part way: the round is redone by staging.
  return static_cast<uint64_t>(n) == want ? CrossCopy::kDone : CrossCopy::kFailed;
}

}  // namespace nicsim::ulp::pushpull
