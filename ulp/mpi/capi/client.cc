// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/client.h"
#include "ulp/mpi/capi/reduce_local.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "ulp/mpi/capi/stream_io.h"

namespace nicsim::mpi::capi {
namespace {

uint64_t CpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

/**
 * A rank dies with the nicsim that started it: otherwise a rank that computes or sleeps when
 * nicsim is killed runs on under PID 1. Runs when the library loads, before main.
 */
__attribute__((constructor)) void DieWithTheSimulator() {
  const char* parent = std::getenv(wire::kParentEnv);
  if (parent == nullptr) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Gone already, before the request took hold.
  if (getppid() != static_cast<pid_t>(std::atoll(parent))) _exit(1);
}

[[noreturn]] void LostSimulator() {
  std::fprintf(stderr, "nicsim mpi: the simulator that runs this rank is gone\n");
  _exit(1);
}

}  // namespace

Client& Client::Get() {
  static Client* client = new Client();  // never destroyed: atexit handlers may still call
  return *client;
}

void Client::Connect() {
  const char* fd = std::getenv(wire::kFdEnv);
  if (fd == nullptr) {
    std::fprintf(stderr,
                 "nicsim mpi: this program was built with nicsim-mpicc; start it with "
                 "`nicsim mpirun -n N PROGRAM`\n");
    std::exit(1);
  }
  fd_ = std::atoi(fd);
  const char* lanes = std::getenv(wire::kLanesEnv);
  const char* bell = std::getenv(wire::kBellEnv);
  void* mapped = lanes == nullptr ? MAP_FAILED
                                  : mmap(nullptr, sizeof(wire::Lanes), PROT_READ | PROT_WRITE,
                                         MAP_SHARED, std::atoi(lanes), 0);
  if (mapped == MAP_FAILED || bell == nullptr) {
    std::fprintf(stderr, "nicsim mpi: cannot map the channel's shared memory\n");
    std::exit(1);
  }
  close(std::atoi(lanes));  // the mapping stays
  // The simulator made the mapping and zeroed it: the lanes are there, not constructed here.
  lanes_ = static_cast<wire::Lanes*>(mapped);
  replies_seen_ = lanes_->replies.posted.load(std::memory_order_acquire);
  bell_ = std::atoi(bell);
  const char* spin = std::getenv(wire::kSpinEnv);
  reply_spinner_.set_spins(spin == nullptr || std::string(spin) != "0");
  const char* compute = std::getenv(wire::kComputeEnv);
  measures_compute_ = compute == nullptr || std::string(compute) != "0";
  ops.resize(32);  // handles below 32 are the predefined ops
  requests.resize(1);
  comms.resize(3);
}

Reply Client::Call(wire::Call call, const wire::Writer& args) {
  if (finalized) {
    // The simulator no longer serves this rank: MPI allows almost nothing after MPI_Finalize.
    const std::string what = std::string(wire::CallName(call)) + " called after MPI_Finalize";
    std::fprintf(stderr, "nicsim mpi: rank %d: %s\n", world_rank, what.c_str());
    Abort(MPI_ERR_OTHER, what);
  }
  // Comparing the windows is the library's work, not the program's: not counted as compute.
  const uint64_t compute_ns = ComputeSinceReturn();
  const std::vector<uint8_t> changes = WindowChanges();
  const wire::Header h = wire::HeaderOf(call, changes.size(), args.bytes().size(), compute_ns);
  if (Send(h, changes, args.bytes(), /*quiet=*/false) == wire::Sent::kLost) LostSimulator();
  for (;;) {
    const wire::Header in = Receive();
    if (in.call == static_cast<uint32_t>(wire::Call::kApplyOp)) {
      Serve(wire::Reader(reply_.data(), reply_.size()));
      continue;
    }
    Reply r{MPI_SUCCESS, wire::Reader(reply_.data(), reply_.size())};
    if ((in.flags & wire::kWindowChanges) != 0 && !ApplyWindowChanges(r.results)) {
      std::fprintf(stderr, "nicsim mpi: the simulator sent malformed window changes\n");
      _exit(1);
    }
    if (measures_compute_) returned_cpu_ns_ = CpuNs();
    r.code = r.results.Get<int32_t>();
    return r;
  }
}

int Client::CallWithoutReply(wire::Call call, const wire::Writer& args) {
  // A program with windows learns of the other ranks' puts from each reply: all its calls are
  // answered. So is one too long for the lane (its bytes block on the socket until taken).
  if (finalized || HasWindows() ||
      !wire::Fits(calls_at_, sizeof(wire::Header) + args.bytes().size())) {
    return Call(call, args).code;
  }
  wire::Header h = wire::HeaderOf(call, 0, args.bytes().size(), ComputeSinceReturn());
  h.flags |= wire::kNoReply;
  Send(h, {}, args.bytes(), /*quiet=*/true);
  if (measures_compute_) returned_cpu_ns_ = CpuNs();
  return MPI_SUCCESS;
}

uint64_t Client::ComputeSinceReturn() const {
  return returned_cpu_ns_ == 0 ? 0 : CpuNs() - returned_cpu_ns_;
}

wire::Sent Client::Send(const wire::Header& h, const std::vector<uint8_t>& changes,
                        const std::vector<uint8_t>& args, bool quiet) {
  return wire::SendOverLane(lanes_->calls, &calls_at_, fd_, h, changes, args, quiet, [this] {
    const uint64_t one = 1;
    // A full counter (never, at one per call) would only mean the simulator is awake.
    [[maybe_unused]] const ssize_t n = write(bell_, &one, sizeof(one));
  });
}

wire::Header Client::Receive() {
  wire::Lane& lane = lanes_->replies;
  const auto moved = [&] { return wire::Moved(lane, replies_seen_); };
  if (!reply_spinner_.Until(moved)) {
    while (!moved()) {
      if (!wire::Asleep(lane, replies_seen_)) break;
      wire::SleepOn(lane, replies_seen_);
      wire::Awake(lane);
    }
  }
  replies_seen_ = lane.posted.load(std::memory_order_acquire);
  // The simulator has taken every call posted: the calls lane starts again.
  calls_at_ = 0;
  wire::Header in;
  uint64_t at = 0;
  switch (wire::TakeFromLane(lane, &at, &in, &reply_)) {
    case wire::Taken::kMessage:
      break;
    case wire::Taken::kOnSocket:
      if (!wire::ReadFully(fd_, &in, sizeof(in))) LostSimulator();
      reply_.resize(in.bytes);
      if (!wire::ReadFully(fd_, reply_.data(), reply_.size())) LostSimulator();
      break;
    case wire::Taken::kMalformed:
      std::fprintf(stderr, "nicsim mpi: the simulator sent a malformed message\n");
      _exit(1);
  }
  return in;
}

bool Client::HasWindows() const {
  for (const WinInfo& w : wins) {
    if (!w.images.empty()) return true;
  }
  return false;
}

std::vector<uint8_t> Client::WindowChanges() {
  std::vector<std::pair<int32_t, wire::WindowImage*>> images;
  for (const WinInfo& w : wins) {
    for (const auto& [number, image] : w.images) images.emplace_back(number, image.get());
  }
  if (images.empty()) return {};
  return wire::ChangesSection(images);
}

bool Client::ApplyWindowChanges(wire::Reader& in) {
  const auto [data, n] = in.Blob();
  if (in.failed()) return false;
  return wire::ApplyChangesSection(data, n, [this](int32_t number) -> wire::WindowImage* {
    for (const WinInfo& w : wins) {
      auto it = w.images.find(number);
      if (it != w.images.end()) return it->second.get();
    }
    return nullptr;
  });
}

/** Applies the program's own op: b = a op b, in the datatype's layout, as MPI defines it. */
void Client::Serve(wire::Reader args) {
  const auto op = args.Get<int32_t>();
  const auto type = args.Get<int32_t>();
  const auto count = args.Get<uint64_t>();
  const auto [a, a_bytes] = args.Blob();
  const auto [b, b_bytes] = args.Blob();
  // A copy: the op may make types of its own, which can move the table.
  const TypeInfo* found = types.Find(type);
  const TypeInfo copy = found != nullptr ? *found : TypeInfo{};
  const TypeInfo* t = found != nullptr ? &copy : nullptr;
  wire::Writer out;
  // A predefined op comes here for a type only the program's process can reduce.
  const bool predefined = op >= MPI_SUM && op <= MPI_NO_OP;
  const TypeInfo* unit = t != nullptr ? types.Find(t->unit) : nullptr;
  if (!args.failed() && predefined && unit != nullptr && unit->size > 0 && a_bytes == b_bytes) {
    // A predefined op reduces the packed bytes as they are, unit by unit: b = a op b.
    std::vector<uint8_t> acc(b, b + b_bytes);
    ReducePacked(op, t->unit, a, acc.data(), a_bytes / unit->size);
    out.Blob(acc);
  } else if (!args.failed() && t != nullptr && op > MPI_NO_OP &&
             static_cast<size_t>(op) < ops.size() && ops[op].valid) {
    // Laid out as the program's buffers are: `count` items from the type's lower bound.
    const size_t span = count * static_cast<size_t>(t->extent);
    std::vector<uint8_t> va(span), vb(span);
    Unpack(a, a_bytes, va.data() - t->lb, count, *t);
    Unpack(b, b_bytes, vb.data() - t->lb, count, *t);
    int len = static_cast<int>(count);
    MPI_Datatype dt = type;
    ops[op].fn(va.data() - t->lb, vb.data() - t->lb, &len, &dt);
    out.Blob(Pack(vb.data() - t->lb, count, *t));
  } else {
    out.Blob(b, b_bytes);
  }
  const wire::Header h = wire::HeaderOf(wire::Call::kOpResult, 0, out.bytes().size(), 0);
  if (Send(h, {}, out.bytes(), /*quiet=*/false) == wire::Sent::kLost) LostSimulator();
}

void Client::Abort(int code, const std::string& message) {
  std::fflush(stdout);
  std::fflush(stderr);
  wire::Writer args;
  args.Put<int32_t>(code).Str(message);
  // The run ends either way: a simulator already gone is not waited for.
  if (fd_ >= 0) wire::SendMessage(fd_, wire::Call::kAbort, args.bytes());
  _exit(code == 0 ? 1 : code);
}

void Client::AddComm(MPI_Comm c, int rank, std::vector<int> members, MPI_Errhandler errhandler) {
  if (static_cast<size_t>(c) >= comms.size()) comms.resize(static_cast<size_t>(c) + 1);
  const int size = static_cast<int>(members.size());
  CommInfo info;
  info.valid = true;
  info.rank = rank;
  info.size = size;
  info.errhandler = errhandler;
  info.members = std::move(members);
  comms[c] = std::move(info);
}

MPI_Comm Client::AddMade(wire::Reader& results, MPI_Errhandler errhandler) {
  const auto handle = results.Get<int32_t>();
  const auto rank = results.Get<int32_t>();
  const auto n = results.Get<uint32_t>();
  std::vector<int> members;
  for (uint32_t i = 0; i < n && !results.failed(); ++i) members.push_back(results.Get<int32_t>());
  if (handle == MPI_COMM_NULL || results.failed()) return MPI_COMM_NULL;
  AddComm(handle, rank, std::move(members), errhandler);
  return handle;
}

MPI_Group Client::AddGroup(std::vector<int> members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  if (!free_groups_.empty()) {
    const MPI_Group g = free_groups_.back();
    free_groups_.pop_back();
    groups[g] = GroupInfo{true, std::move(members)};
    return g;
  }
  groups.push_back(GroupInfo{true, std::move(members)});
  return static_cast<MPI_Group>(groups.size() - 1);
}

void Client::FreeGroup(MPI_Group g) {
  if (g == MPI_GROUP_EMPTY) return;
  groups[g] = GroupInfo{};
  free_groups_.push_back(g);
}

MPI_Request Client::AddRequest(RequestInfo r) {
  r.valid = true;
  if (!free_requests_.empty()) {
    const MPI_Request id = free_requests_.back();
    free_requests_.pop_back();
    requests[id] = r;
    return id;
  }
  requests.push_back(r);
  return static_cast<MPI_Request>(requests.size() - 1);
}

}  // namespace nicsim::mpi::capi
