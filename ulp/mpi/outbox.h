// SPDX-License-Identifier: Apache-2.0
// What one rank sends: every point-to-point message leaves through here, to the intranode
// path for a rank of the same node, else through a staging area of the task's memory to the
// transport. Messages keep their order; one that finds staging memory used up waits, with
// those behind it, until a send in flight gives its area back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "hal/task_host.h"
#include "ulp/mpi/copy_clock.h"
#include "ulp/mpi/intranode_path.h"
#include "ulp/mpi/mpi_config.h"
#include "ulp/mpi/mpi_stats.h"
#include "ulp/mpi/p2p_wire.h"
#include "ulp/mpi/rendezvous_table.h"
#include "ulp/transport/buffer_pool.h"
#include "ulp/transport/transport.h"

namespace nicsim::mpi {

class Outbox {
 public:
  Outbox(ulp::Transport& transport, hal::TaskHost& host, CopyClock& cpu,
         RendezvousTable& rendezvous, const MpiConfig& config, MpiStats& stats);

  /** Sends to the ranks `path` Reaches go through it (nullptr: every message uses the
   *  transport). */
  void UseIntranodePath(IntranodePath* path) { intranode_ = path; }
  IntranodePath* intranode() const { return intranode_; }
  /** True if messages to `world` go through the intranode path. */
  bool Intranode(int world) const {
    return intranode_ != nullptr && intranode_->Reaches(static_cast<uint32_t>(world));
  }
  /** Bytes of the staging area the first waiting message waits for (0: none waits). */
  uint64_t staging_wait_bytes() const { return staging_wait_bytes_; }

  /** Queues `bytes` for `dest_world`; `on_done` once delivered. */
  void Send(int dest_world, MessageKind kind, uint32_t context, uint32_t tag,
            std::vector<uint8_t> bytes, std::function<void()> on_done);
  /** Queues a rendezvous message's packed bytes for another node: the transport announces
   *  it, and the receiver pulls it once a receive matches. */
  void SendAnnounced(int dest_world, uint32_t context, uint32_t tag, std::vector<uint8_t> bytes,
                     std::function<void()> on_done);
  /**
   * Sends `len` bytes at `data` without packing them first, if nothing waits and staging
   * memory is there now; false (nothing done, nothing counted) otherwise.
   */
  bool SendNow(int dest_world, MessageKind kind, uint32_t context, uint32_t tag,
               const uint8_t* data, size_t len);

 private:
  /** A message waiting for staging memory. */
  struct Outgoing {
    int dest_world;
    MessageKind kind;
    uint32_t context;
    uint32_t tag;
    std::vector<uint8_t> bytes;
    std::function<void()> on_done;
    /** A rendezvous message the transport announces (Transport::Announce). */
    bool announce = false;
  };
  /** Hands waiting messages on, oldest first, while staging memory lasts. */
  void Drain();
  /** Turns waiting announced message `o` into a request to send (kRts) of its own bytes,
   *  which wait in the rendezvous table for the receiver's clear to send. */
  void AskToSend(Outgoing& o);
  /** Writes the bytes into the staging area at `vaddr` (a counted copy) and sends them (or
   *  announces them). */
  void SendStaged(uint64_t vaddr, int dest_world, MessageKind kind, uint32_t context, uint32_t tag,
                  const uint8_t* data, size_t len, std::function<void()> on_done,
                  bool announce = false);

  ulp::Transport& transport_;
  hal::TaskHost& host_;
  CopyClock& cpu_;
  RendezvousTable& rendezvous_;
  const MpiConfig& config_;
  MpiStats& stats_;
  /** Where messages to ranks of this node go instead of the transport (nullptr: nowhere). */
  IntranodePath* intranode_ = nullptr;
  /** Staging areas sends are copied into, in the task's address space. */
  ulp::BufferPool staging_;
  /** Messages waiting for staging memory, in the order they were sent. */
  std::deque<Outgoing> waiting_;
  /** staging_wait_bytes(). */
  uint64_t staging_wait_bytes_ = 0;
  /** Staging bytes held by announced messages not yet pulled (config announced_staging_bytes
   *  bounds it). */
  uint64_t announced_staging_ = 0;
};

}  // namespace nicsim::mpi
