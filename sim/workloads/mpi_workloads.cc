// SPDX-License-Identifier: Apache-2.0
#include "sim/workloads/mpi_workloads.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "base/rng.h"

namespace nicsim::sim {
namespace {

using mpi::Base;
using mpi::Datatype;

const Datatype kByte = Datatype::Of(Base::kByte);

Status NeedRanks(MpiJob& job, uint32_t n, const char* what) {
  if (job.ranks() < n) {
    return Status::Error(fmt::format("{} needs at least {} ranks, the job has {}", what, n,
                                     job.ranks()));
  }
  return Status();
}

/** Counts messages and bytes the way the other workloads do. */
void Count(WorkloadResult& out, uint64_t messages, uint64_t bytes) {
  out.messages_sent += messages;
  out.messages_delivered += messages;
  out.bytes_delivered += bytes;
}

}  // namespace

Result<WorkloadResult> RunMpiPingPong(MpiJob& job, const MpiPingPongConfig& config) {
  if (Status s = NeedRanks(job, 2, "mpi_pingpong"); !s.ok()) return s;
  WorkloadResult out;
  out.table = fmt::format("{:>10}  {:>12}  {:>14}  {:>14}\n", "size_B", "latency_us",
                          "oneway_MB/s", "bidir_MB/s");
  nlohmann::json points = nlohmann::json::array();
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    double latency_us = 0, oneway = 0, bidir = 0;
    Status s = job.Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      if (w.rank > 1) return;
      const int peer = 1 - w.rank;
      std::vector<uint8_t> buf(std::max<size_t>(size, 1));
      double t0 = 0;
      for (int i = -3; i < static_cast<int>(config.iterations); ++i) {
        if (i == 0) t0 = m.Wtime();
        if (w.rank == 0) {
          m.Send(buf.data(), size, kByte, peer, 1, w);
          m.Recv(buf.data(), size, kByte, peer, 1, w);
        } else {
          m.Recv(buf.data(), size, kByte, peer, 1, w);
          m.Send(buf.data(), size, kByte, peer, 1, w);
        }
      }
      if (w.rank == 0) latency_us = (m.Wtime() - t0) * 1e6 / config.iterations / 2;
      // Bandwidth: a window of messages in flight, one way and then both ways.
      std::vector<std::vector<uint8_t>> bufs(config.window, std::vector<uint8_t>(std::max<size_t>(size, 1)));
      for (int both = 0; both < 2; ++both) {
        int one = 0;
        m.Sendrecv(&one, 0, kByte, peer, 2, &one, 0, kByte, peer, 2, w);  // line up
        const double start = m.Wtime();
        for (uint32_t done = 0; done < config.bandwidth_messages; done += config.window) {
          std::vector<mpi::Mpi::Request> rs;
          for (uint32_t k = 0; k < config.window; ++k) {
            if (w.rank == 1 || both) rs.push_back(m.Irecv(bufs[k].data(), size, kByte, peer, 3, w));
            if (w.rank == 0 || both) rs.push_back(m.Isend(bufs[k].data(), size, kByte, peer, 3, w));
          }
          m.Waitall(rs);
        }
        m.Sendrecv(&one, 0, kByte, peer, 2, &one, 0, kByte, peer, 2, w);
        const double seconds = m.Wtime() - start;
        const double mbps = static_cast<double>(size) * config.bandwidth_messages *
                            (both ? 2 : 1) / seconds / 1e6;
        if (w.rank == 0) (both ? bidir : oneway) = mbps;
      }
    });
    if (!s.ok()) return s;
    Count(out, 2ull * (config.iterations + 3) + 3ull * config.bandwidth_messages,
          size * (2ull * (config.iterations + 3) + 3ull * config.bandwidth_messages));
    out.table += fmt::format("{:>10}  {:>12.3f}  {:>14.1f}  {:>14.1f}\n", size, latency_us, oneway,
                             bidir);
    points.push_back({{"size_bytes", size},
                      {"latency_us", latency_us},
                      {"oneway_mbps", oneway},
                      {"bidirectional_mbps", bidir}});
  }
  out.results = {{"workload", "mpi_pingpong"}, {"iterations", config.iterations}, {"points", points}};
  return out;
}

Result<WorkloadResult> RunMpiCollectives(MpiJob& job, const MpiCollectivesConfig& config) {
  WorkloadResult out;
  const int n = static_cast<int>(job.ranks());
  out.table = fmt::format("{:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}   (us per call, {} ranks)\n",
                          "size_B", "barrier", "bcast", "allreduce", "allgather", "alltoall", n);
  nlohmann::json points = nlohmann::json::array();
  for (int64_t size64 : config.sizes) {
    const auto size = static_cast<size_t>(size64);
    double t[5] = {};
    Status s = job.Run([&](mpi::Mpi& m) {
      const auto& w = m.world();
      const size_t ints = std::max<size_t>(size / 4, 1);
      std::vector<int32_t> a(ints, w.rank), b(ints * n), c(ints * n, 1);
      const Datatype kInt = Datatype::Of(Base::kInt32);
      const std::function<void()> calls[5] = {
          [&] { m.Barrier(w); },
          [&] { m.Bcast(a.data(), ints, kInt, 0, w); },
          [&] { m.Allreduce(a.data(), b.data(), ints, kInt, mpi::Op::kSum, w); },
          [&] { m.Allgather(a.data(), ints, kInt, b.data(), w); },
          [&] { m.Alltoall(c.data(), ints, kInt, b.data(), w); },
      };
      for (int k = 0; k < 5; ++k) {
        m.Barrier(w);
        const double start = m.Wtime();
        for (uint32_t i = 0; i < config.iterations; ++i) calls[k]();
        // A collective takes as long as its slowest rank (a root may leave early).
        const double mine = (m.Wtime() - start) * 1e6 / config.iterations;
        double slowest = 0;
        m.Reduce(&mine, &slowest, 1, Datatype::Of(Base::kDouble), mpi::Op::kMax, 0, w);
        if (w.rank == 0) t[k] = slowest;
      }
    });
    if (!s.ok()) return s;
    Count(out, 0, 0);
    out.table += fmt::format("{:>10}  {:>10.2f}  {:>10.2f}  {:>10.2f}  {:>10.2f}  {:>10.2f}\n", size,
                             t[0], t[1], t[2], t[3], t[4]);
    points.push_back({{"size_bytes", size}, {"barrier_us", t[0]}, {"bcast_us", t[1]},
                      {"allreduce_us", t[2]}, {"allgather_us", t[3]}, {"alltoall_us", t[4]}});
  }
  out.results = {{"workload", "mpi_collectives"}, {"ranks", n}, {"points", points}};
  return out;
}

Result<WorkloadResult> RunMpiRandomAlltoall(MpiJob& job, const MpiAlltoallConfig& config) {
  if (Status s = NeedRanks(job, 2, "mpi_alltoall"); !s.ok()) return s;
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
  for (int src = 0; src < n; ++src) {
    for (uint32_t i = 0; i < config.messages_per_rank; ++i) {
      int dst = static_cast<int>(rng.Below(static_cast<uint64_t>(n - 1)));
      if (dst >= src) ++dst;
      all.push_back({src, dst, static_cast<size_t>(rng.Below(static_cast<uint64_t>(config.max_size) + 1))});
    }
  }
  Status s = job.Run([&](mpi::Mpi& m) {
    const auto& w = m.world();
    std::vector<std::vector<uint8_t>> sends, recvs;
    std::vector<mpi::Mpi::Request> rs;
    std::vector<size_t> recv_index;
    for (size_t i = 0; i < all.size(); ++i) {
      const Msg& msg = all[i];
      if (msg.dst == w.rank) {
        recvs.emplace_back(msg.len);
        recv_index.push_back(i);
      }
    }
    m.Barrier(w);
    const double start = m.Wtime();
    size_t r = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].dst == w.rank) {
        rs.push_back(m.Irecv(recvs[r].data(), all[i].len, kByte, all[i].src, static_cast<int>(i % (1 << 20)), w));
        ++r;
      }
    }
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].src != w.rank) continue;
      sends.emplace_back(all[i].len);
      FillPattern(sends.back().data(), static_cast<uint32_t>(all[i].len), i);
      rs.push_back(m.Isend(sends.back().data(), all[i].len, kByte, all[i].dst, static_cast<int>(i % (1 << 20)), w));
    }
    m.Waitall(rs);
    m.Barrier(w);
    if (w.rank == 0) seconds = m.Wtime() - start;
    for (size_t k = 0; k < recvs.size(); ++k) {
      const size_t i = recv_index[k];
      if (!CheckPattern(recvs[k].data(), static_cast<uint32_t>(all[i].len), i)) {
        out.AddError(fmt::format("mpi_alltoall: message {} ({} -> {}, {} B) arrived damaged", i,
                                 all[i].src, all[i].dst, all[i].len));
      }
      bytes += all[i].len;
    }
  });
  if (!s.ok()) return s;
  Count(out, all.size(), bytes);
  const double mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out.table = fmt::format("{:>8}  {:>10}  {:>12}  {:>16}\n{:>8}  {:>10}  {:>12}  {:>16.1f}\n",
                          "ranks", "messages", "bytes", "aggregate_MB/s", n, all.size(), bytes,
                          mbps);
  out.results = {{"workload", "mpi_alltoall"}, {"ranks", n}, {"messages", all.size()},
                 {"bytes", bytes}, {"aggregate_mbps", mbps}};
  return out;
}

}  // namespace nicsim::sim
