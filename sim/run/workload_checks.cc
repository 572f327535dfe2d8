// SPDX-License-Identifier: Apache-2.0
// Workload parameter checks before a run: the same limits the workloads enforce (texts kept
// alike), plus the MPI job's window and buffer limits, each message naming its parameter.
#include "sim/run/workload_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "abi/limits.h"
#include "ulp/postbox/params.h"
#include "ulp/pushpull/params.h"

namespace nicsim::sim {
namespace {

/** mpi_alltoall plans every message of every rank up front (24 bytes each)... */
constexpr uint64_t kMaxAlltoallMessages = 10'000'000;
/** ...and buffers them all at once, sends and receives: on average max_size per message. */
constexpr uint64_t kMaxAlltoallBytes = uint64_t{8} << 30;

/** dlm_blocks: bytes of all blocks together, and of one node's landing slots. */
constexpr uint64_t kMaxDlmBytes = uint64_t{4} << 30;

bool IsOneOf(const std::string& workload, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (workload == name) return true;
  }
  return false;
}

/**
 * Which of two parameters a limit on their product blames: the first if the scenario wrote it
 * (its file line or --set flag goes in front of the message), else the second if it wrote that.
 */
const char* Blame(const Scenario& scenario, const char* first, const char* second) {
  if (scenario.origins.count(first) == 0 && scenario.origins.count(second) > 0) return second;
  return first;
}

Status CheckPayload(const ParamValues& p, const char* name, uint32_t max_payload) {
  const int64_t size = p.Int(name);
  if (size > static_cast<int64_t>(max_payload)) {
    return Status::Error(fmt::format("{}: {} exceeds the largest single-packet payload {}", name,
                                     size, max_payload));
  }
  return Status();
}

/** dlm_blocks: 3 nodes or more, and the blocks and landing slots within their limits. */
Status CheckDlmBlocks(const Scenario& scenario) {
  const ParamValues& p = scenario.params;
  const auto nodes = static_cast<uint64_t>(p.Int("nodes"));
  if (nodes < 3) {
    return Status::Error(fmt::format(
        "nodes: dlm_blocks needs 3 nodes or more (requester, manager, owner), got {}", nodes));
  }
  if (p.SizeBytes("dlm.block_size") == 0) {
    return Status::Error("dlm.block_size: a block needs at least 1 byte");
  }
  const uint64_t bytes = static_cast<uint64_t>(p.Int("dlm.blocks")) * p.SizeBytes("dlm.block_size");
  if (bytes > kMaxDlmBytes) {
    return Status::Error(fmt::format(
        "{}: dlm.blocks x dlm.block_size = {} MiB of blocks, more than {} MiB",
        Blame(scenario, "dlm.blocks", "dlm.block_size"), bytes >> 20, kMaxDlmBytes >> 20));
  }
  // Each node sets aside dlm.slots landing slots for every manager.
  const uint64_t landing =
      nodes * static_cast<uint64_t>(p.Int("dlm.slots")) * p.SizeBytes("dlm.block_size");
  if (landing > kMaxDlmBytes) {
    return Status::Error(fmt::format(
        "{}: nodes x dlm.slots x dlm.block_size = {} MiB of landing slots per node, more "
        "than {} MiB",
        Blame(scenario, "dlm.slots", "dlm.block_size"), landing >> 20, kMaxDlmBytes >> 20));
  }
  return Status();
}

/** An MPI workload's ranks: enough of them, windows for them, the intranode engine's sizes. */
Status CheckMpiRanks(const ParamValues& p, const std::string& workload) {
  const auto ranks = static_cast<uint64_t>(p.Int("mpi.ranks"));
  if (ranks < 2 && workload != "mpi_collectives" && workload != "mpi_program") {
    return Status::Error(
        fmt::format("mpi.ranks: {} needs at least 2 ranks, got {}", workload, ranks));
  }
  // Rank r runs on node r % nodes, each in a window of its own on every adapter there.
  const auto nodes = static_cast<uint64_t>(p.Int("nodes"));
  const uint64_t per_node = (ranks + nodes - 1) / nodes;
  if (per_node > abi::kMaxWindows) {
    return Status::Error(fmt::format(
        "mpi.ranks: {} ranks on {} nodes need {} windows per adapter, more than the {} an "
        "adapter has: raise nodes or lower mpi.ranks",
        ranks, nodes, per_node, abi::kMaxWindows));
  }
  if (p.String("mpi.intranode") == "postbox") {
    ulp::postbox::Params postbox;
    if (Status s = ulp::postbox::PostboxParams().Read(p, &postbox); !s.ok()) return s;
    if (Status s = postbox.Validate(); !s.ok()) return s;
  }
  if (p.String("mpi.intranode") == "pushpull") {
    ulp::pushpull::Params pushpull;
    if (Status s = ulp::pushpull::PushPullParams().Read(p, &pushpull); !s.ok()) return s;
    if (Status s = pushpull.Validate(); !s.ok()) return s;
  }
  return Status();
}

/** mpi_alltoall's message buffers within their limits (a complete exchange's or a random
 *  one's). */
Status CheckAlltoallBuffers(const Scenario& scenario) {
  const ParamValues& p = scenario.params;
  const auto ranks = static_cast<uint64_t>(p.Int("mpi.ranks"));
  if (p.Probability("mpi.alltoall_large_pairs") > 0) {
    // A complete exchange plans nothing up front; a rank buffers the steps it has in flight
    // (mpi.alltoall_window, 0: all), each on average this many bytes.
    const uint64_t window = static_cast<uint64_t>(p.Int("mpi.alltoall_window"));
    const uint64_t steps = window == 0 ? ranks - 1 : std::min<uint64_t>(window, ranks - 1);
    const uint64_t mean_size =
        static_cast<uint64_t>(static_cast<double>(p.SizeBytes("mpi.alltoall_max_size")) *
                              p.Probability("mpi.alltoall_large_pairs")) +
        p.SizeBytes("mpi.alltoall_small_size");
    // Each factor is bounded (ranks, 1e6 steps, 256 MiB), so the product fits in 64 bits.
    if (ranks * steps * mean_size > kMaxAlltoallBytes) {
      return Status::Error(fmt::format(
          "{}: mpi.ranks x steps in flight (mpi.alltoall_window, 0: mpi.ranks - 1) x mean "
          "message (mpi.alltoall_large_pairs x mpi.alltoall_max_size + "
          "mpi.alltoall_small_size) = {} x {} x {} bytes = {} MiB of message buffers, more "
          "than {} MiB",
          Blame(scenario, "mpi.alltoall_window", "mpi.alltoall_max_size"), ranks, steps, mean_size,
          ranks * steps * mean_size >> 20, kMaxAlltoallBytes >> 20));
    }
  } else {
    const auto per_rank = static_cast<uint64_t>(p.Int("mpi.alltoall_messages"));
    const uint64_t messages = ranks * per_rank;
    if (messages > kMaxAlltoallMessages) {
      return Status::Error(
          fmt::format("{}: mpi.ranks x mpi.alltoall_messages = {} x {} = {} messages, more than {}",
                      Blame(scenario, "mpi.alltoall_messages", "mpi.ranks"), ranks, per_rank,
                      messages, kMaxAlltoallMessages));
    }
    const uint64_t max_size = p.SizeBytes("mpi.alltoall_max_size");
    // Both factors are bounded (1e7 messages, 256 MiB), so the product fits in 64 bits.
    if (messages * max_size > kMaxAlltoallBytes) {
      return Status::Error(fmt::format(
          "{}: mpi.ranks x mpi.alltoall_messages x mpi.alltoall_max_size = {} x {} x {} bytes "
          "= {} MiB of message buffers, more than {} MiB",
          Blame(scenario, "mpi.alltoall_max_size", "mpi.alltoall_messages"), ranks, per_rank,
          max_size, messages * max_size >> 20, kMaxAlltoallBytes >> 20));
    }
  }
  return Status();
}

}  // namespace

Status CheckWorkloadParams(const Scenario& scenario) {
  const ParamValues& p = scenario.params;
  const std::string& workload = p.String("workload");
  const auto line = static_cast<uint32_t>(p.Int("host.cache_line"));
  const uint32_t max_payload = abi::MaxPacketPayload(line);
  const uint64_t windows = static_cast<uint64_t>(p.Int("nodes")) *
                           static_cast<uint64_t>(p.Int("adapters_per_node")) *
                           static_cast<uint64_t>(p.Int("windows_per_adapter"));
  if (windows < 2 && IsOneOf(workload, {"pingpong_sweep", "stream", "random_exchange", "rdma_sweep",
                                        "close_under_load", "recovery_under_load"})) {
    return Status::Error(fmt::format(
        "nodes: {} needs two windows, the cluster has one: raise nodes, adapters_per_node or "
        "windows_per_adapter",
        workload));
  }
  if (workload == "ip_exchange" && p.Int("nodes") < 2) {
    return Status::Error(
        fmt::format("nodes: ip_exchange needs 2 nodes or more, got {}", p.Int("nodes")));
  }
  if (workload == "dlm_blocks") return CheckDlmBlocks(scenario);
  if (workload == "pingpong_sweep") {
    for (int64_t size : p.IntList("pingpong.sizes")) {
      if (size > static_cast<int64_t>(max_payload)) {
        return Status::Error(fmt::format(
            "pingpong.sizes: {} is outside [0, {}], the largest single-packet payload for "
            "host.cache_line={}",
            size, max_payload, line));
      }
    }
  } else if (workload == "stream") {
    return CheckPayload(p, "stream.size", max_payload);
  } else if (workload == "random_exchange") {
    return CheckPayload(p, "exchange.max_size", max_payload);
  } else if (workload == "close_under_load" || workload == "recovery_under_load") {
    return CheckPayload(p, "lifecycle.size", max_payload);
  } else if (workload.rfind("mpi_", 0) == 0) {
    if (Status s = CheckMpiRanks(p, workload); !s.ok()) return s;
    if (workload == "mpi_alltoall") return CheckAlltoallBuffers(scenario);
  }
  return Status();
}

}  // namespace nicsim::sim
