// SPDX-License-Identifier: Apache-2.0
#include "realport/port/rdma_task.h"

#include <vector>

#include "abi/packet.h"

namespace nicsim::sim {

Result<std::unique_ptr<RdmaTask>> RdmaTask::Start(WireNode& node, const PolledPort& polled,
                                                  const PortCommandOptions& options,
                                                  uint32_t link_mtu,
                                                  hw::CoreLauncher* adapter_core) {
  const std::vector<PolledPort> ports = {polled};
  Result<std::unique_ptr<WireNodeRdma>> rdma =
      WireNodeRdma::Create(node, static_cast<uint64_t>(options.seed) * 65537 + options.node);
  if (!rdma.ok()) return rdma.status();
  SettleEvents(node.adapter().events(), ports, PortClock::now() + TimeLimit(options));
  if (adapter_core != nullptr) {
    if (Status s = node.StartAdapterLoop(ports, *adapter_core); !s.ok()) {
      return Status::Error("--adapter-lcore: " + s.message());
    }
  }
  return std::unique_ptr<RdmaTask>(new RdmaTask(node, std::move(*rdma), link_mtu));
}

RdmaTask::RdmaTask(WireNode& node, std::unique_ptr<WireNodeRdma> rdma, uint32_t link_mtu)
    : rdma_(std::move(rdma)),
      port_(
          node.endpoint().addr(), [&node]() -> hal::Endpoint* { return &node.endpoint(); },
          [r = rdma_.get()] { return &r->rcxts(); },
          link_mtu - static_cast<uint32_t>(sizeof(abi::WireHeader))),
      host_(
          wall_, rdma_->space(), [r = rdma_.get()]() -> driver::TceTables& { return r->tables(); },
          rdma_->job_key()) {}

}  // namespace nicsim::sim
