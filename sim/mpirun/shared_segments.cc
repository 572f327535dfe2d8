// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/shared_segments.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nicsim::sim {

SharedSegments::~SharedSegments() {
  for (auto& [key, segment] : segments_) Unmap(segment);
}

Result<SharedSegments::Segment*> SharedSegments::Take(const Key& key, size_t bytes) {
  auto it = segments_.find(key);
  if (it != segments_.end()) {
    ++it->second.holders;
    return &it->second;
  }
  Segment s;
  // A window of no bytes still maps a page: every member gets an address.
  s.bytes = std::max<size_t>(bytes, 1);
  s.fd = memfd_create("nicsim-shared-window", MFD_CLOEXEC);
  if (s.fd < 0) return Status::Error(fmt::format("memfd_create: {}", std::strerror(errno)));
  if (ftruncate(s.fd, static_cast<off_t>(s.bytes)) != 0) {
    const int error = errno;
    close(s.fd);
    return Status::Error(
        fmt::format("a shared window of {} bytes: {}", bytes, std::strerror(error)));
  }
  void* at = mmap(nullptr, s.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
  if (at == MAP_FAILED) {
    const int error = errno;
    close(s.fd);
    return Status::Error(fmt::format("mapping a shared window: {}", std::strerror(error)));
  }
  s.base = static_cast<uint8_t*>(at);
  s.holders = 1;
  return &(segments_[key] = s);
}

void SharedSegments::Release(const Key& key) {
  auto it = segments_.find(key);
  if (it == segments_.end() || --it->second.holders > 0) return;
  Unmap(it->second);
  segments_.erase(it);
}

void SharedSegments::Unmap(Segment& s) {
  if (s.base != nullptr) munmap(s.base, s.bytes);
  if (s.fd >= 0) close(s.fd);
  s.base = nullptr;
  s.fd = -1;
}

}  // namespace nicsim::sim
