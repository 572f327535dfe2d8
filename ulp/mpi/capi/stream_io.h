// SPDX-License-Identifier: Apache-2.0
// Whole reads and writes on the channel between a rank's program and the simulator (a stream
// socket), sending one message of wire.h, and handing over a file descriptor (a shared
// window's memory): both ends use these.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ulp/mpi/capi/wire.h"

namespace nicsim::mpi::wire {

/** Writes all `n` bytes; false once the other end is gone (never raises SIGPIPE). */
inline bool WriteFully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

/**
 * Waits for a channel to become readable without sleeping, for a while that follows how
 * soon the other end has been answering: an answer that comes within the spin is read
 * without the sleep and wake-up a blocking read costs both ends (most of a call's cost when
 * the simulator answers in microseconds). A spin that ends without one halves the next
 * (down to kLeastNs), one that gets it doubles it (up to kMostNs), so a rank whose calls wait
 * long (a receive whose message is far off) soon stops burning a CPU the simulator needs.
 */
class ReadSpinner {
 public:
  static constexpr uint64_t kLeastNs = 1'000;
  static constexpr uint64_t kMostNs = 20'000;

  /** Polls `fd` for up to the current budget; true once it is readable (or closed). */
  bool Wait(int fd) {
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 0) > 0) {
        budget_ns_ = budget_ns_ * 2 > kMostNs ? kMostNs : budget_ns_ * 2;
        return true;
      }
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);
      const int64_t ns = (now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec);
      if (ns >= static_cast<int64_t>(budget_ns_)) {
        budget_ns_ = budget_ns_ / 2 < kLeastNs ? kLeastNs : budget_ns_ / 2;
        return false;
      }
    }
  }

 private:
  uint64_t budget_ns_ = kMostNs;
};

/** Reads exactly `n` bytes; false at end of stream or on an error. */
inline bool ReadFully(int fd, void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

/** Sends one message: its header (with `compute_ns`), then `args`. */
inline bool SendMessage(int fd, Call call, const std::vector<uint8_t>& args,
                        uint64_t compute_ns = 0) {
  Header h;
  h.call = static_cast<uint32_t>(call);
  h.bytes = args.size();
  h.compute_ns = compute_ns;
  return WriteFully(fd, &h, sizeof(h)) && WriteFully(fd, args.data(), args.size());
}

/** Sends one message whose arguments follow window changes (wire.h's kWindowChanges); none
 *  (an empty `changes`) sends it as SendMessage does. */
inline bool SendMessageWithChanges(int fd, Call call, const std::vector<uint8_t>& changes,
                                   const std::vector<uint8_t>& args, uint64_t compute_ns = 0) {
  if (changes.empty()) return SendMessage(fd, call, args, compute_ns);
  Header h;
  h.call = static_cast<uint32_t>(call);
  h.flags = kWindowChanges;
  const uint64_t length = changes.size();
  h.bytes = sizeof(length) + changes.size() + args.size();
  h.compute_ns = compute_ns;
  return WriteFully(fd, &h, sizeof(h)) && WriteFully(fd, &length, sizeof(length)) &&
         WriteFully(fd, changes.data(), changes.size()) && WriteFully(fd, args.data(), args.size());
}

/** A one-byte message with room for one descriptor (SCM_RIGHTS); it points into itself. */
struct DescriptorMessage {
  DescriptorMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
  }
  DescriptorMessage(const DescriptorMessage&) = delete;
  DescriptorMessage& operator=(const DescriptorMessage&) = delete;
  char byte = 'd';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
};

/** Sends one byte carrying a copy of `descriptor`; false if that fails. */
inline bool SendDescriptor(int fd, int descriptor) {
  DescriptorMessage m;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &descriptor, sizeof(int));
  for (;;) {
    const ssize_t n = sendmsg(fd, &m.msg, MSG_NOSIGNAL);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

/** Receives the byte SendDescriptor sent and the descriptor it carries; -1 if none came. */
inline int ReceiveDescriptor(int fd) {
  DescriptorMessage m;
  ssize_t n = 0;
  do {
    n = recvmsg(fd, &m.msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  const cmsghdr* c = n == 1 ? CMSG_FIRSTHDR(&m.msg) : nullptr;
  if (c == nullptr || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) return -1;
  int descriptor = -1;
  std::memcpy(&descriptor, CMSG_DATA(c), sizeof(int));
  return descriptor;
}

}  // namespace nicsim::mpi::wire
