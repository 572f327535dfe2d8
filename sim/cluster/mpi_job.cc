// SPDX-License-Identifier: Apache-2.0
#include "sim/cluster/mpi_job.h"

#include <fmt/format.h>

#include "sim/observe/progress.h"

namespace nicsim::sim {
namespace {
/** Thrown on a rank's thread to unwind its program when the job is abandoned. */
struct Abandoned {};
}  // namespace

class MpiJob::RankBlocker final : public mpi::Blocker {
 public:
  RankBlocker(MpiJob& job, uint32_t rank) : job_(job), rank_(rank) {}
  void BlockUntil(const std::function<bool()>& ready) override { job_.Block(rank_, ready); }
  uint64_t NowPs() override { return job_.cluster().events().now_ps(); }

 private:
  MpiJob& job_;
  uint32_t rank_;
};

MpiJob::MpiJob(const MpiJobConfig& config) : config_(config) {}

hal::Peer MpiJob::PeerOf(uint32_t rank, uint32_t port) const {
  const uint32_t nodes = config_.cluster.nodes;
  return hal::Peer{
      static_cast<uint16_t>((rank % nodes) * config_.cluster.adapters_per_node + port),
      static_cast<uint16_t>(rank / nodes)};
}

Result<std::unique_ptr<MpiJob>> MpiJob::Create(const MpiJobConfig& config) {
  ClusterConfig cc = config.cluster;
  if (config.ranks == 0) return Status::Error("an MPI job needs at least one rank");
  const uint32_t per_node = (config.ranks + cc.nodes - 1) / cc.nodes;
  cc.windows_per_adapter = std::max(cc.windows_per_adapter, per_node);
  if (cc.rdma_host_bytes == 0) cc.rdma_host_bytes = uint64_t{256} << 20;
  std::unique_ptr<MpiJob> job(new MpiJob(config));
  job->config_.cluster = cc;
  Result<std::unique_ptr<Cluster>> cluster = Cluster::Create(cc);
  if (!cluster.ok()) return cluster.status();
  job->cluster_ = std::move(*cluster);
  for (uint32_t r = 0; r < config.ranks; ++r) {
    auto rank = std::make_unique<Rank>();
    std::vector<hal::Port*> ports;
    for (uint32_t a = 0; a < cc.adapters_per_node; ++a) {
      const hal::Peer at = job->PeerOf(r, a);
      rank->ports.push_back(job->cluster_->MakePort(at.adapter, at.window));
      ports.push_back(rank->ports.back().get());
    }
    rank->host = job->cluster_->MakeTaskHost(r % cc.nodes);
    rank->regs = std::make_unique<ulp::RegistrationCache>(*rank->host, config.registration_idle_s);
    ulp::TransportConfig tc = config.transport;
    tc.task = r;
    MpiJob* self = job.get();
    rank->transport = std::make_unique<ulp::Transport>(
        *rank->host, std::move(ports), *rank->regs, tc,
        [self](uint32_t task, uint32_t port) { return self->PeerOf(task, port); });
    rank->transport->OnUnreachable(
        [self, r](uint32_t dest, const std::vector<ulp::FailedMessage>& failed) {
          self->NoteUnreachable(r, dest, failed);
        });
    rank->blocker = std::make_unique<RankBlocker>(*job, r);
    rank->mpi = std::make_unique<mpi::Mpi>(static_cast<int>(r), static_cast<int>(config.ranks),
                                           *rank->transport, *rank->host, *rank->blocker,
                                           config.mpi);
    job->ranks_.push_back(std::move(rank));
  }
  return Result<std::unique_ptr<MpiJob>>(std::move(job));
}

MpiJob::~MpiJob() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    abort_ = true;
    for (uint32_t r = 0; r < ranks_.size(); ++r) {
      if (ranks_[r]->started && !ranks_[r]->finished) Resume(r, lock);
    }
  }
  for (auto& r : ranks_) {
    if (r->thread.joinable()) r->thread.join();
  }
  ranks_.clear();
}

void MpiJob::Resume(uint32_t rank, std::unique_lock<std::mutex>& lock) {
  turn_ = static_cast<int>(rank);
  cv_.notify_all();
  cv_.wait(lock, [this] { return turn_ == -1; });
}

void MpiJob::Block(uint32_t rank, const std::function<bool()>& ready) {
  if (ready()) return;
  std::unique_lock<std::mutex> lock(mu_);
  ranks_[rank]->ready = ready;
  turn_ = -1;
  cv_.notify_all();
  cv_.wait(lock, [this, rank] { return turn_ == static_cast<int>(rank); });
  ranks_[rank]->ready = nullptr;
  if (abort_) throw Abandoned{};
}

void MpiJob::NoteUnreachable(uint32_t rank, uint32_t dest,
                             const std::vector<ulp::FailedMessage>& failed) {
  std::string which;
  for (size_t i = 0; i < failed.size() && i < 8; ++i) {
    which += fmt::format("{}{} ({} B)", i == 0 ? "" : ", ", failed[i].seq, failed[i].len);
  }
  if (failed.size() > 8) which += fmt::format(" and {} more", failed.size() - 8);
  if (!unreachable_.empty()) unreachable_ += "; ";
  unreachable_ += fmt::format(
      "rank {} gave up on rank {} after {} unacknowledged sends of a packet: {} message{} "
      "failed{}{}",
      rank, dest, config_.transport.max_retransmits, failed.size(),
      failed.size() == 1 ? "" : "s", failed.empty() ? "" : ", seq ", which);
}

std::string MpiJob::Unfinished() const {
  std::string list;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r]->finished) list += (list.empty() ? "" : ", ") + std::to_string(r);
  }
  return list;
}

Status MpiJob::Abandon(const std::string& why, std::unique_lock<std::mutex>& lock) {
  abort_ = true;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r]->finished) Resume(r, lock);
  }
  for (auto& rank : ranks_) {
    lock.unlock();
    rank->thread.join();
    lock.lock();
  }
  // The programs' buffers are gone with their stacks: what still arrives lands nowhere.
  for (auto& rank : ranks_) rank->mpi->AbandonRequests();
  abort_ = false;
  return Status::Error(why);
}

Status MpiJob::Run(const Program& program) {
  std::unique_lock<std::mutex> lock(mu_);
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    Rank& rank = *ranks_[r];
    rank.finished = false;
    rank.started = true;
    if (rank.thread.joinable()) rank.thread.join();
    rank.thread = std::thread([this, r, &program] {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this, r] { return turn_ == static_cast<int>(r); });
      }
      try {
        if (!abort_) program(*ranks_[r]->mpi);
      } catch (const Abandoned&) {
      }
      std::unique_lock<std::mutex> l(mu_);
      ranks_[r]->finished = true;
      turn_ = -1;
      cv_.notify_all();
    });
    Resume(r, lock);  // runs until its first wait (or to the end)
  }
  kernel::EventQueue& events = cluster_->events();
  uint64_t steps = 0;
  for (;;) {
    bool all_done = true;
    bool resumed = false;
    for (uint32_t r = 0; r < ranks_.size(); ++r) {
      Rank& rank = *ranks_[r];
      if (rank.finished) continue;
      all_done = false;
      if (rank.ready && rank.ready()) {
        Resume(r, lock);
        resumed = true;
      }
    }
    if (all_done) break;
    if (!unreachable_.empty()) {
      return Abandon(fmt::format("MPI job failed at t={} ns: {}", events.now_ps() / 1000,
                                 unreachable_),
                     lock);
    }
    if (resumed) continue;
    if (events.now_ps() > cluster_->config().time_limit_ps) {
      return Abandon(fmt::format("MPI job not done when simulated time passed run.time_limit "
                                 "({} ns) at t={} ns: ranks {} still wait",
                                 cluster_->config().time_limit_ps / 1000,
                                 events.now_ps() / 1000, Unfinished()),
                     lock);
    }
    lock.unlock();
    const bool ran = events.RunOne();
    const bool sample = (++steps & 0xFFFF) == 0;
    if (sample) Progress::Tick(events.now_ps(), events.events_run());
    lock.lock();
    if (sample && !cluster_->SampleHostMemory()) {
      return Abandon(fmt::format("MPI job stopped at t={} ns: {}", events.now_ps() / 1000,
                                 cluster_->touched_limit_error().message()),
                     lock);
    }
    if (!ran) {
      return Abandon(fmt::format("MPI job deadlocked at t={} ns: ranks {} wait with no event left",
                                 events.now_ps() / 1000, Unfinished()),
                     lock);
    }
  }
  lock.unlock();
  for (auto& rank : ranks_) rank->thread.join();
  return Status();
}

}  // namespace nicsim::sim
