// SPDX-License-Identifier: Apache-2.0
// Verbs port parameters: parsing of device/port and peer addresses, and validation without a
// device, so a bad value fails before any RDMA resource is touched.
#include "hw/verbs/verbs_config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "abi/packet.h"

namespace nicsim::hw::verbs {
namespace {

/** QP numbers are 24 bits; 0 (SMI) and 1 (GSI) are the special QPs, never a UD peer of ours. */
constexpr uint32_t kMaxQpn = 0xFF'FFFF;
/** LIDs from 0xC000 are multicast; 0 is unassigned and 0xFFFF the permissive LID. */
constexpr uint32_t kFirstMulticastLid = 0xC000;

/** A whole unsigned number, decimal or 0x-hex, at most `max`. */
bool ParseNumber(std::string_view text, uint64_t max, uint64_t* value) {
  if (text.empty()) return false;
  const std::string s(text);
  if (s[0] == '-' || s[0] == '+' || s[0] == ' ') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end != s.c_str() + s.size() || v > max) return false;
  *value = v;
  return true;
}

}  // namespace

Result<VerbsAddress> ParseAddress(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return Status::Error("verbs address '" + std::string(text) + "': " + why +
                         " (expected LID:QPN or [GID]:QPN)");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no ':' before the QP number");
  std::string_view host = text.substr(0, colon);
  VerbsAddress address;
  uint64_t qpn = 0;
  if (!ParseNumber(text.substr(colon + 1), kMaxQpn, &qpn)) {
    return bad("the QP number is not a number up to 0xffffff");
  }
  address.qpn = static_cast<uint32_t>(qpn);
  if (!host.empty() && host.front() == '[') {
    if (host.back() != ']') return bad("a GID needs a closing ']'");
    const std::string gid(host.substr(1, host.size() - 2));
    in6_addr bytes{};
    if (inet_pton(AF_INET6, gid.c_str(), &bytes) != 1) return bad("'" + gid + "' is not a GID");
    address.has_gid = true;
    std::copy(std::begin(bytes.s6_addr), std::end(bytes.s6_addr), address.gid.begin());
  } else {
    uint64_t lid = 0;
    if (!ParseNumber(host, 0xFFFF, &lid)) return bad("the LID is not a number up to 0xffff");
    address.lid = static_cast<uint16_t>(lid);
  }
  if (Status s = ValidateAddress(address, "verbs address '" + std::string(text) + "'"); !s.ok()) {
    return s;
  }
  return address;
}

std::string FormatAddress(const VerbsAddress& address) {
  std::string host;
  if (address.has_gid) {
    in6_addr bytes{};
    std::copy(address.gid.begin(), address.gid.end(), std::begin(bytes.s6_addr));
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(AF_INET6, &bytes, text, sizeof(text));
    host = "[" + std::string(text) + "]";
  } else {
    host = std::to_string(address.lid);
  }
  char qpn[16];
  std::snprintf(qpn, sizeof(qpn), "0x%x", address.qpn);
  return host + ":" + qpn;
}

Result<VerbsDevicePort> ParseDevicePort(std::string_view text) {
  VerbsDevicePort out;
  const size_t colon = text.rfind(':');
  out.device = std::string(text.substr(0, colon));
  if (out.device.empty()) {
    return Status::Error("verbs device '" + std::string(text) +
                         "': the device name is empty (expected DEVICE[:PORT], like mlx5_0:1)");
  }
  if (colon != std::string_view::npos) {
    uint64_t port = 0;
    if (!ParseNumber(text.substr(colon + 1), 255, &port) || port == 0) {
      return Status::Error("verbs device '" + std::string(text) +
                           "': the port is not a number 1..255 (expected DEVICE[:PORT])");
    }
    out.port_num = static_cast<uint8_t>(port);
  }
  return out;
}

Status ValidateAddress(const VerbsAddress& address, std::string_view what) {
  const std::string name(what);
  if (address.qpn < 2) {
    return Status::Error(name + ": QP number " + std::to_string(address.qpn) +
                         " is a special QP (0 and 1 are SMI and GSI)");
  }
  if (address.qpn > kMaxQpn) return Status::Error(name + ": QP number exceeds 24 bits");
  if (!address.has_gid && (address.lid == 0 || address.lid >= kFirstMulticastLid)) {
    return Status::Error(name + ": LID " + std::to_string(address.lid) +
                         " is not a unicast LID (1..0xbfff)");
  }
  return Status();
}

Status ValidateConfig(const VerbsPortConfig& c) {
  if (c.port_num == 0) return Status::Error("verbs port: port_num must be 1 or more");
  if (c.gid_index < -1 || c.gid_index > 255) {
    return Status::Error("verbs port: gid_index must be -1 (LID addressing) or 0..255");
  }
  if ((c.qkey & 0x8000'0000u) != 0) {
    return Status::Error(
        "verbs port: qkey has its high bit set (a controlled Q_Key only privileged QPs may use)");
  }
  if (c.recv_buffers == 0 || c.recv_buffers > 65536) {
    return Status::Error("verbs port: recv_buffers must be 1..65536");
  }
  if (c.send_buffers == 0 || c.send_buffers > 65536) {
    return Status::Error("verbs port: send_buffers must be 1..65536");
  }
  if (c.mtu_bytes != 0 && c.mtu_bytes < sizeof(abi::WireHeader)) {
    return Status::Error("verbs port: mtu_bytes " + std::to_string(c.mtu_bytes) +
                         " is smaller than a wire header (" +
                         std::to_string(sizeof(abi::WireHeader)) + ")");
  }
  if (MessageBytes(c.mtu_bytes) > kMaxPathMtuBytes) {
    return Status::Error("verbs port: mtu_bytes " + std::to_string(c.mtu_bytes) +
                         " plus the link header exceeds the largest path MTU (" +
                         std::to_string(kMaxPathMtuBytes) + ")");
  }
  if (c.poll_batch == 0 || c.poll_batch > kMaxPollBatch) {
    return Status::Error("verbs port: poll_batch must be 1.." + std::to_string(kMaxPollBatch));
  }
  std::set<uint16_t> adapters;
  for (const VerbsPeer& peer : c.peers) {
    const std::string what = "verbs port: peer adapter " + std::to_string(peer.adapter);
    if (!adapters.insert(peer.adapter).second) return Status::Error(what + " is listed twice");
    if (Status s = ValidateAddress(peer.address, what); !s.ok()) return s;
    if (!peer.address.has_gid && c.gid_index >= 0) {
      // A send with a GRH needs the destination GID; a LID alone cannot fill it.
      return Status::Error(what + ": addressed by LID but gid_index is set (give its GID)");
    }
    if (peer.address.has_gid && c.gid_index < 0) {
      return Status::Error(what + ": addressed by GID but gid_index is -1 (set the GID index)");
    }
  }
  return Status();
}

}  // namespace nicsim::hw::verbs
