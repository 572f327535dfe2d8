// SPDX-License-Identifier: Apache-2.0
// The reliable transport's view of a simulated cluster: a window (through its Endpoint,
// looked up afresh each time so an adapter recovery that rebuilds endpoints is survived) and
// a task's host (the node's event queue, the job's address space and TCE tables).
#pragma once

#include <cstdint>

#include "sim/cluster.h"
#include "ulp/port.h"

namespace nicsim::sim {

class SimPort final : public ulp::Port {
 public:
  SimPort(Cluster& cluster, uint32_t adapter, uint32_t window)
      : cluster_(cluster), adapter_(adapter), window_(window) {}
  ulp::Peer self() const override {
    return {static_cast<uint16_t>(adapter_), static_cast<uint16_t>(window_)};
  }
  uint32_t max_payload() const override;
  void Send(ulp::Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) override;
  void Post(abi::SlotType type, ulp::Peer dest, const abi::RdmaRequest& request,
            uint32_t ulp_word) override;
  void OnReceive(ReceiveFn fn) override;
  Result<uint32_t> AcquireRcxt() override;
  void ReleaseRcxt(uint32_t ref) override;

 private:
  Cluster& cluster_;
  uint32_t adapter_;
  uint32_t window_;
};

class SimHost final : public ulp::Host {
 public:
  SimHost(Cluster& cluster, uint32_t node) : cluster_(cluster), node_(node) {}
  uint64_t NowPs() override { return cluster_.events().now_ps(); }
  void After(uint64_t delay_ps, std::function<void()> fn) override {
    cluster_.events().After(delay_ps, std::move(fn));
  }
  bool Read(uint64_t vaddr, void* dst, uint64_t len) override {
    return cluster_.address_space(node_).Read(vaddr, dst, len);
  }
  bool Write(uint64_t vaddr, const void* src, uint64_t len) override {
    return cluster_.address_space(node_).Write(vaddr, src, len);
  }
  Result<uint64_t> Map(uint64_t bytes) override;
  const host::PageTable& pages() override { return cluster_.address_space(node_); }
  Result<driver::Registration> Register(uint64_t vaddr, uint64_t len) override {
    return cluster_.tce_tables(node_).Register(cluster_.job_key(), cluster_.address_space(node_),
                                               vaddr, len);
  }
  Status Deregister(const driver::Registration& reg) override {
    return cluster_.tce_tables(node_).Deregister(reg);
  }

 private:
  Cluster& cluster_;
  uint32_t node_;
};

}  // namespace nicsim::sim
