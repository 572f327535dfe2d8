// SPDX-License-Identifier: Apache-2.0
// The reliable transport's view of a PortNode (as sim/ulp_glue.h is of a simulated cluster):
// the node's window 0 through its Endpoint, and the task's host on the node's host memory with
// RDMA set up as Cluster does for a node (an host::AddressSpace, TCE tables attached to the adapter
// with the job reserved, an rCxt pool). Timers run on the wall clock: the peer is another
// process, so a retransmit timeout must mean real time, not the local event queue's time
// (which jumps ahead whenever this node has nothing to do).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "driver/rcxt_pool.h"
#include "driver/tce_tables.h"
#include "host/address_space.h"
#include "sim/port_node.h"
#include "ulp/port.h"

namespace nicsim::sim {

/** RDMA state of a PortNode (its config's rdma_host_bytes must be non-zero). */
class PortRdma {
 public:
  /** Sets up the address space, TCE tables (job reserved) and rCxt pool of an opened node. */
  static Result<std::unique_ptr<PortRdma>> Create(PortNode& node, uint64_t seed);

  host::AddressSpace& space() { return *space_; }
  driver::TceTables& tables() { return *tables_; }
  driver::RcxtPool& rcxts() { return *rcxts_; }
  uint32_t job_key() const { return job_key_; }

 private:
  PortRdma() = default;
  std::unique_ptr<host::AddressSpace> space_;
  std::unique_ptr<driver::TceTables> tables_;
  std::unique_ptr<driver::RcxtPool> rcxts_;
  uint32_t job_key_ = 0;
};

/** Window 0 of a PortNode as a ulp::Port. */
class PortUlpPort final : public ulp::Port {
 public:
  /** `payload_cap`: the largest payload the link under the node carries in one frame. */
  PortUlpPort(PortNode& node, PortRdma& rdma, uint32_t payload_cap = UINT32_MAX)
      : node_(node), rdma_(rdma), payload_cap_(payload_cap) {}
  ulp::Peer self() const override;
  uint32_t max_payload() const override;
  void Send(ulp::Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) override;
  void Post(abi::SlotType type, ulp::Peer dest, const abi::RdmaRequest& request,
            uint32_t ulp_word) override;
  void OnReceive(ReceiveFn fn) override;
  Result<uint32_t> AcquireRcxt() override;
  void ReleaseRcxt(uint32_t ref) override;

 private:
  PortNode& node_;
  PortRdma& rdma_;
  uint32_t payload_cap_;
};

/** The task's host on a PortNode: wall-clock time and timers, the RDMA address space. */
class PortUlpHost final : public ulp::Host {
 public:
  explicit PortUlpHost(PortRdma& rdma);
  ~PortUlpHost() override;
  uint64_t NowPs() override;
  void After(uint64_t delay_ps, std::function<void()> fn) override;
  bool Read(uint64_t vaddr, void* dst, uint64_t len) override {
    return rdma_.space().Read(vaddr, dst, len);
  }
  bool Write(uint64_t vaddr, const void* src, uint64_t len) override {
    return rdma_.space().Write(vaddr, src, len);
  }
  Result<uint64_t> Map(uint64_t bytes) override;
  const host::PageTable& pages() override { return rdma_.space(); }
  Result<driver::Registration> Register(uint64_t vaddr, uint64_t len) override {
    return rdma_.tables().Register(rdma_.job_key(), rdma_.space(), vaddr, len);
  }
  Status Deregister(const driver::Registration& reg) override {
    return rdma_.tables().Deregister(reg);
  }

  /** Runs every timer that is due by now (the run loop calls this); returns how many ran. */
  uint32_t RunDueTimers();
  /** Drops every pending timer without running it. */
  void ClearTimers();

 private:
  struct Timer {
    uint64_t due_ps;
    uint64_t order;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.due_ps != b.due_ps ? a.due_ps > b.due_ps : a.order > b.order;
    }
  };
  PortRdma& rdma_;
  std::chrono::steady_clock::time_point start_;
  uint64_t next_order_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, Later> timers_;
};

}  // namespace nicsim::sim
