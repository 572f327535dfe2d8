// SPDX-License-Identifier: Apache-2.0
// The IP interface of one task's window (reference 002's IP interface, in this design's
// terms): IPv4 datagrams in and out over hal::Port. No ARP: a window's address comes from its
// adapter id and window number (ipv4.h). Small datagrams go in packet mode through the send
// and receive FIFOs; one larger than a frame is sent as IPv4 fragments of FIFO-slot size and
// put together again here, with a reassembly timeout. Unicast datagrams above a threshold are
// offered to the receiver, which reads them with one RDMA read (falling back to fragments
// when it cannot); a broadcast goes as FIFO frames or fragments sent once to the fabric's
// broadcast id, which copies them to every other member (docs/ip.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "base/life_token.h"
#include "base/status.h"
#include "hal/port.h"
#include "hal/task_host.h"
#include "ulp/ip/fragments.h"
#include "ulp/ip/ipv4.h"
#include "ulp/ip/stats.h"
#include "ulp/ip/wire.h"

namespace nicsim::ulp::ip {

/** An IP interface's settings (the ip_exchange workload sets them from ip.* parameters). */
struct IpConfig {
  /**
   * A reassembly not complete this long after its first fragment is dropped; a datagram's
   * identity is remembered this long (late copies dropped); an RDMA read not complete in this
   * time is cancelled and the datagram sent again in fragments.
   */
  uint64_t reassembly_timeout_ps = 10'000'000'000;
  /** Largest frame payload to use (the window's max_payload() if smaller). */
  uint32_t frame_bytes = UINT32_MAX;
  /** Unicast datagrams with more payload bytes than this go by RDMA (once EnableRdma). */
  uint32_t rdma_threshold = 8192;
  /** Source slots and landing slots (each a 64 KiB registered area and an rCxt). */
  uint32_t rdma_slots = 16;
};

/**
 * One window's IPv4 endpoint: sends datagrams (FIFO frames, fragments, or an RDMA offer) and
 * hands up each datagram that arrives whole and intact, once. Owns the window's receive
 * callback while it exists.
 */
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

  /**
   * Maps and registers the source and landing slots and takes their rCxts, so unicast
   * datagrams above the threshold go by RDMA. Without it every datagram uses the FIFOs.
   */
  Status EnableRdma();
  /** This window's address. */
  uint32_t address() const { return address_; }
  /** Sends `len` payload bytes to `dst` (a window's address or a broadcast address). */
  Status Send(uint32_t dst, uint8_t protocol, const uint8_t* payload, uint32_t len);
  /** Where delivered datagrams go. */
  void OnDeliver(DeliverFn fn) { deliver_ = std::move(fn); }
  const IpStats& stats() const { return stats_; }
  /** Reassemblies in progress. */
  size_t pending_reassemblies() const { return reassembler_.pending(); }

 private:
  using Offer = RdmaOffer;
  using Answer = RdmaAnswer;
  struct SourceSlot {
    bool busy = false;
    uint32_t generation = 0;
    hal::Peer to;
    uint32_t length = 0;
  };
  struct LandingSlot {
    bool busy = false;
    uint32_t tid = 0;
    hal::Peer from;
    Offer offer{};
  };

  /** Where a broadcast's frames go: the fabric's broadcast id at this window number, or each
   *  other member when some member is not reached that way. */
  std::vector<hal::Peer> BroadcastTargets() const;
  void SendPackets(hal::Peer to, const std::vector<std::vector<uint8_t>>& packets);
  /** Offers `packet` (a whole datagram) to `to` by RDMA; false if no source slot is free. */
  bool OfferByRdma(hal::Peer to, const std::vector<uint8_t>& packet);
  void Receive(const abi::RecvFrameHeader& header, const uint8_t* payload);
  /** Checks a whole IP packet from `from` and hands it to the reassembler. */
  void Accept(hal::Peer from, const uint8_t* packet, uint32_t len);
  void OnOffer(hal::Peer from, const Offer& offer);
  void OnAnswer(const Answer& answer);
  void OnCompletion(const abi::CompletionRecord& c);
  void SendAnswer(hal::Peer to, const Offer& offer, bool fallback);
  void FreeSource(uint32_t slot);
  void After(uint64_t delay_ps, std::function<void()> fn);
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
  bool rdma_ = false;
  uint64_t source_vaddr_ = 0, source_pvo_ = 0, landing_vaddr_ = 0, landing_pvo_ = 0;
  std::vector<uint32_t> source_rcxts_, landing_rcxts_;
  std::vector<SourceSlot> sources_;
  std::vector<LandingSlot> landings_;
  /** Per sender and source slot, the newest offer generation taken (older copies ignored). */
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> offers_seen_;
  /** The last tid used. */
  uint32_t next_tid_ = 0;
  LifeToken life_;
};

}  // namespace nicsim::ulp::ip
