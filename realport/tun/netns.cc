// SPDX-License-Identifier: Apache-2.0
#include "realport/tun/netns.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace nicsim::sim {
namespace {

/** Opens TUN device `name` inside namespace `ns` (the fd stays usable from here); -1 on error. */
int OpenTunIn(const std::string& ns, const char* name, const char* who) {
  const int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int target = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    std::fprintf(stderr, "%s: cannot enter namespace %s: %s\n", who, ns.c_str(),
                 std::strerror(errno));
    if (self >= 0) close(self);
    if (target >= 0) close(target);
    return -1;
  }
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    ifreq ifr{};
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
      std::fprintf(stderr, "%s: TUNSETIFF: %s\n", who, std::strerror(errno));
      close(fd);
      fd = -1;
    }
  } else {
    std::fprintf(stderr, "%s: /dev/net/tun: %s\n", who, std::strerror(errno));
  }
  const bool back = setns(self, CLONE_NEWNET) == 0;
  close(self);
  close(target);
  if (!back) {
    std::fprintf(stderr, "%s: cannot return to the first namespace\n", who);
    std::exit(1);
  }
  return fd;
}

}  // namespace

bool RunIp(const std::vector<std::string>& args, const char* who) {
  std::string cmd = "ip";
  for (const std::string& a : args) cmd += " " + a;
  cmd += " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) std::fprintf(stderr, "%s: '%s' failed\n", who, cmd.c_str());
  return rc == 0;
}

std::unique_ptr<TunNamespace> TunNamespace::Create(const std::string& name, uint32_t address,
                                                   uint32_t mtu, const char* who) {
  std::unique_ptr<TunNamespace> ns(new TunNamespace(name, who));
  if (!RunIp({"netns", "add", name}, who)) return nullptr;
  ns->created_ = true;
  ns->address_ = ulp::ip::FormatAddress(address) + "/8";
  ns->fd_ = OpenTunIn(name, "ipif0", who);
  if (ns->fd_ < 0 || !RunIp({"-n", name, "addr", "add", ns->address_, "dev", "ipif0"}, who) ||
      !RunIp({"-n", name, "link", "set", "ipif0", "mtu", std::to_string(mtu), "up"}, who) ||
      !RunIp({"-n", name, "link", "set", "lo", "up"}, who)) {
    return nullptr;  // The destructor removes what was made.
  }
  return ns;
}

TunNamespace::~TunNamespace() {
  if (fd_ >= 0) close(fd_);
  if (created_) RunIp({"netns", "del", name_}, who_);
}

bool TunNamespace::Write(const ulp::ip::Header& h, const uint8_t* payload, uint32_t len) {
  out_.resize(ulp::ip::kHeaderBytes + len);
  ulp::ip::Header out = h;
  out.total_length = static_cast<uint16_t>(out_.size());
  ulp::ip::WriteHeader(out, out_.data());
  std::memcpy(out_.data() + ulp::ip::kHeaderBytes, payload, len);
  return write(fd_, out_.data(), out_.size()) == static_cast<ssize_t>(out_.size());
}

uint64_t TunNamespace::Drain(ulp::ip::IpInterface& ip, uint64_t* refused) {
  uint64_t sent = 0;
  for (;;) {
    const ssize_t got = read(fd_, buf_.data(), buf_.size());
    if (got <= 0) break;
    ulp::ip::Header h;
    const auto len = static_cast<uint32_t>(got);
    if (ulp::ip::ReadHeader(buf_.data(), len, &h) != ulp::ip::HeaderError::kNone ||
        h.more_fragments || h.offset_bytes != 0 ||
        !ip.Send(h.dst, h.protocol, buf_.data() + ulp::ip::kHeaderBytes,
                 len - ulp::ip::kHeaderBytes)
             .ok()) {
      ++*refused;
      continue;
    }
    ++sent;
  }
  return sent;
}

}  // namespace nicsim::sim
