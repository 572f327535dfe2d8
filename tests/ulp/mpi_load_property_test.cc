// SPDX-License-Identifier: Apache-2.0
// Collectives under load on a fabric that loses nothing, over seeds: random collectives, sizes
// (packet mode through RDMA pulls of several chunks), nodes and ranks per node. Every run
// ends and every byte is what a serial reference computes, no switch port overflows, and
// nothing is sent twice: no packet retransmitted, no RDMA chunk redriven, no stale packet
// dropped. A failure names its seed.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "base/rng.h"
#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

const mpi::Datatype kInt = mpi::Datatype::Of(mpi::Base::kInt32);

enum class Collective { kBcast, kAllreduce, kAllgather, kAlltoall };
constexpr const char* kNames[] = {"bcast", "allreduce", "allgather", "alltoall"};

/** The value rank `r` contributes at index `i` (and what every check recomputes). */
int32_t Value(int r, size_t i, uint64_t seed) {
  return static_cast<int32_t>((r + 1) * 1000003 + i * 7 + seed);
}

TEST(MpiLoadPropertyTest, FaultFreeCollectivesEndDropNothingAndResendNothing) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed, "mpi_load_property");
    const auto op = static_cast<Collective>(rng.Below(4));
    const uint32_t nodes = 2 + static_cast<uint32_t>(rng.Below(3));
    const uint32_t per_node = 1 + static_cast<uint32_t>(rng.Below(4));
    const uint32_t ranks = nodes * per_node;
    // Elements per rank: a few packets up to 4 MiB (16 RDMA chunks each).
    const size_t count = size_t{1} << (6 + rng.Below(15));
    const std::string what = std::string(kNames[static_cast<int>(op)]) + " of " +
                             std::to_string(count * 4) + " B on " + std::to_string(ranks) +
                             " ranks over " + std::to_string(nodes) + " nodes, seed " +
                             std::to_string(seed);
    MpiJobConfig c;
    c.cluster.backend = BackendKind::kFunc;
    c.ranks = ranks;
    c.cluster.nodes = nodes;
    c.cluster.seed = seed;
    c.cluster.microcode.rcxts = 4096;
    Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
    ASSERT_TRUE(job.ok()) << what << ": " << job.status().message();
    int wrong = 0;
    const Status run = (*job)->Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      const int n = w.size();
      std::vector<int32_t> mine(op == Collective::kAlltoall ? count * n : count);
      for (size_t i = 0; i < mine.size(); ++i) mine[i] = Value(w.rank, i, seed);
      for (int iteration = 0; iteration < 2; ++iteration) {
        switch (op) {
          case Collective::kBcast: {
            std::vector<int32_t> buf = mine;
            m.Bcast(buf.data(), count, kInt, iteration % n, w);
            for (size_t i = 0; i < count; ++i) wrong += buf[i] != Value(iteration % n, i, seed);
            break;
          }
          case Collective::kAllreduce: {
            std::vector<int32_t> sum(count);
            m.Allreduce(mine.data(), sum.data(), count, kInt, mpi::Op::kSum, w);
            for (size_t i = 0; i < count; ++i) {
              int64_t want = 0;
              for (int r = 0; r < n; ++r) want += Value(r, i, seed);
              wrong += sum[i] != static_cast<int32_t>(want);
            }
            break;
          }
          case Collective::kAllgather: {
            std::vector<int32_t> all(count * n);
            m.Allgather(mine.data(), count, kInt, all.data(), w);
            for (int r = 0; r < n; ++r) {
              for (size_t i = 0; i < count; ++i) wrong += all[r * count + i] != Value(r, i, seed);
            }
            break;
          }
          case Collective::kAlltoall: {
            std::vector<int32_t> got(count * n);
            m.Alltoall(mine.data(), count, kInt, got.data(), w);
            for (int r = 0; r < n; ++r) {
              for (size_t i = 0; i < count; ++i) {
                wrong += got[r * count + i] != Value(r, w.rank * count + i, seed);
              }
            }
            break;
          }
        }
      }
    });
    ASSERT_TRUE(run.ok()) << what << ": " << run.message();
    EXPECT_EQ(wrong, 0) << what;
    ulp::TransportStats s;
    for (uint32_t r = 0; r < ranks; ++r) s += (*job)->transport(r).stats();
    uint64_t drops = 0;
    for (const auto& [reason, n] : (*job)->cluster().fabric().counters().drops) {
      drops += n;
    }
    uint64_t stale = 0;
    for (uint32_t a = 0; a < nodes; ++a) {
      stale += (*job)->cluster().adapter(a).firmware_counters().drop(fw::DropReason::kRdmaStaleTid);
    }
    const std::string counts = what + ": " + std::to_string(drops) + " frames dropped, " +
                               std::to_string(s.retransmits) + " retransmits, " +
                               std::to_string(s.rdma_redrives) + " redrives";
    EXPECT_EQ(s.fallbacks, 0u) << counts;
    // No switch port overflows (fabric.port_buffer) and nothing is sent twice.
    EXPECT_EQ(drops, 0u) << counts;
    EXPECT_EQ(s.retransmits, 0u) << counts;
    EXPECT_EQ(s.duplicates, 0u) << counts;
    EXPECT_EQ(s.rdma_redrives, 0u) << counts;
    EXPECT_EQ(stale, 0u) << counts;
  }
}

}  // namespace
}  // namespace nicsim::sim
