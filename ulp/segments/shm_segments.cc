// SPDX-License-Identifier: Apache-2.0
// ShmSegments: POSIX shared-memory objects as segments. Errors from the system calls come
// back as Status values naming the object and errno's text.
#include "ulp/segments/shm_segments.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace nicsim::ulp::segments {

namespace {

Status SysError(const std::string& what, const std::string& name) {
  return Status::Error("shm segments: " + what + " " + name + ": " + std::strerror(errno));
}

/**
 * How long Attach waits for a segment whose creator has made it but not sized it yet. That
 * is a few system calls, unless the creator is descheduled on a busy machine: then every
 * attach without a wait could fail in a row (seen: four ranks all giving up on one ACK
 * segment within microseconds while its creator waited for a CPU).
 */
constexpr long kSizeWaitNs = 250'000'000;

/** The size of the object open on `fd`, waiting up to kSizeWaitNs while it is 0; < 0 on error. */
off_t SizeOnceSized(int fd) {
  long step_ns = 10'000;
  for (long waited_ns = 0;; waited_ns += step_ns, step_ns = std::min(2 * step_ns, 10'000'000L)) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return -1;
    if (st.st_size > 0 || waited_ns >= kSizeWaitNs) return st.st_size;
    const struct timespec pause = {0, step_ns};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace

ShmSegments::ShmSegments(std::string prefix) : prefix_(std::move(prefix)) {}

ShmSegments::~ShmSegments() {
  for (const Mapping& m : mapped_) munmap(m.base, m.bytes);
  if (keep_segments_) return;
  for (const std::string& name : created_) shm_unlink(name.c_str());
}

std::string ShmSegments::PrefixForThisProcess(const std::string& engine) {
  return "/nicsim-" + engine + "-" + std::to_string(static_cast<long>(getpid())) + "-";
}

Result<Mapping> ShmSegments::Create(const std::string& name, size_t bytes) {
  const std::string full = prefix_ + name;
  if (bytes == 0) return Status::Error("shm segments: segment " + full + " of 0 bytes");
  const int fd = shm_open(full.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return SysError("cannot create", full);
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    Status s = SysError("cannot size", full);
    close(fd);
    shm_unlink(full.c_str());
    return s;
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    Status s = SysError("cannot map", full);
    shm_unlink(full.c_str());
    return s;
  }
  created_.push_back(full);
  mapped_.push_back({base, bytes});
  return Mapping{base, bytes};
}

Result<Mapping> ShmSegments::Attach(const std::string& name) {
  const std::string full = prefix_ + name;
  const int fd = shm_open(full.c_str(), O_RDWR, 0600);
  if (fd < 0) return SysError("cannot open", full);
  const off_t size = SizeOnceSized(fd);
  if (size < 0) {
    Status s = SysError("cannot stat", full);
    close(fd);
    return s;
  }
  if (size == 0) {
    // Its creator opened it and has not sized it since: not there for our purposes.
    close(fd);
    return Status::Error("shm segments: " + full + " is not sized yet");
  }
  const auto bytes = static_cast<size_t>(size);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) return SysError("cannot map", full);
  mapped_.push_back({base, bytes});
  return Mapping{base, bytes};
}

Status ShmSegments::Detach(const Mapping& mapping) {
  auto it = std::find_if(mapped_.begin(), mapped_.end(),
                         [&](const Mapping& m) { return m.base == mapping.base; });
  if (it == mapped_.end()) return Status::Error("shm segments: detach of an unknown mapping");
  munmap(it->base, it->bytes);
  mapped_.erase(it);
  return Status();
}

}  // namespace nicsim::ulp::segments
