// SPDX-License-Identifier: Apache-2.0
// Benchmark: MPI one-sided communication against the RDMA it runs on, on the hps preset
// (hw/func, two nodes, one rank each), every figure in simulated time and measured in the same
// run. Put: bandwidth of a 1 MiB MPI_Put from an AllocMem buffer into an allocated window,
// from the put until the unlock that completes it returns, against one RDMA write of 1 MiB
// (bench/run rdma_throughput's measure). Get: latency of an 8-byte MPI_Get under a lock, from
// the get until the flush that completes it returns, against one RDMA read of 8 bytes.
#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "bench/bench_report.h"
#include "bench/hps_rdma.h"
#include "sim/cluster/mpi_job.h"

namespace {

using nicsim::sim::MpiJob;

constexpr uint32_t kPutBytes = 1u << 20;
constexpr uint32_t kGetBytes = 8;
/** Gets timed (the mean is reported). */
constexpr int kGets = 16;

struct Times {
  double put_s = 0;
  double get_s = 0;
};

Times MpiTimes() {
  nicsim::sim::MpiJobConfig c;
  c.cluster = nicsim::bench::HpsConfig(1);
  c.ranks = 2;
  nicsim::Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  Times t;
  const nicsim::Status run = (*job)->Run([&](nicsim::mpi::Mpi& m) {
    const nicsim::mpi::Comm& world = m.world();
    void* window = nullptr;
    nicsim::mpi::Win win = m.WinAllocate(kPutBytes, world, &window);
    if (world.rank == 0) {
      auto* buf = static_cast<uint8_t*>(m.AllocMem(kPutBytes));
      std::memset(buf, 7, kPutBytes);
      m.WinLock(nicsim::mpi::Mpi::LockType::kExclusive, 1, win);
      const double start = m.Wtime();
      m.Put(buf, kPutBytes, nicsim::mpi::kByte, 1, 0, win);
      m.WinUnlock(1, win);
      t.put_s = m.Wtime() - start;
      m.WinLock(nicsim::mpi::Mpi::LockType::kShared, 1, win);
      const double gets = m.Wtime();
      for (int i = 0; i < kGets; ++i) {
        m.Get(buf, kGetBytes, nicsim::mpi::kByte, 1, 0, win);
        m.WinFlush(1, win);
      }
      t.get_s = (m.Wtime() - gets) / kGets;
      NICSIM_CHECK(buf[0] == 7, "the get read %u", buf[0]);
      m.WinUnlock(1, win);
    }
    m.WinFree(win);
  });
  NICSIM_CHECK(run.ok(), "run: %s", run.message().c_str());
  return t;
}

}  // namespace

int main() {
  nicsim::bench::Report report(
      "mpi_rma", "MPI one-sided on the hps preset: Put 1 MiB bandwidth, Get 8 B latency, vs RDMA");
  const double write_s = nicsim::bench::WriteSeconds(kPutBytes, 1);
  const double read_s = nicsim::bench::ReadSeconds(kGetBytes);
  const Times mpi = MpiTimes();
  report.Figure("rdma_write_1MiB_MBps", kPutBytes / write_s / 1e6);
  report.Figure("mpi_put_1MiB_MBps", kPutBytes / mpi.put_s / 1e6);
  report.Figure("rdma_read_8B_us", read_s * 1e6);
  report.Figure("mpi_get_8B_us", mpi.get_s * 1e6);
  // At least 0.95 of the RDMA write's bandwidth; within 1.1x of the RDMA read's latency
  // (reported as read / get, so both targets are floors).
  report.Ratio("put_1MiB_of_rdma_write_bandwidth", write_s / mpi.put_s, 0.95);
  report.Ratio("rdma_read_over_get_8B_latency", read_s / mpi.get_s, 1 / 1.1);
  return report.Finish();
}
