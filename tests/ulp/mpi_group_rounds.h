// SPDX-License-Identifier: Apache-2.0
// Shared by the tests of MPI collectives over multicast groups: rounds of Bcast (each after a
// barrier if asked) from given roots with every byte checked, and the job's transport totals.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {

/** Byte i of round `round`'s broadcast. */
inline uint8_t RoundByte(size_t i, int round) {
  return static_cast<uint8_t>(i * 131 + round * 7 + 5);
}

/** Per round: a barrier (if asked), then a Bcast of `bytes` from roots[round]; returns how
 *  many ranks got wrong bytes, over all rounds. */
inline int BcastRounds(MpiJob& job, size_t bytes, const std::vector<int>& roots,
                       bool barriers = false) {
  int wrong = 0;
  EXPECT_TRUE(job.Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   using mpi::kByte;
                   for (size_t round = 0; round < roots.size(); ++round) {
                     if (barriers) m.Barrier(w);
                     std::vector<uint8_t> buf(bytes);
                     if (w.rank == roots[round]) {
                       for (size_t i = 0; i < bytes; ++i)
                         buf[i] = RoundByte(i, static_cast<int>(round));
                     }
                     m.Bcast(buf.data(), bytes, kByte, roots[round], w);
                     for (size_t i = 0; i < bytes; ++i) {
                       if (buf[i] != RoundByte(i, static_cast<int>(round))) {
                         ++wrong;
                         break;
                       }
                     }
                   }
                 })
                  .ok());
  return wrong;
}

/** The transport figures of every rank, added up. */
inline ulp::TransportStats Totals(MpiJob& job) {
  ulp::TransportStats sum;
  for (uint32_t r = 0; r < job.ranks(); ++r) sum += job.transport(r).stats();
  return sum;
}

}  // namespace nicsim::sim
