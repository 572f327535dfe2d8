// SPDX-License-Identifier: Apache-2.0
// The built-in workloads' parameters, each declared beside its config struct's fields: the
// defaults are those structs' members'. mpi_collectives reads mpi.sizes and mpi.iterations,
// declared with mpi_pingpong.
#pragma once

#include <cstdint>

#include "abi/rdma.h"
#include "base/params.h"
#include "sim/workloads/dlm_blocks.h"
#include "sim/workloads/ip_exchange.h"
#include "sim/workloads/mpi_workloads.h"
#include "sim/workloads/workload.h"

namespace nicsim::sim {

inline const ParamDecls<PingPongConfig>& PingPongParams() {
  using C = PingPongConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->IntList("pingpong.sizes", &C::sizes, 0, 65535,
                     "Payload sizes in bytes that the ping-pong sweep measures")
           .Int("pingpong.iterations", &C::iterations, 1, 10000000,
                "Round trips timed per payload size")
           .Int("pingpong.stream_packets", &C::stream_packets, 1, 1000000000,
                "One-way packets sent per payload size for the bandwidth column (at most 1e9: "
                "packets are numbered in 32 bits)");
  return *decls;
}

inline const ParamDecls<StreamConfig>& StreamParams() {
  using C = StreamConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("stream.packets", &C::packets, 1, 1000000000,
                 "Packets the stream workload sends (at most 1e9: packets are numbered in 32 bits)")
           .Int("stream.size", &C::size, 0, 65535, "Payload bytes per stream packet");
  return *decls;
}

inline const ParamDecls<ExchangeConfig>& ExchangeParams() {
  using C = ExchangeConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("exchange.messages", &C::messages, 1, 10000000,
                 "Messages the random exchange sends in total (at most 1e7: the checker keeps 7 "
                 "bytes per message)")
           .Int("exchange.max_size", &C::max_size, -1, 65535,
                "Largest message payload in bytes (-1 = largest single-packet payload)");
  return *decls;
}

inline const ParamDecls<LifecycleConfig>& LifecycleParams() {
  using C = LifecycleConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Duration("lifecycle.at", &C::at_ps,
                      "close_under_load / recovery_under_load: simulated time after the stream "
                      "starts at which the receiving window closes or its adapter is recovered")
           .Int("lifecycle.packets", &C::packets, 1, 10000000,
                "close_under_load / recovery_under_load: packets in the stream before the event, "
                "and again in the stream after it (at most 1e7: the checker keeps 2 bytes per "
                "packet)")
           .Int("lifecycle.size", &C::size, 0, 65535,
                "close_under_load / recovery_under_load: payload bytes per packet");
  return *decls;
}

inline const ParamDecls<RdmaSweepConfig>& RdmaSweepParams() {
  using C = RdmaSweepConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Enum("rdma.op", &C::read, {{false, "write"}, {true, "read"}},
                  "RDMA sweep: the operation timed")
           .IntList("rdma.sizes", &C::sizes, 0, 256 << 20, "RDMA sweep: transfer sizes in bytes")
           .Int("rdma.iterations", &C::iterations, 1, 1000000,
                "RDMA sweep: transfers timed per size")
           .Enum("rdma.page", &C::page_shift,
                 {{abi::kPageShift4K, "4KiB"},
                  {abi::kPageShift64K, "64KiB"},
                  {abi::kPageShift16M, "16MiB"}},
                 "RDMA sweep: page size backing the buffers (which TCE tables map them)");
  return *decls;
}

inline const ParamDecls<DlmBlocksConfig>& DlmBlocksParams() {
  using C = DlmBlocksConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Enum("dlm.transfer", &C::transfer,
                  {{ulp::BlockTransfer::kThirdParty, "third_party"},
                   {ulp::BlockTransfer::kFetchOrder, "fetch_order"}},
                  "dlm_blocks: how a block moves: the manager posts a third-party RDMA read from "
                  "the owner into the requester, or (point to point, for comparison) orders the "
                  "requester to read it from the owner and report back")
           .Int("dlm.blocks", &C::blocks, 1, 1000000,
                "dlm_blocks: blocks in the service; block b is managed by node b % nodes and owned "
                "by another node")
           .Size("dlm.block_size", &C::block_size,
                 "dlm_blocks: bytes per block, at least 1 (one third-party RDMA read moves one "
                 "block)")
           .Range(0, 16 << 20)
           .Int("dlm.requests", &C::requests, 1, 10000000,
                "dlm_blocks: requests in total, each for a random block by a random node that "
                "neither manages nor owns it (at most 1e7: the checker keeps a byte per request)")
           .Int("dlm.slots", &C::slots, 1, 64,
                "dlm_blocks: landing slots each node sets aside per manager (its requests in "
                "flight to that manager), and source rCxts each owner sets aside per manager")
           .Duration("dlm.timeout", &C::timeout_ps,
                     "dlm_blocks: a manager (fetch_order: a requester) redrives a read (newer "
                     "tid) when its completion has not come in this time; a requester resends its "
                     "request after twice this; each later wait doubles, up to 32 times")
           .Range(1000, kMaxDurationPs)
           .Int("dlm.max_tries", &C::max_tries, 1, 100000,
                "dlm_blocks: reads posted per request, and request (or report) packets a "
                "requester sends, before giving up (the run then fails)");
  return *decls;
}

inline const ParamDecls<IpExchangeConfig>& IpExchangeParams() {
  using C = IpExchangeConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("ip.datagrams", &C::datagrams, 1, 65535,
                 "ip_exchange: datagrams sent in total, spread over the nodes (at most 65535: a "
                 "node's datagrams must have distinct 16-bit IP identifications)")
           .Size("ip.max_size", &C::max_size,
                 "ip_exchange: largest datagram payload; half the unicast datagrams fit one frame, "
                 "the other half (and broadcasts) are up to this size, in IPv4 fragments")
           .Range(8, 65515)
           .Int("ip.broadcast_percent", &C::broadcast_percent, 0, 100,
                "ip_exchange: share of the datagrams sent to 255.255.255.255 (every other node), "
                "in percent")
           .Duration(
               "ip.reassembly_timeout", &C::reassembly_timeout_ps,
               "ip_exchange: a datagram's fragments must all arrive within this of its first "
               "one, else the reassembly is dropped (drop_timeout); a datagram's identity is "
               "also remembered this long, so a late copy is dropped, not delivered again; an "
               "RDMA read not complete in this time is cancelled and the datagram sent again "
               "in fragments")
           .Range(1000, kMaxDurationPs)
           .Size("ip.rdma_threshold", &C::rdma_threshold,
                 "ip_exchange: unicast datagrams with more payload bytes than this are offered to "
                 "the receiver, which reads them by RDMA; smaller ones, and broadcasts, go through "
                 "the FIFOs (65515: never by RDMA)")
           .Range(0, 65515)
           .Int(
               "ip.rdma_slots", &C::rdma_slots, 1, 64,
               "ip_exchange: RDMA source slots and landing slots per interface (64 KiB and an rCxt "
               "each): offers in flight at once each way; a send finding none free uses fragments");
  return *decls;
}

inline const ParamDecls<MpiPingPongConfig>& MpiPingPongParams() {
  using C = MpiPingPongConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->IntList("mpi.sizes", &C::sizes, 0, 256 << 20,
                     "mpi_pingpong and mpi_collectives: message sizes in bytes; mpi_one_sided: "
                     "bytes each rank sends every other rank")
           .Int("mpi.iterations", &C::iterations, 1, 10000000,
                "mpi_pingpong: round trips timed per size; mpi_collectives: calls timed per size; "
                "mpi_one_sided: exchanges timed per size, each way")
           .Int("mpi.bandwidth_messages", &C::bandwidth_messages, 1, 1000000,
                "mpi_pingpong: messages per size for the bandwidth columns")
           .Int("mpi.window", &C::window, 1, 4096,
                "mpi_pingpong: bandwidth messages in flight at once")
           .Bool("mpi.zero_copy", &C::zero_copy,
                 "mpi_pingpong: its buffers (latency and bandwidth) come from Mpi::AllocMem (task "
                 "memory the adapter reaches), so large messages go from and land in them by RDMA "
                 "with no CPU copy (plain memory if the task has no room for them all)")
           .Int("mpi.pingpong_pairs", &C::pairs, 1, 2048,
                "mpi_pingpong: rank pairs (0,1), (2,3), ... that ping-pong at the same time (needs "
                "2 x this ranks); the latency column is their mean, the bandwidth columns pair 0's")
           .Duration("mpi.pingpong_compute", &C::compute_ps,
                     "mpi_pingpong latency rounds: each receive is posted, then the rank computes "
                     "this long (its CPU busy while the message arrives), then waits for it; the "
                     "latency includes it (0: a plain blocking receive)");
  return *decls;
}

/** mpi_collectives' own parameters; its sizes and calls per size are mpi_pingpong's. */
inline const ParamDecls<MpiCollectivesConfig>& MpiCollectivesParams() {
  using C = MpiCollectivesConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Custom(
               "mpi.collectives", ParamType::kString,
               "mpi_collectives: the collectives timed, comma-separated (barrier, bcast, "
               "allreduce, "
               "allgather, alltoall); the others are left out",
               [](const C& c) { return FormatCollectiveList(c.timed); },
               [](const ParamSource& p, C& c) {
                 Result<CollectiveSelection> timed =
                     ParseCollectiveList(p.String("mpi.collectives"));
                 if (!timed.ok())
                   return Status::Error("mpi.collectives: " + timed.status().message());
                 c.timed = *timed;
                 return Status();
               })
           .Check(CheckCollectiveList);
  return *decls;
}

inline const ParamDecls<MpiAlltoallConfig>& MpiAlltoallParams() {
  using C = MpiAlltoallConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("mpi.alltoall_messages", &C::messages_per_rank, 1, 10000000,
                 "mpi_alltoall: messages each rank sends to random ranks (all ranks' messages are "
                 "planned and buffered at once: mpi.ranks x this at most 1e7, and x "
                 "mpi.alltoall_max_size at most 8GiB)")
           .Size("mpi.alltoall_max_size", &C::max_size,
                 "mpi_alltoall: largest message (sizes are uniform up to it)")
           .Range(0, 256 << 20)
           .Probability(
               "mpi.alltoall_large_pairs", &C::large_pairs,
               "mpi_alltoall: above 0, a complete exchange (every rank sends one message to "
               "every other in pairwise steps, mpi.alltoall_messages unused) where this fraction "
               "of the rank "
               "pairs exchange mpi.alltoall_max_size bytes and the rest "
               "mpi.alltoall_small_size")
           .Size("mpi.alltoall_small_size", &C::small_size,
                 "mpi_alltoall: message size of the pairs that are not large (complete exchange)")
           .Range(0, 256 << 20)
           .Int("mpi.alltoall_rounds", &C::rounds, 1, 1000,
                "mpi_alltoall complete exchange: times every pair exchanges its messages (later "
                "rounds find the connections the first made)")
           .Int(
               "mpi.alltoall_window", &C::window, 0, 1000000,
               "mpi_alltoall complete exchange: pairwise steps (in step k rank r sends to r + k "
               "and "
               "receives from r - k) a rank has in flight, its buffers held only for those (0: all "
               "steps at once)");
  return *decls;
}

}  // namespace nicsim::sim
