// SPDX-License-Identifier: Apache-2.0
// A cluster's parameters, declared beside ClusterConfig: its own (sizes, windows, the host's
// wait policy, the backend) and, included, those its components declare (the adapter's
// timing and resources, the SystemC costs, the microcode, the fabric).
#pragma once

#include <unistd.h>

#include <cstdint>

#include "base/params.h"
#include "firmware/microcode_params.h"
#include "hw/func/adapter_params.h"
#include "hw/systemc/systemc_params.h"
#include "sim/cluster/cluster.h"
#include "sim/fabric/fabric_params.h"

namespace nicsim::sim {

/**
 * host.touched_limit's default for a run: three quarters of the machine's physical memory,
 * which leaves the rest to the simulator's own structures and to the machine. No limit if it
 * cannot be read.
 */
inline uint64_t DefaultTouchedLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) / 4 * 3 * static_cast<uint64_t>(page_bytes);
}

inline const ParamDecls<ClusterConfig>& ClusterParams() {
  using C = ClusterConfig;
  static const auto* decls =
      &(new ParamDecls<C>())
           ->Int("seed", &C::seed, 0, std::numeric_limits<int64_t>::max(),
                 "The one seed that drives every random choice in a run")
           .Duration("run.time_limit", &C::time_limit_ps,
                     "Simulated time after which a workload that is not done has stalled: the run "
                     "stops and fails (exit 1)")
           .RunDefault("60s")
           .Enum(
               "run.partition", &C::partition,
               {{C::Partition::kContiguous, "contiguous"},
                {C::Partition::kRoundRobin, "round_robin"}},
               "A run split over processes (mpirun -n K): contiguous blocks of nodes per process, "
               "or round_robin (node n on process n mod K); the results are the same either way")
           .Int("run.threads", &C::threads, 0, 64,
                "Threads of nicsim run that split the run's nodes among them, as mpirun -n K's "
                "processes do (the results are the same): 0 = the cores nicsim may run on when the "
                "run has "
                "at least 256 nodes on the func backend and its workload can be split, else 1")
           .RunDefault("0")
           .Enum("backend", &C::backend,
                 {{BackendKind::kFunc, "func"},
                  {BackendKind::kSystemc, "systemc"},
                  {BackendKind::kRtl, "rtl"}},
                 "Adapter model that runs the firmware: functional C++, SystemC or RTL (the "
                 "microcode on real DPDK ports runs under `nicsim port`)")
           .Int("nodes", &C::nodes, 1, 4096, "Number of hosts attached to the fabric")
           .Int("adapters_per_node", &C::adapters_per_node, 1, 16, "Network adapters in each host")
           .Int("windows_per_adapter", &C::windows_per_adapter, 1, 128,
                "Communication windows opened on each adapter")
           .Include(&C::fabric, FabricParams())
           .Include(&C::timing, hw::func::AdapterTimingParams())
           .Int("host.cache_line", &C::line_bytes, 64, 128,
                "Host cache line size in bytes: 64 or 128")
           .Choices({"64", "128"})
           .Duration("host.poll_latency", &C::poll_latency_ps,
                     "Time a polling CPU needs to notice a cache line the adapter wrote")
           .Duration("host.interrupt_service", &C::interrupt_service_ps,
                     "Host CPU time an interrupt handler spends on each event before it wakes the "
                     "window's process; a handler takes its next interrupt only when done, so "
                     "adapter.interrupt_handlers > 1 serves events concurrently (0: free)")
           // The struct's default is no limit (UINT64_MAX); a run's is 0, this machine's share.
           .Custom(
               "host.touched_limit", ParamType::kSize,
               "Simulated host memory the nodes may touch (pages written; a node's memory is "
               "reserved, and costs only what is written; each node measured after every "
               "4,096 of its events), checked every 65,536 events and at the end (split over "
               "processes: summed over them after every window): past it the run stops and "
               "fails (exit 1); mpi_collectives' and mpi_pingpong's own buffers are held to it "
               "before they start; 0 = 3/4 of this machine's physical memory",
               [](const C&) { return std::string("0"); },
               [](const ParamSource& p, C& c) {
                 c.touched_limit_bytes = p.SizeBytes("host.touched_limit");
                 if (c.touched_limit_bytes == 0) c.touched_limit_bytes = DefaultTouchedLimit();
                 return Status();
               })
           .Include(&C::systemc, hw::systemc::SystemcTimingParams())
           .String("rtl.vcd", &C::rtl_vcd_prefix,
                   "rtl backend: path prefix of VCD waveforms, one file per Verilated block per "
                   "adapter (PREFIX.aN.allocator.vcd, PREFIX.aN.rx_sequencer.vcd); empty = none")
           .Include(&C::microcode, fw::MicrocodeParams())
           .Include(&C::resources, hw::func::AdapterResourceParams())
           .Int("window.recv_frames", &C::recv_frames, 1, 65536, "Receive FIFO frames per window")
           .Int("window.send_slots", &C::send_slots, 1, 65536, "Send FIFO slots per window")
           .Int(
               "hal.return_batch", &C::return_batch, 1, 65536,
               "Frames returned to the adapter per ReturnRecvFrames MMIO (at most half the receive "
               "FIFO)")
           .Enum("hal.wait_mode", &C::wait_mode,
                 {{WaitMode::kPoll, "poll"},
                  {WaitMode::kInterrupt, "interrupt"},
                  {WaitMode::kEarlyInterrupt, "early_interrupt"},
                  {WaitMode::kEarlyWhenIdle, "early_when_idle"}},
                 "How processes wait for packets: spin on the first cache line, sleep until the "
                 "receive interrupt, sleep with early interrupts (before the data is coherent), or "
                 "sleep with early interrupts only while the process's CPU has nothing else to run "
                 "(an MPI rank blocked in a wait; one computing or polling gets normal ones)");
  return *decls;
}

}  // namespace nicsim::sim
