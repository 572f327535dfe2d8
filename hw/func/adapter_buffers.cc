// SPDX-License-Identifier: Apache-2.0
// DTB and header-buffer pools: allocated once at construction, handed out and taken back by
// id, all freed again by a reset.
#include "hw/func/adapter_buffers.h"

#include "abi/limits.h"
#include "base/check.h"

namespace nicsim::hw::func {

AdapterBuffers::AdapterBuffers(const AdapterResources& resources) {
  dtbs_.assign(resources.dtbs, std::vector<uint8_t>(abi::kRecvFrameBytes));
  free_dtbs_.Reset(resources.dtbs);
  header_buffers_.assign(resources.header_buffers, std::vector<uint8_t>(kHeaderBufferBytes));
  free_header_buffers_.Reset(resources.header_buffers);
}

void AdapterBuffers::PutDtb(fw::DtbId dtb) {
  NICSIM_CHECK(dtb < dtbs_.size(), "release of DTB %u", dtb);
  free_dtbs_.Put(dtb);
}

uint8_t* AdapterBuffers::HeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "header buffer %u", id);
  return header_buffers_[id].data();
}

void AdapterBuffers::PutHeaderBuffer(fw::HeaderBufferId id) {
  NICSIM_CHECK(id < header_buffers_.size(), "release of header buffer %u", id);
  free_header_buffers_.Put(id);
}

void AdapterBuffers::Reset() {
  free_dtbs_.Reset(static_cast<uint32_t>(dtbs_.size()));
  free_header_buffers_.Reset(static_cast<uint32_t>(header_buffers_.size()));
}

}  // namespace nicsim::hw::func
