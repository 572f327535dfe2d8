// SPDX-License-Identifier: Apache-2.0
// `nicsim port`: one adapter on a real port (a DPDK ethdev or a verbs UD QP) exchanging checked
// messages, or ping-pongs, with a peer adapter run by another nicsim process on the wire.
#pragma once

#include <cstdint>
#include <string>

namespace nicsim::sim {

/** The flags of `nicsim port`. */
struct PortCommandOptions {
  /** EAL options, blank separated (see hw/dpdk/eal.h): the port is a DPDK ethdev. */
  std::string eal;
  /** `DEVICE[:PORT]`: the port is a UD QP on this RDMA device (exclusive with `eal`). */
  std::string verbs;
  /** Verbs: GID index for addressing (RoCE needs one); -1 addresses by LID. */
  int64_t gid_index = -1;
  /** Verbs: Q_Key of both sides' QPs. */
  int64_t qkey = 0x6e73'0001;
  /** Verbs: the peer's `LID:QPN` or `[GID]:QPN`, or `@FILE` (the peer's --addr-file). */
  std::string peer_addr;
  /** Verbs: where to write this port's address once its QP exists (for the peer's `@FILE`). */
  std::string addr_file;
  /**
   * `exchange` (checked random-size messages both ways), `pingpong` (round-trip times) or
   * `transport` (the reliable transport over the window: checked messages up to --max-size,
   * default 1 MiB, the large ones by RDMA where the link's frames carry RDMA packets; on
   * net_memif give the vdev bsize=4096), or `ip` (an IP interface on the window as TUN device
   * ipif0 in network namespace `netns`, until the time limit or SIGINT/SIGTERM; root only).
   */
  std::string mode = "exchange";
  /** Ip mode: the network namespace to create; empty: nicsim-port-<node>. */
  std::string netns;
  /** Ip mode: the TUN device's MTU (the interface fragments what the link cannot carry). */
  int64_t tun_mtu = 65535;
  /** Ping-pong: payload bytes of each message. */
  int64_t size = 2;
  /** Ping-pong: untimed rounds before the timed ones. */
  int64_t warmup = 1000;
  /** This adapter's id, and the peer's. */
  int64_t node = -1;
  int64_t peer = -1;
  /** Messages sent each way (ping-pong: timed rounds). */
  int64_t messages = 20'000;
  /** Seeds both sides' message sizes: both processes must use the same seed. */
  int64_t seed = 1;
  /** DPDK: the ethdev port the adapter sits on. */
  int64_t port_id = 0;
  /**
   * DPDK: the worker lcore (in the EAL's -l list) the adapter's poll loop runs on, while the
   * host's process runs on the main lcore and reaches the adapter through a lock-free MMIO
   * ring; negative: one thread runs both. Every mode (transport: once its RDMA set-up is done).
   */
  int64_t adapter_lcore = -1;
  /**
   * Largest payload in bytes; negative means the largest single-packet payload the window and
   * the port's MTU allow. Both sides derive each other's sizes from it: it must match.
   */
  int64_t max_size = -1;
  /** Wall-clock limit of the whole exchange, peer start-up included (ip mode: the run's length). */
  double timeout_s = 60.0;
};

/**
 * Runs the exchange or ping-pong and prints a one-line JSON summary on stdout. Returns the
 * exit code: 0 when every message of the peer arrived exactly once and intact and the peer
 * reported all of ours (ping-pong: every round completed), 1 on a failed run (timeout,
 * errors), 2 on bad flags or a port that cannot start.
 */
int PortCommand(const PortCommandOptions& options);

}  // namespace nicsim::sim
