// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/client.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

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
  ops.resize(32);  // handles below 32 are the predefined ops
  requests.resize(1);
  comms.resize(3);
}

Reply Client::Call(wire::Call call, const wire::Writer& args) {
  const uint64_t now = CpuNs();
  if (!wire::SendMessage(fd_, call, args.bytes(), returned_cpu_ns_ == 0 ? 0 : now - returned_cpu_ns_)) {
    LostSimulator();
  }
  for (;;) {
    wire::Header in;
    if (!wire::ReadFully(fd_, &in, sizeof(in))) LostSimulator();
    reply_.resize(in.bytes);
    if (!wire::ReadFully(fd_, reply_.data(), reply_.size())) LostSimulator();
    if (in.call == static_cast<uint32_t>(wire::Call::kApplyOp)) {
      Serve(wire::Reader(reply_.data(), reply_.size()));
      continue;
    }
    returned_cpu_ns_ = CpuNs();
    Reply r{MPI_SUCCESS, wire::Reader(reply_.data(), reply_.size())};
    r.code = r.results.Get<int32_t>();
    return r;
  }
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
  if (!args.failed() && t != nullptr && op > 0 && static_cast<size_t>(op) < ops.size() &&
      ops[op].valid) {
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
  if (!wire::SendMessage(fd_, wire::Call::kOpResult, out.bytes())) LostSimulator();
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

void Client::AddComm(MPI_Comm c, int rank, int size, MPI_Errhandler errhandler) {
  if (static_cast<size_t>(c) >= comms.size()) comms.resize(static_cast<size_t>(c) + 1);
  comms[c] = CommInfo{true, rank, size, errhandler};
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

int Client::Error(MPI_Comm comm, int code, const char* call, const std::string& what) {
  const CommInfo* c = Comm(comm);
  const MPI_Errhandler handler = c != nullptr ? c->errhandler : comms[MPI_COMM_WORLD].errhandler;
  if (handler == MPI_ERRORS_RETURN) return code;
  const std::string message =
      std::string(call) + ": " + ErrorClassText(code) + (what.empty() ? "" : ": " + what);
  std::fprintf(stderr, "nicsim mpi: rank %d: %s\n", world_rank, message.c_str());
  Abort(code, message);
}

const char* ErrorClassText(int code) {
  static const char* const kText[] = {
      "MPI_SUCCESS: no error",
      "MPI_ERR_BUFFER: invalid buffer pointer",
      "MPI_ERR_COUNT: invalid count argument",
      "MPI_ERR_TYPE: invalid datatype",
      "MPI_ERR_TAG: invalid tag",
      "MPI_ERR_COMM: invalid communicator",
      "MPI_ERR_RANK: invalid rank",
      "MPI_ERR_REQUEST: invalid request",
      "MPI_ERR_ROOT: invalid root",
      "MPI_ERR_GROUP: invalid group",
      "MPI_ERR_OP: invalid reduce operation",
      "MPI_ERR_TOPOLOGY: invalid topology",
      "MPI_ERR_DIMS: invalid dimension argument",
      "MPI_ERR_ARG: invalid argument",
      "MPI_ERR_UNKNOWN: unknown error",
      "MPI_ERR_TRUNCATE: message truncated",
      "MPI_ERR_OTHER: known error not in this list",
      "MPI_ERR_INTERN: internal error",
      "MPI_ERR_PENDING: pending request",
      "MPI_ERR_IN_STATUS: error code is in status",
  };
  if (code < 0 || code > MPI_ERR_LASTCODE) return "unknown error code";
  return kText[code];
}

}  // namespace nicsim::mpi::capi
