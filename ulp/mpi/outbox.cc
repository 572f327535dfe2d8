// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/outbox.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace nicsim::mpi {

Outbox::Outbox(ulp::Transport& transport, hal::TaskHost& host, CopyClock& cpu,
               RendezvousTable& rendezvous, const MpiConfig& config, MpiStats& stats)
    : transport_(transport),
      host_(host),
      cpu_(cpu),
      rendezvous_(rendezvous),
      config_(config),
      stats_(stats),
      staging_(host, 4096, &transport.registrations()) {}

void Outbox::Send(int dest_world, MessageKind kind, uint32_t context, uint32_t tag,
                  std::vector<uint8_t> bytes, std::function<void()> on_done) {
  waiting_.push_back(
      Outgoing{dest_world, kind, context, tag, std::move(bytes), std::move(on_done)});
  Drain();
}

void Outbox::SendAnnounced(int dest_world, uint32_t context, uint32_t tag,
                           std::vector<uint8_t> bytes, std::function<void()> on_done) {
  waiting_.push_back(Outgoing{dest_world, MessageKind::kRts, context, tag, std::move(bytes),
                              std::move(on_done), /*announce=*/true});
  Drain();
}

void Outbox::Drain() {
  while (!waiting_.empty()) {
    Outgoing& o = waiting_.front();
    if (Intranode(o.dest_world)) {
      // The path copies the bytes into memory the receiver reads (its own copy, on this
      // CPU, after the ones before it): no staging area.
      ++stats_.intranode_messages;
      const uint32_t dest = static_cast<uint32_t>(o.dest_world);
      const uint32_t wire = Wire(static_cast<uint32_t>(o.kind), o.context);
      cpu_.After([this, dest, wire, tag = o.tag, bytes = std::move(o.bytes),
                  on_done = std::move(o.on_done)]() mutable {
        intranode_->Send(dest, wire, tag, std::move(bytes), std::move(on_done));
      });
      waiting_.pop_front();
      continue;
    }
    const uint64_t need = std::max<uint64_t>(o.bytes.size(), 1);
    const uint64_t area = staging_.AreaBytes(need);
    // An announced message holds its area until a receive matches it, which may wait for a
    // message queued behind it: past its share of staging memory it waits in this layer
    // instead, offered by a request to send, and takes staging once cleared to send.
    if (o.announce && announced_staging_ + area > config_.announced_staging_bytes) {
      AskToSend(o);
      continue;
    }
    Result<uint64_t> staging = staging_.Take(need);
    if (!staging.ok() && o.announce) {
      AskToSend(o);
      continue;
    }
    // Out of staging memory: a send in flight gives its area back when it completes.
    if (!staging.ok()) {
      ++stats_.staging_waits;
      staging_wait_bytes_ = area;
      return;
    }
    staging_wait_bytes_ = 0;
    Outgoing sent = std::move(o);
    waiting_.pop_front();
    if (sent.announce) {
      announced_staging_ += area;
      sent.on_done = [this, area, on_done = std::move(sent.on_done)] {
        announced_staging_ -= area;
        if (on_done) on_done();
      };
    }
    SendStaged(*staging, sent.dest_world, sent.kind, sent.context, sent.tag, sent.bytes.data(),
               sent.bytes.size(), std::move(sent.on_done), sent.announce);
  }
}

void Outbox::AskToSend(Outgoing& o) {
  ++stats_.rendezvous_by_request;
  const uint64_t id = rendezvous_.NewId();
  const RtsPayload rts{o.bytes.size(), id};
  rendezvous_.AwaitClearToSend(id, PendingSend{std::move(o.on_done), o.dest_world, o.context,
                                               static_cast<int>(o.tag), std::move(o.bytes)});
  o.announce = false;
  o.bytes.resize(sizeof(rts));
  std::memcpy(o.bytes.data(), &rts, sizeof(rts));
  o.on_done = nullptr;
}

bool Outbox::SendNow(int dest_world, MessageKind kind, uint32_t context, uint32_t tag,
                     const uint8_t* data, size_t len) {
  // Only when nothing waits (messages keep their order) and staging memory is there now;
  // otherwise the caller packs the bytes and queues them (Send), which counts the wait.
  if (!waiting_.empty() || Intranode(dest_world)) return false;
  Result<uint64_t> staging = staging_.Take(std::max<uint64_t>(len, 1));
  if (!staging.ok()) return false;
  SendStaged(*staging, dest_world, kind, context, tag, data, len, nullptr);
  return true;
}

void Outbox::SendStaged(uint64_t vaddr, int dest_world, MessageKind kind, uint32_t context,
                        uint32_t tag, const uint8_t* data, size_t len,
                        std::function<void()> on_done, bool announce) {
  if (len > 0) host_.Write(vaddr, data, len);
  if (announce || kind == MessageKind::kEager || kind == MessageKind::kData) cpu_.Count(len);
  const uint32_t dest = static_cast<uint32_t>(dest_world);
  const uint32_t wire = Wire(static_cast<uint32_t>(kind), context);
  // The transport reads the staging area once the CPU has written it.
  cpu_.After([this, dest, wire, tag, vaddr, len = uint64_t{len}, on_done = std::move(on_done),
              announce]() mutable {
    auto sent = [this, vaddr, on_done = std::move(on_done)] {
      staging_.Give(vaddr);
      if (on_done) on_done();
      Drain();
    };
    if (announce) {
      transport_.Announce(dest, wire, tag, vaddr, len, std::move(sent));
    } else {
      transport_.Send(dest, wire, tag, vaddr, len, std::move(sent));
    }
  });
}

}  // namespace nicsim::mpi
