// SPDX-License-Identifier: Apache-2.0
// The parameters of `nicsim port` (port.*), declared beside PortCommandOptions: their defaults
// are its members'. A scenario file sets them (`nicsim port --scenario FILE`), and each is a
// flag too, --NAME for port.NAME ('-' for '_'), made from this declaration (app/port_args.cc).
#pragma once

#include <cmath>
#include <cstdint>

#include "base/params.h"
#include "realport/port/command.h"

namespace nicsim::sim {

/** port.timeout's range: a second to a day. */
inline constexpr int64_t kPortTimeoutMinPs = int64_t{1'000'000'000'000};
inline constexpr int64_t kPortTimeoutMaxPs = int64_t{86400} * 1'000'000'000'000;

inline const ParamDecls<PortCommandOptions>& PortParams() {
  using C = PortCommandOptions;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->String("port.eal", &C::eal, "nicsim port: EAL options, blank separated (a DPDK port)")
           .String("port.verbs", &C::verbs,
                   "nicsim port: DEVICE[:PORT] of an RDMA device (a verbs UD port)")
           .Enum("port.mode", &C::mode,
                 {{"exchange", "exchange"},
                  {"pingpong", "pingpong"},
                  {"transport", "transport"},
                  {"ip", "ip"}},
                 "nicsim port: checked exchange, ping-pong, the reliable transport (RDMA "
                 "included), or IP "
                 "through a TUN device in a network namespace (root)")
           .Int("port.messages", &C::messages, 1, 10000000,
                "nicsim port: messages sent each way (ping-pong: timed rounds); at most 1e7, each "
                "side keeps up to 9 bytes per message")
           .Int("port.size", &C::size, 0, 65535, "nicsim port: ping-pong payload bytes")
           .Int("port.warmup", &C::warmup, 0, 1000000000,
                "nicsim port: untimed ping-pong rounds (at most 1e9: rounds are numbered in 32 "
                "bits)")
           .Int("port.max_size", &C::max_size, -1, int64_t{1} << 30,
                "nicsim port: largest payload in bytes (-1: the largest single-packet payload)")
           .Int("port.port_id", &C::port_id, 0, 1023,
                "nicsim port: DPDK ethdev port of the adapter")
           .Int("port.adapter_lcore", &C::adapter_lcore, -1, 1023,
                "nicsim port: worker lcore of the adapter's poll loop, the host on the main lcore "
                "(-1: one thread runs both)")
           .Custom(
               "port.timeout", ParamType::kDuration,
               "nicsim port: wall-clock limit of the run, peer start-up included",
               [](const C& c) { return FormatDuration(std::llround(c.timeout_s * 1e12)); },
               [](const ParamSource& p, C& c) {
                 c.timeout_s = static_cast<double>(p.DurationPs("port.timeout")) * 1e-12;
                 return Status();
               })
           .Range(kPortTimeoutMinPs, kPortTimeoutMaxPs)
           .Int("port.gid_index", &C::gid_index, -1, 255,
                "nicsim port: verbs GID index (RoCE); -1 addresses by LID")
           .Int("port.qkey", &C::qkey, 0, 0xffffffff, "nicsim port: verbs Q_Key of both sides");
  return *decls;
}

}  // namespace nicsim::sim
