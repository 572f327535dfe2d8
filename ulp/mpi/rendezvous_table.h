// SPDX-License-Identifier: Apache-2.0
// The rendezvous messages in progress on one rank: its sends waiting for the receiver's clear
// to send, its receives waiting for the data they cleared, and the announced messages it
// accepted through the transport until their bytes come. A send's id is unique per sending
// rank, so a receiver keys what it waits for by (source world rank, id).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "ulp/mpi/request.h"

namespace nicsim::mpi {

/** A rendezvous send waiting for the receiver's clear-to-send. */
struct PendingSend {
  /** Completes the send's request once the data is delivered. */
  std::function<void()> on_done;
  int dest;
  uint32_t context;
  int tag;
  std::vector<uint8_t> data;
  /** Sent from the program's own buffer (AllocMem): its task address and length. */
  uint64_t vaddr = 0;
  uint64_t len = 0;
  /** Push-pull: the first `pushed` bytes went with the pushes; the rest follows the ack. */
  bool pushpull = false;
  uint64_t pushed = 0;
};

class RendezvousTable {
 public:
  /** The id of this rank's next rendezvous send. */
  uint64_t NewId() { return next_id_++; }

  /** Send `id` waits for its clear to send. */
  void AwaitClearToSend(uint64_t id, PendingSend send) { sends_[id] = std::move(send); }
  /** Send `id`, cleared to send; nullopt if there is none. */
  std::optional<PendingSend> TakeSend(uint64_t id) {
    auto it = sends_.find(id);
    if (it == sends_.end()) return std::nullopt;
    PendingSend s = std::move(it->second);
    sends_.erase(it);
    return s;
  }

  /** Receive `r` waits for the data of `source_world`'s send `id`. */
  void AwaitData(int source_world, uint64_t id, Request r) {
    receives_[{source_world, id}] = std::move(r);
  }
  /** The receive waiting for `source_world`'s send `id`, left waiting; null if none. */
  Request AwaitingData(int source_world, uint64_t id) const {
    auto it = receives_.find({source_world, id});
    return it == receives_.end() ? nullptr : it->second;
  }
  /** The receive waiting for `source_world`'s send `id`, no longer waiting; null if none. */
  Request TakeAwaitingData(int source_world, uint64_t id) {
    return Take(receives_, {source_world, id});
  }

  /** Receive `r` takes the announced message `seq` from `source_world` when it comes. */
  void AwaitAccepted(int source_world, uint32_t seq, Request r) {
    accepted_[{source_world, seq}] = std::move(r);
  }
  /** The receive announced message `seq` from `source_world` goes to; null if abandoned. */
  Request TakeAccepted(int source_world, uint32_t seq) {
    return Take(accepted_, {source_world, seq});
  }

  /** Forgets every receive waiting (their program was unwound). */
  void ForgetReceives() {
    receives_.clear();
    accepted_.clear();
  }

 private:
  template <typename Key>
  static Request Take(std::map<Key, Request>& map, const Key& key) {
    auto it = map.find(key);
    if (it == map.end()) return nullptr;
    Request r = std::move(it->second);
    map.erase(it);
    return r;
  }

  uint64_t next_id_ = 1;
  std::map<uint64_t, PendingSend> sends_;
  /** (source world rank, rendezvous id) -> the receive waiting for the data. */
  std::map<std::pair<int, uint64_t>, Request> receives_;
  /** (source world rank, transport seq) -> the receive an announced message was accepted
   *  into, until its bytes come. */
  std::map<std::pair<int, uint32_t>, Request> accepted_;
};

}  // namespace nicsim::mpi
