// SPDX-License-Identifier: Apache-2.0
#include "sim/workloads/mpi_workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>

#include "base/rng.h"
#include "sim/workloads/merge_results.h"
#include "sim/distrib/merge_stats.h"
#include "sim/distrib/split_run.h"
#include "sim/observe/counters_json.h"
#include "sim/workloads/collective_values.h"
#include "ulp/mpi/collective_floor.h"

namespace nicsim::sim {
namespace {

using mpi::Base;
using mpi::Datatype;

const Datatype kByte = Datatype::Of(Base::kByte);

Status NeedRanks(MpiJob& job, uint32_t n, const char* what) {
  if (job.ranks() < n) {
    return Status::Error(
        fmt::format("{} needs at least {} ranks, the job has {}", what, n, job.ranks()));
  }
  return Status();
}

/** One message a rank sent, counted where it is sent. */
void CountSent(WorkloadResult& out) { ++out.messages_sent; }

/**
 * One message received: delivered if its `len` bytes hold the pattern of `key`, else damaged
 * (`what()` names it). Ranks run one at a time, so they share `out` without a lock.
 */
template <typename What>
void CheckReceived(WorkloadResult& out, const uint8_t* data, size_t len, uint64_t key,
                   What&& what) {
  if (CheckPattern(data, static_cast<uint32_t>(len), key)) {
    ++out.messages_delivered;
    out.bytes_delivered += len;
    return;
  }
  ++out.messages_damaged;
  out.AddError(what() + " arrived damaged");
}

int32_t AlltoallValue(int from, int to, size_t j) {
  return static_cast<int32_t>(
      ((static_cast<uint64_t>(from) << 40) ^ (static_cast<uint64_t>(to) << 20) ^ j) % 2147483647);
}

/**
 * `count` message buffers of `size` bytes for one rank's program. With `zero_copy` they are
 * slots of `largest` bytes in AllocMem areas (task memory the adapter reaches; as many slots
 * to an area as fit, since each area takes a 16 MiB page), allocated into `kept` the first
 * time and reused for every size after; else, or when the task had no room for them all,
 * plain memory held in `plain`.
 */
std::vector<uint8_t*> MessageBuffers(mpi::Mpi& m, bool zero_copy, size_t count, size_t size,
                                     size_t largest, std::vector<uint8_t*>& kept,
                                     std::vector<std::vector<uint8_t>>& plain) {
  if (zero_copy && kept.empty()) {
    const size_t per_area = std::max<size_t>(1, mpi::Mpi::kAllocMemMaxBytes / largest);
    while (kept.size() < count) {
      const size_t slots = std::min(per_area, count - kept.size());
      auto* area = static_cast<uint8_t*>(m.AllocMem(slots * largest));
      for (size_t s = 0; s < slots; ++s) kept.push_back(area ? area + s * largest : nullptr);
      if (area == nullptr) break;
    }
  }
  if (zero_copy && kept.size() == count &&
      std::find(kept.begin(), kept.end(), nullptr) == kept.end()) {
    return kept;
  }
  plain.assign(count, std::vector<uint8_t>(std::max<size_t>(size, 1)));
  std::vector<uint8_t*> buffers;
  for (std::vector<uint8_t>& p : plain) buffers.push_back(p.data());
  return buffers;
}

/** Pattern key of a ping-pong message: size, phase, index and sender all differ. */
uint64_t PingPongKey(size_t size, uint32_t phase, uint64_t index, int rank) {
  return (uint64_t{static_cast<uint32_t>(size)} << 32) ^ (uint64_t{phase} << 28) ^ (index << 1) ^
         static_cast<uint64_t>(rank);
}

/** Adds up every process's `c` (a split run's processes each hold their own ranks'). */
template <class Counters>
void SumOverProcesses(Counters& c, distrib::Collectives& world) {
  for (const auto& f : Counters::Fields()) c.*f.member = world.Sum(c.*f.member);
}

}  // namespace

/**
 * At the end of a workload, once the cluster is quiet: every message a transport accepted
 * (the MPI layer's own included) must have been delivered exactly once; a message a transport
 * gave up on is lost. A workload whose messages are collectives counts the transports'
 * messages as its own (`count_messages`).
 */
/** Sums per-rank engine counters and writes each under its stats.json name. */
template <class Senders, class Receivers, class Path>
nlohmann::json EngineTotals(const MpiJob& job, const Path* (MpiJob::*path)(uint32_t) const) {
  if (job.ranks() == 0 || (job.*path)(0) == nullptr) return nullptr;
  Senders s;
  Receivers r;
  uint64_t polls = 0, in_flight = 0;
  for (uint32_t rank = 0; rank < job.ranks(); ++rank) {
    if (!job.IsLocal(rank)) continue;  // a split run: another process counts it
    const Path& p = *(job.*path)(rank);
    s += p.sender_stats();
    r += p.receiver_stats();
    polls += p.polls();
    in_flight += p.in_flight();
  }
  nlohmann::json out = CountersJson(s);
  out.update(CountersJson(r));
  out["polls"] = polls;
  out["in_flight"] = in_flight;
  return out;
}

nlohmann::json PostboxTotals(const MpiJob& job) {
  return EngineTotals<ulp::postbox::SenderStats, ulp::postbox::ReceiverStats>(job,
                                                                              &MpiJob::postbox);
}

nlohmann::json PushPullTotals(const MpiJob& job) {
  return EngineTotals<ulp::pushpull::SenderStats, ulp::pushpull::ReceiverStats>(job,
                                                                                &MpiJob::pushpull);
}

nlohmann::json MpiLayerTotals(MpiJob& job) {
  mpi::Mpi::Stats sum;
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    if (!job.IsLocal(r)) continue;
    const mpi::Mpi::Stats& s = job.mpi(r).stats();
    sum.eager_sends += s.eager_sends;
    sum.rendezvous_sends += s.rendezvous_sends;
    sum.rendezvous_by_request += s.rendezvous_by_request;
    sum.host_copies += s.host_copies;
    sum.host_copy_bytes += s.host_copy_bytes;
    sum.zero_copy_sends += s.zero_copy_sends;
    sum.zero_copy_receives += s.zero_copy_receives;
    sum.multicast_bcasts += s.multicast_bcasts;
    sum.multicast_barriers += s.multicast_barriers;
    sum.multicast_groups += s.multicast_groups;
    sum.half_rdma_reductions += s.half_rdma_reductions;
    sum.intranode_messages += s.intranode_messages;
    sum.pushpull_pushes += s.pushpull_pushes;
    sum.pushpull_second_pushes += s.pushpull_second_pushes;
    sum.pushpull_pushed_bytes += s.pushpull_pushed_bytes;
    sum.pushpull_pulled_bytes += s.pushpull_pulled_bytes;
    sum.pushpull_early_receivers += s.pushpull_early_receivers;
    sum.pushpull_late_receivers += s.pushpull_late_receivers;
  }
  return {{"eager_sends", sum.eager_sends},
          {"rendezvous_sends", sum.rendezvous_sends},
          {"rendezvous_by_request", sum.rendezvous_by_request},
          {"host_copies", sum.host_copies},
          {"host_copy_bytes", sum.host_copy_bytes},
          {"zero_copy_sends", sum.zero_copy_sends},
          {"zero_copy_receives", sum.zero_copy_receives},
          {"multicast_bcasts", sum.multicast_bcasts},
          {"multicast_barriers", sum.multicast_barriers},
          {"multicast_groups", sum.multicast_groups},
          {"half_rdma_reductions", sum.half_rdma_reductions},
          {"intranode_messages", sum.intranode_messages},
          {"pushpull_pushes", sum.pushpull_pushes},
          {"pushpull_second_pushes", sum.pushpull_second_pushes},
          {"pushpull_pushed_bytes", sum.pushpull_pushed_bytes},
          {"pushpull_pulled_bytes", sum.pushpull_pulled_bytes},
          {"pushpull_early_receivers", sum.pushpull_early_receivers},
          {"pushpull_late_receivers", sum.pushpull_late_receivers},
          {"postbox", PostboxTotals(job)},
          {"pushpull", PushPullTotals(job)}};
}

nlohmann::json MergePartitions(MpiJob& job, WorkloadResult& out) {
  nlohmann::json mpi_totals = MpiLayerTotals(job);
  distrib::SplitRun* split = job.cluster().config().split;
  if (split == nullptr) return mpi_totals;
  distrib::Collectives& world = split->world();
  // The verdict is summed; the table and results built so far are the workload's own (what a
  // rank measured reaches every process bit for bit: FromMeasuringProcess).
  WorkloadResult merged = MergeResults(world, out);
  merged.table = std::move(out.table);
  merged.results = std::move(out.results);
  out = std::move(merged);
  std::vector<nlohmann::json> parts;
  for (const std::string& text : world.GatherToRoot(mpi_totals.dump())) {
    parts.push_back(nlohmann::json::parse(text));
  }
  return world.rank() == 0 ? distrib::SumCounters(parts) : mpi_totals;
}

void MergeBytesAndTime(MpiJob& job, uint64_t* bytes, double* seconds) {
  distrib::SplitRun* split = job.cluster().config().split;
  if (split == nullptr) return;
  // Each process counted its own ranks' bytes; the time is the one rank 0's process measured.
  *bytes = split->world().Sum(*bytes);
  *seconds = FromMeasuringProcess(job, *seconds);
}

double FromMeasuringProcess(MpiJob& job, double value) {
  distrib::SplitRun* split = job.cluster().config().split;
  if (split == nullptr) return value;
  // The others hold 0: the sum of the bits is exactly the measuring process's double.
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  bits = split->world().Sum(bits);
  std::memcpy(&value, &bits, sizeof(bits));
  return value;
}

nlohmann::json SettleTransports(MpiJob& job, WorkloadResult& out, bool count_messages) {
  // The events left, in the job's windows (split or not), up to run.time_limit.
  if (Result<uint64_t> ran = RunWindowsToEnd(job.cluster()); !ran.ok() && !out.stalled) {
    out.Stall(ran.status());
  }
  // Each process sums its own ranks, then every process the whole job's.
  distrib::Collectives& world = job.cluster().windows().world();
  auto everywhere = [&world](uint64_t v) { return world.Sum(v); };
  ulp::TransportStats sum;
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    if (job.IsLocal(r)) sum += job.transport(r).stats();
  }
  SumOverProcesses(sum, world);
  uint64_t sent = sum.messages_sent, delivered = sum.messages_delivered;
  const uint64_t failed = sum.messages_failed;
  // Messages between ranks of one node through shared memory (mpi.intranode=postbox or
  // pushpull): each path must deliver every message it accepted, once.
  uint64_t local_sent = 0, local_delivered = 0;
  auto check_local = [&](const char* paths, uint64_t accepted, uint64_t got) {
    if (!out.stalled && accepted != got) {
      out.AddError(fmt::format("the {} paths delivered {} of the {} messages they accepted", paths,
                               got, accepted));
    }
    local_sent += accepted;
    local_delivered += got;
  };
  uint64_t accepted = 0, got = 0;
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    const mpi::PostboxPath* p = job.postbox(r);
    if (p != nullptr && job.IsLocal(r)) {
      accepted += p->sender_stats().messages_accepted;
      got += p->receiver_stats().messages_delivered;
    }
  }
  check_local("postbox", everywhere(accepted), everywhere(got));
  accepted = got = 0;
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    const mpi::PushPullPath* p = job.pushpull(r);
    if (p != nullptr && job.IsLocal(r)) {
      accepted += p->sender_stats().messages_accepted;
      got += p->delivered();
    }
  }
  check_local("push-pull", everywhere(accepted), everywhere(got));
  sent += local_sent;
  delivered += local_delivered;
  if (count_messages) {
    out.messages_sent = sent;
    out.messages_delivered = delivered;
    out.messages_lost = failed;
  } else {
    // A message is lost when its receiver never checked it: the transport gave up on it, or
    // the job ended before the receiver got it.
    out.messages_lost = out.messages_sent -
                        std::min(out.messages_sent, out.messages_delivered + out.messages_damaged);
  }
  if (!out.stalled && sum.messages_sent != sum.messages_delivered) {
    out.AddError(fmt::format("the transports delivered {} of the {} messages they accepted",
                             sum.messages_delivered, sum.messages_sent));
  }
  ulp::RegistrationCache::Stats regs;
  for (uint32_t r = 0; r < job.ranks(); ++r) {
    if (job.IsLocal(r)) regs += job.registrations(r).stats();
  }
  SumOverProcesses(regs, world);
  nlohmann::json totals = CountersJson(sum);
  totals["registrations"] = CountersJson(regs);
  return totals;
}

Result<WorkloadResult> RunMpiPingPong(MpiJob& job, const MpiPingPongConfig& config) {
  if (Status s = NeedRanks(job, 2 * config.pairs, "mpi_pingpong"); !s.ok()) return s;
  const int pair_ranks = static_cast<int>(2 * config.pairs);
  WorkloadResult out;
  out.table = fmt::format("{:>10}  {:>12}  {:>14}  {:>14}\n", "size_B", "latency_us", "oneway_MB/s",
                          "bidir_MB/s");
  nlohmann::json points = nlohmann::json::array();
  const size_t largest = static_cast<size_t>(
      std::max<int64_t>(1, *std::max_element(config.sizes.begin(), config.sizes.end())));
  // Per rank, the AllocMem areas (zero_copy): latency out and in, then the bandwidth phase's
  // sends and receives.
  std::vector<std::vector<uint8_t*>> zero_copy_areas(job.ranks());
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    // Each pair's latency, summed in pair order after the run (the same sum however the
    // ranks were split over processes).
    std::vector<double> pair_latency_us(config.pairs, 0.0);
    double oneway = 0, bidir = 0;
    Status s = job.Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      if (w.rank >= pair_ranks) return;
      const int peer = w.rank ^ 1;
      const std::string label = fmt::format("mpi_pingpong size {}", size);
      // Every message carries its own pattern; every one received is checked.
      std::vector<std::vector<uint8_t>> plain;
      const std::vector<uint8_t*> buffers =
          MessageBuffers(m, config.zero_copy, 2 + 2 * size_t{config.window}, size, largest,
                         zero_copy_areas[static_cast<size_t>(w.rank)], plain);
      uint8_t* const out_ptr = buffers[0];
      uint8_t* const in_ptr = buffers[1];
      uint8_t* const* const sends = &buffers[2];
      uint8_t* const* const recvs = &buffers[2 + config.window];
      double t0 = 0;
      for (int i = -3; i < static_cast<int>(config.iterations); ++i) {
        if (i == 0) t0 = m.Wtime();
        const auto round = static_cast<uint64_t>(i + 3);
        const bool first = w.rank % 2 == 0;
        for (int turn = 0; turn < 2; ++turn) {
          if ((turn == 0) == first) {
            FillPattern(out_ptr, static_cast<uint32_t>(size), PingPongKey(size, 0, round, w.rank));
            m.Send(out_ptr, size, kByte, peer, 1, w);
            CountSent(out);
          } else if (config.compute_ps == 0) {
            m.Recv(in_ptr, size, kByte, peer, 1, w);
          } else {
            std::vector<mpi::Mpi::Request> recv{m.Irecv(in_ptr, size, kByte, peer, 1, w)};
            job.Sleep(static_cast<uint32_t>(w.rank), config.compute_ps);
            m.Waitall(recv);
          }
          if ((turn == 0) != first) {
            CheckReceived(out, in_ptr, size, PingPongKey(size, 0, round, peer), [&] {
              return fmt::format("{}: round {} from rank {}", label, round, peer);
            });
          }
        }
      }
      if (w.rank % 2 == 0) {
        pair_latency_us[static_cast<size_t>(w.rank / 2)] =
            (m.Wtime() - t0) * 1e6 / config.iterations / 2;
      }
      // Bandwidth: a window of messages in flight, one way and then both ways.
      for (int both = 0; both < 2; ++both) {
        int one = 0;
        m.Sendrecv(&one, 0, kByte, peer, 2, &one, 0, kByte, peer, 2, w);  // line up
        const double start = m.Wtime();
        const bool sending = w.rank % 2 == 0 || both;
        const bool receiving = w.rank % 2 == 1 || both;
        for (uint32_t done = 0; done < config.bandwidth_messages; done += config.window) {
          std::vector<mpi::Mpi::Request> rs;
          for (uint32_t k = 0; k < config.window; ++k) {
            const uint64_t index = done + k;
            if (receiving) rs.push_back(m.Irecv(recvs[k], size, kByte, peer, 3, w));
            if (sending) {
              FillPattern(sends[k], static_cast<uint32_t>(size),
                          PingPongKey(size, 1 + both, index, w.rank));
              rs.push_back(m.Isend(sends[k], size, kByte, peer, 3, w));
              CountSent(out);
            }
          }
          m.Waitall(rs);
          for (uint32_t k = 0; receiving && k < config.window; ++k) {
            CheckReceived(out, recvs[k], size, PingPongKey(size, 1 + both, done + k, peer), [&] {
              return fmt::format("{}: bandwidth message {} from rank {}", label, done + k, peer);
            });
          }
        }
        m.Sendrecv(&one, 0, kByte, peer, 2, &one, 0, kByte, peer, 2, w);
        const double seconds = m.Wtime() - start;
        const double mbps =
            static_cast<double>(size) * config.bandwidth_messages * (both ? 2 : 1) / seconds / 1e6;
        if (w.rank == 0) (both ? bidir : oneway) = mbps;
      }
    });
    if (!s.ok()) {
      out.Stall(s);
      break;
    }
    double latency_sum_us = 0;
    for (double pair : pair_latency_us) latency_sum_us += FromMeasuringProcess(job, pair);
    const double latency_us = latency_sum_us / config.pairs;
    oneway = FromMeasuringProcess(job, oneway);
    bidir = FromMeasuringProcess(job, bidir);
    out.table +=
        fmt::format("{:>10}  {:>12.3f}  {:>14.1f}  {:>14.1f}\n", size, latency_us, oneway, bidir);
    points.push_back({{"size_bytes", size},
                      {"latency_us", latency_us},
                      {"oneway_mbps", oneway},
                      {"bidirectional_mbps", bidir}});
  }
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  out.results = {{"workload", "mpi_pingpong"},
                 {"iterations", config.iterations},
                 {"points", points},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

namespace {

/** The link-rate floor of one call of `kind` with `bytes` per rank on this job's cluster. */
std::optional<double> CollectiveFloorUs(MpiJob& job, mpi::CollectiveKind kind, size_t bytes) {
  const ClusterConfig& c = job.cluster().config();
  mpi::LinkModel link;
  link.ps_per_byte = c.fabric.link_ps_per_byte;
  link.dma_ps_per_byte = c.timing.dma_ps_per_byte;
  link.crossing_ps = 2 * c.fabric.link_delay_ps + c.fabric.hop_latency_ps;
  link.message_ps =
      job.config().transport.send_overhead_ps + job.config().transport.recv_overhead_ps;
  link.adapter_ps = c.timing.mmio_latency_ps + 2 * c.timing.dma_latency_ps + c.poll_latency_ps;
  link.intranode_through_adapter = job.config().mpi.intranode == mpi::IntranodeTransport::kAdapter;
  link.nodes = c.nodes;
  link.adapters_per_node = c.adapters_per_node;
  const std::optional<uint64_t> ps =
      mpi::CollectiveFloorPs(kind, bytes, static_cast<int>(job.ranks()), link, job.config().mpi);
  if (!ps) return std::nullopt;
  return static_cast<double>(*ps) / 1e6;
}

}  // namespace

Result<WorkloadResult> RunMpiCollectives(MpiJob& job, const MpiCollectivesConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const CollectiveSelection& timed = config.timed;
  out.table =
      fmt::format("{:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}   (us per call, {} ranks)\n",
                  "size_B", "barrier", "bcast", "allreduce", "allgather", "alltoall", n);
  nlohmann::json points = nlohmann::json::array();
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    double t[5] = {};
    const size_t ints = std::max<size_t>(size / 4, 1);
    // The allreduce's serial result, computed once for every rank to compare with.
    const std::vector<int32_t> sums = timed[2] ? CollectiveSums(n, ints) : std::vector<int32_t>();
    // Only allgather and alltoall need buffers of a block per rank.
    const size_t wide = timed[3] || timed[4] ? ints * n : ints;
    Status s = job.Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      const Datatype kInt = Datatype::Of(Base::kInt32);
      std::vector<int32_t> a(ints), b(wide), c(timed[4] ? ints * n : 0);
      // Each call's inputs are set before its timed loop (every call is idempotent, so the
      // result after the loop is the result of one call) and its result checked after.
      const std::function<void()> setup[5] = {
          [] {},
          [&] { FillCollectiveRow(w.rank, a.data(), ints); },
          [&] { FillCollectiveRow(w.rank, a.data(), ints); },
          [&] { FillCollectiveRow(w.rank, a.data(), ints); },
          [&] {
            for (int d = 0; d < n; ++d) {
              for (size_t j = 0; j < ints; ++j) c[d * ints + j] = AlltoallValue(w.rank, d, j);
            }
          },
      };
      const std::function<void()> calls[5] = {
          [&] { m.Barrier(w); },
          [&] { m.Bcast(a.data(), ints, kInt, 0, w); },
          [&] { m.Allreduce(a.data(), b.data(), ints, kInt, mpi::Op::kSum, w); },
          [&] { m.Allgather(a.data(), ints, kInt, b.data(), w); },
          [&] { m.Alltoall(c.data(), ints, kInt, b.data(), w); },
      };
      // How many values of each call's result differ from what a serial computation gives.
      const std::function<size_t()> mismatches[5] = {
          [] { return size_t{0}; },
          [&] { return CollectiveRowMismatches(0, a.data(), ints); },
          [&] {
            size_t wrong = 0;
            for (size_t j = 0; j < ints; ++j) wrong += b[j] != sums[j];
            return wrong;
          },
          [&] {
            size_t wrong = 0;
            for (int d = 0; d < n; ++d) wrong += CollectiveRowMismatches(d, &b[d * ints], ints);
            return wrong;
          },
          [&] {
            size_t wrong = 0;
            for (size_t j = 0; j < ints * n; ++j) {
              wrong += b[j] != AlltoallValue(static_cast<int>(j / ints), w.rank, j % ints);
            }
            return wrong;
          },
      };
      const size_t result_len[5] = {0, ints, ints, ints * n, ints * n};
      for (int k = 0; k < 5; ++k) {
        if (!timed[k]) continue;
        setup[k]();
        m.Barrier(w);
        const double start = m.Wtime();
        for (uint32_t i = 0; i < config.iterations; ++i) calls[k]();
        // A collective takes as long as its slowest rank (a root may leave early).
        const double mine = (m.Wtime() - start) * 1e6 / config.iterations;
        double slowest = 0;
        m.Reduce(&mine, &slowest, 1, Datatype::Of(Base::kDouble), mpi::Op::kMax, 0, w);
        if (w.rank == 0) t[k] = slowest;
        const size_t wrong = mismatches[k]();
        if (wrong > 0) {
          out.AddError(
              fmt::format("mpi_collectives size {}: {} on rank {}: {} of {} values "
                          "differ from the serial result",
                          size, kCollectiveNames[k], w.rank, wrong, result_len[k]));
        }
      }
    });
    if (!s.ok()) {
      out.Stall(s);
      break;
    }
    for (double& slowest : t) slowest = FromMeasuringProcess(job, slowest);  // rank 0's
    out.table += fmt::format("{:>10}", size);
    nlohmann::json point = {{"size_bytes", size}};
    // Beside each time, what its algorithm needs at link rate (mpi::CollectiveFloorPs).
    std::string floor_row = fmt::format("{:>10}", "floor"),
                ratio_row = fmt::format("{:>10}", "x floor");
    for (size_t k = 0; k < kCollectiveNames.size(); ++k) {
      out.table += timed[k] ? fmt::format("  {:>10.2f}", t[k]) : fmt::format("  {:>10}", "-");
      const std::optional<double> floor_us =
          timed[k] ? CollectiveFloorUs(job, static_cast<mpi::CollectiveKind>(k), ints * 4)
                   : std::nullopt;
      floor_row += floor_us ? fmt::format("  {:>10.2f}", *floor_us) : fmt::format("  {:>10}", "-");
      ratio_row += floor_us && *floor_us > 0 ? fmt::format("  {:>10.2f}", t[k] / *floor_us)
                                             : fmt::format("  {:>10}", "-");
      if (timed[k]) point[fmt::format("{}_us", kCollectiveNames[k])] = t[k];
      if (floor_us) point[fmt::format("{}_floor_us", kCollectiveNames[k])] = *floor_us;
    }
    out.table += "\n" + floor_row + "\n" + ratio_row + "\n";
    points.push_back(std::move(point));
  }
  nlohmann::json mpi_totals = MergePartitions(job, out);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/true);
  out.results = {{"workload", "mpi_collectives"},
                 {"ranks", n},
                 {"points", points},
                 {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

namespace {

/**
 * The complete exchange (config.large_pairs > 0) on a pairwise schedule: in step k (1..n-1)
 * rank r sends to (r + k) % n and receives from (r - k) % n, at most `window` steps in flight
 * (0: all), so a rank holds the buffers of those steps only; the whole is done `rounds` times
 * (later rounds find the connections the first one made).
 */
Result<WorkloadResult> RunCompleteExchange(MpiJob& job, const MpiAlltoallConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const uint64_t seed = job.cluster().config().seed;
  // A pair is large or not, both ways, by a seeded draw.
  const uint64_t large_below = static_cast<uint64_t>(config.large_pairs * (1u << 20));
  const auto len_of = [&](int a, int b) {
    const uint64_t lo = static_cast<uint64_t>(std::min(a, b)),
                   hi = static_cast<uint64_t>(std::max(a, b));
    Rng pair(seed ^ (lo * 1'000'003 + hi), "mpi_alltoall_pair");
    return static_cast<size_t>(pair.Below(1u << 20) < large_below ? config.max_size
                                                                  : config.small_size);
  };
  const auto steps = static_cast<uint32_t>(n - 1);
  const uint32_t window = config.window == 0 ? steps : std::min(config.window, steps);
  // A message's pattern key: the plan index of the one-round exchange, then round by round.
  const auto key_of = [&](uint32_t round, int src, uint32_t step) {
    return (static_cast<uint64_t>(round) * static_cast<uint64_t>(n) + static_cast<uint64_t>(src)) *
               steps +
           (step - 1);
  };
  uint64_t bytes = 0;
  double seconds = 0;
  Status s = job.Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    /** One step in flight: its buffers and its two requests. */
    struct Step {
      uint32_t round, step;
      int from;
      std::vector<uint8_t> send, recv;
      std::vector<mpi::Mpi::Request> rs;
    };
    std::deque<Step> live;
    const auto finish_oldest = [&] {
      Step& st = live.front();
      m.Waitall(st.rs);
      CheckReceived(out, st.recv.data(), st.recv.size(), key_of(st.round, st.from, st.step), [&] {
        return fmt::format("mpi_alltoall: round {} step {} ({} -> {}, {} B)", st.round, st.step,
                           st.from, w.rank, st.recv.size());
      });
      bytes += st.recv.size();
      live.pop_front();
    };
    m.Barrier(w);
    const double start = m.Wtime();
    for (uint32_t round = 0; round < config.rounds; ++round) {
      for (uint32_t k = 1; k <= steps; ++k) {
        if (live.size() == window) finish_oldest();
        const int to = (w.rank + static_cast<int>(k)) % n;
        const int from = (w.rank + n - static_cast<int>(k)) % n;
        Step& st = live.emplace_back(Step{round,
                                          k,
                                          from,
                                          std::vector<uint8_t>(len_of(w.rank, to)),
                                          std::vector<uint8_t>(len_of(from, w.rank)),
                                          {}});
        const int tag = static_cast<int>(k);
        st.rs.push_back(m.Irecv(st.recv.data(), st.recv.size(), kByte, from, tag, w));
        FillPattern(st.send.data(), static_cast<uint32_t>(st.send.size()),
                    key_of(round, w.rank, k));
        st.rs.push_back(m.Isend(st.send.data(), st.send.size(), kByte, to, tag, w));
        CountSent(out);
      }
    }
    while (!live.empty()) finish_oldest();
    m.Barrier(w);
    if (w.rank == 0) seconds = m.Wtime() - start;
  });
  if (!s.ok()) out.Stall(s);
  nlohmann::json mpi_totals = MergePartitions(job, out);
  MergeBytesAndTime(job, &bytes, &seconds);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  const uint64_t messages = static_cast<uint64_t>(n) * steps * config.rounds;
  const double mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out.table = fmt::format("{:>8}  {:>10}  {:>12}  {:>16}\n{:>8}  {:>10}  {:>12}  {:>16.1f}\n",
                          "ranks", "messages", "bytes", "aggregate_MB/s", n, messages, bytes, mbps);
  out.results = {{"workload", "mpi_alltoall"}, {"ranks", n},
                 {"messages", messages},       {"rounds", config.rounds},
                 {"window", window},           {"bytes", bytes},
                 {"aggregate_mbps", mbps},     {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace

Result<WorkloadResult> RunMpiRandomAlltoall(MpiJob& job, const MpiAlltoallConfig& config) {
  if (Status s = NeedRanks(job, 2, "mpi_alltoall"); !s.ok()) return s;
  if (config.large_pairs > 0) return RunCompleteExchange(job, config);
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  const uint64_t seed = job.cluster().config().seed;
  uint64_t bytes = 0;
  double seconds = 0;
  // Every rank derives the whole traffic matrix from the seed, so it knows what to expect.
  struct Msg {
    int src, dst;
    size_t len;
  };
  std::vector<Msg> all;
  Rng rng(seed, "mpi_alltoall");
  const uint32_t per_rank = config.messages_per_rank;
  for (int src = 0; src < n; ++src) {
    for (uint32_t i = 0; i < per_rank; ++i) {
      int dst = static_cast<int>(rng.Below(static_cast<uint64_t>(n - 1)));
      if (dst >= src) ++dst;
      all.push_back(
          {src, dst, static_cast<size_t>(rng.Below(static_cast<uint64_t>(config.max_size) + 1))});
    }
  }
  // Each rank's messages in, by index: no rank scans the whole plan (that is N x N work).
  std::vector<std::vector<size_t>> to_rank(static_cast<size_t>(n));
  for (size_t i = 0; i < all.size(); ++i) to_rank[static_cast<size_t>(all[i].dst)].push_back(i);
  Status s = job.Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    std::vector<std::vector<uint8_t>> sends, recvs;
    std::vector<mpi::Mpi::Request> rs;
    const std::vector<size_t>& recv_index = to_rank[static_cast<size_t>(w.rank)];
    for (const size_t i : recv_index) recvs.emplace_back(all[i].len);
    m.Barrier(w);
    const double start = m.Wtime();
    size_t r = 0;
    for (const size_t i : recv_index) {
      rs.push_back(m.Irecv(recvs[r].data(), all[i].len, kByte, all[i].src,
                           static_cast<int>(i % (1 << 20)), w));
      ++r;
    }
    // A rank's own messages are consecutive in the plan.
    const size_t first = static_cast<size_t>(w.rank) * per_rank;
    for (size_t i = first; i < first + per_rank; ++i) {
      sends.emplace_back(all[i].len);
      FillPattern(sends.back().data(), static_cast<uint32_t>(all[i].len), i);
      rs.push_back(m.Isend(sends.back().data(), all[i].len, kByte, all[i].dst,
                           static_cast<int>(i % (1 << 20)), w));
      CountSent(out);
    }
    m.Waitall(rs);
    m.Barrier(w);
    if (w.rank == 0) seconds = m.Wtime() - start;
    for (size_t k = 0; k < recvs.size(); ++k) {
      const size_t i = recv_index[k];
      CheckReceived(out, recvs[k].data(), all[i].len, i, [&] {
        return fmt::format("mpi_alltoall: message {} ({} -> {}, {} B)", i, all[i].src, all[i].dst,
                           all[i].len);
      });
      bytes += all[i].len;
    }
  });
  if (!s.ok()) out.Stall(s);
  nlohmann::json mpi_totals = MergePartitions(job, out);
  MergeBytesAndTime(job, &bytes, &seconds);
  nlohmann::json transport = SettleTransports(job, out, /*count_messages=*/false);
  const double mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out.table =
      fmt::format("{:>8}  {:>10}  {:>12}  {:>16}\n{:>8}  {:>10}  {:>12}  {:>16.1f}\n", "ranks",
                  "messages", "bytes", "aggregate_MB/s", n, all.size(), bytes, mbps);
  out.results = {{"workload", "mpi_alltoall"}, {"ranks", n},
                 {"messages", all.size()},     {"bytes", bytes},
                 {"aggregate_mbps", mbps},     {"transport", transport},
                 {"mpi", mpi_totals}};
  return out;
}

}  // namespace nicsim::sim
