// SPDX-License-Identifier: Apache-2.0
// The adapter's buffer pools: data transfer buffers (DTBs, each a whole receive frame, where
// payloads are staged) and header buffers (where outgoing packet headers are fetched).
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/platform.h"
#include "hw/func/adapter_config.h"
#include "hw/func/free_list.h"

namespace nicsim::hw::func {

/** The DTB and header-buffer pools of one adapter and their free lists. */
class AdapterBuffers {
 public:
  /** Bytes of one header buffer. */
  static constexpr uint32_t kHeaderBufferBytes = 128;

  explicit AdapterBuffers(const AdapterResources& resources);

  /** DTBs in the pool, and the bytes of DTB `dtb` (kRecvFrameBytes of them; not checked). */
  uint32_t dtb_count() const { return static_cast<uint32_t>(dtbs_.size()); }
  uint8_t* dtb(fw::DtbId dtb) { return dtbs_[dtb].data(); }
  /** A free DTB, or kNoDtb. */
  fw::DtbId TakeDtb() { return free_dtbs_.Take(); }
  /** Returns DTB `dtb` (checked) to the free list. */
  void PutDtb(fw::DtbId dtb);
  uint32_t free_dtbs() const { return free_dtbs_.size(); }
  bool has_free_dtb() const { return !free_dtbs_.empty(); }

  uint32_t header_buffer_count() const { return static_cast<uint32_t>(header_buffers_.size()); }
  /** The bytes of header buffer `id` (checked). */
  uint8_t* HeaderBuffer(fw::HeaderBufferId id);
  /** A free header buffer, or kNoHeaderBuffer. */
  fw::HeaderBufferId TakeHeaderBuffer() { return free_header_buffers_.Take(); }
  /** Returns header buffer `id` (checked) to the free list. */
  void PutHeaderBuffer(fw::HeaderBufferId id);
  uint32_t free_header_buffers() const { return free_header_buffers_.size(); }

  /** Every buffer free again (a reset). */
  void Reset();

 private:
  /** Data transfer buffers, each a full receive frame. */
  std::vector<std::vector<uint8_t>> dtbs_;
  FreeList<fw::DtbId, fw::kNoDtb> free_dtbs_;
  std::vector<std::vector<uint8_t>> header_buffers_;
  FreeList<fw::HeaderBufferId, fw::kNoHeaderBuffer> free_header_buffers_;
};

}  // namespace nicsim::hw::func
