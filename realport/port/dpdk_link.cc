// SPDX-License-Identifier: Apache-2.0
// `nicsim port --eal ...`: the EAL is started from the flag and the ethdev --port-id opened with
// the largest MTU both the device and a nicsim frame allow.
#include <fmt/format.h>
#include <rte_ethdev.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "abi/rdma.h"
#include "firmware/platform.h"
#include "hw/dpdk/dpdk_port.h"
#include "hw/dpdk/eal.h"
#include "hw/dpdk/lcore_launcher.h"
#include "realport/port/link.h"

namespace nicsim::sim {
namespace {

constexpr uint32_t kEthernetHeaderBytes = 14;

/** The bsize=N devarg of a net_memif vdev in the EAL options (its ring buffer size); 0: none. */
uint64_t MemifBufferBytes(const std::string& eal) {
  const size_t at = eal.find("bsize=");
  if (at == std::string::npos) return 0;
  return std::strtoull(eal.c_str() + at + 6, nullptr, 10);
}

class DpdkCommandLink final : public CommandLink {
 public:
  explicit DpdkCommandLink(std::unique_ptr<hw::dpdk::DpdkPort> port) : port_(std::move(port)) {}

  hw::FabricLink& port() override { return *port_; }
  PolledPort Polled(hw::LinkSink* sink) override { return PolledPort(port_.get(), sink); }
  uint32_t mtu_bytes() const override { return port_->config().mtu_bytes; }
  nlohmann::json Drops() const override {
    nlohmann::json drops = nlohmann::json::object();
    for (size_t r = 0; r < hw::dpdk::kPortDropNames.size(); ++r) {
      if (port_->counters().drops[r] > 0) {
        drops[std::string(hw::dpdk::kPortDropNames[r])] = port_->counters().drops[r];
      }
    }
    return drops;
  }
  std::string Describe() const override { return fmt::format("dpdk port {}", port_->port_id()); }
  Result<std::unique_ptr<hw::CoreLauncher>> AdapterCore(unsigned lcore) override {
    return std::unique_ptr<hw::CoreLauncher>(new hw::dpdk::LcoreLauncher(lcore));
  }

 private:
  std::unique_ptr<hw::dpdk::DpdkPort> port_;
};

}  // namespace

Result<std::unique_ptr<CommandLink>> OpenDpdkLink(const PortCommandOptions& options) {
  if (Status s = hw::dpdk::InitEal(options.eal); !s.ok()) return s;
  const auto port_id = static_cast<uint16_t>(options.port_id);
  if (!rte_eth_dev_is_valid_port(port_id)) {
    return Status::Error(fmt::format("--port-id: no ethdev port {} (check --eal)", port_id));
  }
  // The port's MTU is the nicsim frame, capped by what the device takes.
  Result<uint32_t> device_mtu = hw::dpdk::DpdkPort::MaxMtu(port_id);
  if (!device_mtu.ok()) return device_mtu.status();
  hw::dpdk::DpdkPortConfig config;
  // The burst path: what the adapter sends between two polls leaves in one tx_burst.
  config.tx_burst = config.rx_burst;
  // The transport's (and the IP interface's) RDMA data packets carry kRdmaPacketBytes after a
  // header of up to the microcode's header register: a larger frame than a packet-mode one.
  const bool rdma_mode = options.mode == "transport" || options.mode == "ip";
  const uint32_t wanted = rdma_mode ? std::max(hw::dpdk::kDefaultMtuBytes,
                                               fw::kHeaderRegisterBytes + abi::kRdmaPacketBytes)
                                    : hw::dpdk::kDefaultMtuBytes;
  config.mtu_bytes = std::min(wanted, *device_mtu);
  // net_memif advertises an MTU of 1500 yet carries any frame that fits one of its ring buffers
  // (its bsize devarg, 2048 bytes by default): with bsize=4096 the transport's RDMA packets fit.
  if (rdma_mode && wanted > config.mtu_bytes &&
      options.eal.find("net_memif") != std::string::npos &&
      MemifBufferBytes(options.eal) >= wanted + kEthernetHeaderBytes) {
    config.device_mtu_bytes = config.mtu_bytes;
    config.mtu_bytes = wanted;
  }
  if (config.mtu_bytes <= sizeof(abi::WireHeader)) {
    return Status::Error(
        fmt::format("--port-id: port {} takes an MTU of only {} bytes", port_id, *device_mtu));
  }
  Result<std::unique_ptr<hw::dpdk::DpdkPort>> port = hw::dpdk::DpdkPort::Create(port_id, config);
  if (!port.ok()) return port.status();
  return std::unique_ptr<CommandLink>(new DpdkCommandLink(std::move(*port)));
}

}  // namespace nicsim::sim
