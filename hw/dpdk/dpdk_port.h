// SPDX-License-Identifier: Apache-2.0
// A real-port backend for the fabric seam: one DPDK ethdev port carries nicsim frames inside
// Ethernet frames (EtherType 0x88B5); bad frames from the wire are dropped and counted.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "hw/common/link.h"
#include "hw/dpdk/ether_frame.h"

struct rte_mempool;
struct rte_mbuf;

namespace nicsim::hw::dpdk {

/** What a port counts. Frames that reach the adapter are checked further by the microcode. */
struct DpdkPortCounters {
  /** Frames handed to the adapter, and their nicsim bytes (header and payload). */
  uint64_t rx_frames = 0;
  uint64_t rx_bytes = 0;
  /** Frames put on the wire, and their nicsim bytes. */
  uint64_t tx_frames = 0;
  uint64_t tx_bytes = 0;
  /** Extra tx_burst attempts because the transmit queue was full. */
  uint64_t tx_retries = 0;
  std::array<uint64_t, static_cast<size_t>(PortDrop::kCount)> drops{};

  uint64_t drop(PortDrop reason) const { return drops[static_cast<size_t>(reason)]; }
  /** Every drop, received and sent. */
  uint64_t total_drops() const;
};

/** Parameters of one port. */
struct DpdkPortConfig {
  /** Mbufs in the port's own pool (2^n - 1 suits the ring mempool). */
  uint32_t mbufs = 2047;
  /** Per-lcore mbuf cache of the pool. */
  uint32_t mbuf_cache = 32;
  uint16_t rx_descriptors = 512;
  uint16_t tx_descriptors = 512;
  /** Largest nicsim frame (WireHeader + payload) the port sends or accepts, in bytes. */
  uint32_t mtu_bytes = kDefaultMtuBytes;
  /**
   * The MTU the ethdev is configured with; 0: mtu_bytes. A device that advertises less than it
   * carries (net_memif says 1500 but moves any frame that fits one of its ring buffers, see
   * its bsize devarg) can be given its own limit here while the port sends and accepts frames
   * up to mtu_bytes.
   */
  uint32_t device_mtu_bytes = 0;
  /**
   * tx_burst attempts after the first, each time the port transmits, while the queue stays
   * full; what is still unsent then stays held for the next attempt (see tx_backlog).
   */
  uint32_t tx_retries = 8;
  /**
   * Frames the port holds at most while its transmit queue is full (a peer that has stopped
   * draining for a moment): they leave, in order, with the next Send, Poll or FlushTx that
   * finds room. A frame sent when the port already holds this many is dropped as
   * tx_ring_full. At least tx_burst.
   */
  uint32_t tx_backlog = 512;
  /** Frames taken per rx_burst. */
  uint16_t rx_burst = 32;
  /**
   * Frames held before one tx_burst (1..64): 1 sends each frame as it comes; more coalesces
   * the transmit doorbell per burst, and what is held leaves at the latest with the next
   * Poll, FlushTx or Stop (a real port's run loop polls every turn). The first frame sent
   * after a Poll (or before the first) leaves at once all the same: a reply to what the poll
   * brought does not wait behind the adapter's work that follows it in the same turn (the
   * memif ping-pong's round trip, bench/run dpdk_pingpong, 2.8 us with it held, 2.3 us not).
   */
  uint16_t tx_burst = 1;
};

/**
 * An adapter's fabric port on a DPDK ethdev: queue 0 in each direction, its own mbuf pool.
 * The EAL must be up (InitEal). Single threaded: Send and Poll from one thread.
 *
 * On the wire a frame is the 14-byte Ethernet header (destination and source MAC from the
 * adapter ids, EtherType 0x88B5) followed by the nicsim frame: a WireHeader (with its CRC
 * computed) and the payload. `depart_ps` is ignored: the frame leaves now, and the real link
 * decides when it arrives.
 *
 * The port checks only the Ethernet layer (runt, MTU, EtherType, segmentation). A frame that
 * passes goes to the adapter as it is, with crc_deferred false, so the microcode makes the
 * nicsim checks and counts their drops (truncated_header, bad_crc, unknown_type,
 * length_mismatch, ...), as it does for frames from the simulated fabric.
 */
class DpdkPort final : public FabricLink {
 public:
  /** Configures and starts `port_id` with a fresh pool; fails naming the step. */
  static Result<std::unique_ptr<DpdkPort>> Create(uint16_t port_id,
                                                  const DpdkPortConfig& config = {});
  /**
   * The largest MTU (nicsim frame bytes) `port_id` accepts, as rte_eth_dev_configure checks
   * it: the device's max_mtu, and max_rx_pktlen less the Ethernet overhead. Some PMDs take
   * less than kDefaultMtuBytes (af_packet in DPDK 22.11: 1,500); a caller then asks for less.
   */
  static Result<uint32_t> MaxMtu(uint16_t port_id);
  /**
   * Frees the frames Send still holds (unsent) and its spare mbufs, stops the port, frees
   * whatever waits in its receive queue, then frees the pool.
   */
  ~DpdkPort() override;
  DpdkPort(const DpdkPort&) = delete;
  DpdkPort& operator=(const DpdkPort&) = delete;

  /**
   * Device-to-wire: stamps a deferred CRC and frames the bytes into an mbuf, which leaves now
   * (tx_burst 1) or with the burst it joins.
   */
  void Send(Frame frame, uint64_t depart_ps) override;
  /**
   * Wire-to-device: first sends what Send holds (FlushTx), then takes up to one burst off the
   * receive queue, checks each frame's CRC (a frame whose CRC checks goes on as one that checks
   * by construction, crc_deferred; any other is left to the microcode to count) and hands the
   * valid frames to `sink` in one ReceiveBurst; frees every mbuf in bulk. Returns the frames
   * taken (delivered or dropped).
   */
  uint32_t Poll(LinkSink& sink);
  /**
   * Transmits the frames Send holds, in order, retrying a full queue briefly; what the queue
   * still refuses stays held. Returns the frames sent.
   */
  uint32_t FlushTx();
  /** Frames waiting to be transmitted (a burst being gathered, or a backlog). */
  uint32_t held() const { return static_cast<uint32_t>(tx_held_.size()); }
  /**
   * Stops the device (no more traffic either way) after one last FlushTx; frames still held
   * then are dropped as tx_ring_full. Idempotent.
   */
  void Stop();
  /**
   * Frees the frames waiting in the receive queue without looking at them (at most what its
   * descriptors can hold, so a port that never goes quiet cannot hold it); returns them.
   */
  uint32_t DrainRx();

  uint16_t port_id() const { return port_id_; }
  const DpdkPortConfig& config() const { return config_; }
  const DpdkPortCounters& counters() const { return counters_; }
  /** The port's mbuf pool (for rte_mempool_avail_count). */
  rte_mempool* pool() const { return pool_; }

 private:
  DpdkPort(uint16_t port_id, const DpdkPortConfig& config, rte_mempool* pool);
  /** Largest rx_burst and tx_burst: the port's burst arrays are members of this size. */
  static constexpr uint16_t kMaxBurst = 64;
  /** Checks one received mbuf; fills `frame` and returns true if it goes to the adapter. */
  bool Decode(const rte_mbuf* m, Frame* frame);
  /** A fresh mbuf from the spares, refilled in bulk from the pool; null if the pool is dry. */
  rte_mbuf* TakeMbuf();
  /** Frees the spare mbufs and the held frames (uncounted): before the pool goes. */
  void ReleaseHeld();
  void CountDrop(PortDrop reason) { ++counters_.drops[static_cast<size_t>(reason)]; }

  uint16_t port_id_;
  DpdkPortConfig config_;
  rte_mempool* pool_;
  bool started_ = true;
  DpdkPortCounters counters_;
  /** Frames of the receive burst on their way to the sink (their byte buffers are reused). */
  std::array<Frame, kMaxBurst> rx_frames_;
  /** Frames Send made that wait for the next tx_burst, oldest first (at most tx_backlog). */
  std::vector<rte_mbuf*> tx_held_;
  /** Send has sent a frame since the last Poll: the next one is held (tx_burst > 1). */
  bool sent_since_poll_ = false;
  /** Mbufs allocated in bulk ahead of Send; the next one is spares_[spare_count_ - 1]. */
  std::array<rte_mbuf*, kMaxBurst> spares_{};
  uint16_t spare_count_ = 0;
};

}  // namespace nicsim::hw::dpdk
