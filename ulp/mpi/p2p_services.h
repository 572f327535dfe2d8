// SPDX-License-Identifier: Apache-2.0
// What the point-to-point protocols of one rank share: its matching queues, its rendezvous
// table, its outbox, its CPU's copies, its AllocMem areas, and the steps every protocol's
// receiving side takes (keep a message no receive matched, unpack one into a receive, clear a
// sender to send).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "hal/task_host.h"
#include "ulp/mpi/alloc_mem_areas.h"
#include "ulp/mpi/blocker.h"
#include "ulp/mpi/copy_clock.h"
#include "ulp/mpi/matcher.h"
#include "ulp/mpi/mpi_config.h"
#include "ulp/mpi/mpi_stats.h"
#include "ulp/mpi/outbox.h"
#include "ulp/mpi/rendezvous_table.h"
#include "ulp/mpi/request.h"
#include "ulp/transport/transport.h"

namespace nicsim::mpi {

/** A collective message whose length differed from what this rank's call expected. */
struct CountMismatch {
  size_t received = 0;
  size_t expected = 0;
};

struct P2pServices {
  P2pServices(ulp::Transport& to_peers, hal::TaskHost& task, Blocker& blocker,
              const MpiConfig& settings, MpiStats& counters)
      : transport(to_peers),
        host(task),
        config(settings),
        stats(counters),
        cpu(task, blocker, settings.copy_ps_per_byte, counters),
        areas(task),
        outbox(to_peers, task, cpu, rendezvous, settings, counters) {}

  /** True if messages to and from `world` use push-pull (the same answer on both ranks). */
  bool PushPull(int world) const {
    return config.internode == InternodeTransport::kPushPull && !outbox.Intranode(world);
  }
  /** Keeps a message no receive matched, counted in the statistics. */
  void KeepUnexpected(UnexpectedMessage u);
  /** Receive `r` matched a message from `source_world` with `tag`: its status says so. */
  static void Matched(RequestState& r, int source_world, int tag) {
    r.status.source = r.group->RankOf(source_world);
    r.status.tag = tag;
  }
  /** Unpacks a message into r's buffer (a copy) and fills its status; not yet done. */
  void Deliver(RequestState& r, int source_world, int tag, const uint8_t* data, size_t bytes);
  /** Tells the sender of rendezvous `rdv_id` to send the data for `r` (not announced). */
  void ClearToSend(int source_world, uint64_t rdv_id, const Request& r);

  ulp::Transport& transport;
  hal::TaskHost& host;
  const MpiConfig& config;
  MpiStats& stats;
  CopyClock cpu;
  AllocMemAreas areas;
  Matcher matcher;
  RendezvousTable rendezvous;
  Outbox outbox;
  /** The first collective message since the last take whose length was not the expected. */
  std::optional<CountMismatch> count_mismatch;
};

}  // namespace nicsim::mpi
