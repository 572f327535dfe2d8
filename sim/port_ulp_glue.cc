// SPDX-License-Identifier: Apache-2.0
#include "sim/port_ulp_glue.h"

#include <algorithm>
#include <utility>

#include "abi/rdma.h"
#include "base/rng.h"
#include "firmware/microcode.h"

namespace nicsim::sim {

Result<std::unique_ptr<PortRdma>> PortRdma::Create(PortNode& node, uint64_t seed) {
  if (node.config().rdma_host_bytes == 0) {
    return Status::Error("RDMA on a port node needs rdma_host_bytes");
  }
  std::unique_ptr<PortRdma> r(new PortRdma());
  r->job_key_ = node.config().job_key;
  r->space_ = std::make_unique<host::AddressSpace>(node.host(), seed);
  driver::TceConfig tce = node.config().tce;
  Rng seeds(seed, "tce_key_seed");
  tce.key_seed = seeds.Next();
  Result<std::unique_ptr<driver::TceTables>> tables =
      driver::TceTables::Create(node.access(), tce);
  if (!tables.ok()) return tables.status();
  r->tables_ = std::move(*tables);
  r->tables_->AttachAdapter(node.access());
  if (Status s = r->tables_->ReserveJob(r->job_key_); !s.ok()) return s;
  driver::AdapterDriver* drv = &node.driver();
  r->rcxts_ = std::make_unique<driver::RcxtPool>(node.access(), fw::MicrocodeConfig{}.rcxts,
                                                 [drv] { return drv->recovery_count(); });
  return Result<std::unique_ptr<PortRdma>>(std::move(r));
}

ulp::Peer PortUlpPort::self() const {
  const WindowAddr a = node_.endpoint().addr();
  return {a.adapter, a.window};
}

uint32_t PortUlpPort::max_payload() const {
  return std::min(node_.endpoint().max_payload(), payload_cap_);
}

void PortUlpPort::Send(ulp::Peer dest, const uint8_t* data, uint32_t len, uint32_t ulp_word) {
  node_.endpoint().Send(WindowAddr{dest.adapter, dest.window}, data, len, ulp_word);
}

void PortUlpPort::Post(abi::SlotType type, ulp::Peer dest, const abi::RdmaRequest& request,
                       uint32_t ulp_word) {
  node_.endpoint().PostRequest(type, WindowAddr{dest.adapter, dest.window}, request, ulp_word);
}

void PortUlpPort::OnReceive(ReceiveFn fn) {
  if (!fn) {
    node_.endpoint().OnReceive(nullptr);
    return;
  }
  node_.endpoint().OnReceive(
      [fn = std::move(fn)](const hal::RecvPacket& p) { fn(p.header, p.payload); });
}

Result<uint32_t> PortUlpPort::AcquireRcxt() { return rdma_.rcxts().Acquire(self().window); }

void PortUlpPort::ReleaseRcxt(uint32_t ref) { static_cast<void>(rdma_.rcxts().Release(ref)); }

PortUlpHost::PortUlpHost(PortRdma& rdma)
    : rdma_(rdma), start_(std::chrono::steady_clock::now()) {}

PortUlpHost::~PortUlpHost() = default;

uint64_t PortUlpHost::NowPs() {
  const auto since = std::chrono::steady_clock::now() - start_;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(since).count()) * 1000;
}

void PortUlpHost::After(uint64_t delay_ps, std::function<void()> fn) {
  timers_.push(Timer{NowPs() + delay_ps, next_order_++, std::move(fn)});
}

uint32_t PortUlpHost::RunDueTimers() {
  uint32_t ran = 0;
  const uint64_t now = NowPs();
  while (!timers_.empty() && timers_.top().due_ps <= now) {
    std::function<void()> fn = timers_.top().fn;
    timers_.pop();
    fn();
    ++ran;
  }
  return ran;
}

void PortUlpHost::ClearTimers() {
  while (!timers_.empty()) timers_.pop();
}

Result<uint64_t> PortUlpHost::Map(uint64_t bytes) {
  const uint32_t shift = bytes >= (uint64_t{16} << 20) ? abi::kPageShift16M : abi::kPageShift64K;
  return rdma_.space().Map(bytes, shift);
}

}  // namespace nicsim::sim
