// SPDX-License-Identifier: Apache-2.0
// The IP interface of one task's window (reference 002's IP interface, in this design's
// terms): IPv4 datagrams in and out over hal::Port. No ARP: a window's address comes from its
// adapter id and window number (ipv4.h). Every datagram goes in packet mode through the send
// and receive FIFOs; one larger than a frame is sent as IPv4 fragments of FIFO-slot size and
// put together again here, with a reassembly timeout. A broadcast goes to every other member
// of the interface's group as such fragments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "base/life_token.h"
#include "base/status.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "ulp/ip/fragments.h"
#include "ulp/ip/ipv4.h"
#include "ulp/ip/stats.h"

namespace nicsim::ulp::ip {

/** The header word of every frame the interface sends ("IP4"), so other traffic is told apart. */
constexpr uint32_t kIpUlpWord = 0x49503400;

struct IpConfig {
  /** A reassembly not complete this long after its first fragment is dropped. */
  uint64_t reassembly_timeout_ps = 10'000'000'000;
  /** Largest frame payload to use (the window's max_payload() if smaller). */
  uint32_t frame_bytes = UINT32_MAX;
};

class IpInterface {
 public:
  /** A whole datagram: its header (no fragment fields) then its payload. */
  using DeliverFn = std::function<void(const Header& h, const uint8_t* payload, uint32_t len)>;

  /**
   * An interface on `port`'s window. `members`: the windows that run an IP interface, whom a
   * broadcast reaches (the caller's job-start exchange; the window itself is left out).
   */
  IpInterface(hal::Port& port, hal::TaskHost& host, IpConfig config,
              std::vector<hal::Peer> members);
  ~IpInterface();
  IpInterface(const IpInterface&) = delete;
  IpInterface& operator=(const IpInterface&) = delete;

  /** This window's address. */
  uint32_t address() const { return address_; }
  /** Sends `len` payload bytes to `dst` (a window's address or a broadcast address). */
  Status Send(uint32_t dst, uint8_t protocol, const uint8_t* payload, uint32_t len);
  void OnDeliver(DeliverFn fn) { deliver_ = std::move(fn); }
  const IpStats& stats() const { return stats_; }
  /** Reassemblies in progress. */
  size_t pending_reassemblies() const { return reassembler_.pending(); }

 private:
  void Receive(const abi::RecvFrameHeader& header, const uint8_t* payload);
  void ArmTimer();

  hal::Port& port_;
  hal::TaskHost& host_;
  IpConfig config_;
  std::vector<hal::Peer> members_;
  uint32_t address_ = 0;
  uint32_t frame_bytes_ = 0;
  uint16_t next_id_ = 0;
  IpStats stats_;
  Reassembler reassembler_;
  DeliverFn deliver_;
  bool timer_armed_ = false;
  LifeToken life_;
};

}  // namespace nicsim::ulp::ip
