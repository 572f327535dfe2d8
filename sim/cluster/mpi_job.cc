// SPDX-License-Identifier: Apache-2.0
#include "sim/cluster/mpi_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/packed_region.h"
#include "sim/cluster/mpi_link_model.h"
#include "sim/distrib/split_run.h"

namespace nicsim::sim {
namespace {
/** Thrown in a rank's program to unwind it when the job is abandoned; caught in its entry,
 *  on the rank's own stack (an exception must not cross a context switch). */
struct Abandoned {};
/** Events between full sweeps of every unfinished rank (a fallback: see Run). */
constexpr uint64_t kSweepAllEvents = 0x10000;
}  // namespace

class MpiJob::RankBlocker final : public mpi::Blocker {
 public:
  RankBlocker(MpiJob& job, uint32_t rank) : job_(job), rank_(rank) {}
  void BlockUntil(const std::function<bool()>& ready) override { job_.Block(rank_, ready); }
  uint64_t NowPs() override { return job_.cluster().events().now_ps(); }
  void Spend(uint64_t ps) override { job_.Sleep(rank_, ps); }

 private:
  MpiJob& job_;
  uint32_t rank_;
};

/** A rank's clock: the cluster's, but a timer that fires marks the rank dirty. */
class MpiJob::RankClock final : public kernel::Clock {
 public:
  RankClock(kernel::Clock& inner, DirtyRanks& dirty, uint32_t rank)
      : inner_(inner), dirty_(dirty), rank_(rank) {}
  uint64_t NowPs() override { return inner_.NowPs(); }
  void After(uint64_t delay_ps, std::function<void()> fn) override {
    inner_.After(delay_ps, [dirty = &dirty_, rank = rank_, fn = std::move(fn)] {
      dirty->Mark(rank);
      fn();
    });
  }
  /** Housekeeping does not wake the rank: it changes nothing the rank waits for. */
  void Background(uint64_t delay_ps, std::function<void()> fn) override {
    inner_.Background(delay_ps, std::move(fn));
  }

 private:
  kernel::Clock& inner_;
  DirtyRanks& dirty_;
  uint32_t rank_;
};

MpiJob::MpiJob(const MpiJobConfig& config)
    : config_(config),
      scheduler_(MakeRankScheduler(config.scheduler, config.ranks)),
      dirty_(config.ranks) {}

hal::Peer MpiJob::PeerOf(uint32_t rank, uint32_t port) const {
  const uint32_t nodes = config_.cluster.nodes;
  return hal::Peer{static_cast<uint16_t>((rank % nodes) * config_.cluster.adapters_per_node + port),
                   static_cast<uint16_t>(rank / nodes)};
}

Result<std::unique_ptr<MpiJob>> MpiJob::Create(const MpiJobConfig& config) {
  ClusterConfig cc = config.cluster;
  if (config.ranks == 0) return Status::Error("an MPI job needs at least one rank");
  const uint32_t per_node = (config.ranks + cc.nodes - 1) / cc.nodes;
  cc.windows_per_adapter = std::max(cc.windows_per_adapter, per_node);
  if (cc.rdma_host_bytes == 0) cc.rdma_host_bytes = uint64_t{256} << 20;
  std::unique_ptr<MpiJob> job(new MpiJob(config));
  cc.host_cpu = [self = job.get()](uint32_t adapter, uint32_t window) {
    return self->RankCpu(adapter, window);
  };
  job->config_.cluster = cc;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(cc);
  if (!cluster.ok()) return cluster.status();
  job->cluster_ = std::move(*cluster);
  // From the start: in one process too, the job runs in windows (Cluster::windows), so it
  // stops where a split run stops, with the same results.
  job->cluster_->windows();
  if (Status s = job->MakeIntranodeNodes(); !s.ok()) return s;
  for (uint32_t r = 0; r < config.ranks; ++r) {
    if (Status s = job->AddRank(r); !s.ok()) return s;
  }
  return Result<std::unique_ptr<MpiJob>>(std::move(job));
}

HostCpu MpiJob::RankCpu(uint32_t adapter, uint32_t window) {
  // A rank has a CPU of its own: idle unless the rank computes (Sleep); blocked in a wait,
  // not started or finished, it has nothing else to run. Time taken from it while it computes
  // makes the computing last longer.
  const uint32_t rank =
      window * config_.cluster.nodes + adapter / config_.cluster.adapters_per_node;
  HostCpu cpu;
  cpu.idle = [this, rank] { return rank >= ranks_.size() || !ranks_[rank]->computing; };
  cpu.take = [this, rank](uint64_t ps) {
    if (rank < ranks_.size() && ranks_[rank]->computing) ranks_[rank]->cpu_taken_ps += ps;
  };
  return cpu;
}

Status MpiJob::MakeIntranodeNodes() {
  const ClusterConfig& cc = config_.cluster;
  const mpi::IntranodeTransport intranode = config_.mpi.intranode;
  if (intranode == mpi::IntranodeTransport::kPostbox) {
    if (Status s = config_.postbox.Validate(); !s.ok()) return s;
  }
  if (intranode == mpi::IntranodeTransport::kPushPull) {
    if (Status s = config_.pushpull.Validate(); !s.ok()) return s;
  }
  for (uint32_t n = 0; n < cc.nodes; ++n) {
    std::vector<uint32_t> on_node;
    for (uint32_t r = n; r < config_.ranks; r += cc.nodes) on_node.push_back(r);
    if (intranode == mpi::IntranodeTransport::kPostbox) {
      postbox_nodes_.push_back(std::make_unique<mpi::PostboxNode>(
          std::move(on_node), config_.postbox, config_.cache_line_transfer_ps));
    } else if (intranode == mpi::IntranodeTransport::kPushPull) {
      pushpull_nodes_.push_back(std::make_unique<mpi::PushPullNode>(
          std::move(on_node), config_.pushpull, config_.cache_line_transfer_ps));
    }
  }
  return Status();
}

Status MpiJob::AddRank(uint32_t r) {
  const ClusterConfig& cc = config_.cluster;
  // A rank's objects lie together, as a node's do (Cluster::Create).
  base::PackNodeState packed;
  auto rank = std::make_unique<Rank>();
  std::vector<hal::Port*> ports;
  for (uint32_t a = 0; a < cc.adapters_per_node; ++a) {
    const hal::Peer at = PeerOf(r, a);
    rank->ports.push_back(cluster_->MakePort(at.adapter, at.window));
    // A frame for the rank may complete one of its requests: check it after this event.
    rank->ports.back()->OnActivity([dirty = &dirty_, r] { dirty->Mark(r); });
    ports.push_back(rank->ports.back().get());
  }
  rank->clock = std::make_unique<RankClock>(cluster_->clock(), dirty_, r);
  rank->host = cluster_->MakeTaskHost(r % cc.nodes, rank->clock.get());
  rank->regs = std::make_unique<ulp::RegistrationCache>(*rank->host, config_.registration_idle_s);
  MakeTransport(r, *rank, std::move(ports));
  rank->blocker = std::make_unique<RankBlocker>(*this, r);
  mpi::MpiConfig mc = config_.mpi;
  mc.copy_ps_per_byte = config_.copy_ps_per_byte;
  // Half of the rank's share of its node's memory for rendezvous messages waiting for their
  // receives; the other half stays for the messages those receives may wait for.
  const uint32_t per_node = (config_.ranks + cc.nodes - 1) / cc.nodes;
  mc.announced_staging_bytes = cc.rdma_host_bytes / per_node / 2;
  // One set of push-pull sizes for both ways: inside a node (the engines) and between nodes.
  mc.pushpull = config_.pushpull;
  rank->mpi = std::make_unique<mpi::Mpi>(static_cast<int>(r), static_cast<int>(config_.ranks),
                                         *rank->transport, *rank->host, *rank->blocker, mc);
  if (!postbox_nodes_.empty()) {
    Result<std::unique_ptr<mpi::PostboxPath>> path = mpi::PostboxPath::Create(
        *postbox_nodes_[r % cc.nodes], r, *rank->host, config_.copy_ps_per_byte);
    if (!path.ok()) return path.status();
    rank->postbox = std::move(*path);
    rank->mpi->UseIntranodePath(rank->postbox.get());
  }
  if (!pushpull_nodes_.empty()) {
    Result<std::unique_ptr<mpi::PushPullPath>> path = mpi::PushPullPath::Create(
        *pushpull_nodes_[r % cc.nodes], r, *rank->host, config_.copy_ps_per_byte);
    if (!path.ok()) return path.status();
    rank->pushpull = std::move(*path);
    rank->mpi->UseIntranodePath(rank->pushpull.get());
  }
  ranks_.push_back(std::move(rank));
  return Status();
}

void MpiJob::MakeTransport(uint32_t r, Rank& rank, std::vector<hal::Port*> ports) {
  ulp::TransportConfig tc = config_.transport;
  tc.task = r;
  tc.rto_ps = FirstTimeoutPs(config_, ports.front()->max_payload());
  tc.copy_ps_per_byte = config_.copy_ps_per_byte;
  rank.transport = std::make_unique<ulp::Transport>(
      *rank.host, std::move(ports), *rank.regs, tc,
      [this](uint32_t task, uint32_t port) { return PeerOf(task, port); });
  rank.transport->OnUnreachable(
      [this, r](uint32_t dest, const std::vector<ulp::FailedMessage>& failed) {
        NoteUnreachable(r, dest, failed);
      });
  rank.transport->OnMulticastGaveUp(
      [this, r](const std::string& why) { NoteGaveUpOnBroadcast(r, why); });
  // The rank owns its windows: when one becomes fatal it closes and reopens it, and its
  // transport redrives what it had in flight there.
  for (uint32_t a = 0; a < config_.cluster.adapters_per_node; ++a) {
    const hal::Peer at = PeerOf(r, a);
    cluster_->OnWindowFatal(at.adapter, at.window, [this, r, a, at] {
      ranks_[r]->transport->OnWindowFatal(a);
      const Status closing = cluster_->CloseAndReopenWindow(at.adapter, at.window, [this, r, a] {
        ranks_[r]->transport->OnWindowReopened(a);
        dirty_.Mark(r);
      });
      if (!closing.ok()) Fail(fmt::format("rank {}: {}", r, closing.message()));
    });
  }
}

MpiJob::~MpiJob() {
  abort_ = true;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r]->started && !ranks_[r]->finished) ResumeRank(r);
  }
  // The ranks' buffers go with the cluster's memory: freeing them need not clear them.
  if (cluster_ != nullptr) cluster_->StopClearingFreedMemory();
  scheduler_.reset();
  ranks_.clear();
}

void MpiJob::Block(uint32_t rank, const std::function<bool()>& ready) {
  if (ready()) return;
  ranks_[rank]->ready = &ready;
  scheduler_->Yield(rank);
  ranks_[rank]->ready = nullptr;
  if (abort_) throw Abandoned{};
}

void MpiJob::Fail(std::string why) {
  failed_.push_back(std::move(why));
  first_failure_ps_ = std::min(first_failure_ps_, cluster_->events().now_ps());
}

void MpiJob::CpuStateChanged(uint32_t rank) {
  for (uint32_t a = 0; a < config_.cluster.adapters_per_node; ++a) {
    const hal::Peer at = PeerOf(rank, a);
    if (cluster_->HasEndpoint(at.adapter, at.window)) {
      cluster_->endpoint(at.adapter, at.window).OnCpuStateChanged();
    }
  }
}

void MpiJob::Sleep(uint32_t rank, uint64_t ps) {
  if (ps == 0) return;
  Rank& r = *ranks_[rank];
  r.computing = true;
  r.cpu_taken_ps = 0;
  CpuStateChanged(rank);
  // The work is done once it has had `ps` of CPU: time taken from it meanwhile comes on top.
  while (ps > 0) {
    // Shared: if the job is abandoned first, the timer still fires into live memory.
    auto woke = std::make_shared<bool>(false);
    r.clock->After(ps, [woke] { *woke = true; });
    Block(rank, [woke] { return *woke; });
    ps = std::exchange(r.cpu_taken_ps, 0);
  }
  r.computing = false;
  CpuStateChanged(rank);
}

void MpiJob::NoteUnreachable(uint32_t rank, uint32_t dest,
                             const std::vector<ulp::FailedMessage>& failed) {
  std::string which;
  for (size_t i = 0; i < failed.size() && i < 8; ++i) {
    which += fmt::format("{}{} ({} B)", i == 0 ? "" : ", ", failed[i].seq, failed[i].len);
  }
  if (failed.size() > 8) which += fmt::format(" and {} more", failed.size() - 8);
  first_failure_ps_ = std::min(first_failure_ps_, cluster_->events().now_ps());
  unreachable_.push_back(fmt::format(
      "rank {} gave up on rank {} after {} unacknowledged sends of a packet: {} message{} "
      "failed{}{}",
      rank, dest, config_.transport.max_retransmits, failed.size(), failed.size() == 1 ? "" : "s",
      failed.empty() ? "" : ", seq ", which));
}

void MpiJob::NoteGaveUpOnBroadcast(uint32_t rank, const std::string& why) {
  first_failure_ps_ = std::min(first_failure_ps_, cluster_->events().now_ps());
  unreachable_.push_back(fmt::format("rank {} gave up on a group broadcast: {}", rank, why));
}

std::vector<uint32_t> MpiJob::UnfinishedRanks() const {
  std::vector<uint32_t> ranks;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    // A split run has the ranks of its own partition (the others are not started here).
    if (ranks_[r]->started && !ranks_[r]->finished) ranks.push_back(r);
  }
  return ranks;
}

bool MpiJob::RanksWaitPastTimeLimit() const {
  return unfinished_ > 0 && cluster_->events().now_ps() > cluster_->config().time_limit_ps;
}

JobStop MpiJob::LocalStop() const {
  JobStop stop;
  stop.reasons = failed_;
  stop.reasons.insert(stop.reasons.end(), unreachable_.begin(), unreachable_.end());
  stop.unfinished = UnfinishedRanks();
  for (const uint32_t r : stop.unfinished) {
    if (const uint64_t bytes = ranks_[r]->mpi->staging_wait_bytes(); bytes > 0) {
      stop.waits.push_back(
          fmt::format("rank {} waits for a staging area of {} bytes (its node has {} bytes of host "
                      "memory for every area of its ranks)",
                      r, bytes, cluster_->config().rdma_host_bytes));
    }
  }
  stop.now_ps = cluster_->events().now_ps();
  stop.past_time_limit = RanksWaitPastTimeLimit();
  stop.first_failure_ps = first_failure_ps_;
  return stop;
}

void MpiJob::ReapAll() {
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r]->started) scheduler_->Reap(r);
  }
}

Status MpiJob::AbandonAgreed(const JobStop& stop, const Status& run) {
  failed_.clear();
  unreachable_.clear();
  first_failure_ps_ = UINT64_MAX;
  if (!stop.reasons.empty()) {
    return Abandon(fmt::format("MPI job failed at t={} ns: {}", stop.first_failure_ps / 1000,
                               JoinAtMost(stop.reasons, kListedFailures, "; ", "failures")));
  }
  if (run.ok()) {
    return Abandon(fmt::format(
        "MPI job deadlocked at t={} ns: ranks {} wait with no event left{}", stop.now_ps / 1000,
        RankList(stop.unfinished),
        stop.waits.empty() ? "" : "; " + JoinAtMost(stop.waits, kListedFailures, "; ", "waits")));
  }
  if (stop.past_time_limit) {
    return Abandon(fmt::format(
        "MPI job not done when simulated time passed run.time_limit ({} ns) at t={} ns: "
        "ranks {} still wait",
        cluster_->config().time_limit_ps / 1000, stop.now_ps / 1000, RankList(stop.unfinished)));
  }
  return Abandon(run.message());  // the window loop's own (a lookahead violation)
}

Status MpiJob::Abandon(const std::string& why) {
  abort_ = true;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r]->started && !ranks_[r]->finished) ResumeRank(r);
  }
  ReapAll();
  // The programs' buffers are gone with their stacks: what still arrives lands nowhere.
  for (auto& rank : ranks_) rank->mpi->AbandonRequests();
  abort_ = false;
  return Status::Error(why);
}

void MpiJob::ResumeRank(uint32_t r) {
  kernel::EventQueue::OwnerScope as_node(cluster_->events(), r % config_.cluster.nodes);
  scheduler_->Resume(r);
}

bool MpiJob::ResumeReadyRanks() {
  bool resumed = false;
  dirty_.BeginSweep();
  while (std::optional<uint32_t> r = dirty_.Next()) {
    Rank& rank = *ranks_[*r];
    if (rank.finished || rank.ready == nullptr || !(*rank.ready)()) continue;
    ResumeRank(*r);
    resumed = true;
  }
  return resumed;
}

bool MpiJob::IsLocal(uint32_t r) const {
  const distrib::SplitRun* split = cluster_->config().split;
  return split == nullptr || split->IsLocalNode(r % config_.cluster.nodes);
}

Status MpiJob::ReachNextStart() {
  kernel::EventQueue& events = cluster_->events();
  const uint64_t start = *next_start_ps_;
  distrib::WindowHooks hooks;
  hooks.stop_before_ps = start;
  if (Status s = cluster_->windows().RunWindows(events, cluster_->fabric(), hooks); !s.ok()) {
    return s;
  }
  if (events.now_ps() > start) {
    return Status::Error(
        fmt::format("lookahead violation: this process ran an event at t={} "
                    "ps, after the next run's start at t={} ps",
                    events.now_ps(), start));
  }
  events.AdvanceClock(start);
  return Status();
}

Status MpiJob::Run(const Program& program) {
  if (next_start_ps_) {
    if (Status s = ReachNextStart(); !s.ok()) return s;
  }
  last_finish_ps_ = 0;
  unfinished_ = 0;
  for (uint32_t r = 0; r < ranks_.size(); ++r) unfinished_ += IsLocal(r) ? 1 : 0;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (!IsLocal(r)) continue;  // another process runs it
    Rank& rank = *ranks_[r];
    rank.finished = false;
    rank.computing = false;
    rank.started = true;
    scheduler_->Start(r, [this, r, &program] {
      try {
        if (!abort_) program(*ranks_[r]->mpi);
      } catch (const Abandoned&) {
      }
      ranks_[r]->finished = true;
      --unfinished_;
      last_finish_ps_ = std::max(last_finish_ps_, cluster_->events().now_ps());
    });
    ResumeRank(r);  // runs until its first wait (or to the end)
  }
  // A rank's readiness depends only on its own transport and MPI state, which changes only in
  // its program (which checks before it waits), in frames its windows receive and in its
  // timers: those mark it. The loop re-checks the marked ranks, in ascending order, which
  // resumes exactly the ranks a sweep of all would. As a fallback against a missed path, every
  // rank is re-checked once every kSweepAllEvents events and before a deadlock is declared.
  dirty_.MarkAll();
  return RunInWindows();
}

Status MpiJob::RunInWindows() {
  distrib::SplitRun& split = cluster_->windows();
  kernel::EventQueue& events = cluster_->events();
  uint64_t steps = 0;
  distrib::WindowHooks hooks;
  hooks.between_events = [&] {
    if ((++steps % kSweepAllEvents) == 0) dirty_.MarkAll();
    // Even after a failure: the ranks of other processes run to the window's end too.
    while (ResumeReadyRanks()) {
    }
  };
  // A failure, a transport that gave up or the time limit stops every process at the window
  // it happened in; what each found is agreed once they have stopped.
  hooks.after_window = [&]() -> Status {
    if (wall_deadline_ && !wall_deadline_passed_ &&
        std::chrono::steady_clock::now() >= *wall_deadline_) {
      wall_deadline_passed_ = true;
      Fail(wall_why_);
    }
    if (!failed_.empty() || !unreachable_.empty()) return Status::Error("a rank failed");
    if (RanksWaitPastTimeLimit()) return Status::Error("past run.time_limit");
    return Status();
  };
  // The windows stop once every rank returned: the events after that are the next run's
  // (or the workload's, which runs them to the end).
  hooks.finished = [&] { return unfinished_ == 0; };
  for (;;) {
    const Status run = split.RunWindows(events, cluster_->fabric(), hooks);
    // Every process stopped at this window; each names the same failures, in the order of
    // the ranks, whichever partitions found them.
    if (!run.ok()) return AbandonAgreed(AgreeOnStop(split.world(), LocalStop()), run);
    // Every process stopped at the window whose sum was over host.touched_limit.
    if (!cluster_->touched_limit_error().ok()) {
      return Abandon(fmt::format("MPI job stopped at t={} ns: {}",
                                 split.world().Max(events.now_ps()) / 1000,
                                 cluster_->touched_limit_error().message()));
    }
    // Every rank returned, or no event is left anywhere: a last check of every rank, and
    // more windows if one resumed (a path that did not mark it).
    dirty_.MarkAll();
    bool resumed = false;
    while (ResumeReadyRanks()) resumed = true;
    if (split.world().Sum(resumed ? 1 : 0) == 0) break;
  }
  const JobStop stop = AgreeOnStop(split.world(), LocalStop());
  if (!stop.reasons.empty() || !stop.unfinished.empty()) return AbandonAgreed(stop, Status());
  ReapAll();
  // The last rank returned inside the window just ended, so its lookahead reaches past that
  // window's end: no process has run an event at or after the next run's start.
  next_start_ps_ = split.world().Max(last_finish_ps_) + distrib::LookaheadOf(cluster_->fabric());
  return Status();
}

}  // namespace nicsim::sim
