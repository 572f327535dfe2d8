// SPDX-License-Identifier: Apache-2.0
// Parameters of a verbs port and the addresses of its peers (LID or GID plus QP number), with
// their text forms for the command line and the checks a bad value fails at construction.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "hw/verbs/verbs_frame.h"

namespace nicsim::hw::verbs {

/**
 * Default Q_Key of nicsim's UD QPs: "ns" and 1. The high bit is clear: Q_Keys with it set are
 * controlled keys that only privileged consumers may send with.
 */
inline constexpr uint32_t kDefaultQkey = 0x6e73'0001;
/** Largest poll_batch (the completion array lives on the stack). */
inline constexpr uint32_t kMaxPollBatch = 64;
/** Largest path MTU of InfiniBand and RoCE (IBV_MTU_4096). */
inline constexpr uint32_t kMaxPathMtuBytes = 4096;

/**
 * Where a UD QP is reached: a LID on an InfiniBand subnet, or a GID (RoCE, or IB across
 * subnets), and the QP number. Text form: `LID:QPN` or `[GID]:QPN` (GID as an IPv6 address),
 * numbers decimal or 0x-hex: `3:0x1a2`, `[fe80::21e:67ff:fe0c:1234]:418`.
 */
struct VerbsAddress {
  uint16_t lid = 0;
  /** Set when the address is a GID; then `lid` is ignored. */
  bool has_gid = false;
  std::array<uint8_t, 16> gid{};
  /** 24-bit QP number. */
  uint32_t qpn = 0;

  bool operator==(const VerbsAddress& o) const {
    return lid == o.lid && has_gid == o.has_gid && gid == o.gid && qpn == o.qpn;
  }
};

/** Parses `LID:QPN` or `[GID]:QPN`; fails naming what is wrong. */
Result<VerbsAddress> ParseAddress(std::string_view text);
/** The text form ParseAddress reads back. */
std::string FormatAddress(const VerbsAddress& address);

/** A peer adapter and the address of its port. */
struct VerbsPeer {
  uint16_t adapter = 0;
  VerbsAddress address;
};

/** A device and port: `DEVICE:PORT` (`mlx5_0:1`); PORT defaults to 1 when left out. */
struct VerbsDevicePort {
  std::string device;
  uint8_t port_num = 1;
};

/** Parses `DEVICE[:PORT]`; fails naming what is wrong. */
Result<VerbsDevicePort> ParseDevicePort(std::string_view text);

/** Parameters of one verbs port. */
struct VerbsPortConfig {
  /** RDMA device name (ibv_get_device_name); empty: the first device. */
  std::string device;
  /** Port of the device, from 1. */
  uint8_t port_num = 1;
  /**
   * GID table index for the port's own address and the GRH of every send; -1 addresses peers
   * by LID (InfiniBand in one subnet). RoCE ports have no LIDs and need an index.
   */
  int gid_index = -1;
  /** Q_Key of the QP and of every send; both sides must agree. High bit clear. */
  uint32_t qkey = kDefaultQkey;
  /** Receive buffers posted to the QP (the receive ring). */
  uint32_t recv_buffers = 512;
  /** Send buffers: frames in flight before a send waits for completions. */
  uint32_t send_buffers = 256;
  /** Largest nicsim frame (WireHeader + payload) sent or accepted; 0: the largest the port's
   *  active path MTU carries, at most kDefaultMtuBytes. */
  uint32_t mtu_bytes = 0;
  /** Send-completion polls before a frame finding no free send buffer is dropped. */
  uint32_t tx_retries = 64;
  /** Completions taken per poll of a completion queue. */
  uint32_t poll_batch = 32;
  /** Peers whose address handles are made at Open (more can be added later). */
  std::vector<VerbsPeer> peers;
};

/** Checks every field of `config` without a device; fails naming the first bad field. */
Status ValidateConfig(const VerbsPortConfig& config);
/** Checks one peer address; `what` names it in the message. */
Status ValidateAddress(const VerbsAddress& address, std::string_view what);

}  // namespace nicsim::hw::verbs
