// SPDX-License-Identifier: Apache-2.0
// The link `nicsim port` runs on: a DPDK ethdev or a verbs UD QP, each opened by its own file
// (realport/port/dpdk_link.cc, realport/port/verbs_link.cc) and stubbed when its backend is not
// built.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "hw/common/core_launcher.h"
#include "hw/common/link.h"
#include "realport/port/clock.h"
#include "realport/port/command.h"
#include "realport/port/node.h"

namespace nicsim::sim {

/** A real link opened for `nicsim port`: the adapter's fabric port and how to poll it. */
class CommandLink {
 public:
  virtual ~CommandLink() = default;
  /** The adapter's fabric port. */
  virtual hw::FabricLink& port() = 0;
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

}  // namespace nicsim::sim
