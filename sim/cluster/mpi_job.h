// SPDX-License-Identifier: Apache-2.0
// An MPI job on a simulated cluster: one rank per window (rank r on node r % nodes, window
// r / nodes, on every adapter of its node: the transport stripes over them), each with its
// reliable transport and MPI object, and each running the job's program in its own context (an
// OS thread or a user-level context: mpi.scheduler). Only one runs at a time: a rank that waits
// hands control back to the event loop, which resumes ranks (in rank order) whose wait is over,
// so a run is deterministic for a seed. The loop re-checks only ranks something happened to.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/dirty_ranks.h"
#include "sim/cluster/job_stop.h"
#include "sim/cluster/rank_scheduler.h"
#include "ulp/mpi/mpi.h"
#include "ulp/mpi/postbox_path.h"
#include "ulp/mpi/pushpull_path.h"
#include "ulp/transport/registration_cache.h"
#include "ulp/transport/transport.h"

namespace nicsim::sim {

struct MpiJobConfig {
  ClusterConfig cluster;
  uint32_t ranks = 2;
  ulp::TransportConfig transport;
  mpi::MpiConfig mpi;
  /**
   * Host CPU time per byte of a copy of message data, the inverse of the host's copy
   * bandwidth (0: copies are free). Each rank's transport and MPI layer are given it.
   */
  double copy_ps_per_byte = 0;
  /** mpi.intranode=postbox: the protocol's sizes. */
  ulp::postbox::Params postbox;
  /** The push-pull protocol's mode and sizes (mpi.intranode=pushpull and, mode and BTP sizes,
   *  mpi.internode=pushpull: each rank's MpiConfig::pushpull is this). */
  ulp::pushpull::Params pushpull;
  /** mpi.intranode=postbox or pushpull: from a store on one CPU until another CPU polling the
   *  line sees it (a cache-line transfer between the node's processors). */
  uint64_t cache_line_transfer_ps = 100'000;
  /** Seconds a registered fragment may idle before the cache deregisters it. */
  uint32_t registration_idle_s = 10;
  /** How ranks run: user-level contexts (the faster) or OS threads. */
  RankSchedulerKind scheduler = RankSchedulerKind::kContexts;
};

class MpiJob {
 public:
  static Result<std::unique_ptr<MpiJob>> Create(const MpiJobConfig& config);
  ~MpiJob();
  const MpiJobConfig& config() const { return config_; }

  using Program = std::function<void(mpi::Mpi& mpi)>;
  /**
   * Runs `program` on every rank until all return. A run after the first starts a lookahead
   * (distrib::LookaheadOf) after the last rank of the one before returned, once every event
   * before that instant has run: the same instant however the cluster is split over
   * processes, which learn that the last rank returned only at a window's end. An error
   * when the job cannot finish: ranks wait with no event left (a deadlock), a transport gave up on
   * an unreachable rank (the error names the ranks and messages), simulated time passed
   * run.time_limit, or the nodes touched more host memory than host.touched_limit.
   */
  Status Run(const Program& program);
  /** True if rank `r` runs in this process (always, unless the run is split over processes:
   *  then only the ranks of this partition's nodes run here). */
  bool IsLocal(uint32_t r) const;

  /**
   * From a rank's program: the job cannot succeed (`why` says what happened, "rank N ...").
   * The other ranks run on to the end of the window, as those of other processes would; then
   * Run unwinds them and returns every failure of that window, in rank order, as its error.
   */
  void Fail(std::string why);
  /** From rank `rank`'s program: lets `ps` of simulated time pass (its computing). */
  void Sleep(uint32_t rank, uint64_t ps);
  /**
   * A wall-clock time by which Run must be done: once it has passed, the job fails with `why`
   * at the end of the window it is in, however long the simulator has been busy without
   * hearing from a rank. `deadline` nullopt: none.
   */
  void SetWallDeadline(std::optional<std::chrono::steady_clock::time_point> deadline,
                       std::string why) {
    wall_deadline_ = deadline;
    wall_why_ = std::move(why);
  }

  Cluster& cluster() { return *cluster_; }
  uint32_t ranks() const { return static_cast<uint32_t>(ranks_.size()); }
  ulp::Transport& transport(uint32_t rank) { return *ranks_[rank]->transport; }
  mpi::Mpi& mpi(uint32_t rank) { return *ranks_[rank]->mpi; }
  ulp::RegistrationCache& registrations(uint32_t rank) { return *ranks_[rank]->regs; }
  /** Rank `rank`'s shared-memory path to its node's ranks (nullptr: mpi.intranode=adapter). */
  const mpi::PostboxPath* postbox(uint32_t rank) const { return ranks_[rank]->postbox.get(); }
  /** Rank `rank`'s push-pull path to its node's ranks (nullptr unless mpi.intranode=pushpull). */
  const mpi::PushPullPath* pushpull(uint32_t rank) const { return ranks_[rank]->pushpull.get(); }
  /** The window rank `rank` uses on the `port`-th adapter of its node. */
  hal::Peer PeerOf(uint32_t rank, uint32_t port = 0) const;

 private:
  explicit MpiJob(const MpiJobConfig& config);
  class RankBlocker;
  class RankClock;
  struct Rank {
    std::vector<std::unique_ptr<hal::Port>> ports;
    /** The rank's timers: they mark it dirty when they fire. */
    std::unique_ptr<kernel::Clock> clock;
    std::unique_ptr<hal::TaskHost> host;
    std::unique_ptr<ulp::RegistrationCache> regs;
    std::unique_ptr<ulp::Transport> transport;
    std::unique_ptr<RankBlocker> blocker;
    std::unique_ptr<mpi::PostboxPath> postbox;
    std::unique_ptr<mpi::PushPullPath> pushpull;
    std::unique_ptr<mpi::Mpi> mpi;
    /** While the rank waits: what it waits for (on its own stack, in Block). */
    const std::function<bool()>* ready = nullptr;
    bool started = false;
    bool finished = false;
    /** In Sleep: the rank's CPU runs its program (computing, or polling in a loop). */
    bool computing = false;
    /** CPU time taken from the rank's computing (early-interrupt polls) not yet made up. */
    uint64_t cpu_taken_ps = 0;
  };
  /** The CPU of the rank on (adapter, window): idle unless the rank computes (Sleep). */
  HostCpu RankCpu(uint32_t adapter, uint32_t window);
  /** The shared-memory engines' node state, one per node (mpi.intranode postbox, pushpull). */
  Status MakeIntranodeNodes();
  /** Rank `r`: its ports, clock, task host, transport, MPI and intranode path. */
  Status AddRank(uint32_t r);
  /** Rank `r`'s transport on `ports`, with its failure reports and its windows' recovery. */
  void MakeTransport(uint32_t r, Rank& rank, std::vector<hal::Port*> ports);
  /** Called from a rank's program: hands control back to the event loop until `ready` holds. */
  void Block(uint32_t rank, const std::function<bool()>& ready);
  /** Tells the rank's endpoints that its CPU went from idle to busy or back. */
  void CpuStateChanged(uint32_t rank);
  /** Resumes, in ascending order, the marked ranks whose wait is over; true if any ran. */
  bool ResumeReadyRanks();
  /**
   * Hands control to rank `r` until it waits or ends. It runs as its node's event owner, so
   * what it schedules is keyed by the node (docs/architecture.md, "Event order").
   */
  void ResumeRank(uint32_t r);
  /**
   * Run() after its ranks started: this process's ranks, window by window (with the other
   * processes of a split run; the ready ranks resumed between events), to the end of the
   * window in which the last rank returned. A failure, a transport that gave up, the time
   * limit or the touched-memory limit stops the job at the end of the window it happened in,
   * split or not, so one process gives a split run's results.
   */
  Status RunInWindows();
  /** Before a run after the first: runs every event before its start, window by window,
   *  then sets the clock there. */
  Status ReachNextStart();
  /**
   * Abandon with the error every process composes alike from `stop` (AgreeOnStop): the
   * failures found, else a deadlock if the windows ran out of events (`run` ok), else the
   * time limit, else `run`'s own error.
   */
  Status AbandonAgreed(const JobStop& stop, const Status& run);
  /** Unwinds every rank still running and returns `why` as the job's error. */
  Status Abandon(const std::string& why);
  /** Waits for (threads) or frees (contexts) every rank's finished context. */
  void ReapAll();
  /** Records that `rank`'s transport gave up on `dest` and the messages that failed. */
  void NoteUnreachable(uint32_t rank, uint32_t dest, const std::vector<ulp::FailedMessage>& failed);
  /** Rank `rank`'s transport gave up on a group message or signal (it stalls the job). */
  void NoteGaveUpOnBroadcast(uint32_t rank, const std::string& why);
  /** The ranks that have not finished (a split run: of this partition). */
  std::vector<uint32_t> UnfinishedRanks() const;
  /** What this process knows of why its ranks stopped (a split run agrees on it). */
  JobStop LocalStop() const;
  /** Some of this process's ranks still wait and its clock has passed run.time_limit. */
  bool RanksWaitPastTimeLimit() const;
  /** Why the job cannot finish, once a transport has given up on a rank: one reason per
   *  (rank, peer) given up on (empty: it can). */
  std::vector<std::string> unreachable_;
  /** Why ranks' programs said the job failed, in the order they did (empty: none did). */
  std::vector<std::string> failed_;
  /** When the first of failed_ or unreachable_ was found (UINT64_MAX: neither yet). */
  uint64_t first_failure_ps_ = UINT64_MAX;

  MpiJobConfig config_;
  std::optional<std::chrono::steady_clock::time_point> wall_deadline_;
  std::string wall_why_;
  bool wall_deadline_passed_ = false;
  std::unique_ptr<Cluster> cluster_;
  /** mpi.intranode=postbox: what each node's ranks share (before ranks_: they outlive it). */
  std::vector<std::unique_ptr<mpi::PostboxNode>> postbox_nodes_;
  /** mpi.intranode=pushpull: the same for the push-pull paths. */
  std::vector<std::unique_ptr<mpi::PushPullNode>> pushpull_nodes_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::unique_ptr<RankScheduler> scheduler_;
  /** Ranks whose readiness may have changed: a frame or a timer of theirs ran. */
  DirtyRanks dirty_;
  uint32_t unfinished_ = 0;
  /** When this process's last rank of the current run returned. */
  uint64_t last_finish_ps_ = 0;
  /** Where the next run starts (set when a run ends well); nullopt before the first. */
  std::optional<uint64_t> next_start_ps_;
  /** Set while Abandon or the destructor unwinds the ranks: Block throws. */
  bool abort_ = false;
};

}  // namespace nicsim::sim
