// SPDX-License-Identifier: Apache-2.0
// RingLink: the rings are made first and freed last; everything between them (ethdevs,
// ports, pools) is torn down in the reverse order, with every in-flight mbuf freed first.
#include "hw/dpdk/ring_link.h"

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>

#include "hw/dpdk/eal.h"

namespace nicsim::hw::dpdk {
namespace {

/** Ring and device names must be unique in the process: a sequence number per link. */
std::atomic<uint32_t> link_sequence{0};

/** Frees every mbuf still queued on a ring. */
void FreeQueued(rte_ring* ring) {
  void* m = nullptr;
  while (rte_ring_dequeue(ring, &m) == 0) rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
}

}  // namespace

Result<std::unique_ptr<RingLink>> RingLink::Create(const DpdkPortConfig& config,
                                                   uint32_t ring_frames) {
  if (!EalReady()) return Status::Error("dpdk ring link: the EAL is not initialised (InitEal)");
  if (ring_frames == 0 || (ring_frames & (ring_frames - 1)) != 0) {
    return Status::Error("dpdk ring link: ring_frames " + std::to_string(ring_frames) +
                         " is not a power of two");
  }
  std::unique_ptr<RingLink> link(new RingLink());
  const std::string id = std::to_string(link_sequence++);
  // RING_F_EXACT_SZ: the ring holds exactly ring_frames (not one fewer).
  const unsigned flags = RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ;
  link->to_a_ =
      rte_ring_create(("nicsim_l" + id + "_to_a").c_str(), ring_frames, SOCKET_ID_ANY, flags);
  link->to_b_ =
      rte_ring_create(("nicsim_l" + id + "_to_b").c_str(), ring_frames, SOCKET_ID_ANY, flags);
  if (link->to_a_ == nullptr || link->to_b_ == nullptr) {
    return Status::Error(std::string("dpdk ring link: rte_ring_create failed: ") +
                         rte_strerror(rte_errno));
  }
  // The net_ring driver is found by the device name's prefix.
  const std::string name_a = "net_ring_nicsim" + id + "a";
  const std::string name_b = "net_ring_nicsim" + id + "b";
  const int port_a = rte_eth_from_rings(name_a.c_str(), &link->to_a_, 1, &link->to_b_, 1,
                                        static_cast<unsigned>(rte_socket_id()));
  if (port_a < 0) {
    return Status::Error("dpdk ring link: rte_eth_from_rings(" + name_a +
                         ") failed: " + rte_strerror(rte_errno));
  }
  link->name_a_ = name_a;
  const int port_b = rte_eth_from_rings(name_b.c_str(), &link->to_b_, 1, &link->to_a_, 1,
                                        static_cast<unsigned>(rte_socket_id()));
  if (port_b < 0) {
    return Status::Error("dpdk ring link: rte_eth_from_rings(" + name_b +
                         ") failed: " + rte_strerror(rte_errno));
  }
  link->name_b_ = name_b;
  Result<std::unique_ptr<DpdkPort>> a = DpdkPort::Create(static_cast<uint16_t>(port_a), config);
  if (!a.ok()) return a.status();
  link->a_ = std::move(*a);
  Result<std::unique_ptr<DpdkPort>> b = DpdkPort::Create(static_cast<uint16_t>(port_b), config);
  if (!b.ok()) return b.status();
  link->b_ = std::move(*b);
  return Result<std::unique_ptr<RingLink>>(std::move(link));
}

RingLink::~RingLink() {
  // Every frame still on the link goes home while both pools live, whether it was sent by
  // a port or enqueued on the ring directly; then each pool is full and can go.
  if (to_a_ != nullptr) FreeQueued(to_a_);
  if (to_b_ != nullptr) FreeQueued(to_b_);
  a_.reset();
  b_.reset();
  if (!name_a_.empty()) rte_vdev_uninit(name_a_.c_str());
  if (!name_b_.empty()) rte_vdev_uninit(name_b_.c_str());
  rte_ring_free(to_a_);
  rte_ring_free(to_b_);
}

}  // namespace nicsim::hw::dpdk
