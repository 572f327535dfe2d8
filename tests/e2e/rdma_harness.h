// SPDX-License-Identifier: Apache-2.0
// A cluster with RDMA on, driven straight through the HAL: registered buffers with canary
// bytes around them, rCxts, posted requests, and every frame each window receives.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <memory>
#include <utility>
#include <vector>

#include "abi/fifo.h"
#include "abi/rdma.h"
#include "base/rng.h"
#include "sim/cluster/cluster.h"

namespace nicsim::sim {

/** A registered buffer in a node's job address space. */
struct RdmaBuffer {
  uint32_t node = 0;
  /** First registered byte; canaries lie before and after. */
  uint64_t vaddr = 0;
  uint64_t len = 0;
  driver::Registration reg;
  uint64_t pvo() const { return reg.pvo; }
};

/** A frame a window received, copied out of the FIFO. */
struct Received {
  /** Simulated time the receiving process saw the frame. */
  uint64_t time_ps = 0;
  abi::RecvFrameHeader header;
  std::vector<uint8_t> payload;
  abi::CompletionRecord completion() const {
    abi::CompletionRecord r{};
    if (payload.size() >= sizeof(r)) std::memcpy(&r, payload.data(), sizeof(r));
    return r;
  }
};

inline constexpr uint8_t kCanary = 0xC5;
inline constexpr uint64_t kCanaryBytes = 256;

class RdmaHarness {
 public:
  explicit RdmaHarness(ClusterConfig config) {
    if (config.rdma_host_bytes == 0) config.rdma_host_bytes = uint64_t{48} << 20;
    if (config.microcode.rcxts == abi::kDefaultRcxts) config.microcode.rcxts = 4096;
    Result<std::unique_ptr<Cluster>> c = Cluster::Create(config);
    NICSIM_CHECK(c.ok(), "cluster: %s", c.status().message().c_str());
    cluster_ = std::move(*c);
    for (WindowProcess* ep : cluster_->endpoints()) {
      const WindowAddr at = ep->addr();
      ep->OnReceive([this, at](const hal::RecvPacket& p) {
        Received r;
        r.time_ps = cluster_->events().now_ps();
        r.header = p.header;
        r.payload.assign(p.payload, p.payload + p.header.len_bytes);
        inbox_[{at.adapter, at.window}].push_back(std::move(r));
      });
    }
  }

  Cluster& cluster() { return *cluster_; }

  /**
   * Maps `len` bytes (plus canaries) on `node` with pages of 2^page_shift bytes at byte
   * `align` into the first page, fills them with `fill`, and registers the middle `len`.
   */
  RdmaBuffer Alloc(uint32_t node, uint64_t len, uint32_t page_shift = abi::kPageShift4K,
                   uint64_t align = 0, uint8_t fill = 0, uint32_t fixed_key = 0) {
    host::AddressSpace& space = cluster_->address_space(node);
    const uint64_t total = align + kCanaryBytes + len + kCanaryBytes;
    Result<uint64_t> base = space.Map(total, page_shift);
    NICSIM_CHECK(base.ok(), "map: %s", base.status().message().c_str());
    std::vector<uint8_t> bytes(total, kCanary);
    std::fill(bytes.begin() + align + kCanaryBytes, bytes.begin() + align + kCanaryBytes + len,
              fill);
    space.Write(*base, bytes.data(), total);
    RdmaBuffer b;
    b.node = node;
    b.vaddr = *base + align + kCanaryBytes;
    b.len = len;
    {
      // A zero-length buffer still gets a valid PVO: one registered byte (a canary byte).
      Result<driver::Registration> reg = cluster_->tce_tables(node).Register(
          cluster_->job_key(), space, b.vaddr, std::max<uint64_t>(len, 1), fixed_key);
      NICSIM_CHECK(reg.ok(), "register: %s", reg.status().message().c_str());
      b.reg = *reg;
    }
    canaried_.push_back(b);
    return b;
  }

  void Write(const RdmaBuffer& b, uint64_t offset, const std::vector<uint8_t>& data) {
    ASSERT_TRUE(cluster_->address_space(b.node).Write(b.vaddr + offset, data.data(), data.size()));
  }
  std::vector<uint8_t> Read(const RdmaBuffer& b, uint64_t offset, uint64_t len) {
    std::vector<uint8_t> out(len);
    EXPECT_TRUE(cluster_->address_space(b.node).Read(b.vaddr + offset, out.data(), len));
    return out;
  }
  /** Seeded random bytes. */
  static std::vector<uint8_t> Pattern(uint64_t len, uint64_t seed) {
    Rng rng(seed, "rdma_pattern");
    std::vector<uint8_t> out(len);
    for (auto& b : out) b = static_cast<uint8_t>(rng.Next());
    return out;
  }
  /** True if every canary byte of every buffer allocated so far is intact. */
  bool CanariesIntact() {
    for (const RdmaBuffer& b : canaried_) {
      std::vector<uint8_t> before(kCanaryBytes), after(kCanaryBytes);
      host::AddressSpace& space = cluster_->address_space(b.node);
      if (!space.Read(b.vaddr - kCanaryBytes, before.data(), kCanaryBytes)) return false;
      if (!space.Read(b.vaddr + b.len, after.data(), kCanaryBytes)) return false;
      for (uint8_t x : before)
        if (x != kCanary) return false;
      for (uint8_t x : after)
        if (x != kCanary) return false;
    }
    return true;
  }

  /** An rCxt of (adapter, window). */
  uint32_t Rcxt(uint32_t adapter, uint32_t window = 0) {
    Result<uint32_t> r = cluster_->rcxts(adapter).Acquire(window);
    NICSIM_CHECK(r.ok(), "rcxt: %s", r.status().message().c_str());
    return *r;
  }

  /** Posts one request from (adapter, window) and rings StartTransmit. Returns the slot. */
  uint64_t Post(uint32_t adapter, uint32_t window, abi::SlotType type, uint16_t dest_adapter,
                uint16_t dest_window, const abi::RdmaRequest& req, uint32_t ulp_word = 0,
                const void* piece = nullptr, uint32_t piece_len = 0) {
    hal::SendFifo& fifo = cluster_->endpoint(adapter, window).window().send();
    uint64_t seq = 0;
    const hal::SendResult r =
        fifo.PostRequest(type, dest_adapter, dest_window, req, ulp_word, piece, piece_len, &seq);
    NICSIM_CHECK(r == hal::SendResult::kOk, "post failed: %d", static_cast<int>(r));
    fifo.Flush();
    return seq;
  }
  abi::SendSlotHeader Slot(uint32_t adapter, uint32_t window, uint64_t seq) {
    return cluster_->endpoint(adapter, window).window().send().SlotHeader(seq);
  }

  /** Runs the simulation until nothing is left to do (or `limit_ps` of simulated time). */
  void Run(uint64_t limit_ps = uint64_t{20} * 1'000'000'000'000ull) {
    kernel::EventQueue& q = cluster_->events();
    q.RunWhile([&] { return q.now_ps() < limit_ps; });
  }

  std::vector<Received>& Inbox(uint32_t adapter, uint32_t window = 0) {
    return inbox_[{adapter, window}];
  }
  /** Completion records a window received, in order. */
  std::vector<abi::CompletionRecord> Completions(uint32_t adapter, uint32_t window = 0) {
    std::vector<abi::CompletionRecord> out;
    for (const Received& r : Inbox(adapter, window)) {
      if (r.header.type == static_cast<uint8_t>(abi::PacketType::kRdmaCompletion)) {
        out.push_back(r.completion());
      }
    }
    return out;
  }

  /** Every nonzero drop counter of every adapter, for failure messages. */
  std::string DropReport() {
    std::string out;
    for (uint32_t a = 0; a < cluster_->adapter_count(); ++a) {
      for (size_t r = 0; r < static_cast<size_t>(fw::DropReason::kCount); ++r) {
        const uint64_t n = fw(a).drops[r];
        if (n > 0) {
          out += "adapter " + std::to_string(a) + " " +
                 std::string(fw::ToString(static_cast<fw::DropReason>(r))) + "=" +
                 std::to_string(n) + "\n";
        }
      }
    }
    return out;
  }

  const fw::Counters& fw(uint32_t adapter) {
    return cluster_->adapter(adapter).firmware_counters();
  }
  uint64_t Drops(uint32_t adapter, fw::DropReason reason) { return fw(adapter).drop(reason); }

 private:
  std::unique_ptr<Cluster> cluster_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Received>> inbox_;
  std::vector<RdmaBuffer> canaried_;
};

/** A request with the common fields filled. */
inline abi::RdmaRequest Request(uint32_t local_rcxt, uint32_t remote_rcxt, uint32_t tid,
                                uint64_t local_pvo, uint64_t remote_pvo, uint32_t length,
                                uint8_t flags) {
  abi::RdmaRequest r{};
  r.local_rcxt = local_rcxt;
  r.remote_rcxt = remote_rcxt;
  r.tid = tid;
  r.local_pvo = local_pvo;
  r.remote_pvo = remote_pvo;
  r.length = length;
  r.flags = flags;
  return r;
}

}  // namespace nicsim::sim
