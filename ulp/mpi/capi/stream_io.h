// SPDX-License-Identifier: Apache-2.0
// Whole reads and writes on the stream socket of the channel between a rank's program and the
// simulator, sending one message of wire.h (one too long for its shared lane, shared_lanes.h),
// and handing over a file descriptor (a shared window's memory): both ends use these.
#pragma once

#include <sys/socket.h>
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

/** Writes one message: header `h`, then the window `changes` if any (wire.h's
 *  kWindowChanges, with their length), then `args`. */
inline bool SendStream(int fd, const Header& h, const std::vector<uint8_t>& changes,
                       const std::vector<uint8_t>& args) {
  const uint64_t length = changes.size();
  if (!WriteFully(fd, &h, sizeof(h))) return false;
  if (!changes.empty() && !(WriteFully(fd, &length, sizeof(length)) &&
                            WriteFully(fd, changes.data(), changes.size()))) {
    return false;
  }
  return WriteFully(fd, args.data(), args.size());
}

/** Sends one message of `args` (a call with no window changes). */
inline bool SendMessage(int fd, Call call, const std::vector<uint8_t>& args) {
  return SendStream(fd, HeaderOf(call, 0, args.size(), 0), {}, args);
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
