// SPDX-License-Identifier: Apache-2.0
// Shared inside `nicsim port`: the link a command runs on (DPDK ethdev or verbs UD QP, each
// opened by its own file and stubbed when its backend is not built) and the two traffic modes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "hw/common/core_launcher.h"
#include "hw/common/link.h"
#include "sim/port_command.h"
#include "sim/port_node.h"

namespace nicsim::sim {

using PortClock = std::chrono::steady_clock;

/** --timeout-s as a PortClock duration: a run's deadline is its start plus this. */
inline PortClock::duration TimeLimit(const PortCommandOptions& options) {
  return std::chrono::duration_cast<PortClock::duration>(
      std::chrono::duration<double>(options.timeout_s));
}

/** The ulp_word of a HELLO; message sequence numbers stay below it. */
inline constexpr uint32_t kHelloUlpWord = 0xFFFF'FFFF;
/** HELLO payload: the sender's count of distinct messages received, little endian. */
inline constexpr uint32_t kHelloBytes = 8;
/** Wall-clock period of HELLOs while waiting for the peer. */
inline constexpr auto kHelloInterval = std::chrono::milliseconds(1);

/** A real link opened for `nicsim port`: the adapter's fabric port and how to poll it. */
class CommandLink {
 public:
  virtual ~CommandLink() = default;
  /** The adapter's fabric port. */
  virtual hw::FabricPort& port() = 0;
  /** The port with the adapter its received frames go to, for the run loop. */
  virtual PolledPort Polled(hw::LinkSink* sink) = 0;
  /** Largest nicsim frame (WireHeader + payload) the link carries. */
  virtual uint32_t mtu_bytes() const = 0;
  /** Every non-zero port drop counter, by reason. */
  virtual nlohmann::json Drops() const = 0;
  /** What the link is, for the summary ("dpdk port 0", "verbs mlx5_0:1 ..."). */
  virtual std::string Describe() const = 0;
  /** The core --adapter-lcore names, to run the adapter's poll loop on. */
  virtual Result<std::unique_ptr<hw::CoreLauncher>> AdapterCore(unsigned lcore) = 0;
};

/**
 * Starts the EAL from --eal and opens --port-id with the largest MTU both it and a nicsim
 * frame allow. Without the DPDK backend: an error saying so.
 */
Result<std::unique_ptr<CommandLink>> OpenDpdkLink(const PortCommandOptions& options);

/**
 * Opens --verbs DEVICE[:PORT] as a UD QP, writes its address to --addr-file, resolves
 * --peer-addr (waiting for `@FILE` until `deadline`) and makes the peer's address handle.
 * Without the verbs backend: an error saying so.
 */
Result<std::unique_ptr<CommandLink>> OpenVerbsLink(const PortCommandOptions& options,
                                                   PortClock::time_point deadline);

/** Runs the checked exchange (--mode exchange) on an opened node; fills `summary`. */
bool RunExchange(PortNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 uint32_t max_size, nlohmann::json* summary);

/** Host memory for RDMA a --mode transport node needs with messages up to `max_size`. */
uint64_t TransportHostBytes(uint32_t max_size);

/**
 * Runs the reliable transport (--mode transport) over an opened node whose config has RDMA host
 * memory: --messages checked messages each way, up to `max_size` bytes, large ones by RDMA.
 * With `adapter_core` the adapter's loop moves there once the RDMA set-up has settled.
 * `link_mtu` (the link's largest nicsim frame) caps its packets and decides whether RDMA
 * packets fit. Fills `summary`; true if all ours were acknowledged and all the peer's delivered once, intact.
 */
bool RunTransport(PortNode& node, const PolledPort& polled, const PortCommandOptions& options,
                  uint32_t max_size, uint32_t link_mtu, hw::CoreLauncher* adapter_core,
                  nlohmann::json* summary);

/**
 * Runs a ping-pong (--mode pingpong): the side with the lower adapter id sends one message of
 * --size bytes, the other echoes it, --messages times after --warmup untimed rounds; the
 * initiator reports round-trip times. Fills `summary`; true if every round completed.
 */
bool RunPingPong(PortNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 nlohmann::json* summary);

}  // namespace nicsim::sim
