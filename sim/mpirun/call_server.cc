// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/call_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <numeric>

namespace nicsim::sim {
namespace {

using mpi::wire::Call;
using mpi::wire::CompleteMode;

using mpi::kByte;
/** MPI_COMM_WORLD and MPI_COMM_SELF, as mpi.h numbers them. */
constexpr int32_t kWorldHandle = 1, kSelfHandle = 2;
/** MPI_COMM_SELF's context: even, and beyond any a job allocates. */
constexpr uint32_t kSelfContext = (1u << 30) - 2;
/** Request ids kComplete lists: done already (MPI_PROC_NULL), or inactive (MPI_REQUEST_NULL). */
constexpr uint64_t kDone = 0, kInactive = ~uint64_t{0};
/**
 * Simulated time an MPI_Test* or MPI_Iprobe that finds nothing takes. A program that polls
 * (while (!flag) MPI_Iprobe(...)) must let the simulation move on between its polls, or what
 * it waits for could never arrive: each unsuccessful poll lets this much time pass.
 */
constexpr uint64_t kUnsuccessfulPollPs = 500'000;
/** MPI_ERR_NO_MEM, MPI_ERR_TRUNCATE and MPI_ERR_COUNT (mpi.h). */
constexpr int32_t kErrNoMem = 39, kErrTruncate = 15, kErrCount = 2;
/** A reply's error code (the first field of every reply) becomes `code`. */
void Fail(mpi::wire::Writer& out, int32_t code) {
  std::memcpy(out.bytes().data(), &code, sizeof(code));
}
/** MPI_UNDEFINED and MPI_COMM_TYPE_SHARED (mpi.h). */
constexpr int32_t kUndefined = -32766, kCommTypeShared = 1;
/** MPI_Comm_compare's answers (mpi.h). */
constexpr int32_t kIdent = 0, kCongruent = 1, kSimilar = 2, kUnequal = 3;

void PutStatus(mpi::wire::Writer& out, const mpi::Status& s) {
  const auto flags = static_cast<uint8_t>((s.truncated ? 1 : 0) | (s.cancelled ? 2 : 0));
  out.Put<int32_t>(s.source).Put<int32_t>(s.tag).Put<uint64_t>(s.bytes).Put<uint8_t>(flags);
}

std::vector<int> WorldRanks(const mpi::Comm& c) {
  std::vector<int> ranks(static_cast<size_t>(c.size()));
  for (int i = 0; i < c.size(); ++i) ranks[i] = c.group->World(i);
  return ranks;
}

}  // namespace

CallServer::CallServer(MpiJob& job, mpi::Mpi& mpi, RankProcess& process,
                       const MpiProgramConfig& config, RankRecord& record)
    : job_(job), mpi_(mpi), process_(process), config_(config), record_(record) {
  comms_[kWorldHandle] = mpi.world();
  mpi::Comm self;
  self.context = kSelfContext;
  self.group = mpi::Group::Of({mpi.world().rank});
  self.rank = 0;
  comms_[kSelfHandle] = self;
}

void CallServer::PutMade(Writer& out, const mpi::Comm* made) {
  if (made == nullptr) {
    out.Put<int32_t>(0).Put<int32_t>(0).Put<uint32_t>(0);
    return;
  }
  const int32_t handle = next_comm_++;
  comms_[handle] = *made;
  out.Put<int32_t>(handle).Put<int32_t>(made->rank);
  out.Put<uint32_t>(static_cast<uint32_t>(made->size()));
  for (int i = 0; i < made->size(); ++i) out.Put<int32_t>(made->group->World(i));
}

const mpi::Comm* CallServer::CommOf(int32_t handle) const {
  const auto it = comms_.find(handle);
  return it == comms_.end() ? nullptr : &it->second;
}

Status CallServer::Serve() {
  mpi::wire::Header h;
  std::vector<uint8_t> args;
  for (;;) {
    if (!process_.Next(&h, &args)) return Ended();
    if (config_.compute == ComputeMode::kMeasured && h.compute_ns > 0) {
      job_.Sleep(static_cast<uint32_t>(rank()),
                 h.compute_ns * 1000 * config_.compute_scale_percent / 100);
    }
    const auto call = static_cast<Call>(h.call);
    const char* name = mpi::wire::CallName(call);
    if (name == nullptr) {
      return Status::Error(
          fmt::format("rank {} sent an unknown call ({}) after {}", rank(), h.call, record_.call));
    }
    record_.call = name;
    ++record_.calls[name];
    Reader in(args.data(), args.size());
    if (call == Call::kAbort) {
      const auto code = in.Get<int32_t>();
      const std::string why = in.Str();
      return Status::Error(fmt::format("rank {} called MPI_Abort with error code {}{}{}", rank(),
                                       code, why.empty() ? "" : ": ", why));
    }
    Writer out;
    out.Put<int32_t>(0);  // MPI_SUCCESS: the program checked the arguments
    if (!Dispatch(call, in, out) || in.failed()) {
      return Status::Error(
          fmt::format("rank {} sent malformed arguments to {}: the program broke libnicsim_mpi's "
                      "protocol (is it built with this nicsim's nicsim-mpicc?)",
                      rank(), name));
    }
    // A collective whose ranks passed different counts fails on every rank that saw a message
    // of another length than its count asks for: longer (truncated) or shorter.
    if (const std::optional<mpi::Mpi::CountMismatch> m = mpi_.TakeCountMismatch()) {
      Fail(out, m->received > m->expected ? kErrTruncate : kErrCount);
    }
    if (!broken_.empty()) {
      return Status::Error(
          fmt::format("rank {} stopped answering in {}: {}", rank(), name, broken_));
    }
    // The program's memory at its end, read while it waits for this reply.
    if (call == Call::kFinalize) record_.peak_rss_kib = process_.PeakRssKib();
    if (!process_.Send(Call::kReply, out.bytes())) return Ended();
    if (call == Call::kFinalize) record_.finalized = true;
  }
}

Status CallServer::Ended() {
  const std::string how = process_.Reap();
  if (const int sig = process_.stopped_by(); sig != 0) {
    // The same words for every rank: the job reports it once, beside where each rank was.
    return Status::Error(fmt::format(
        "nicsim mpirun was stopped by signal {} ({}): every rank still running was killed", sig,
        strsignal(sig)));
  }
  if (process_.timed_out()) {
    return Status::Error(fmt::format(
        "rank {} was still running when the program run's wall-clock limit of {} s passed "
        "(mpi.wall_limit, or MPIEXEC_TIMEOUT): killed; its last call: {}",
        rank(), static_cast<double>(config_.wall_limit_ps) * 1e-12, record_.call));
  }
  if (!process_.broken().empty()) {
    return Status::Error(fmt::format("rank {} broke its channel in {}: {}", rank(), record_.call,
                                     process_.broken()));
  }
  if (!record_.finalized) {
    return Status::Error(fmt::format("rank {} {} without calling MPI_Finalize (its last call: {})",
                                     rank(), how, record_.call));
  }
  if (!process_.exited_cleanly()) {
    return Status::Error(fmt::format("rank {} {} after MPI_Finalize", rank(), how));
  }
  return Status();
}

std::optional<mpi::Combiner> CallServer::ReadReduction(Reader& in) {
  const auto op = in.Get<uint8_t>();
  const auto user_op = in.Get<uint32_t>();
  const auto base = in.Get<uint8_t>();
  const auto element = in.Get<uint64_t>();
  const auto type = in.Get<int32_t>();
  const bool commutes = in.Get<uint8_t>() != 0;
  if (op == mpi::wire::kUserOp) {
    return mpi::Combiner{
        [this, user_op, type, element](uint8_t* acc, const uint8_t* part, size_t bytes) {
          ApplyUserOp(static_cast<int32_t>(user_op), type, element, acc, part, bytes);
        },
        commutes};
  }
  if (op >= mpi::kOpCount || base >= mpi::kBaseCount) return std::nullopt;
  return mpi::Combiner::Of(static_cast<mpi::Op>(op), static_cast<mpi::Base>(base));
}

void CallServer::ApplyUserOp(int32_t op, int32_t type, uint64_t element, uint8_t* acc,
                             const uint8_t* in, size_t bytes) {
  if (!broken_.empty()) return;
  Writer w;
  w.Put<int32_t>(op).Put<int32_t>(type).Put<uint64_t>(element ? bytes / element : 0);
  w.Blob(acc, bytes).Blob(in, bytes);
  mpi::wire::Header h;
  std::vector<uint8_t> answer;
  if (!process_.Send(Call::kApplyOp, w.bytes()) || !process_.Next(&h, &answer) ||
      h.call != static_cast<uint32_t>(Call::kOpResult)) {
    broken_ = "no answer to a reduction with its own op";
    return;
  }
  Reader r(answer.data(), answer.size());
  const auto [result, n] = r.Blob();
  if (n > 0) std::memcpy(acc, result, std::min(n, bytes));
}

void CallServer::PutDone(Writer& out, uint32_t index, uint64_t id) {
  out.Put<uint32_t>(index);
  if (id == kDone) {
    PutStatus(out, mpi::Status{});
    out.Blob(nullptr, 0);
    return;
  }
  auto it = requests_.find(id);
  const mpi::Status& s = it->second.request->status;
  PutStatus(out, s);
  out.Blob(it->second.landing.get(), it->second.recv ? s.bytes : 0);
  requests_.erase(it);
}

void CallServer::Complete(Reader& in, Writer& out) {
  const auto mode = static_cast<CompleteMode>(in.Get<uint8_t>());
  const auto n = in.Get<uint32_t>();
  std::vector<uint64_t> ids;
  std::vector<uint32_t> active;  // indices of the requests that are not MPI_REQUEST_NULL
  std::vector<mpi::Mpi::Request> waiting;
  for (uint32_t i = 0; i < n && !in.failed(); ++i) {
    const auto id = in.Get<uint64_t>();
    ids.push_back(id);
    if (id == kInactive) continue;
    if (id != kDone && requests_.count(id) == 0) {
      ids.back() = kInactive;  // unknown: the program's handle outlived ours
      continue;
    }
    active.push_back(i);
    if (id != kDone) waiting.push_back(requests_[id].request);
  }
  auto done = [&](uint32_t i) { return ids[i] == kDone || requests_[ids[i]].request->done; };
  std::vector<uint32_t> finished;
  bool flag = true;
  switch (mode) {
    case CompleteMode::kWaitAll:
      mpi_.Waitall(waiting);
      finished = active;
      break;
    case CompleteMode::kWaitAny:
    case CompleteMode::kWaitSome:
    case CompleteMode::kTestAny:
    case CompleteMode::kTestSome: {
      const bool wait = mode == CompleteMode::kWaitAny || mode == CompleteMode::kWaitSome;
      const bool any_done = std::any_of(active.begin(), active.end(), done);
      if (wait && !any_done && !active.empty()) mpi_.Waitany(waiting);
      for (uint32_t i : active) {
        if (done(i)) finished.push_back(i);
      }
      const bool one = mode == CompleteMode::kWaitAny || mode == CompleteMode::kTestAny;
      if (one && finished.size() > 1) finished.resize(1);
      flag = active.empty() || !finished.empty() || mode == CompleteMode::kTestSome;
      break;
    }
    case CompleteMode::kTestAll:
      flag = std::all_of(active.begin(), active.end(), done);
      if (flag) finished = active;
      break;
  }
  const bool test = mode == CompleteMode::kTestAll || mode == CompleteMode::kTestAny ||
                    mode == CompleteMode::kTestSome;
  if (test && finished.empty() && !active.empty()) {
    job_.Sleep(static_cast<uint32_t>(rank()), kUnsuccessfulPollPs);
  }
  out.Put<uint8_t>(flag).Put<uint32_t>(static_cast<uint32_t>(finished.size()));
  for (uint32_t i : finished) PutDone(out, i, ids[i]);
}

bool CallServer::Dispatch(Call call, Reader& in, Writer& out) {
  switch (call) {
    case Call::kInit: {
      out.Put<int32_t>(rank()).Put<int32_t>(mpi_.world().size());
      out.Str(fmt::format("nicsim-node{}", node()));
      return true;
    }
    case Call::kFinalize:
      mpi_.Barrier(mpi_.world());
      return true;
    case Call::kWtime:
      out.Put<double>(mpi_.Wtime());
      return true;
    case Call::kCommIdup: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      if (c == nullptr) return false;
      const mpi::Comm made = mpi_.Idup(*c);
      PutMade(out, &made);
      return true;
    }
    case Call::kCommDup:
    case Call::kCommSplit:
    case Call::kCommSplitType: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      if (c == nullptr) return false;
      int32_t color = call == Call::kCommSplit ? in.Get<int32_t>() : 0;
      if (call == Call::kCommSplitType) {
        // The ranks of one node share its memory; any other split type gives no communicator.
        color = in.Get<int32_t>() == kCommTypeShared ? static_cast<int32_t>(node()) : kUndefined;
      }
      const int32_t key = call == Call::kCommDup ? 0 : in.Get<int32_t>();
      const mpi::Comm made = call == Call::kCommDup ? mpi_.Dup(*c) : mpi_.Split(*c, color, key);
      PutMade(out, color == kUndefined ? nullptr : &made);
      return true;
    }
    case Call::kCommCreateGroup: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto n = in.Get<uint32_t>();
      if (c == nullptr || n == 0 || n > static_cast<uint32_t>(mpi_.world().size())) return false;
      std::vector<int> members(n);
      for (int& m : members) m = in.Get<int32_t>();
      if (in.failed() || std::find(members.begin(), members.end(), rank()) == members.end()) {
        return false;
      }
      const mpi::Comm made = mpi_.CreateGroup(*c, std::move(members));
      PutMade(out, &made);
      return true;
    }
    case Call::kCommFree:
      return comms_.erase(in.Get<int32_t>()) == 1;
    case Call::kCommCompare: {
      const mpi::Comm* a = CommOf(in.Get<int32_t>());
      const mpi::Comm* b = CommOf(in.Get<int32_t>());
      if (a == nullptr || b == nullptr) return false;
      std::vector<int> ra = WorldRanks(*a), rb = WorldRanks(*b);
      int32_t result = kUnequal;
      if (a->context == b->context) {
        result = kIdent;
      } else if (ra == rb) {
        result = kCongruent;
      } else {
        std::sort(ra.begin(), ra.end());
        std::sort(rb.begin(), rb.end());
        if (ra == rb) result = kSimilar;
      }
      out.Put<int32_t>(result);
      return true;
    }
    case Call::kSend:
    case Call::kIsend: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto dest = in.Get<int32_t>();
      const auto tag = in.Get<int32_t>();
      const bool sync = in.Get<uint8_t>() != 0;
      const auto [data, n] = in.Blob();
      if (c == nullptr || dest < 0 || dest >= c->size() || tag < 0 || tag > mpi::kTagUb) {
        return false;
      }
      mpi::Mpi::Request r = sync ? mpi_.Issend(data, n, kByte, dest, tag, *c)
                                 : mpi_.Isend(data, n, kByte, dest, tag, *c);
      if (call == Call::kSend) {
        mpi_.Wait(r);
        return true;
      }
      const uint64_t id = next_request_++;
      requests_[id] = Pending{r, {}, false};
      out.Put<uint64_t>(id);
      return true;
    }
    case Call::kRecv:
    case Call::kIrecv: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto source = in.Get<int32_t>();
      const auto tag = in.Get<int32_t>();
      const auto room = in.Get<uint64_t>();
      if (c == nullptr || source < mpi::kAnySource || source >= c->size() || in.failed() ||
          tag < mpi::kAnyTag || tag > mpi::kTagUb) {
        return false;
      }
      Pending p{nullptr, std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[room]), true};
      if (p.landing == nullptr) {
        // More than this process can hold: the program's call fails, the run goes on.
        Fail(out, kErrNoMem);
        return true;
      }
      p.request = mpi_.Irecv(p.landing.get(), room, kByte, source, tag, *c);
      if (call == Call::kRecv) {
        const mpi::Status s = mpi_.Wait(p.request);
        PutStatus(out, s);
        out.Blob(p.landing.get(), s.bytes);
        return true;
      }
      const uint64_t id = next_request_++;
      requests_[id] = std::move(p);
      out.Put<uint64_t>(id);
      return true;
    }
    case Call::kComplete:
      Complete(in, out);
      return true;
    case Call::kRequestFree: {
      auto it = requests_.find(in.Get<uint64_t>());
      if (it == requests_.end()) return false;
      detached_.push_back(std::move(it->second));
      requests_.erase(it);
      return true;
    }
    case Call::kCancel: {
      auto it = requests_.find(in.Get<uint64_t>());
      if (it == requests_.end()) return false;
      // A send that has started is never taken back (MPI lets a cancel fail); a receive is
      // cancelled while no message has matched it.
      const bool cancelled = it->second.recv && mpi_.CancelRecv(it->second.request);
      out.Put<uint8_t>(cancelled);
      return true;
    }
    case Call::kProbe: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto source = in.Get<int32_t>();
      const auto tag = in.Get<int32_t>();
      const bool block = in.Get<uint8_t>() != 0;
      if (c == nullptr || source < mpi::kAnySource || source >= c->size() || tag < mpi::kAnyTag ||
          tag > mpi::kTagUb) {
        return false;
      }
      std::optional<mpi::Status> s = block ? std::optional<mpi::Status>(mpi_.Probe(source, tag, *c))
                                           : mpi_.Iprobe(source, tag, *c);
      if (!s) job_.Sleep(static_cast<uint32_t>(rank()), kUnsuccessfulPollPs);
      out.Put<uint8_t>(s.has_value());
      PutStatus(out, s.value_or(mpi::Status{}));
      return true;
    }
    case Call::kBarrier: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      if (c == nullptr) return false;
      mpi_.Barrier(*c);
      return true;
    }
    case Call::kBcast: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto root = in.Get<int32_t>();
      const auto bytes = in.Get<uint64_t>();
      const auto [data, n] = in.Blob();
      if (c == nullptr || root < 0 || root >= c->size() || in.failed()) return false;
      std::vector<uint8_t> buf(bytes);
      if (c->rank == root) std::memcpy(buf.data(), data, std::min<size_t>(n, bytes));
      mpi_.Bcast(buf.data(), bytes, kByte, root, *c);
      out.Blob(c->rank == root ? std::vector<uint8_t>{} : buf);
      return true;
    }
    case Call::kReduce:
    case Call::kAllreduce:
    case Call::kScan: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const int32_t root = call == Call::kReduce ? in.Get<int32_t>() : 0;
      const bool exclusive = call == Call::kScan && in.Get<uint8_t>() != 0;
      std::optional<mpi::Combiner> combine = ReadReduction(in);
      const auto [data, n] = in.Blob();
      if (c == nullptr || !combine || root < 0 || root >= c->size()) return false;
      std::vector<uint8_t> result(n);
      if (call == Call::kReduce) {
        mpi_.ReduceBytes(data, result.data(), n, *combine, root, *c);
        if (c->rank != root) result.clear();
      } else if (call == Call::kAllreduce) {
        mpi_.AllreduceBytes(data, result.data(), n, *combine, *c);
      } else {
        mpi_.Scan(data, result.data(), n, *combine, exclusive, *c);
      }
      out.Blob(result);
      return true;
    }
    case Call::kGatherv: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto root = in.Get<int32_t>();
      const auto [data, n] = in.Blob();
      const std::vector<size_t> counts = in.Counts();
      if (c == nullptr || root < 0 || root >= c->size()) return false;
      const bool at_root = c->rank == root;
      if (at_root && counts.size() != static_cast<size_t>(c->size())) return false;
      std::vector<uint8_t> all(std::accumulate(counts.begin(), counts.end(), size_t{0}));
      mpi_.Gatherv(data, n, all.data(), counts, root, *c);
      out.Blob(all);
      return true;
    }
    case Call::kScatterv: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto root = in.Get<int32_t>();
      const std::vector<size_t> counts = in.Counts();
      const auto [data, n] = in.Blob();
      const auto room = in.Get<uint64_t>();
      if (c == nullptr || root < 0 || root >= c->size() || in.failed()) return false;
      const bool at_root = c->rank == root;
      if (at_root && (counts.size() != static_cast<size_t>(c->size()) ||
                      std::accumulate(counts.begin(), counts.end(), size_t{0}) > n)) {
        return false;
      }
      std::vector<uint8_t> mine(room);
      mpi_.Scatterv(data, counts, mine.data(), room, root, *c);
      out.Blob(mine);
      return true;
    }
    case Call::kAllgatherv: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const auto [data, n] = in.Blob();
      const std::vector<size_t> counts = in.Counts();
      if (c == nullptr || counts.size() != static_cast<size_t>(c->size())) return false;
      std::vector<uint8_t> all(std::accumulate(counts.begin(), counts.end(), size_t{0}));
      mpi_.Allgatherv(data, n, all.data(), counts, *c);
      out.Blob(all);
      return true;
    }
    case Call::kAlltoallv: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      const std::vector<size_t> send_counts = in.Counts();
      const auto [data, n] = in.Blob();
      const std::vector<size_t> recv_counts = in.Counts();
      if (c == nullptr || send_counts.size() != static_cast<size_t>(c->size()) ||
          recv_counts.size() != send_counts.size() ||
          std::accumulate(send_counts.begin(), send_counts.end(), size_t{0}) > n) {
        return false;
      }
      std::vector<uint8_t> all(std::accumulate(recv_counts.begin(), recv_counts.end(), size_t{0}));
      mpi_.Alltoallv(data, send_counts, all.data(), recv_counts, *c);
      out.Blob(all);
      return true;
    }
    case Call::kReduceScatter: {
      const mpi::Comm* c = CommOf(in.Get<int32_t>());
      std::optional<mpi::Combiner> combine = ReadReduction(in);
      const std::vector<size_t> counts = in.Counts();
      const auto [data, n] = in.Blob();
      if (c == nullptr || !combine || counts.size() != static_cast<size_t>(c->size()) ||
          std::accumulate(counts.begin(), counts.end(), size_t{0}) != n) {
        return false;
      }
      std::vector<uint8_t> mine(counts[static_cast<size_t>(c->rank)]);
      mpi_.ReduceScatter(data, mine.data(), counts, *combine, *c);
      out.Blob(mine);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace nicsim::sim
