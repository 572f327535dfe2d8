// SPDX-License-Identifier: Apache-2.0
// Functional DMA engine: one serial engine, then a fixed latency; a job whose reset
// generation has passed is dropped when it completes.
#include "hw/func/adapter_dma.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "abi/limits.h"
#include "base/check.h"
#include "hw/common/byte_recycler.h"

namespace nicsim::hw::func {

uint64_t AdapterDma::DoneAt(uint64_t bytes) {
  const uint64_t start = std::max(ctx_.hooks.NowPs(), busy_until_ps_);
  busy_until_ps_ = start + static_cast<uint64_t>(bytes * ctx_.timing.dma_ps_per_byte);
  return busy_until_ps_ + ctx_.timing.dma_latency_ps;
}

DmaJob AdapterDma::PrepareToHost(const fw::DmaToHost& req) {
  ++ctx_.counters.dma_to_host;
  DmaJob job;
  job.to_host = true;
  job.host_addr = req.host_addr;
  job.tag = req.tag;
  job.len = req.prefix_len + req.dtb_len;
  job.data = RecycledStaging(job.len);
  std::memcpy(job.data.data(), req.prefix, req.prefix_len);
  if (req.dtb_len > 0) {
    NICSIM_CHECK(
        req.dtb < buffers_.dtb_count() && req.dtb_offset + req.dtb_len <= abi::kRecvFrameBytes,
        "DMA from DTB %u out of range", req.dtb);
    std::memcpy(job.data.data() + req.prefix_len, buffers_.dtb(req.dtb) + req.dtb_offset,
                req.dtb_len);
  }
  ctx_.counters.dma_bytes += job.len;
  ctx_.trace.Hardware(fw::TraceKind::kDmaStart, job.tag, 0, job.len);
  return job;
}

DmaJob AdapterDma::PrepareFromHost(const fw::DmaFromHost& req) {
  ++ctx_.counters.dma_from_host;
  ctx_.counters.dma_bytes += req.len;
  const bool to_header = req.target == fw::DmaTarget::kHeaderBuffer;
  NICSIM_CHECK(to_header ? req.header_buffer < buffers_.header_buffer_count()
                         : req.dtb < buffers_.dtb_count(),
               "DMA into a buffer that does not exist");
  DmaJob job;
  job.to_host = false;
  job.host_addr = req.host_addr;
  job.tag = req.tag;
  job.len = req.len;
  const uint32_t offset = to_header ? req.header_offset : req.dtb_offset;
  const uint32_t size = to_header ? AdapterBuffers::kHeaderBufferBytes : abi::kRecvFrameBytes;
  NICSIM_CHECK(offset <= size, "DMA offset %u beyond the buffer", offset);
  job.dst = (to_header ? buffers_.HeaderBuffer(req.header_buffer) : buffers_.dtb(req.dtb)) + offset;
  job.room = size - offset;
  ctx_.trace.Hardware(fw::TraceKind::kDmaStart, job.tag, 1, job.len);
  return job;
}

void AdapterDma::RunSerial(DmaJob job) {
  // Jobs wait in reusable slots, so the event is a small closure (no allocation per DMA).
  const uint64_t done_ps = DoneAt(job.len);
  const uint32_t slot = slots_.Park(PendingDma{std::move(job), ctx_.generation});
  if (ctx_.bursts) {
    batch_.emplace_back(slot, done_ps);  // built in place
    if (!batch_event_pending_) {
      batch_event_pending_ = true;
      ctx_.events.At(done_ps, [this] { RunBatch(); });
    }
    return;
  }
  ctx_.events.At(done_ps, [this, slot] { Finish(slot); });
}

void AdapterDma::Finish(uint32_t slot) {
  PendingDma& pending = slots_[slot];
  if (pending.generation != ctx_.generation) {
    ++ctx_.counters.dropped_by_reset;
  } else {
    const fw::DmaStatus status = Perform(pending.job);
    // Complete may start new DMAs (growing slots_) only in its last step.
    Complete(pending.job, status);
    RecycleStaging(std::move(slots_[slot].job.data));
  }
  slots_.Release(slot);
}

void AdapterDma::RunBatch() {
  batch_event_pending_ = false;
  // Jobs started by these completions join batch_ behind them and wait for the next event.
  const size_t end = batch_.size();
  for (size_t i = 0; i < end; ++i) Finish(batch_[i].slot);
  // The few jobs left move to the front: the storage keeps its capacity and never grows.
  batch_.erase(batch_.begin(), batch_.begin() + static_cast<std::ptrdiff_t>(end));
  if (batch_.empty()) return;
  batch_event_pending_ = true;
  ctx_.events.At(batch_.front().done_ps, [this] { RunBatch(); });
}

fw::DmaStatus AdapterDma::Perform(DmaJob& job) {
  if (!job.to_host && job.len > job.room) return Failed(host::HostMemory::Access::kOutOfRange);
  return Outcome(job.to_host ? host_.DeviceWrite(job.host_addr, job.data.data(), job.len)
                             : host_.DeviceRead(job.host_addr, job.dst, job.len));
}

fw::DmaStatus AdapterDma::Outcome(host::HostMemory::Access access) {
  return access == host::HostMemory::Access::kOk ? fw::DmaStatus::kOk : Failed(access);
}

fw::DmaStatus AdapterDma::Failed(host::HostMemory::Access access) {
  ++ctx_.counters.dma_address_errors;
  if (access == host::HostMemory::Access::kFreed) ++ctx_.counters.dma_to_freed_memory;
  return fw::DmaStatus::kAddressError;
}

void AdapterDma::Complete(const DmaJob& job, fw::DmaStatus status) {
  ctx_.hooks.OnDmaCompleted(job, status);
  // The data is coherent now: a CPU spinning on it sees it, and the task may go on.
  if (job.to_host && status == fw::DmaStatus::kOk) host_.NotifyDeviceWrite(job.host_addr, job.len);
  ctx_.trace.Hardware(fw::TraceKind::kDmaDone, job.tag, job.to_host ? 0 : 1,
                      static_cast<uint64_t>(status));
  // A 32-bit generation keeps the closure small enough to need no allocation.
  const auto gen = static_cast<uint32_t>(ctx_.generation);
  ctx_.runner.Run([this, tag = job.tag, status, gen] {
    if (gen == static_cast<uint32_t>(ctx_.generation)) ctx_.microcode.OnDmaComplete(tag, status);
  });
}

}  // namespace nicsim::hw::func
