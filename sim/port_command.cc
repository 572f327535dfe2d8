// SPDX-License-Identifier: Apache-2.0
// `nicsim port`: an adapter on a real port (DPDK ethdev or verbs UD QP) sends seeded, patterned
// messages to a peer adapter in another process and checks the peer's byte by byte, exactly once.
//
// Start-up and pacing. The peer may start later and nothing is retransmitted, so a side sends
// no message before it has heard from the peer: every kHelloInterval each side sends a HELLO
// (ulp_word kHelloUlpWord, 8-byte payload: how many distinct peer messages it has received).
// The first HELLO heard starts the sending; the count in every later one is a credit, so a
// sender keeps at most kCreditWindow messages unreported. That keeps the peer's receive FIFO
// and the kernel's socket ring from overflowing when one process runs ahead of the other
// (without it a fast sender overruns a slow receiver, and lost messages are never resent).
#include "sim/port_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "abi/limits.h"
#include "base/rng.h"
#include "base/status.h"
#include "firmware/counters.h"
#include "kernel/event_queue.h"
#include "sim/config/param_table.h"
#include "sim/config/text.h"
#include "sim/port_command_internal.h"
#include "sim/port_node.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {
namespace {

using Clock = PortClock;

/** --timeout-s's range (port.timeout's too): a second to a day. */
constexpr double kMinTimeoutS = 1;
constexpr double kMaxTimeoutS = 86400;
/** Messages a sender may have beyond the peer's last report (half the receive FIFO). */
constexpr uint64_t kCreditWindow = 128;
/** A receiver reports its count after this many new messages, besides the periodic HELLO. */
constexpr uint64_t kCreditEvery = 32;
/**
 * After both directions are complete a side keeps running (and sending HELLOs) this long, so
 * the peer hears the final count even if one HELLO is lost, and a late duplicate is caught.
 */
constexpr auto kLinger = std::chrono::milliseconds(100);
/** Error messages kept for the summary (the count covers them all). */
constexpr size_t kErrorSamples = 10;
/** The window geometry of the node, which fixes the largest single-packet payload. */
const PortNodeConfig kNodeConfig{};

/** Largest message of --mode transport, and its default --max-size. */
constexpr int64_t kMaxTransportSize = int64_t{16} << 20;
constexpr uint32_t kDefaultTransportSize = 1u << 20;

/** The identity FillPattern and CheckPattern use for message `seq` of adapter `sender`. */
uint64_t MessageKey(uint16_t sender, uint32_t seq) { return (uint64_t{sender} << 32) | seq; }

/** The payload sizes adapter `sender` uses: both sides derive them from the shared seed. */
std::vector<uint16_t> MessageSizes(uint64_t seed, uint16_t sender, uint64_t count,
                                   uint32_t max_size) {
  Rng rng(seed, "nicsim_port/" + std::to_string(sender));
  std::vector<uint16_t> sizes(count);
  for (uint16_t& s : sizes) s = static_cast<uint16_t>(rng.Between(0, max_size));
  return sizes;
}

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
    return Status::Error("--eal or --verbs: give exactly one (a DPDK port or a verbs UD QP)");
  }
  if (o.node < 0 || o.node > UINT16_MAX) return Status::Error("--node: must be 0..65535");
  if (o.peer < 0 || o.peer > UINT16_MAX) return Status::Error("--peer: must be 0..65535");
  if (o.node == o.peer) return Status::Error("--peer: must differ from --node");
  if (o.mode != "exchange" && o.mode != "pingpong" && o.mode != "transport") {
    return Status::Error("--mode: '" + Printable(o.mode) +
                         "' is not exchange, pingpong or transport");
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
        fmt::format("--max-size: must be -1 (the default size) or 0 and more, got {}",
                    o.max_size));
  }
  if (o.mode == "transport") {
    if (o.max_size > kMaxTransportSize) {
      return Status::Error(fmt::format("--max-size: at most {} in transport mode",
                                       kMaxTransportSize));
    }
  } else if (o.max_size > static_cast<int64_t>(max_payload)) {
    return Status::Error(
        fmt::format("--max-size: {} exceeds the largest single-packet payload {}", o.max_size,
                    max_payload));
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
    return Status::Error(fmt::format("--timeout-s: must be {}..{} seconds, got {}", kMinTimeoutS,
                                     kMaxTimeoutS, o.timeout_s));
  }
  if (o.adapter_lcore >= 0) {
    if (!o.verbs.empty()) return Status::Error("--adapter-lcore: applies to a DPDK port (--eal)");
    if (o.adapter_lcore > INT32_MAX) return Status::Error("--adapter-lcore: not an lcore id");
  }
  return Status();
}

/** One side of the exchange: what it sent, what the peer reported, what it received. */
class PortExchange {
 public:
  PortExchange(PortNode& node, const PortCommandOptions& o, uint32_t max_size)
      : ep_(node.endpoint()),
        node_(static_cast<uint16_t>(o.node)),
        peer_{static_cast<uint16_t>(o.peer), 0},
        messages_(static_cast<uint64_t>(o.messages)),
        my_sizes_(MessageSizes(static_cast<uint64_t>(o.seed), node_, messages_, max_size)),
        peer_sizes_(MessageSizes(static_cast<uint64_t>(o.seed), peer_.adapter, messages_,
                                 max_size)),
        arrived_(messages_, false),
        buf_(std::max<uint32_t>(max_size, kHelloBytes)) {
    ep_.OnSendable([this] { Pump(); });
    ep_.OnReceive([this](const hal::RecvPacket& p) { Receive(p); });
  }
  ~PortExchange() {
    ep_.OnSendable(nullptr);
    ep_.OnReceive(nullptr);
  }
  PortExchange(const PortExchange&) = delete;
  PortExchange& operator=(const PortExchange&) = delete;

  /** Tells the peer we are up and how many of its messages have arrived. */
  void SendHello() {
    uint8_t payload[kHelloBytes];
    for (uint32_t i = 0; i < kHelloBytes; ++i) payload[i] = static_cast<uint8_t>(received_ >> (8 * i));
    ep_.Send(peer_, payload, kHelloBytes, kHelloUlpWord);
    reported_ = received_;
    ++hellos_sent_;
  }

  /** Both directions complete: every peer message here, the peer reports all of ours. */
  bool Done() const { return received_ == messages_ && peer_received_ >= messages_; }

  nlohmann::json Summary() const {
    nlohmann::json j;
    j["sent"] = sent_;
    j["received"] = received_;
    j["peer_reported"] = peer_received_;
    j["errors"] = error_count_;
    j["hellos_sent"] = hellos_sent_;
    j["hellos_received"] = hellos_received_;
    if (!errors_.empty()) j["error_samples"] = errors_;
    return j;
  }
  uint64_t error_count() const { return error_count_; }

 private:
  /** Sends while the peer is up, the credit allows and the send FIFO takes messages. */
  void Pump() {
    while (peer_up_ && sent_ < messages_ && sent_ < peer_received_ + kCreditWindow &&
           ep_.backlog() == 0) {
      const auto seq = static_cast<uint32_t>(sent_);
      const uint32_t size = my_sizes_[seq];
      FillPattern(buf_.data(), size, MessageKey(node_, seq));
      ep_.Send(peer_, buf_.data(), size, seq);
      ++sent_;
    }
  }

  void Receive(const hal::RecvPacket& p) {
    const uint32_t seq = p.header.ulp_word;
    if (p.header.src_adapter != peer_.adapter || p.header.src_window != peer_.window) {
      AddError(fmt::format("a packet from {}:{} (ulp_word {:#x}), not from the peer {}:{}",
                           p.header.src_adapter, p.header.src_window, seq, peer_.adapter,
                           peer_.window));
      return;
    }
    if (seq == kHelloUlpWord) {
      if (p.header.len_bytes != kHelloBytes) {
        AddError(fmt::format("a HELLO of {} bytes", p.header.len_bytes));
        return;
      }
      uint64_t count = 0;
      for (uint32_t i = 0; i < kHelloBytes; ++i) count |= uint64_t{p.payload[i]} << (8 * i);
      ++hellos_received_;
      // HELLOs may overtake each other only if the wire reorders; a count never goes back.
      peer_received_ = std::max(peer_received_, count);
      if (!peer_up_) {
        peer_up_ = true;
        SendHello();  // the peer may be waiting for us too
      }
      Pump();
      return;
    }
    if (seq >= messages_) {
      AddError(fmt::format("message {} is beyond --messages {}", seq, messages_));
      return;
    }
    if (p.header.len_bytes != peer_sizes_[seq] ||
        !CheckPattern(p.payload, p.header.len_bytes, MessageKey(peer_.adapter, seq))) {
      AddError(fmt::format("message {} arrived with wrong bytes ({} of {})", seq,
                           p.header.len_bytes, peer_sizes_[seq]));
      return;
    }
    if (arrived_[seq]) {
      AddError(fmt::format("message {} delivered twice", seq));
      return;
    }
    arrived_[seq] = true;
    ++received_;
    if (received_ - reported_ >= kCreditEvery || received_ == messages_) SendHello();
  }

  void AddError(std::string message) {
    ++error_count_;
    if (errors_.size() < kErrorSamples) errors_.push_back(std::move(message));
  }

  Endpoint& ep_;
  uint16_t node_;
  WindowAddr peer_;
  uint64_t messages_;
  std::vector<uint16_t> my_sizes_;
  std::vector<uint16_t> peer_sizes_;
  /** Which peer messages have arrived: exactly once is checked against it. */
  std::vector<bool> arrived_;
  std::vector<uint8_t> buf_;
  bool peer_up_ = false;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;
  /** The count in our last HELLO. */
  uint64_t reported_ = 0;
  /** The highest count the peer has reported: our messages it has. */
  uint64_t peer_received_ = 0;
  uint64_t hellos_sent_ = 0;
  uint64_t hellos_received_ = 0;
  uint64_t error_count_ = 0;
  std::vector<std::string> errors_;
};

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

}  // namespace

bool RunExchange(PortNode& node, const PolledPort& polled, const PortCommandOptions& options,
                 uint32_t max_size, nlohmann::json* summary) {
  const std::vector<PolledPort> ports = {polled};
  PortExchange exchange(node, options, max_size);
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + TimeLimit(options);
  Clock::time_point next_hello = start;
  std::optional<Clock::time_point> done_at;
  bool timed_out = false;
  // Run to completion: simulated events and port polls (on this thread, or on the adapter's
  // lcore while this one spins on the FIFOs), with wall-clock HELLOs. An idle turn is not a
  // stall here: the peer may still be starting.
  while (true) {
    const Clock::time_point now = Clock::now();
    if (!done_at && exchange.Done()) done_at = now;
    if (done_at && now - *done_at >= kLinger) break;
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    if (now >= next_hello) {
      exchange.SendHello();
      next_hello = now + kHelloInterval;
    }
    node.Turn(ports);
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  *summary = exchange.Summary();
  (*summary)["timed_out"] = timed_out;
  (*summary)["max_size"] = max_size;
  (*summary)["wall_s"] = wall_s;
  return !timed_out && exchange.error_count() == 0 && exchange.Done();
}

int PortCommand(const PortCommandOptions& options) {
  // A PMD that talks to its peer over a socket (memif's control channel) must not be killed
  // by SIGPIPE when the peer has already closed it at the end of a run: the write fails
  // with EPIPE instead, which the PMD handles. (Suspected cause of a memif server that once
  // died by a signal after its client had finished.)
  std::signal(SIGPIPE, SIG_IGN);
  const uint32_t max_payload = abi::MaxPacketPayload(kNodeConfig.line_bytes);
  if (Status s = CheckOptions(options, max_payload); !s.ok()) return Fail(s);
  // Start-up (a verbs peer's address file included) counts against the same limit.
  const Clock::time_point deadline = Clock::now() + TimeLimit(options);
  Result<std::unique_ptr<CommandLink>> opened =
      options.verbs.empty() ? OpenDpdkLink(options) : OpenVerbsLink(options, deadline);
  if (!opened.ok()) return Fail(opened.status());
  CommandLink& link = **opened;
  // The largest message is what both the window and the wire carry in one packet.
  const uint32_t wire_payload = std::min<uint32_t>(
      max_payload, link.mtu_bytes() - static_cast<uint32_t>(sizeof(abi::WireHeader)));
  const bool transport = options.mode == "transport";
  if (!transport && options.max_size > static_cast<int64_t>(wire_payload)) {
    return Fail(Status::Error(
        fmt::format("--max-size: {} exceeds the largest payload {} carries ({}, MTU {})",
                    options.max_size, link.Describe(), wire_payload, link.mtu_bytes())));
  }
  if (options.size > static_cast<int64_t>(wire_payload)) {
    return Fail(Status::Error(fmt::format("--size: {} exceeds the largest payload {} carries ({})",
                                          options.size, link.Describe(), wire_payload)));
  }
  const uint32_t max_size = options.max_size >= 0 ? static_cast<uint32_t>(options.max_size)
                            : transport             ? kDefaultTransportSize
                                                    : wire_payload;
  PortNodeConfig node_config = kNodeConfig;
  if (transport) node_config.rdma_host_bytes = TransportHostBytes(max_size);
  node_config.adapter_core = options.adapter_lcore >= 0;
  std::unique_ptr<hw::CoreLauncher> adapter_core;
  if (node_config.adapter_core) {
    Result<std::unique_ptr<hw::CoreLauncher>> core =
        link.AdapterCore(static_cast<unsigned>(options.adapter_lcore));
    if (!core.ok()) return Fail(core.status());
    // Checked now for every mode (transport moves the adapter only after its RDMA set-up).
    if (Status s = (*core)->Usable(); !s.ok()) {
      return Fail(Status::Error("--adapter-lcore: " + s.message()));
    }
    adapter_core = std::move(*core);
  }

  kernel::EventQueue events;
  nlohmann::json summary;
  bool ok = false;
  {
    PortNode node(events, static_cast<uint16_t>(options.node), link.port(), node_config);
    if (Status s = node.Open(); !s.ok()) return Fail(s);
    const PolledPort polled = link.Polled(&node.adapter());
    // Opening the window is MMIO and DMA: let it finish before anything is sent. (At the
    // deadline the run below reports the time-out.)
    SettleEvents(events, {polled}, deadline);
    // Transport mode moves the adapter itself, once its RDMA set-up has settled.
    if (adapter_core && !transport) {
      if (Status s = node.StartAdapterLoop({polled}, *adapter_core); !s.ok()) {
        return Fail(Status::Error("--adapter-lcore: " + s.message()));
      }
    }
    if (options.mode == "pingpong") {
      ok = RunPingPong(node, polled, options, &summary);
    } else if (transport) {
      ok = RunTransport(node, polled, options, max_size, link.mtu_bytes(), adapter_core.get(),
                        &summary);
    } else {
      ok = RunExchange(node, polled, options, max_size, &summary);
    }
    // The adapter's counters are read on this thread once its loop has stopped.
    node.StopAdapterLoop();
    if (adapter_core) {
      summary["adapter_lcore"] = options.adapter_lcore;
      summary["mmio_ring"] = {{"commands", node.mmio_ring().commands_sent()},
                              {"full_waits", node.mmio_ring().ring_full_waits()},
                              {"interrupts_while_ringed",
                               node.mmio_ring().interrupts_while_ringed()}};
    }
    summary["mode"] = options.mode;
    summary["link"] = link.Describe();
    summary["mtu"] = link.mtu_bytes();
    summary["node"] = options.node;
    summary["peer"] = options.peer;
    summary["drops"] = {{"port", link.Drops()},
                        {"microcode", MicrocodeDrops(node.adapter().firmware_counters())}};
    summary["ok"] = ok;
  }
  std::cout << summary.dump() << std::endl;
  return ok ? 0 : 1;
}

}  // namespace nicsim::sim
