// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/call_server.h"

#include <unistd.h>

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
/** MPI_ERR_NO_MEM, MPI_ERR_TRUNCATE and MPI_ERR_COUNT (mpi.h). */
constexpr int32_t kErrNoMem = 39, kErrTruncate = 15, kErrCount = 2;
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

/** MPI_Comm_compare's answer for `a` and `b`. */
int32_t CompareComms(const mpi::Comm& a, const mpi::Comm& b) {
  if (a.context == b.context) return kIdent;
  std::vector<int> ra = WorldRanks(a), rb = WorldRanks(b);
  if (ra == rb) return kCongruent;
  std::sort(ra.begin(), ra.end());
  std::sort(rb.begin(), rb.end());
  return ra == rb ? kSimilar : kUnequal;
}

}  // namespace

void Fail(mpi::wire::Writer& out, int32_t code) {
  std::memcpy(out.bytes().data(), &code, sizeof(code));
}

std::unique_ptr<uint8_t[]> CallBuffer(uint64_t n, bool zeroed) {
  static const uint64_t machine_bytes =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (n > machine_bytes) return nullptr;
  const size_t bytes = n == 0 ? 1 : static_cast<size_t>(n);
  return std::unique_ptr<uint8_t[]>(zeroed ? new (std::nothrow) uint8_t[bytes]()
                                           : new (std::nothrow) uint8_t[bytes]);
}

bool CallServer::NoMemory(Writer& out) {
  Fail(out, kErrNoMem);
  return true;
}

CallServer::CallServer(MpiJob& job, mpi::Mpi& mpi, RankProcess& process,
                       const MpiProgramConfig& config, RankRecord& record, SharedSegments& segments)
    : job_(job),
      mpi_(mpi),
      process_(process),
      config_(config),
      record_(record),
      segments_(segments) {
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
    // Only an MPI_Send goes unanswered (kNoReply), and only without window changes.
    const bool answered = (h.flags & mpi::wire::kNoReply) == 0;
    if ((h.flags & ~(mpi::wire::kWindowChanges | mpi::wire::kNoReply)) != 0 ||
        (!answered && h.flags != mpi::wire::kNoReply) ||
        (!answered && h.call != static_cast<uint32_t>(Call::kSend)) ||
        ((h.flags & mpi::wire::kWindowChanges) != 0 && !TakeWindowChanges(args))) {
      return Status::Error(fmt::format(
          "rank {} sent a call with malformed header flags ({}) or window changes after {}: the "
          "program broke libnicsim_mpi's protocol",
          rank(), h.flags, record_.call));
    }
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
    Result<calls::Args> decoded = calls::Decode(call, args);
    if (!decoded.ok()) {
      return Status::Error(fmt::format(
          "rank {} sent malformed arguments to {} ({}): the program broke libnicsim_mpi's "
          "protocol (is it built with this nicsim's nicsim-mpicc?)",
          rank(), name, decoded.status().message()));
    }
    if (call == Call::kAbort) {
      const auto& a = std::get<calls::Abort>(*decoded);
      return Status::Error(fmt::format("rank {} called MPI_Abort with error code {}{}{}", rank(),
                                       a.code, a.why.empty() ? "" : ": ", a.why));
    }
    Writer out;
    out.Put<int32_t>(0);  // MPI_SUCCESS: the program checked the arguments
    if (!Dispatch(call, *decoded, out)) {
      return Status::Error(
          fmt::format("rank {} sent arguments to {} that name no communicator, rank or request "
                      "of its own: the program broke libnicsim_mpi's protocol (is it built with "
                      "this nicsim's nicsim-mpicc?)",
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
    previous_call_ = call;
    // The program's memory at its end, read while it waits for this reply.
    if (call == Call::kFinalize) record_.peak_rss_kib = process_.PeakRssKib();
    if (!answered) continue;
    if (!process_.Send(Call::kReply, out.bytes(), WindowChanges())) return Ended();
    if (pending_descriptor_ >= 0 && !process_.SendDescriptor(pending_descriptor_)) {
      return Ended();
    }
    pending_descriptor_ = -1;
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

mpi::Combiner CallServer::CombinerOf(const calls::Reduction& r) {
  if (r.op == mpi::wire::kUserOp) {
    return mpi::Combiner{[this, r](uint8_t* acc, const uint8_t* part, size_t bytes) {
                           ApplyUserOp(static_cast<int32_t>(r.user_op), r.datatype, r.element_bytes,
                                       acc, part, bytes);
                         },
                         r.commutes};
  }
  return mpi::Combiner::Of(static_cast<mpi::Op>(r.op), static_cast<mpi::Base>(r.base));
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
  Result<calls::Args> decoded = calls::Decode(Call::kOpResult, answer);
  if (!decoded.ok()) {
    broken_ = fmt::format("a malformed answer to a reduction with its own op ({})",
                          decoded.status().message());
    return;
  }
  const calls::Bytes result = std::get<calls::OpResult>(*decoded).result;
  if (result.size > 0) std::memcpy(acc, result.data, std::min(result.size, bytes));
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

void CallServer::Complete(const calls::Complete& args, Writer& out) {
  const CompleteMode mode = args.mode;
  std::vector<uint64_t> ids;
  std::vector<uint32_t> active;  // indices of the requests that are not MPI_REQUEST_NULL
  std::vector<mpi::Mpi::Request> waiting;
  for (uint32_t i = 0; i < args.ids.size(); ++i) {
    const uint64_t id = args.ids[i];
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

bool CallServer::Dispatch(Call call, const calls::Args& args, Writer& out) {
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
      // A program that reads the clock over and over without another call waits on it
      // (while (MPI_Wtime() - t0 < d)): past kClockReadsBeforeWaiting reads in a row, each
      // lets time pass, as an unsuccessful poll does.
      clock_reads_ = previous_call_ == Call::kWtime ? clock_reads_ + 1 : 1;
      if (clock_reads_ > kClockReadsBeforeWaiting) {
        job_.Sleep(static_cast<uint32_t>(rank()), kUnsuccessfulPollPs);
      }
      out.Put<double>(mpi_.Wtime());
      return true;
    case Call::kSleep:
      // The program sleeps in simulated time: the rank waits, the others go on.
      job_.Sleep(static_cast<uint32_t>(rank()), std::get<calls::Sleep>(args).ns * 1000);
      return true;
    case Call::kCommIdup: {
      const mpi::Comm* c = CommOf(std::get<calls::OnComm>(args).comm);
      if (c == nullptr) return false;
      const mpi::Comm made = mpi_.Idup(*c);
      PutMade(out, &made);
      return true;
    }
    case Call::kCommDup: {
      const mpi::Comm* c = CommOf(std::get<calls::OnComm>(args).comm);
      if (c == nullptr) return false;
      const mpi::Comm made = mpi_.Dup(*c);
      PutMade(out, &made);
      return true;
    }
    case Call::kCommSplit:
    case Call::kCommSplitType: {
      const auto& a = std::get<calls::Split>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr) return false;
      int32_t color = a.color;
      if (call == Call::kCommSplitType) {
        // The ranks of one node share its memory; any other split type gives no communicator.
        color = a.color == kCommTypeShared ? static_cast<int32_t>(node()) : kUndefined;
      }
      const mpi::Comm made = mpi_.Split(*c, color, a.key);
      PutMade(out, color == kUndefined ? nullptr : &made);
      return true;
    }
    case Call::kCommCreateGroup: {
      const auto& a = std::get<calls::CreateGroup>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.members.size() > static_cast<size_t>(mpi_.world().size()) ||
          std::find(a.members.begin(), a.members.end(), rank()) == a.members.end()) {
        return false;
      }
      const mpi::Comm made = mpi_.CreateGroup(*c, a.members);
      PutMade(out, &made);
      return true;
    }
    case Call::kCommFree:
      return comms_.erase(std::get<calls::OnComm>(args).comm) == 1;
    case Call::kCommCompare: {
      const auto& a = std::get<calls::Compare>(args);
      const mpi::Comm* x = CommOf(a.a);
      const mpi::Comm* y = CommOf(a.b);
      if (x == nullptr || y == nullptr) return false;
      out.Put<int32_t>(CompareComms(*x, *y));
      return true;
    }
    case Call::kSend:
    case Call::kIsend: {
      const auto& a = std::get<calls::Send>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.dest >= c->size()) return false;
      mpi::Mpi::Request r = a.sync ? mpi_.Issend(a.data.data, a.data.size, kByte, a.dest, a.tag, *c)
                                   : mpi_.Isend(a.data.data, a.data.size, kByte, a.dest, a.tag, *c);
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
      const auto& a = std::get<calls::Recv>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.source >= c->size()) return false;
      // Left uninitialised: the pages of a large receive that gets a short message are never
      // touched.
      Pending p{nullptr, CallBuffer(a.room, /*zeroed=*/false), true};
      if (p.landing == nullptr) {
        // More than this process can hold: the program's call fails, the run goes on.
        return NoMemory(out);
      }
      p.request = mpi_.Irecv(p.landing.get(), a.room, kByte, a.source, a.tag, *c);
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
      Complete(std::get<calls::Complete>(args), out);
      return true;
    case Call::kRequestFree: {
      auto it = requests_.find(std::get<calls::OnRequest>(args).id);
      if (it == requests_.end()) return false;
      detached_.push_back(std::move(it->second));
      requests_.erase(it);
      return true;
    }
    case Call::kCancel: {
      auto it = requests_.find(std::get<calls::OnRequest>(args).id);
      if (it == requests_.end()) return false;
      // A send that has started is never taken back (MPI lets a cancel fail); a receive is
      // cancelled while no message has matched it.
      const bool cancelled = it->second.recv && mpi_.CancelRecv(it->second.request);
      out.Put<uint8_t>(cancelled);
      return true;
    }
    case Call::kProbe: {
      const auto& a = std::get<calls::Probe>(args);
      const mpi::Comm* c = CommOf(a.comm);
      if (c == nullptr || a.source >= c->size()) return false;
      std::optional<mpi::Status> s =
          a.block ? std::optional<mpi::Status>(mpi_.Probe(a.source, a.tag, *c))
                  : mpi_.Iprobe(a.source, a.tag, *c);
      if (!s) job_.Sleep(static_cast<uint32_t>(rank()), kUnsuccessfulPollPs);
      out.Put<uint8_t>(s.has_value());
      PutStatus(out, s.value_or(mpi::Status{}));
      return true;
    }
    case Call::kBarrier: {
      const mpi::Comm* c = CommOf(std::get<calls::OnComm>(args).comm);
      if (c == nullptr) return false;
      mpi_.Barrier(*c);
      return true;
    }
    case Call::kWinCreate:
    case Call::kWinAttach:
    case Call::kWinDetach:
    case Call::kWinFree:
    case Call::kRma:
    case Call::kWinSync:
      return Windows(call, args, out);
    default:
      return Collective(call, args, out);
  }
}

}  // namespace nicsim::sim
