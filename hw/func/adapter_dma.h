// SPDX-License-Identifier: Apache-2.0
// The adapter's DMA engine: turns the microcode's requests into jobs (gathering what goes to
// the host), moves them through the functional engine's timing, checks host addresses and
// hands completions to the microcode. Counts the dma_* counters.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/platform.h"
#include "host/host_memory.h"
#include "hw/func/adapter_buffers.h"
#include "hw/func/adapter_context.h"
#include "hw/func/dma_job.h"
#include "hw/func/slot_pool.h"

namespace nicsim::hw::func {

/**
 * DMA between adapter buffers and host memory. Functional timing: one shared engine
 * serialises the bytes at the DMA bandwidth, then a fixed latency; data lands at completion,
 * which is this model's point of coherence. A timed backend moves jobs itself and uses
 * Perform/Outcome/Complete.
 */
class AdapterDma {
 public:
  AdapterDma(const AdapterContext& context, host::HostMemory& host, AdapterBuffers& buffers)
      : ctx_(context), host_(host), buffers_(buffers) {}

  /** The job for a DMA to the host, its source gathered now (the engine reads it at issue). */
  DmaJob PrepareToHost(const fw::DmaToHost& request);
  /** The job for a DMA from the host into a DTB or header buffer. */
  DmaJob PrepareFromHost(const fw::DmaFromHost& request);
  /** Moves `job` through the functional engine and completes it. */
  void RunSerial(DmaJob job);
  /** Does the host memory access of a DMA; counts errors. */
  fw::DmaStatus Perform(DmaJob& job);
  /** The DMA status for a host memory access outcome; counts errors. */
  fw::DmaStatus Outcome(host::HostMemory::Access access);
  /** Delivers a DMA completion to the microcode once the data is coherent. */
  void Complete(const DmaJob& job, fw::DmaStatus status);

 private:
  /** A DMA in the functional engine, and the reset generation it was started in. */
  struct PendingDma {
    DmaJob job;
    uint64_t generation = 0;
  };

  /** A parked DMA in a completion batch, and when the engine finishes it. */
  struct Batched {
    Batched(uint32_t s, uint64_t done) : slot(s), done_ps(done) {}
    uint32_t slot;
    uint64_t done_ps;
  };

  /** Performs and completes the DMA parked in `slot` (or drops it after a reset); frees it. */
  void Finish(uint32_t slot);
  /**
   * Real-port bursts: the completion event of a batch, at the first job's time. Completes
   * every job queued when it fires, in engine order; jobs they start form the next batch.
   */
  void RunBatch();

  /** Time the engine finishes moving `bytes` queued behind earlier transfers. */
  uint64_t DoneAt(uint64_t bytes);
  fw::DmaStatus Failed(host::HostMemory::Access access);

  AdapterContext ctx_;
  host::HostMemory& host_;
  AdapterBuffers& buffers_;
  SlotPool<PendingDma> slots_;
  uint64_t busy_until_ps_ = 0;
  /** Jobs waiting for the batch event, oldest first (storage reused: no allocation). */
  std::vector<Batched> batch_;
  bool batch_event_pending_ = false;
};

}  // namespace nicsim::hw::func
