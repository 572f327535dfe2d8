// SPDX-License-Identifier: Apache-2.0
// DpdkPort: Send wraps a nicsim frame in Ethernet and transmits it; Poll receives a burst,
// checks the Ethernet layer and hands the nicsim frame inside to the adapter, freeing every mbuf.
#include "hw/dpdk/dpdk_port.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "hw/common/byte_recycler.h"
#include "hw/dpdk/eal.h"
#include "hw/dpdk/net_crc.h"

namespace nicsim::hw::dpdk {
namespace {

/** Pool names must be unique while pools live: a process-wide sequence number. */
std::atomic<uint32_t> pool_sequence{0};

Status DpdkError(uint16_t port_id, const std::string& step, int rc) {
  return Status::Error("dpdk port " + std::to_string(port_id) + ": " + step +
                       " failed: " + rte_strerror(rc < 0 ? -rc : rc));
}

void SetMac(rte_ether_addr* dst, uint16_t adapter) {
  const std::array<uint8_t, 6> mac = AdapterMac(adapter);
  std::memcpy(dst->addr_bytes, mac.data(), mac.size());
}

}  // namespace

uint64_t DpdkPortCounters::total_drops() const {
  uint64_t total = 0;
  for (uint64_t d : drops) total += d;
  return total;
}

Result<std::unique_ptr<DpdkPort>> DpdkPort::Create(uint16_t port_id, const DpdkPortConfig& config) {
  if (!EalReady()) return Status::Error("dpdk port: the EAL is not initialised (InitEal)");
  if (!rte_eth_dev_is_valid_port(port_id)) {
    return Status::Error("dpdk port " + std::to_string(port_id) + ": no such ethdev port");
  }
  if (config.mtu_bytes < sizeof(abi::WireHeader)) {
    return Status::Error("dpdk port: mtu_bytes " + std::to_string(config.mtu_bytes) +
                         " is smaller than a wire header (" +
                         std::to_string(sizeof(abi::WireHeader)) + ")");
  }
  // At least a standard mbuf: some PMDs size receive buffers on their own terms, not the MTU
  // (af_packet wants room for its whole ring frame slot, 2,016 bytes by default).
  const uint32_t data_room = std::max<uint32_t>(
      RTE_PKTMBUF_HEADROOM + kEthernetHeaderBytes + config.mtu_bytes, RTE_MBUF_DEFAULT_BUF_SIZE);
  if (data_room > UINT16_MAX) {
    return Status::Error("dpdk port: mtu_bytes " + std::to_string(config.mtu_bytes) +
                         " does not fit one mbuf");
  }
  if (config.rx_burst == 0 || config.rx_burst > kMaxBurst) {
    return Status::Error("dpdk port: rx_burst must be 1.." + std::to_string(kMaxBurst));
  }
  if (config.tx_burst == 0 || config.tx_burst > kMaxBurst) {
    return Status::Error("dpdk port: tx_burst must be 1.." + std::to_string(kMaxBurst));
  }
  if (config.tx_backlog < config.tx_burst) {
    return Status::Error("dpdk port: tx_backlog " + std::to_string(config.tx_backlog) +
                         " is smaller than tx_burst " + std::to_string(config.tx_burst));
  }
  if (config.mbufs == 0) return Status::Error("dpdk port: mbufs must be at least 1");

  const int socket = std::max(rte_eth_dev_socket_id(port_id), 0);
  char pool_name[RTE_MEMPOOL_NAMESIZE];
  std::snprintf(pool_name, sizeof(pool_name), "nicsim_p%u_%u", port_id, pool_sequence++);
  rte_mempool* pool = rte_pktmbuf_pool_create(pool_name, config.mbufs, config.mbuf_cache, 0,
                                              static_cast<uint16_t>(data_room), socket);
  if (pool == nullptr) return DpdkError(port_id, "rte_pktmbuf_pool_create", rte_errno);

  // From here on a failure frees the pool; the device may be left configured but stopped.
  auto fail = [&](const std::string& step, int rc) {
    rte_mempool_free(pool);
    return DpdkError(port_id, step, rc);
  };
  rte_eth_conf conf{};
  // The wire MTU is the nicsim frame: a real NIC then refuses larger frames itself.
  conf.rxmode.mtu = config.device_mtu_bytes != 0 ? config.device_mtu_bytes : config.mtu_bytes;
  if (int rc = rte_eth_dev_configure(port_id, 1, 1, &conf); rc != 0) {
    return fail("rte_eth_dev_configure", rc);
  }
  uint16_t rx_desc = config.rx_descriptors;
  uint16_t tx_desc = config.tx_descriptors;
  if (int rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rx_desc, &tx_desc); rc != 0) {
    return fail("rte_eth_dev_adjust_nb_rx_tx_desc", rc);
  }
  if (int rc =
          rte_eth_rx_queue_setup(port_id, 0, rx_desc, static_cast<unsigned>(socket), nullptr, pool);
      rc != 0) {
    return fail("rte_eth_rx_queue_setup", rc);
  }
  if (int rc = rte_eth_tx_queue_setup(port_id, 0, tx_desc, static_cast<unsigned>(socket), nullptr);
      rc != 0) {
    return fail("rte_eth_tx_queue_setup", rc);
  }
  if (int rc = rte_eth_dev_start(port_id); rc != 0) return fail("rte_eth_dev_start", rc);
  // Frames are addressed to adapters, not to the NIC's own MAC: accept them all. Devices
  // without the switch (the ring PMD) accept everything anyway.
  if (int rc = rte_eth_promiscuous_enable(port_id); rc != 0 && rc != -ENOTSUP) {
    rte_eth_dev_stop(port_id);
    return fail("rte_eth_promiscuous_enable", rc);
  }
  return std::unique_ptr<DpdkPort>(new DpdkPort(port_id, config, pool));
}

Result<uint32_t> DpdkPort::MaxMtu(uint16_t port_id) {
  if (!EalReady()) return Status::Error("dpdk port: the EAL is not initialised (InitEal)");
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(port_id, &info); rc != 0) {
    return DpdkError(port_id, "rte_eth_dev_info_get", rc);
  }
  // The overhead rule of ethdev's MTU check: max_rx_pktlen - max_mtu when the device gives a
  // max_mtu, else an Ethernet header and CRC.
  const uint32_t overhead = info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu
                                ? info.max_rx_pktlen - info.max_mtu
                                : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
  const uint32_t by_len = info.max_rx_pktlen > overhead ? info.max_rx_pktlen - overhead : 0;
  return std::min<uint32_t>(info.max_mtu, by_len);
}

DpdkPort::DpdkPort(uint16_t port_id, const DpdkPortConfig& config, rte_mempool* pool)
    : port_id_(port_id), config_(config), pool_(pool) {
  tx_held_.reserve(config_.tx_backlog);
}

DpdkPort::~DpdkPort() {
  // Frames still held are not sent now: a peer's rings may already have been drained.
  ReleaseHeld();
  DrainRx();
  Stop();
  // Closing releases the queues, and with them the mbufs a NIC holds in its descriptors.
  rte_eth_dev_close(port_id_);
  if (rte_mempool_full(pool_)) {
    rte_mempool_free(pool_);
  } else {
    // Some mbufs are still out, at a peer that has not received them: freeing the pool would
    // leave them dangling, so it stays allocated (RingLink drains both sides first).
    std::fprintf(stderr, "nicsim: dpdk port %u: %u mbufs still out; pool %s not freed\n", port_id_,
                 rte_mempool_in_use_count(pool_), pool_->name);
  }
}

void DpdkPort::Stop() {
  if (!started_) return;
  FlushTx();
  for (size_t i = 0; i < tx_held_.size(); ++i) CountDrop(PortDrop::kTxRingFull);
  ReleaseHeld();
  started_ = false;
  rte_eth_dev_stop(port_id_);
}

uint32_t DpdkPort::DrainRx() {
  if (!started_) return 0;  // a stopped queue cannot be read
  uint32_t drained = 0;
  std::array<rte_mbuf*, kMaxBurst> burst;
  // What the queue holds is bounded by its descriptors; a port that never goes quiet (a
  // flood, net_null) stops the drain there instead of holding it forever.
  const uint32_t limit = 2u * config_.rx_descriptors + kMaxBurst;
  while (drained < limit) {
    const uint16_t n = rte_eth_rx_burst(port_id_, 0, burst.data(), kMaxBurst);
    if (n == 0) break;
    rte_pktmbuf_free_bulk(burst.data(), n);
    drained += n;
  }
  return drained;
}

rte_mbuf* DpdkPort::TakeMbuf() {
  if (spare_count_ == 0) {
    // A burst's worth at once: one trip to the pool instead of one per frame.
    const uint16_t want = config_.tx_burst > 1 ? config_.tx_burst : 1;
    if (want > 1 && rte_pktmbuf_alloc_bulk(pool_, spares_.data(), want) == 0) {
      spare_count_ = want;
    } else {
      return rte_pktmbuf_alloc(pool_);
    }
  }
  return spares_[--spare_count_];
}

void DpdkPort::ReleaseHeld() {
  if (spare_count_ > 0) rte_pktmbuf_free_bulk(spares_.data(), spare_count_);
  if (!tx_held_.empty()) {
    rte_pktmbuf_free_bulk(tx_held_.data(), static_cast<unsigned>(tx_held_.size()));
  }
  spare_count_ = 0;
  tx_held_.clear();
}

void DpdkPort::Send(Frame frame, uint64_t /*depart_ps*/) {
  // The wire checks the CRC, so a frame whose CRC was deferred gets it now.
  if (frame.crc_deferred) {
    NetStampCrc(frame.bytes);
    frame.crc_deferred = false;
  }
  const size_t inner = frame.bytes.size();
  if (inner > config_.mtu_bytes) return CountDrop(PortDrop::kTxOverMtu);
  if (!started_) return CountDrop(PortDrop::kTxPortStopped);
  // A backlog as long as allowed: the queue has been full since; one more try, then drop.
  if (tx_held_.size() >= config_.tx_backlog && (FlushTx(), tx_held_.size() >= config_.tx_backlog)) {
    return CountDrop(PortDrop::kTxRingFull);
  }
  rte_mbuf* m = TakeMbuf();
  if (m == nullptr) return CountDrop(PortDrop::kTxNoMbuf);
  // The pool's data room holds an Ethernet header and an MTU-sized frame: this fits.
  char* data = rte_pktmbuf_append(m, static_cast<uint16_t>(kEthernetHeaderBytes + inner));
  auto* eth = reinterpret_cast<rte_ether_hdr*>(data);
  SetMac(&eth->dst_addr, frame.dest_adapter);
  SetMac(&eth->src_addr, frame.src_adapter);
  eth->ether_type = rte_cpu_to_be_16(kNicsimEtherType);
  if (inner > 0) std::memcpy(data + kEthernetHeaderBytes, frame.bytes.data(), inner);
  // The bytes are in the mbuf: their buffer serves the next frame the adapter makes.
  Recycle(std::move(frame.bytes));
  tx_held_.push_back(m);
  if (tx_held_.size() >= config_.tx_burst || !sent_since_poll_) FlushTx();
  sent_since_poll_ = true;
}

uint32_t DpdkPort::FlushTx() {
  size_t sent = 0;
  // A full queue drains as the NIC (or the peer) catches up: retry briefly, then keep the
  // rest for the next call. One tx_burst takes at most a burst array's worth.
  for (uint32_t attempt = 0; sent < tx_held_.size();) {
    const auto want = static_cast<uint16_t>(std::min<size_t>(tx_held_.size() - sent, kMaxBurst));
    const uint16_t n = rte_eth_tx_burst(port_id_, 0, tx_held_.data() + sent, want);
    for (size_t i = sent; i < sent + n; ++i) {
      ++counters_.tx_frames;
      counters_.tx_bytes += tx_held_[i]->pkt_len - kEthernetHeaderBytes;
    }
    sent += n;
    if (n == want) continue;  // taken whole: on to the next burst, if any
    if (attempt == config_.tx_retries) break;
    ++attempt;
    ++counters_.tx_retries;
    rte_pause();
  }
  tx_held_.erase(tx_held_.begin(), tx_held_.begin() + static_cast<std::ptrdiff_t>(sent));
  return static_cast<uint32_t>(sent);
}

uint32_t DpdkPort::Poll(LinkSink& sink) {
  if (!started_) return 0;
  FlushTx();
  sent_since_poll_ = false;
  std::array<rte_mbuf*, kMaxBurst> burst;
  const uint16_t n = rte_eth_rx_burst(port_id_, 0, burst.data(), config_.rx_burst);
  if (n == 0) return 0;
  rte_prefetch0(rte_pktmbuf_mtod(burst[0], void*));
  uint32_t valid = 0;
  for (uint16_t i = 0; i < n; ++i) {
    // The next frame's header is on its way while this one is checked.
    if (i + 1 < n) rte_prefetch0(rte_pktmbuf_mtod(burst[i + 1], void*));
    Frame& frame = rx_frames_[valid];
    // A recycled buffer: the copy out of the mbuf allocates nothing.
    if (frame.bytes.capacity() < burst[i]->pkt_len) frame.bytes = RecycledBytes(burst[i]->pkt_len);
    if (!Decode(burst[i], &frame)) continue;
    // The CRC instruction checks the frame as a NIC checks the FCS: one that checks reaches
    // the adapter as a frame that checks by construction; the microcode counts any other.
    frame.crc_deferred = NetFrameCrcOk(frame.bytes.data(), frame.bytes.size());
    ++counters_.rx_frames;
    counters_.rx_bytes += frame.bytes.size();
    ++valid;
  }
  // The bytes were copied out: every mbuf goes home before the adapter sees a frame.
  rte_pktmbuf_free_bulk(burst.data(), n);
  if (valid > 0) sink.ReceiveBurst(rx_frames_.data(), valid);
  return n;
}

bool DpdkPort::Decode(const rte_mbuf* m, Frame* frame) {
  // The port never enables scatter, so a frame is one segment whose data is all of it.
  if (m->nb_segs != 1 || m->next != nullptr || m->pkt_len != m->data_len) {
    CountDrop(PortDrop::kMultiSegment);
    return false;
  }
  PortDrop drop;
  if (!DecodeEthernetFrame(rte_pktmbuf_mtod(m, const uint8_t*), m->pkt_len, config_.mtu_bytes,
                           frame, &drop)) {
    CountDrop(drop);
    return false;
  }
  return true;
}

}  // namespace nicsim::hw::dpdk
