// SPDX-License-Identifier: Apache-2.0
// The traffic modes of `nicsim port`, each in its own file (realport/port/exchange.cc,
// realport/port/pingpong.cc, realport/port/transport_mode.cc) over the shared run loop
// (realport/port/run_loop.h), and what the modes share on the wire. realport/port/command.cc picks
// one.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "abi/rdma.h"
#include "firmware/platform.h"
#include "hw/common/core_launcher.h"
#include "realport/port/clock.h"
#include "realport/port/command.h"
#include "realport/port/hello_pacer.h"
#include "realport/port/node.h"

namespace nicsim::sim {

/** The ulp_word of a HELLO; message sequence numbers stay below it. */
inline constexpr uint32_t kHelloUlpWord = 0xFFFF'FFFF;
/** HELLO payload: the sender's count of distinct messages received, little endian. */
inline constexpr uint32_t kHelloBytes = 8;
/** The identity FillPattern and CheckPattern use for message `seq` of adapter `sender`. */
inline uint64_t MessageKey(uint16_t sender, uint32_t seq) { return (uint64_t{sender} << 32) | seq; }

/** The largest frame an RDMA data packet makes: RDMA is used on links whose MTU is this or more. */
constexpr uint64_t RdmaFrameBytes() {
  return uint64_t{fw::kHeaderRegisterBytes} + abi::kRdmaPacketBytes;
}

/** Runs the checked exchange (--mode exchange) on an opened node; fills `summary`. */
bool RunExchange(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 uint32_t max_size, nlohmann::json* summary);

/**
 * Runs a ping-pong (--mode pingpong): the side with the lower adapter id sends one message of
 * --size bytes, the other echoes it, --messages times after --warmup untimed rounds; the
 * initiator reports round-trip times. Fills `summary`; true if every round completed.
 */
bool RunPingPong(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 nlohmann::json* summary);

/** Host memory for RDMA a --mode transport node needs with messages up to `max_size`. */
uint64_t TransportHostBytes(uint32_t max_size);

/**
 * Runs the reliable transport (--mode transport) over an opened node whose config has RDMA host
 * memory: --messages checked messages each way, up to `max_size` bytes, large ones by RDMA.
 * With `adapter_core` the adapter's loop moves there once the RDMA set-up has settled.
 * `link_mtu` (the link's largest nicsim frame) caps its packets and decides whether RDMA
 * packets fit. Fills `summary`; true if all ours were acknowledged and all the peer's delivered
 * once, intact.
 */
bool RunTransport(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
                  uint32_t max_size, uint32_t link_mtu, hw::CoreLauncher* adapter_core,
                  nlohmann::json* summary);

/**
 * Runs --mode ip on an opened node whose config has RDMA host memory: an IP interface on the
 * window, exposed as TUN device ipif0 in network namespace --netns (created here, removed at
 * the end; needs root), until --timeout passes or SIGINT/SIGTERM. With `adapter_core` the
 * adapter's loop moves there once the RDMA set-up has settled. Fills `summary`; true if the
 * namespace was set up and the run had no error.
 */
bool RunIpMode(WireNode& node, const PolledPort& polled, const PortCommandOptions& options,
               uint32_t link_mtu, hw::CoreLauncher* adapter_core, nlohmann::json* summary);

}  // namespace nicsim::sim
