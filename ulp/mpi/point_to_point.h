// SPDX-License-Identifier: Apache-2.0
// One rank's point-to-point messaging: sends and receives with MPI's matching (the queues are
// a Matcher's), each message carried by a protocol picked for it (p2p_protocol.h: eager below
// the eager limit, rendezvous above it or when synchronous, push-pull to other nodes with
// mpi.internode=pushpull), and every message leaving through one outbox. What arrives, from
// the transport or the intranode path, is routed to the protocol that sent it, or, in a
// window's context, to the one-sided windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "hal/task_host.h"
#include "ulp/mpi/blocker.h"
#include "ulp/mpi/datatype.h"
#include "ulp/mpi/eager_protocol.h"
#include "ulp/mpi/intranode_path.h"
#include "ulp/mpi/mpi_config.h"
#include "ulp/mpi/mpi_stats.h"
#include "ulp/mpi/one_sided.h"
#include "ulp/mpi/p2p_services.h"
#include "ulp/mpi/push_pull_protocol.h"
#include "ulp/mpi/rendezvous_protocol.h"
#include "ulp/mpi/request.h"
#include "ulp/transport/transport.h"

namespace nicsim::mpi {

class PointToPoint {
 public:
  /** Receives what `transport` delivers to this rank until it goes. */
  PointToPoint(ulp::Transport& transport, hal::TaskHost& host, Blocker& blocker,
               const MpiConfig& config, MpiStats& stats);
  ~PointToPoint();
  PointToPoint(const PointToPoint&) = delete;
  PointToPoint& operator=(const PointToPoint&) = delete;

  /** Sends to the ranks `path` Reaches go through it, and what it delivers is received like a
   *  transport delivery (nullptr: every message uses the transport). */
  void UseIntranodePath(IntranodePath* path);
  uint64_t staging_wait_bytes() const { return s_.outbox.staging_wait_bytes(); }
  /** An AllocMem area (AllocMemAreas::Alloc). */
  void* AllocMem(size_t bytes) { return s_.areas.Alloc(bytes); }
  /** The rank's CPU copies, which collectives count too. */
  CopyClock& cpu() { return s_.cpu; }
  /** What the protocols share (the one-sided windows use it too). */
  P2pServices& services() { return s_; }
  /** Where traffic in windows' contexts goes (nullptr: there is none). */
  void UseWindows(WindowTraffic* windows) { windows_ = windows; }

  /** Starts a send of `count` elements of `type` at `buf` to `dest_world`. */
  Request Send(const void* buf, size_t count, const Datatype& type, int dest_world, int tag,
               uint32_t context, bool synchronous);
  /** Starts a receive from `source` (a rank of `comm`, or kAnySource) in `context`. */
  Request Recv(void* buf, size_t count, const Datatype& type, int source, int tag, uint32_t context,
               const Comm& comm);
  /** The status of the oldest unreceived message that matches, if one has arrived. */
  std::optional<Status> Iprobe(int source, int tag, const Comm& comm) const;
  /** Cancels receive `r` if no message matched it yet (Mpi::CancelRecv). */
  bool CancelRecv(const Request& r);
  /** Forgets every receive posted or waiting for its data. */
  void ForgetReceives();
  size_t unexpected_queued() const { return s_.matcher.unexpected_queued(); }
  /** The first collective message of a different length than expected since the last take. */
  std::optional<CountMismatch> TakeCountMismatch();

 private:
  /** A message from the transport or the intranode path. */
  void OnMessage(uint32_t src, uint32_t wire_context, uint32_t tag, std::vector<uint8_t> data);
  /** The protocol that carries rendezvous and its handshake between this rank and `world`. */
  P2pProtocol& HandshakeProtocolFor(int world) {
    return s_.PushPull(world) ? static_cast<P2pProtocol&>(push_pull_) : rendezvous_;
  }

  P2pServices s_;
  EagerProtocol eager_;
  RendezvousProtocol rendezvous_;
  PushPullProtocol push_pull_;
  WindowTraffic* windows_ = nullptr;
};

}  // namespace nicsim::mpi
