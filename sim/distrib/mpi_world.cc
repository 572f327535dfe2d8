// SPDX-License-Identifier: Apache-2.0
// The split run's collectives over Open MPI: non-blocking calls polled against a wall-clock
// deadline, so a dead partition ends every process with a message rather than a hang.
#include <mpi.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "sim/distrib/mpi_world.h"

namespace nicsim::sim::distrib {
namespace {

/** Waits for `request`; after `timeout_s` of wall time, says which step hung and aborts. */
void WaitOrAbort(MPI_Request* request, double timeout_s, uint32_t rank, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int done = 0;
  for (uint64_t polls = 0;; ++polls) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr,
                   "nicsim: partition %u: no answer from the other partitions within %.0f s in "
                   "%s (a process died or hangs); ending the run\n",
                   rank, timeout_s, what);
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    // Spin briefly, then yield: on an oversubscribed machine the peer needs the core.
    if (polls > 1000) std::this_thread::yield();
  }
}

/** The message a process prints when mpirun ends it (set once, before any signal). */
char g_ended_message[160];

/**
 * mpirun ends the other processes with SIGTERM when one dies: say so on this process's
 * stderr too, so every process reports the failure, then exit 1 (only async-signal-safe calls).
 */
void OnEndedByMpirun(int) {
  const ssize_t written = write(STDERR_FILENO, g_ended_message, std::strlen(g_ended_message));
  (void)written;
  _exit(1);
}

/** `op` over every process's `v`, waited for as WaitOrAbort waits. */
uint64_t AllReduce(uint64_t v, MPI_Op op, double timeout_s, uint32_t rank, const char* what) {
  uint64_t result = v;
  MPI_Request request;
  MPI_Iallreduce(&v, &result, 1, MPI_UINT64_T, op, MPI_COMM_WORLD, &request);
  WaitOrAbort(&request, timeout_s, rank, what);
  return result;
}

}  // namespace

bool MpiWorld::Available() { return true; }

Result<std::unique_ptr<MpiWorld>> MpiWorld::Init(double timeout_s) {
  // The partitions exchange a few small messages per window, which Open MPI's ob1 layer
  // (shared memory, TCP) carries as well as any; its default on Debian, UCX, takes about
  // 0.2 s longer to start. A user's own OMPI_MCA_pml (or mpirun --mca pml) still wins.
  setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    return Status::Error("MPI_Init failed");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::snprintf(g_ended_message, sizeof(g_ended_message),
                "nicsim: partition %d of %d: ended by mpirun (another partition failed or was "
                "killed); no results\n",
                rank, size);
  struct sigaction on_term = {};
  on_term.sa_handler = OnEndedByMpirun;
  sigaction(SIGTERM, &on_term, nullptr);
  return std::unique_ptr<MpiWorld>(
      new MpiWorld(static_cast<uint32_t>(rank), static_cast<uint32_t>(size), timeout_s));
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

std::vector<std::vector<uint8_t>> MpiWorld::Exchange(const std::vector<std::vector<uint8_t>>& out) {
  std::vector<int> send_counts(size_), recv_counts(size_), send_at(size_), recv_at(size_);
  std::vector<uint8_t> send;
  for (uint32_t p = 0; p < size_; ++p) {
    send_at[p] = static_cast<int>(send.size());
    send_counts[p] = static_cast<int>(out[p].size());
    send.insert(send.end(), out[p].begin(), out[p].end());
  }
  MPI_Request request;
  MPI_Ialltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD,
                &request);
  WaitOrAbort(&request, timeout_s_, rank_, "the exchange of frame counts");
  int total = 0;
  for (uint32_t p = 0; p < size_; ++p) {
    recv_at[p] = total;
    total += recv_counts[p];
  }
  std::vector<uint8_t> recv(static_cast<size_t>(total));
  MPI_Ialltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv.data(),
                 recv_counts.data(), recv_at.data(), MPI_BYTE, MPI_COMM_WORLD, &request);
  WaitOrAbort(&request, timeout_s_, rank_, "the exchange of frames");
  std::vector<std::vector<uint8_t>> in(size_);
  for (uint32_t p = 0; p < size_; ++p) {
    in[p].assign(recv.begin() + recv_at[p], recv.begin() + recv_at[p] + recv_counts[p]);
  }
  return in;
}

uint64_t MpiWorld::Min(uint64_t v) {
  return AllReduce(v, MPI_MIN, timeout_s_, rank_, "the agreement on the next window");
}

uint64_t MpiWorld::Sum(uint64_t v) {
  return AllReduce(v, MPI_SUM, timeout_s_, rank_, "a sum over the partitions");
}

std::vector<std::string> MpiWorld::GatherToRoot(const std::string& text) {
  int len = static_cast<int>(text.size());
  std::vector<int> lens(size_), at(size_);
  MPI_Request request;
  MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  WaitOrAbort(&request, timeout_s_, rank_, "the gathering of results");
  int total = 0;
  for (uint32_t p = 0; p < size_; ++p) {
    at[p] = total;
    total += lens[p];
  }
  std::vector<char> all(rank_ == 0 ? static_cast<size_t>(total) : 0);
  MPI_Igatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), at.data(), MPI_CHAR, 0,
               MPI_COMM_WORLD, &request);
  WaitOrAbort(&request, timeout_s_, rank_, "the gathering of results");
  std::vector<std::string> texts;
  if (rank_ != 0) return texts;
  for (uint32_t p = 0; p < size_; ++p) texts.emplace_back(all.data() + at[p], lens[p]);
  return texts;
}

}  // namespace nicsim::sim::distrib
