// SPDX-License-Identifier: Apache-2.0
// What `nicsim tun` and `nicsim port --mode ip` share: a network namespace with a TUN device
// that carries an IpInterface's address, and the two directions between the device and the
// interface (whole datagrams from the kernel to IpInterface::Send, delivered datagrams back).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "ulp/ip/ip_interface.h"

namespace nicsim::sim {

/** Runs `ip ARGS...`; true if it exits 0 (otherwise says so on stderr, prefixed by `who`). */
bool RunIp(const std::vector<std::string>& args, const char* who);

/**
 * Network namespace `name` (created here) with TUN device ipif0 (non-blocking fd, opened
 * from this process) carrying `address`/8 with `mtu`, and lo up. The destructor closes the
 * device and deletes the namespace.
 */
class TunNamespace {
 public:
  /** Errors are said on stderr, prefixed by `who`; nothing is left behind on failure. */
  static std::unique_ptr<TunNamespace> Create(const std::string& name, uint32_t address,
                                              uint32_t mtu, const char* who);
  ~TunNamespace();
  TunNamespace(const TunNamespace&) = delete;
  TunNamespace& operator=(const TunNamespace&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  /** "10.0.1.1/8". */
  const std::string& address() const { return address_; }

  /**
   * Writes a datagram the interface delivered (its header, whose total length is set here,
   * then the payload) to the device; true if the kernel took it whole.
   */
  bool Write(const ulp::ip::Header& h, const uint8_t* payload, uint32_t len);
  /**
   * Reads every packet waiting on the device and sends each through `ip`. Only whole
   * datagrams are sent (the interface fragments by itself; the kernel does not fragment
   * below the device's MTU); the others, and any Send refuses, count in `refused`. Returns
   * the packets sent.
   */
  uint64_t Drain(ulp::ip::IpInterface& ip, uint64_t* refused);

 private:
  TunNamespace(std::string name, const char* who) : name_(std::move(name)), who_(who) {}

  std::string name_;
  const char* who_;
  std::string address_;
  int fd_ = -1;
  bool created_ = false;
  std::vector<uint8_t> buf_ = std::vector<uint8_t>(65536);
  std::vector<uint8_t> out_;
};

}  // namespace nicsim::sim
