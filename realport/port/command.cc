// SPDX-License-Identifier: Apache-2.0
// `nicsim port`: checks the flags, opens the link (realport/port/link.h), builds the node and runs
// the chosen mode (realport/port/modes.h), then prints the one-line JSON summary.
#include "realport/port/command.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "abi/limits.h"
#include "base/status.h"
#include "firmware/counters.h"
#include "kernel/event_queue.h"
#include "base/text.h"
#include "sim/config/param_table.h"
#include "realport/port/clock.h"
#include "realport/port/command_params.h"
#include "realport/port/link.h"
#include "realport/port/modes.h"
#include "realport/port/node.h"
#include "sim/workloads/ip_exchange.h"

namespace nicsim::sim {
namespace {

using Clock = PortClock;

/** port.timeout's range (a second to a day), in seconds. */
constexpr double kMinTimeoutS = kPortTimeoutMinPs / 1e12;
constexpr double kMaxTimeoutS = kPortTimeoutMaxPs / 1e12;
/** The window geometry of the node, which fixes the largest single-packet payload. */
const WireNodeConfig kNodeConfig{};

/** Largest message of --mode transport, and its default --max-size. */
constexpr int64_t kMaxTransportSize = int64_t{16} << 20;
constexpr uint32_t kDefaultTransportSize = 1u << 20;

/** `value` is in the range of the scenario parameter `param` (the flag's twin). */
bool InParamRange(int64_t value, const char* param) {
  const ParamSpec* spec = FindParam(param);
  return value >= spec->min && value <= spec->max;
}

/** "1..10000000": the range of the scenario parameter `param`. */
std::string ParamRange(const char* param) {
  const ParamSpec* spec = FindParam(param);
  return fmt::format("{}..{}", spec->min, spec->max);
}

Status CheckOptions(const PortCommandOptions& o, uint32_t max_payload) {
  if (o.eal.empty() == o.verbs.empty()) {
    return Status::Error(
        "--eal or --verbs (port.eal or port.verbs): give exactly one (a DPDK port or a verbs UD "
        "QP)");
  }
  if (o.node < 0 || o.node > UINT16_MAX) return Status::Error("--node: must be 0..65535");
  if (o.peer < 0 || o.peer > UINT16_MAX) return Status::Error("--peer: must be 0..65535");
  if (o.node == o.peer) return Status::Error("--peer: must differ from --node");
  if (o.mode != "exchange" && o.mode != "pingpong" && o.mode != "transport" && o.mode != "ip") {
    return Status::Error("--mode: '" + Printable(o.mode) +
                         "' is not exchange, pingpong, transport or ip");
  }
  if (o.mode == "ip") {
    if (o.tun_mtu < 576 || o.tun_mtu > 65535) {
      return Status::Error(fmt::format("--tun-mtu: must be 576..65535, got {}", o.tun_mtu));
    }
    if (o.netns.size() > 40 || o.netns.find_first_of(" /\t\n'\"") != std::string::npos) {
      return Status::Error("--netns: at most 40 characters, no blanks, quotes or slashes");
    }
  } else if (!o.netns.empty()) {
    return Status::Error("--netns: applies to --mode ip");
  }
  // At least one message: a run of none would report success without hearing from the peer.
  // At most what each side can keep a record of (port.messages has the same range). Both
  // ranges keep every sequence number (warm-up rounds included) below kHelloUlpWord.
  if (!InParamRange(o.messages, "port.messages")) {
    return Status::Error(
        fmt::format("--messages: must be {}, got {}", ParamRange("port.messages"), o.messages));
  }
  if (o.port_id < 0 || o.port_id > UINT16_MAX) return Status::Error("--port-id: must be 0..65535");
  if (o.max_size < -1) {
    return Status::Error(
        fmt::format("--max-size: must be -1 (the default size) or 0 and more, got {}", o.max_size));
  }
  if (o.mode == "transport") {
    if (o.max_size > kMaxTransportSize) {
      return Status::Error(
          fmt::format("--max-size: at most {} in transport mode", kMaxTransportSize));
    }
  } else if (o.max_size > static_cast<int64_t>(max_payload)) {
    return Status::Error(fmt::format("--max-size: {} exceeds the largest single-packet payload {}",
                                     o.max_size, max_payload));
  }
  if (o.size < 0 || o.size > static_cast<int64_t>(max_payload)) {
    return Status::Error(fmt::format("--size: must be 0..{}", max_payload));
  }
  if (!InParamRange(o.warmup, "port.warmup")) {
    return Status::Error(
        fmt::format("--warmup: must be {}, got {}", ParamRange("port.warmup"), o.warmup));
  }
  if (o.verbs.empty() && (!o.peer_addr.empty() || !o.addr_file.empty() || o.gid_index != -1)) {
    return Status::Error("--peer-addr, --addr-file and --gid-index apply to --verbs only");
  }
  if (!o.verbs.empty() && o.peer_addr.empty()) {
    return Status::Error("--peer-addr: a verbs port needs the peer's LID:QPN, [GID]:QPN or @FILE");
  }
  // Bounded so that the deadline (now + timeout as a clock duration) cannot overflow.
  if (!(o.timeout_s >= kMinTimeoutS && o.timeout_s <= kMaxTimeoutS)) {
    return Status::Error(fmt::format("--timeout: must be {}s..{}s, got {}s", kMinTimeoutS,
                                     kMaxTimeoutS, o.timeout_s));
  }
  if (o.adapter_lcore >= 0) {
    if (!o.verbs.empty()) return Status::Error("--adapter-lcore: applies to a DPDK port (--eal)");
    if (o.adapter_lcore > INT32_MAX) return Status::Error("--adapter-lcore: not an lcore id");
  }
  return Status();
}

/** Every non-zero drop counter of the microcode, by reason. */
nlohmann::json MicrocodeDrops(const fw::Counters& fw) {
  nlohmann::json fw_drops = nlohmann::json::object();
  for (size_t r = 0; r < fw::kDropReasonNames.size(); ++r) {
    if (fw.drops[r] > 0) fw_drops[std::string(fw::kDropReasonNames[r])] = fw.drops[r];
  }
  return fw_drops;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "nicsim port: %s\n", s.message().c_str());
  return Status::kBadInputExit;
}

/**
 * The largest message of the run: --max-size, or what both the window and the wire carry in
 * one packet (a transport run's default is its own). --size and --max-size are checked
 * against what the link carries.
 */
Result<uint32_t> LargestMessage(const PortCommandOptions& options, CommandLink& link,
                                uint32_t max_payload) {
  const uint32_t wire_payload = std::min<uint32_t>(
      max_payload, link.mtu_bytes() - static_cast<uint32_t>(sizeof(abi::WireHeader)));
  const bool transport = options.mode == "transport";
  if (!transport && options.max_size > static_cast<int64_t>(wire_payload)) {
    return Status::Error(
        fmt::format("--max-size: {} exceeds the largest payload {} carries ({}, MTU {})",
                    options.max_size, link.Describe(), wire_payload, link.mtu_bytes()));
  }
  if (options.size > static_cast<int64_t>(wire_payload)) {
    return Status::Error(fmt::format("--size: {} exceeds the largest payload {} carries ({})",
                                     options.size, link.Describe(), wire_payload));
  }
  return options.max_size >= 0 ? static_cast<uint32_t>(options.max_size)
         : transport           ? kDefaultTransportSize
                               : wire_payload;
}

/** The lcore the adapter loop runs on (--adapter-lcore), checked usable; null if none. */
Result<std::unique_ptr<hw::CoreLauncher>> AdapterCore(const PortCommandOptions& options,
                                                      CommandLink& link) {
  if (options.adapter_lcore < 0) return std::unique_ptr<hw::CoreLauncher>();
  Result<std::unique_ptr<hw::CoreLauncher>> core =
      link.AdapterCore(static_cast<unsigned>(options.adapter_lcore));
  if (!core.ok()) return core.status();
  // Checked now for every mode (transport moves the adapter only after its RDMA set-up).
  if (Status s = (*core)->Usable(); !s.ok()) {
    return Status::Error("--adapter-lcore: " + s.message());
  }
  return std::move(*core);
}

/** What the run reports besides its mode's figures: the link, drops, events, the verdict. */
void DescribeRun(const PortCommandOptions& options, CommandLink& link, WireNode& node,
                 const kernel::EventQueue& events, bool adapter_core, bool ok,
                 nlohmann::json* summary) {
  if (adapter_core) {
    (*summary)["adapter_lcore"] = options.adapter_lcore;
    (*summary)["mmio_ring"] = {
        {"commands", node.mmio_ring().commands_sent()},
        {"full_waits", node.mmio_ring().ring_full_waits()},
        {"interrupts_while_ringed", node.mmio_ring().interrupts_while_ringed()}};
  }
  (*summary)["mode"] = options.mode;
  (*summary)["link"] = link.Describe();
  (*summary)["mtu"] = link.mtu_bytes();
  (*summary)["node"] = options.node;
  (*summary)["peer"] = options.peer;
  (*summary)["drops"] = {{"port", link.Drops()},
                         {"microcode", MicrocodeDrops(node.adapter().firmware_counters())}};
  (*summary)["events_run"] = events.events_run();
  (*summary)["ok"] = ok;
}

}  // namespace

int PortCommand(const PortCommandOptions& options) {
  // A PMD that talks to its peer over a socket (memif's control channel) must not be killed
  // by SIGPIPE when the peer has already closed it at the end of a run: the write fails
  // with EPIPE instead, which the PMD handles. (Suspected cause of a memif server that once
  // died by a signal after its client had finished.)
  std::signal(SIGPIPE, SIG_IGN);
  const uint32_t max_payload = abi::MaxPacketPayload(kNodeConfig.line_bytes);
  if (Status s = CheckOptions(options, max_payload); !s.ok()) return Fail(s);
  const bool ip = options.mode == "ip";
  if (ip && geteuid() != 0) {
    return Fail(Status::Error(
        "--mode ip needs root: it creates a network namespace and a TUN device (run it as root, "
        "e.g. with sudo)"));
  }
  // Start-up (a verbs peer's address file included) counts against the same limit.
  const Clock::time_point deadline = Clock::now() + TimeLimit(options);
  Result<std::unique_ptr<CommandLink>> opened =
      options.verbs.empty() ? OpenDpdkLink(options) : OpenVerbsLink(options, deadline);
  if (!opened.ok()) return Fail(opened.status());
  CommandLink& link = **opened;
  Result<uint32_t> largest = LargestMessage(options, link, max_payload);
  if (!largest.ok()) return Fail(largest.status());
  const uint32_t max_size = *largest;
  const bool transport = options.mode == "transport";
  WireNodeConfig node_config = kNodeConfig;
  if (transport) node_config.rdma_host_bytes = TransportHostBytes(max_size);
  if (ip) node_config.rdma_host_bytes = IpExchangeHostBytes();
  node_config.adapter_core = options.adapter_lcore >= 0;
  Result<std::unique_ptr<hw::CoreLauncher>> core = AdapterCore(options, link);
  if (!core.ok()) return Fail(core.status());
  std::unique_ptr<hw::CoreLauncher> adapter_core = std::move(*core);

  kernel::EventQueue events;
  nlohmann::json summary;
  bool ok = false;
  {
    WireNode node(events, static_cast<uint16_t>(options.node), link.port(), node_config);
    if (Status s = node.Open(); !s.ok()) return Fail(s);
    const PolledPort polled = link.Polled(&node.adapter());
    // Opening the window is MMIO and DMA: let it finish before anything is sent. (At the
    // deadline the run below reports the time-out.)
    SettleEvents(events, {polled}, deadline);
    // Transport and ip modes move the adapter themselves, once their RDMA set-up has settled.
    if (adapter_core && !transport && !ip) {
      if (Status s = node.StartAdapterLoop({polled}, *adapter_core); !s.ok()) {
        return Fail(Status::Error("--adapter-lcore: " + s.message()));
      }
    }
    if (options.mode == "pingpong") {
      ok = RunPingPong(node, polled, options, &summary);
    } else if (ip) {
      ok = RunIpMode(node, polled, options, link.mtu_bytes(), adapter_core.get(), &summary);
    } else if (transport) {
      ok = RunTransport(node, polled, options, max_size, link.mtu_bytes(), adapter_core.get(),
                        &summary);
    } else {
      ok = RunExchange(node, polled, options, max_size, &summary);
    }
    // The adapter's counters are read on this thread once its loop has stopped.
    node.StopAdapterLoop();
    DescribeRun(options, link, node, events, adapter_core != nullptr, ok, &summary);
  }
  std::cout << summary.dump() << std::endl;
  return ok ? 0 : 1;
}

}  // namespace nicsim::sim
