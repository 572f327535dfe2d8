// SPDX-License-Identifier: Apache-2.0
// `nicsim port --verbs DEVICE[:PORT] ...`: a UD QP on an RDMA device. A QP number exists only
// once the QP does, so each side can publish its address in a file (--addr-file) that the
// other reads (--peer-addr @FILE), waiting for it until the command's time limit.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "hw/verbs/verbs_port.h"
#include "realport/port/link.h"

namespace nicsim::sim {
namespace {

class VerbsCommandLink final : public CommandLink {
 public:
  VerbsCommandLink(std::unique_ptr<hw::verbs::VerbsPort> port, std::string device)
      : port_(std::move(port)), device_(std::move(device)) {}

  hw::FabricLink& port() override { return *port_; }
  PolledPort Polled(hw::LinkSink* sink) override { return PolledPort(port_.get(), sink); }
  uint32_t mtu_bytes() const override { return port_->mtu_bytes(); }
  nlohmann::json Drops() const override {
    nlohmann::json drops = nlohmann::json::object();
    for (size_t r = 0; r < hw::verbs::kVerbsPortDropNames.size(); ++r) {
      if (port_->counters().drops[r] > 0) {
        drops[std::string(hw::verbs::kVerbsPortDropNames[r])] = port_->counters().drops[r];
      }
    }
    return drops;
  }
  std::string Describe() const override {
    return fmt::format("verbs {} qp {}", device_, hw::verbs::FormatAddress(port_->local_address()));
  }
  Result<std::unique_ptr<hw::CoreLauncher>> AdapterCore(unsigned) override {
    return Status::Error("--adapter-lcore: applies to a DPDK port (--eal)");
  }

 private:
  std::unique_ptr<hw::verbs::VerbsPort> port_;
  std::string device_;
};

/** Writes `text` to `path` whole: a temporary file renamed over it, so a reader never sees half. */
Status WriteWhole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text << "\n";
    if (!out) return Status::Error("--addr-file: cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::Error("--addr-file: cannot rename " + tmp + ": " + ec.message());
  return Status();
}

/** The peer's address: parsed from the flag, or from the file `@FILE` once it appears. */
Result<hw::verbs::VerbsAddress> ResolvePeer(const std::string& spec,
                                            PortClock::time_point deadline) {
  if (spec.empty() || spec[0] != '@') return hw::verbs::ParseAddress(spec);
  const std::string path = spec.substr(1);
  while (true) {
    std::ifstream in(path);
    std::string text;
    if (in >> text) return hw::verbs::ParseAddress(text);
    if (PortClock::now() >= deadline) {
      return Status::Error("--peer-addr: " + path + " did not appear before --timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

Result<std::unique_ptr<CommandLink>> OpenVerbsLink(const PortCommandOptions& options,
                                                   PortClock::time_point deadline) {
  Result<hw::verbs::VerbsDevicePort> device = hw::verbs::ParseDevicePort(options.verbs);
  if (!device.ok()) return Status::Error("--verbs: " + device.status().message());
  if (options.gid_index < -1 || options.gid_index > 255) {
    return Status::Error("--gid-index: must be -1 (LID addressing) or 0..255");
  }
  if (options.qkey < 0 || options.qkey > 0x7FFF'FFFF) {
    return Status::Error("--qkey: must be 0..0x7fffffff (high bit clear)");
  }
  hw::verbs::VerbsPortConfig config;
  config.device = device->device;
  config.port_num = device->port_num;
  config.gid_index = static_cast<int>(options.gid_index);
  config.qkey = static_cast<uint32_t>(options.qkey);
  Result<std::unique_ptr<hw::verbs::VerbsPort>> port = hw::verbs::VerbsPort::Open(config);
  if (!port.ok()) return port.status();
  const std::string local = hw::verbs::FormatAddress((*port)->local_address());
  std::fprintf(stderr, "nicsim port: verbs %s: this port is %s\n", options.verbs.c_str(),
               local.c_str());
  if (!options.addr_file.empty()) {
    if (Status s = WriteWhole(options.addr_file, local); !s.ok()) return s;
  }
  Result<hw::verbs::VerbsAddress> peer = ResolvePeer(options.peer_addr, deadline);
  if (!peer.ok()) return peer.status();
  hw::verbs::VerbsPeer entry;
  entry.adapter = static_cast<uint16_t>(options.peer);
  entry.address = *peer;
  if (Status s = (*port)->AddPeer(entry); !s.ok()) return s;
  return std::unique_ptr<CommandLink>(new VerbsCommandLink(std::move(*port), options.verbs));
}

}  // namespace nicsim::sim
