// SPDX-License-Identifier: Apache-2.0
#include "sim/ulp_glue.h"

#include "abi/rdma.h"

namespace nicsim::sim {

uint32_t SimPort::max_payload() const { return cluster_.endpoint(adapter_, window_).max_payload(); }

void SimPort::Send(ulp::Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) {
  if (!cluster_.HasEndpoint(adapter_, window_)) return;  // the window is gone: a lost packet
  cluster_.endpoint(adapter_, window_).Send(WindowAddr{dest.adapter, dest.window}, data, len,
                                            ulp_word);
}

void SimPort::Post(abi::SlotType type, ulp::Peer dest, const abi::RdmaRequest& request,
                   uint32_t ulp_word) {
  if (!cluster_.HasEndpoint(adapter_, window_)) return;
  cluster_.endpoint(adapter_, window_).PostRequest(type, WindowAddr{dest.adapter, dest.window},
                                                   request, ulp_word);
}

void SimPort::OnReceive(ReceiveFn fn) {
  if (!cluster_.HasEndpoint(adapter_, window_)) return;
  if (!fn) {
    cluster_.endpoint(adapter_, window_).OnReceive(nullptr);
    return;
  }
  cluster_.endpoint(adapter_, window_).OnReceive(
      [fn = std::move(fn)](const hal::RecvPacket& p) { fn(p.header, p.payload); });
}

Result<uint32_t> SimPort::AcquireRcxt() { return cluster_.rcxts(adapter_).Acquire(window_); }

void SimPort::ReleaseRcxt(uint32_t ref) {
  // After an adapter recovery the reference is stale; the pool refuses it, which is fine.
  static_cast<void>(cluster_.rcxts(adapter_).Release(ref));
}

Result<uint64_t> SimHost::Map(uint64_t bytes) {
  // Large areas on 16 MiB pages (few TCEs), smaller ones on 64 KiB pages.
  const uint32_t shift = bytes >= (uint64_t{16} << 20) ? abi::kPageShift16M : abi::kPageShift64K;
  return cluster_.address_space(node_).Map(bytes, shift);
}

}  // namespace nicsim::sim
