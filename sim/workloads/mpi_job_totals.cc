// SPDX-License-Identifier: Apache-2.0
#include "sim/workloads/mpi_job_totals.h"

#include "sim/distrib/merge_stats.h"
#include "sim/distrib/split_run.h"
#include "sim/observe/counters_json.h"
#include "sim/workloads/merge_results.h"

namespace nicsim::sim {
namespace {

/** Adds up every process's `c` (a split run's processes each hold their own ranks'). */
template <class Counters>
void SumOverProcesses(Counters& c, distrib::Collectives& world) {
  for (const auto& f : Counters::Fields()) c.*f.member = world.Sum(c.*f.member);
}

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

}  // namespace

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
    sum.rma_puts += s.rma_puts;
    sum.rma_gets += s.rma_gets;
    sum.rma_accumulates += s.rma_accumulates;
    sum.rma_in_place += s.rma_in_place;
    sum.rma_refused += s.rma_refused;
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
          {"rma_puts", sum.rma_puts},
          {"rma_gets", sum.rma_gets},
          {"rma_accumulates", sum.rma_accumulates},
          {"rma_in_place", sum.rma_in_place},
          {"rma_refused", sum.rma_refused},
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

}  // namespace nicsim::sim
