// SPDX-License-Identifier: Apache-2.0
// Benchmark: MPI on the hps preset (hw/func), in simulated time: small-message ping-pong
// latency (half the round trip), one-way bandwidth (a window of 1 MiB+ messages in flight)
// and bidirectional bandwidth, each as a ratio to the HPS figure the preset models
// (4.3 us, 1.8 GB/s, 2.9 GB/s); targets are within +-10% (ratios in [0.9, 1.1]; the bench
// reports the ratio against the lower bound and separately the upper bound's margin).
#include <fmt/format.h>

#include <vector>

#include "bench/bench_report.h"
#include "sim/config/param_table.h"
#include "sim/config/presets.h"
#include "sim/mpi_job.h"
#include "sim/run_scenario.h"

namespace {

using nicsim::mpi::Base;
using nicsim::mpi::Datatype;

std::unique_ptr<nicsim::sim::MpiJob> HpsJob(uint32_t adapters = 1) {
  nicsim::sim::ParamValues params = nicsim::sim::ParamValues::Defaults();
  NICSIM_CHECK(nicsim::sim::ApplyPreset(params, "hps").ok(), "hps preset");
  nicsim::Result<nicsim::sim::ClusterConfig> c = nicsim::sim::ClusterConfigFromParams(params);
  NICSIM_CHECK(c.ok(), "config");
  nicsim::sim::MpiJobConfig jc;
  jc.cluster = *c;
  jc.cluster.backend = nicsim::sim::BackendKind::kFunc;
  jc.cluster.nodes = 2;
  jc.cluster.adapters_per_node = adapters;
  jc.cluster.microcode.rcxts = 2048;
  jc.cluster.rdma_host_bytes = uint64_t{512} << 20;
  jc.ranks = 2;
  auto job = nicsim::sim::MpiJob::Create(jc);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

/** Half the mean round trip of `iters` ping-pongs of `bytes`, in microseconds. */
double Latency(size_t bytes, int iters) {
  auto job = HpsJob();
  double us = 0;
  const Datatype byte = Datatype::Of(Base::kByte);
  NICSIM_CHECK(job->Run([&](nicsim::mpi::Mpi& m) {
                 const auto& w = m.world();
                 std::vector<uint8_t> buf(std::max<size_t>(bytes, 1));
                 // Warm-up round trips (registration, first-touch) are not timed.
                 for (int i = -4; i < iters; ++i) {
                   if (i == 0 && w.rank == 0) us = m.Wtime();
                   if (w.rank == 0) {
                     m.Send(buf.data(), bytes, byte, 1, 0, w);
                     m.Recv(buf.data(), bytes, byte, 1, 0, w);
                   } else {
                     m.Recv(buf.data(), bytes, byte, 0, 0, w);
                     m.Send(buf.data(), bytes, byte, 0, 0, w);
                   }
                 }
                 if (w.rank == 0) us = (m.Wtime() - us) * 1e6 / iters / 2;
               }).ok(),
               "latency run");
  return us;
}

/** Bytes per second with `window` messages of `bytes` in flight (both ways if `bidir`). */
double Bandwidth(size_t bytes, int messages, int window, bool bidir, uint32_t adapters = 1) {
  auto job = HpsJob(adapters);
  double seconds = 0;
  const Datatype byte = Datatype::Of(Base::kByte);
  NICSIM_CHECK(job->Run([&](nicsim::mpi::Mpi& m) {
                 const auto& w = m.world();
                 const int peer = 1 - w.rank;
                 std::vector<std::vector<uint8_t>> sbuf(window, std::vector<uint8_t>(bytes));
                 std::vector<std::vector<uint8_t>> rbuf(window, std::vector<uint8_t>(bytes));
                 m.Barrier(w);
                 const double t0 = m.Wtime();
                 for (int done = 0; done < messages; done += window) {
                   std::vector<nicsim::mpi::Mpi::Request> rs;
                   for (int k = 0; k < window; ++k) {
                     if (w.rank == 1 || bidir) {
                       rs.push_back(m.Irecv(rbuf[k].data(), bytes, byte, peer, k, w));
                     }
                     if (w.rank == 0 || bidir) {
                       rs.push_back(m.Isend(sbuf[k].data(), bytes, byte, peer, k, w));
                     }
                   }
                   m.Waitall(rs);
                 }
                 m.Barrier(w);
                 if (w.rank == 0) seconds = m.Wtime() - t0;
               }).ok(),
               "bandwidth run");
  return (bidir ? 2.0 : 1.0) * static_cast<double>(bytes) * messages / seconds;
}

}  // namespace

int main() {
  nicsim::bench::Report report(
      "mpi_hps", "MPI on the hps preset vs the HPS figures (4.3 us, 1.8 GB/s, 2.9 GB/s)");
  const double lat = Latency(8, 50);
  report.Figure("latency_8B_us", lat);
  // Within +-10%: the ratio model/HPS must lie in [0.9, 1.1]; reported as two ratios.
  report.Ratio("latency_vs_4.3us", lat / 4.3, 0.9);
  report.Ratio("latency_upper_margin", 1.1 - lat / 4.3 + 1.0, 1.0);
  const double one = Bandwidth(1 << 20, 32, 8, false);
  const double two = Bandwidth(1 << 20, 32, 8, true);
  report.Figure("oneway_1MiB_MBps", one / 1e6);
  report.Figure("bidir_1MiB_MBps", two / 1e6);
  report.Ratio("oneway_vs_1.8GBps", one / 1.8e9, 0.9);
  report.Ratio("bidir_vs_2.9GBps", two / 2.9e9, 0.9);
  // Striping at MPI level: one rank per node, its messages spread over 2 and 4 adapters.
  const double big = Bandwidth(4 << 20, 16, 4, false, 1);
  for (uint32_t adapters : {2u, 4u}) {
    const double striped = Bandwidth(4 << 20, 16, 4, false, adapters);
    report.Figure(fmt::format("oneway_4MiB_{}_adapters_MBps", adapters), striped / 1e6);
    report.Ratio(fmt::format("striping_{}_adapters_gain", adapters), striped / big,
                 adapters == 4 ? 3.0 : 1.6);
  }
  return report.Finish();
}
