// SPDX-License-Identifier: Apache-2.0
// Serves one rank's MPI calls: reads each call its program sends (rank_process.h), runs it on
// the rank's mpi::Mpi inside the simulated cluster, and answers with the results. Handles
// (communicators, requests) are the server's; the program holds their numbers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "sim/cluster/mpi_job.h"
#include "sim/mpirun/call_decoder.h"
#include "sim/mpirun/mpi_program_config.h"
#include "sim/mpirun/rank_process.h"
#include "sim/mpirun/served_window.h"
#include "ulp/mpi/capi/wire.h"
#include "ulp/mpi/mpi.h"

namespace nicsim::sim {

/** What the job knows of a rank after its server is gone (for errors and stats). */
struct RankRecord {
  /** The call the rank is in, or made last. */
  std::string call = "none (before MPI_Init)";
  bool finalized = false;
  /** Calls served, by name. */
  std::map<std::string, uint64_t> calls;
  /** The rank process's peak resident memory in KiB when it called MPI_Finalize (else 0). */
  uint64_t peak_rss_kib = 0;
};

/**
 * `n` bytes for a call's data (zeroed if `zeroed`), or null if this process cannot hold them:
 * more than the machine's memory is refused without an attempt, so that no allocator (a
 * sanitizer's aborts) is asked for it.
 */
std::unique_ptr<uint8_t[]> CallBuffer(uint64_t n, bool zeroed);
/**
 * Simulated time an MPI_Test*, MPI_Iprobe or MPI_Win_test that finds nothing takes. A program that
 * polls (while (!flag) MPI_Iprobe(...)) must let the simulation move on between its polls, or what
 * it waits for could never arrive: each unsuccessful poll lets this much time pass.
 */
constexpr uint64_t kUnsuccessfulPollPs = 500'000;
/** A reply's error code (the first field of every reply) becomes `code`. */
void Fail(mpi::wire::Writer& out, int32_t code);

class CallServer {
 public:
  CallServer(MpiJob& job, mpi::Mpi& mpi, RankProcess& process, const MpiProgramConfig& config,
             RankRecord& record, SharedSegments& segments);
  /**
   * Serves calls until the program exits. An error if it ends without MPI_Finalize, with a
   * status other than 0, by a signal, or calls MPI_Abort; the message names the rank and call.
   */
  Status Serve();

 private:
  using Writer = mpi::wire::Writer;
  struct Pending {
    mpi::Mpi::Request request;
    /** Where a receive lands (a send's bytes are copied when it starts); left uninitialised,
     *  so the pages of a large receive that gets a short message are never touched. */
    std::unique_ptr<uint8_t[]> landing;
    bool recv = false;
  };
  /** Runs one call; false if its arguments name a communicator, rank or request the program
   *  does not have (a program that broke the protocol). */
  bool Dispatch(mpi::wire::Call call, const calls::Args& args, Writer& out);
  /** Dispatch's collectives that move data. */
  bool Collective(mpi::wire::Call call, const calls::Args& args, Writer& out);
  void Complete(const calls::Complete& args, Writer& out);
  /** Dispatch's one-sided calls (call_server_windows.cc). */
  bool Windows(mpi::wire::Call call, const calls::Args& args, Writer& out);
  bool WinCreate(const calls::WinCreate& a, Writer& out);
  bool WinAttach(const calls::WinAttach& a, Writer& out);
  /** WinCreate of a shared window (`shapes`: every member's size and displacement unit). */
  bool WinCreateShared(const mpi::Comm& c, const std::vector<uint64_t>& sizes, ServedWindow& w,
                       Writer& out);
  /** Keeps an image of window `window`'s `bytes` at `base` (in `copy`, when the memory is a
   *  copy this server holds); its number. */
  int32_t AddImage(int32_t window, uint64_t address, std::unique_ptr<uint8_t[]> copy, uint8_t* base,
                   uint64_t bytes);
  bool Rma(const calls::Rma& a, Writer& out);
  bool WinSync(const calls::WinSync& a, Writer& out);
  /** Runs synchronisation `a` on `w` if it is in turn (false: it is not, and nothing ran);
   *  `*done` is MPI_Win_test's answer. */
  bool Synchronise(ServedWindow& w, const calls::WinSync& a, bool* done);
  /** The changes to the windows' memory since the program and this server last agreed
   *  (window_image.h; empty: none). */
  std::vector<uint8_t> WindowChanges();
  /** Applies the changes at the front of a program's message (`args` then holds only the
   *  call's arguments); false if they are malformed. */
  bool TakeWindowChanges(std::vector<uint8_t>& args);
  /** The call fails with MPI_ERR_NO_MEM (its result is more than this process can hold). */
  static bool NoMemory(Writer& out);
  void PutDone(Writer& out, uint32_t index, uint64_t id);
  const mpi::Comm* CommOf(int32_t handle) const;
  /** Keeps a communicator a call made and answers with it (null: none, MPI_COMM_NULL). */
  void PutMade(Writer& out, const mpi::Comm* made);
  /** The combiner of a reduction's operation (the program's own op runs in its process). */
  mpi::Combiner CombinerOf(const calls::Reduction& r);
  /** acc = acc op in with the program's own op, computed in its process. */
  void ApplyUserOp(int32_t op, int32_t type, uint64_t element, uint8_t* acc, const uint8_t* in,
                   size_t bytes);
  /** How the program ended, as the job's verdict. */
  Status Ended();
  int rank() const { return mpi_.world().rank; }
  /** The node the rank runs on (rank r on node r % nodes, as MpiJob places it). */
  uint32_t node() const { return static_cast<uint32_t>(rank()) % job_.cluster().config().nodes; }

  MpiJob& job_;
  mpi::Mpi& mpi_;
  RankProcess& process_;
  const MpiProgramConfig& config_;
  RankRecord& record_;
  std::map<int32_t, mpi::Comm> comms_;
  int32_t next_comm_ = 3;
  std::unordered_map<uint64_t, Pending> requests_;
  /** Requests the program freed before they completed: kept until the run ends. */
  std::vector<Pending> detached_;
  uint64_t next_request_ = 1;
  std::map<int32_t, ServedWindow> windows_;
  int32_t next_window_ = 1;
  std::map<int32_t, ServedImage> images_;
  int32_t next_image_ = 1;
  SharedSegments& segments_;
  /** Shared windows made on each communicator (by context and lowest world rank). */
  std::map<std::pair<uint32_t, int>, uint64_t> shared_made_;
  /** A descriptor to hand the program after the reply (a shared window's memory), or -1. */
  int pending_descriptor_ = -1;
  uint64_t next_result_ = 1;
  /** The call served before the one being served, and how many MPI_Wtime calls in a row
   *  end with the one being served. */
  mpi::wire::Call previous_call_ = mpi::wire::Call::kInit;
  uint64_t clock_reads_ = 0;
  /** Clock reads in a row that a program may make before they count as waiting. */
  static constexpr uint64_t kClockReadsBeforeWaiting = 1000;
  /** Set when the program stopped answering in the middle of a call (a user op). */
  std::string broken_;
};

}  // namespace nicsim::sim
