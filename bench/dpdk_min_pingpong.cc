// SPDX-License-Identifier: Apache-2.0
// The reference for bench/dpdk_pingpong: the least a DPDK program can do to ping-pong a 64-byte
// frame between two processes (rte_eth_tx_burst/rx_burst on port 0, the pong sends the mbuf back).
//
//   bench_dpdk_min_pingpong EAL-OPTIONS... -- --role ping|pong [--rounds N] [--warmup N]
//                           [--size BYTES] [--timeout-s S]
//
// The ping side times each round trip on the wall clock and prints one JSON line; a round whose
// pong has not come back in 200 ms is sent again and not timed (the pong may start later).
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/** IEEE 802 Local Experimental EtherType 2 (nicsim frames use 1). */
constexpr uint16_t kEtherType = 0x88B6;
constexpr auto kResendAfter = std::chrono::milliseconds(200);
constexpr auto kLinger = std::chrono::milliseconds(500);
constexpr uint16_t kBurst = 32;

struct Options {
  std::string role;
  uint64_t rounds = 20'000;
  uint64_t warmup = 2'000;
  uint32_t size = 64;
  double timeout_s = 60;
};

int Usage(const char* why) {
  std::fprintf(stderr,
               "bench_dpdk_min_pingpong: %s\nusage: bench_dpdk_min_pingpong EAL... -- --role "
               "ping|pong [--rounds N] [--warmup N] [--size BYTES] [--timeout-s S]\n",
               why);
  return 2;
}

/** The round number a frame carries, or -1 if it is not one of ours. */
int64_t RoundOf(const rte_mbuf* m) {
  if (m->data_len < RTE_ETHER_HDR_LEN + 4) return -1;
  const auto* eth = rte_pktmbuf_mtod(m, const rte_ether_hdr*);
  if (eth->ether_type != rte_cpu_to_be_16(kEtherType)) return -1;
  uint32_t seq = 0;
  std::memcpy(&seq, rte_pktmbuf_mtod_offset(m, const uint8_t*, RTE_ETHER_HDR_LEN), 4);
  return seq;
}

/** Sends one mbuf, retrying while the queue is full (or the link not yet connected). */
bool SendOne(rte_mbuf* m, Clock::time_point deadline) {
  while (rte_eth_tx_burst(0, 0, &m, 1) == 0) {
    if (Clock::now() >= deadline) {
      rte_pktmbuf_free(m);
      return false;
    }
  }
  return true;
}

int Ping(const Options& o, rte_mempool* pool, Clock::time_point deadline) {
  std::vector<double> rtt_ns;
  rtt_ns.reserve(o.rounds);
  uint64_t resent = 0;
  rte_mbuf* burst[kBurst];
  const uint64_t total = o.warmup + o.rounds;
  for (uint64_t round = 0; round < total; ++round) {
    bool round_resent = false;
    Clock::time_point sent_at;
    auto send = [&] {
      rte_mbuf* m = rte_pktmbuf_alloc(pool);
      if (m == nullptr) return false;
      auto* data = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(o.size)));
      std::memset(data, 0, o.size);
      auto* eth = reinterpret_cast<rte_ether_hdr*>(data);
      std::memset(&eth->dst_addr, 0xFF, RTE_ETHER_ADDR_LEN);
      eth->ether_type = rte_cpu_to_be_16(kEtherType);
      const auto seq = static_cast<uint32_t>(round);
      std::memcpy(data + RTE_ETHER_HDR_LEN, &seq, 4);
      sent_at = Clock::now();
      return SendOne(m, deadline);
    };
    if (!send()) {
      std::fprintf(stderr, "bench_dpdk_min_pingpong: cannot send round %llu\n",
                   static_cast<unsigned long long>(round));
      return 1;
    }
    bool back = false;
    while (!back) {
      const uint16_t n = rte_eth_rx_burst(0, 0, burst, kBurst);
      const Clock::time_point now = Clock::now();
      for (uint16_t i = 0; i < n; ++i) {
        if (RoundOf(burst[i]) == static_cast<int64_t>(round)) back = true;
      }
      if (n > 0) rte_pktmbuf_free_bulk(burst, n);
      if (back) {
        if (round >= o.warmup && !round_resent) {
          rtt_ns.push_back(std::chrono::duration<double, std::nano>(now - sent_at).count());
        }
        break;
      }
      if (now >= deadline) {
        std::printf("{\"ok\":false,\"role\":\"ping\",\"rounds\":%llu,\"timed_out\":true}\n",
                    static_cast<unsigned long long>(round));
        return 1;
      }
      if (now - sent_at >= kResendAfter) {
        ++resent;
        round_resent = true;
        if (!send()) return 1;
      }
    }
  }
  std::sort(rtt_ns.begin(), rtt_ns.end());
  auto at = [&](double q) {
    if (rtt_ns.empty()) return 0.0;
    return rtt_ns[std::min(rtt_ns.size() - 1, static_cast<size_t>(q * rtt_ns.size()))];
  };
  double sum = 0;
  for (double v : rtt_ns) sum += v;
  std::printf(
      "{\"ok\":true,\"role\":\"ping\",\"rounds\":%llu,\"timed_rounds\":%zu,\"resent\":%llu,"
      "\"size\":%u,\"rtt_ns\":{\"min\":%.1f,\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"max\":%.1f,"
      "\"mean\":%.1f}}\n",
      static_cast<unsigned long long>(total), rtt_ns.size(),
      static_cast<unsigned long long>(resent), o.size, at(0), at(0.5), at(0.9), at(0.99),
      rtt_ns.empty() ? 0.0 : rtt_ns.back(), rtt_ns.empty() ? 0.0 : sum / rtt_ns.size());
  return 0;
}

int Pong(const Options& o, Clock::time_point deadline) {
  const uint64_t last = o.warmup + o.rounds - 1;
  rte_mbuf* burst[kBurst];
  bool done = false;
  Clock::time_point done_at;
  uint64_t echoed = 0;
  while (true) {
    const uint16_t n = rte_eth_rx_burst(0, 0, burst, kBurst);
    for (uint16_t i = 0; i < n; ++i) {
      const int64_t round = RoundOf(burst[i]);
      if (round < 0) {
        rte_pktmbuf_free(burst[i]);
        continue;
      }
      // The frame goes back as it came: the ping side only looks at the round number.
      if (SendOne(burst[i], deadline)) ++echoed;
      if (static_cast<uint64_t>(round) == last && !done) {
        done = true;
        done_at = Clock::now();
      }
    }
    const Clock::time_point now = Clock::now();
    if (done && now - done_at >= kLinger) break;
    if (now >= deadline) {
      std::printf("{\"ok\":false,\"role\":\"pong\",\"echoed\":%llu,\"timed_out\":true}\n",
                  static_cast<unsigned long long>(echoed));
      return 1;
    }
  }
  std::printf("{\"ok\":true,\"role\":\"pong\",\"echoed\":%llu}\n",
              static_cast<unsigned long long>(echoed));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int consumed = rte_eal_init(argc, argv);
  if (consumed < 0) return Usage("rte_eal_init failed");
  Options o;
  for (int i = consumed + 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage(("missing value for " + flag).c_str());
    const char* value = argv[++i];
    if (flag == "--role") {
      o.role = value;
    } else if (flag == "--rounds") {
      o.rounds = std::strtoull(value, nullptr, 10);
    } else if (flag == "--warmup") {
      o.warmup = std::strtoull(value, nullptr, 10);
    } else if (flag == "--size") {
      o.size = static_cast<uint32_t>(std::strtoul(value, nullptr, 10));
    } else if (flag == "--timeout-s") {
      o.timeout_s = std::strtod(value, nullptr);
    } else {
      return Usage(("unknown flag " + flag).c_str());
    }
  }
  if (o.role != "ping" && o.role != "pong") return Usage("--role must be ping or pong");
  if (o.size < RTE_ETHER_HDR_LEN + 4 || o.size > 1500) return Usage("--size must be 18..1500");
  if (o.rounds == 0) return Usage("--rounds must be positive");
  if (rte_eth_dev_count_avail() == 0) return Usage("no ethdev port (give a --vdev)");

  rte_mempool* pool = rte_pktmbuf_pool_create("min_pingpong", 4095, 64, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
  if (pool == nullptr) return Usage("rte_pktmbuf_pool_create failed");
  rte_eth_conf conf{};
  if (rte_eth_dev_configure(0, 1, 1, &conf) != 0 ||
      rte_eth_rx_queue_setup(0, 0, 512, rte_socket_id(), nullptr, pool) != 0 ||
      rte_eth_tx_queue_setup(0, 0, 512, rte_socket_id(), nullptr) != 0 ||
      rte_eth_dev_start(0) != 0) {
    return Usage("cannot configure and start port 0");
  }
  rte_eth_promiscuous_enable(0);
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(o.timeout_s));
  const int rc = o.role == "ping" ? Ping(o, pool, deadline) : Pong(o, deadline);
  std::fflush(stdout);
  rte_eth_dev_stop(0);
  rte_eth_dev_close(0);
  rte_eal_cleanup();
  return rc;
}
