// SPDX-License-Identifier: Apache-2.0
// A cluster with one transport task per node (window 0 of adapter 0 of each node), a
// read-only source buffer of seeded bytes per node that messages are slices of, and a
// receiver check: every message exactly once, in order per source, with its exact bytes.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/crc32.h"
#include "base/rng.h"
#include "sim/cluster/cluster.h"
#include "ulp/transport/transport.h"

namespace nicsim::sim {

struct TransportCell {
  uint32_t nodes = 4;
  uint64_t messages = 400;
  uint64_t max_size = 8u << 20;
  double loss = 0, duplicate = 0, reorder = 0, corrupt = 0;
  uint32_t paths = 1;
  /** Take path 0 down at this fraction of the sends and up again later (0: never). */
  bool path_flap = false;
  /** Recover adapter 1 after this many messages were delivered (0: never). */
  uint64_t recover_after = 0;
  uint64_t seed = 1;
  bool rdma = true;
  /** Mostly small messages (the fault matrix): 60% < 2 KiB, 27% < 64 KiB, 12% < 1 MiB,
   *  1% up to max_size. Otherwise a quarter each up to 64 B, 16 KiB, 512 KiB, max_size. */
  bool small_heavy = false;
  /** Changes the transport settings (e.g. ulp.eager_rdma) before the tasks are made. */
  std::function<void(ulp::TransportConfig&)> tune;
};

class TransportHarness {
 public:
  static constexpr uint64_t kSourceBytes = 8u << 20;

  explicit TransportHarness(const TransportCell& cell) : cell_(cell) {
    ClusterConfig c;
    c.backend = BackendKind::kFunc;
    c.nodes = cell.nodes;
    c.seed = cell.seed;
    c.fabric.loss = cell.loss;
    c.fabric.duplicate = cell.duplicate;
    c.fabric.reorder = cell.reorder;
    c.fabric.corrupt = cell.corrupt;
    c.fabric.paths = cell.paths;
    c.fabric.routing = cell.paths > 1 ? RoutingPolicy::kRoundRobin : RoutingPolicy::kFixed;
    c.microcode.rcxts = 4096;
    c.recv_frames = 512;
    c.rdma_host_bytes = uint64_t{200} << 20;
    Result<std::unique_ptr<Cluster>> made = Cluster::Create(c);
    NICSIM_CHECK(made.ok(), "cluster: %s", made.status().message().c_str());
    cluster_ = std::move(*made);
    ulp::TransportConfig tc;
    tc.rdma = cell.rdma;
    if (cell.tune) cell.tune(tc);
    for (uint32_t n = 0; n < cell.nodes; ++n) {
      Task t;
      t.port = cluster_->MakePort(n, 0);
      t.host = cluster_->MakeTaskHost(n);
      t.regs = std::make_unique<ulp::RegistrationCache>(*t.host, 10);
      tc.task = n;
      t.transport =
          std::make_unique<ulp::Transport>(*t.host, *t.port, *t.regs, tc, [](uint32_t task) {
            return hal::Peer{static_cast<uint16_t>(task), 0};
          });
      // The source buffer: seeded bytes on 16 MiB pages (few TCEs, registered lazily).
      Result<uint64_t> v = cluster_->address_space(n).Map(kSourceBytes, 24);
      NICSIM_CHECK(v.ok(), "map");
      t.source = *v;
      std::vector<uint8_t> bytes(kSourceBytes);
      Rng rng(cell.seed * 100 + n, "transport_source");
      for (auto& b : bytes) b = static_cast<uint8_t>(rng.Next());
      cluster_->address_space(n).Write(t.source, bytes.data(), bytes.size());
      t.bytes = std::move(bytes);
      const uint32_t me = n;
      t.transport->OnDeliver(
          [this, me](uint32_t src, uint32_t context, uint32_t tag, std::vector<uint8_t> data) {
            OnDelivered(src, me, context, tag, std::move(data));
          });
      tasks_.push_back(std::move(t));
    }
  }

  /** Sends the cell's messages (random pairs, sizes, offsets) and runs to completion. */
  void Run() {
    Rng rng(cell_.seed, "transport_traffic");
    for (uint64_t i = 0; i < cell_.messages; ++i) {
      const auto src = static_cast<uint32_t>(rng.Below(cell_.nodes));
      auto dst = static_cast<uint32_t>(rng.Below(cell_.nodes - 1));
      if (dst >= src) ++dst;
      uint64_t len;
      if (cell_.small_heavy) {
        const uint64_t r = rng.Below(100);
        len = r < 60   ? rng.Below(2048)
              : r < 87 ? rng.Below(64 * 1024)
              : r < 99 ? rng.Below(1 << 20)
                       : rng.Below(cell_.max_size + 1);
      } else {
        switch (rng.Below(4)) {
          case 0:
            len = rng.Below(64);
            break;
          case 1:
            len = rng.Below(16 * 1024);
            break;
          case 2:
            len = rng.Below(512 * 1024);
            break;
          default:
            len = rng.Below(cell_.max_size + 1);
            break;
        }
      }
      len = std::min<uint64_t>(len, kSourceBytes);
      const uint64_t offset = rng.Below(kSourceBytes - len + 1);
      Expect e{src, dst, offset, len};
      const uint32_t tag = static_cast<uint32_t>(sent_[{src, dst}]++);
      expected_[{src, dst}].push_back(e);
      tasks_[src].transport->Send(dst, 7, tag, tasks_[src].source + offset, len,
                                  [this] { ++done_; });
    }
    kernel::EventQueue& q = cluster_->events();
    bool flapped = false, recovered = false;
    q.RunWhile([&] {
      if (cell_.path_flap && !flapped && delivered_ >= cell_.messages / 4) {
        cluster_->fabric().SetPathDown(0, true);
        flapped = true;
        q.After(3'000'000'000ull, [this] { cluster_->fabric().SetPathDown(0, false); });
      }
      if (cell_.recover_after > 0 && !recovered && delivered_ >= cell_.recover_after) {
        recovered = true;
        NICSIM_CHECK(cluster_->RecoverAdapter(1).ok(), "recover");
        tasks_[1].transport->Reattach();
      }
      return done_ < cell_.messages || delivered_ < cell_.messages;
    });
  }

  /** One vector send from src to dst, each (offset, len) of src's source buffer an element,
   *  checked like Run's messages (every element carries the vector's first tag). */
  void SendVector(uint32_t src, uint32_t dst,
                  const std::vector<std::pair<uint64_t, uint64_t>>& parts) {
    std::vector<ulp::Transport::Element> elements;
    for (const auto& [offset, len] : parts) {
      ++sent_[{src, dst}];
      expected_[{src, dst}].push_back(Expect{src, dst, offset, len});
      ++expected_total_;
      elements.push_back({tasks_[src].source + offset, len});
    }
    const auto first = static_cast<uint32_t>(sent_[{src, dst}] - parts.size());
    vector_tags_[{src, dst}].push_back({first, static_cast<uint32_t>(parts.size())});
    tasks_[src].transport->SendVector(dst, 7, first, elements, [this] { ++vectors_done_; });
  }
  /** One message of `len` bytes at `offset` of src's source buffer, checked like Run's. */
  void SendOne(uint32_t src, uint32_t dst, uint64_t offset, uint64_t len) {
    const uint32_t tag = static_cast<uint32_t>(sent_[{src, dst}]++);
    expected_[{src, dst}].push_back(Expect{src, dst, offset, len});
    ++expected_total_;
    tasks_[src].transport->Send(dst, 7, tag, tasks_[src].source + offset, len, [this] { ++done_; });
  }
  /** Runs until every message sent by SendOne and SendVector arrived and every transport is
   *  idle (its handshakes answered), or nothing is left to run. */
  void Settle() {
    cluster_->events().RunWhile([&] {
      if (delivered_ < expected_total_) return true;
      for (const Task& t : tasks_) {
        if (!t.transport->Idle()) return true;
      }
      return false;
    });
  }
  /** Runs the simulation for `ps` more picoseconds. */
  void RunFor(uint64_t ps) {
    bool due = false;
    cluster_->events().After(ps, [&due] { due = true; });
    cluster_->events().RunWhile([&] { return !due; });
  }
  hal::Port& port(uint32_t n) { return *tasks_[n].port; }
  hal::TaskHost& host(uint32_t n) { return *tasks_[n].host; }
  uint64_t vectors_done() const { return vectors_done_; }

  Cluster& cluster() { return *cluster_; }
  const TransportCell& cell() const { return cell_; }
  ulp::Transport& transport(uint32_t n) { return *tasks_[n].transport; }
  /** Virtual address of node n's seeded source buffer (kSourceBytes). */
  uint64_t source(uint32_t n) const { return tasks_[n].source; }
  /** The bytes of that buffer. */
  const std::vector<uint8_t>& source_bytes(uint32_t n) const { return tasks_[n].bytes; }
  uint64_t delivered() const { return delivered_; }
  uint64_t done() const { return done_; }
  const std::vector<std::string>& errors() const { return errors_; }
  uint64_t bytes_delivered() const { return bytes_; }

 private:
  struct Task {
    std::unique_ptr<hal::Port> port;
    std::unique_ptr<hal::TaskHost> host;
    std::unique_ptr<ulp::RegistrationCache> regs;
    std::unique_ptr<ulp::Transport> transport;
    uint64_t source = 0;
    std::vector<uint8_t> bytes;
  };
  struct Expect {
    uint32_t src, dst;
    uint64_t offset, len;
  };
  void OnDelivered(uint32_t src, uint32_t dst, uint32_t context, uint32_t tag,
                   std::vector<uint8_t> data) {
    ++delivered_;
    bytes_ += data.size();
    uint64_t& next = received_[{src, dst}];
    const auto& list = expected_[{src, dst}];
    // An element of a vector send carries the vector's first tag.
    for (const auto& [first, count] : vector_tags_[{src, dst}]) {
      if (tag == first && next >= first && next < first + count) tag = static_cast<uint32_t>(next);
    }
    if (tag != next || tag >= list.size()) {
      Error("message " + std::to_string(src) + "->" + std::to_string(dst) + " tag " +
            std::to_string(tag) + " arrived when " + std::to_string(next) + " was due");
      return;
    }
    ++next;
    const Expect& e = list[tag];
    const uint8_t* want = tasks_[src].bytes.data() + e.offset;
    if (context != 7 || data.size() != e.len ||
        Crc32(0, data.data(), data.size()) != Crc32(0, want, e.len)) {
      Error("message " + std::to_string(src) + "->" + std::to_string(dst) + " tag " +
            std::to_string(tag) + " (" + std::to_string(e.len) + " B) arrived damaged");
    }
  }
  void Error(std::string s) {
    if (errors_.size() < 10) errors_.push_back(std::move(s));
  }

  TransportCell cell_;
  std::unique_ptr<Cluster> cluster_;
  std::vector<Task> tasks_;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> sent_;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> received_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Expect>> expected_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint32_t, uint32_t>>> vector_tags_;
  uint64_t expected_total_ = 0;
  uint64_t vectors_done_ = 0;
  uint64_t delivered_ = 0;
  uint64_t done_ = 0;
  uint64_t bytes_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace nicsim::sim
