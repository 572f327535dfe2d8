// SPDX-License-Identifier: Apache-2.0
// One rank of `nicsim mpirun`: the program's process, started with a channel to the simulator
// (shared lanes and a stream socket, wire.h) and pipes for its stdout and stderr, whose lines are
// forwarded prefixed as Open MPI's `mpirun --tag-output` does ("[1,R]<stdout>:"). While the
// simulator waits for the program's next call it forwards what the program prints, so a program
// that prints much between two calls never blocks on a full pipe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ulp/mpi/capi/shared_lanes.h"
#include "ulp/mpi/capi/wire.h"

namespace nicsim::sim {

/** Splits a stream into lines and writes each with a prefix. */
class LineTagger {
 public:
  LineTagger(std::string prefix, std::FILE* to) : prefix_(std::move(prefix)), to_(to) {}
  void Feed(const char* data, size_t n);
  /** Writes a last line without its newline, if one is pending. */
  void Flush();

 private:
  void Write(const std::string& lines);

  std::string prefix_;
  std::FILE* to_;
  std::string partial_;
};

/**
 * While it lives, SIGINT, SIGTERM and SIGHUP stop the program run instead of killing nicsim:
 * the rank whose call nicsim waits for, and every rank after it, is killed by its PID, and the
 * run fails with the signal's name (stats.json is written). The default dispositions come back
 * at the end.
 */
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  /** The signal received, or 0. */
  static int received();
};

class RankProcess {
 public:
  /** Starts `argv` (argv[0] a path) as rank `rank`; an error if it cannot be started. Each end
   *  of the channel spins a while before it sleeps if `spin` (not when they share a CPU); the
   *  program measures its CPU time between calls if `measure_compute`. */
  static Result<std::unique_ptr<RankProcess>> Start(const std::vector<std::string>& argv, int rank,
                                                    bool spin, bool measure_compute);
  /** Kills the process if it still runs (the job was abandoned) and reaps it. */
  ~RankProcess();
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;

  /** The wall-clock time by which the program must be done: once it passes, Next kills the
   *  process (by its PID) and returns false with `timed_out()` set. */
  void SetDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  /**
   * Waits for the program's next message. False once the program has ended (its exit, seen
   * even while a child of it holds the channel open, or its channel closed), sent something
   * malformed or stopped in the middle of a message (then `broken()` says what), or ran past
   * its deadline.
   */
  bool Next(mpi::wire::Header* header, std::vector<uint8_t>* args);
  /** Next killed the process at its deadline. */
  bool timed_out() const { return timed_out_; }
  /** The signal that stopped nicsim (StopSignals) if Next killed the process for it; else 0. */
  int stopped_by() const { return stopped_by_; }
  /** Sends a message to the program, after the windows' `changes` if any (wire.h); false if
   *  its channel is closed. */
  bool Send(mpi::wire::Call call, const std::vector<uint8_t>& args,
            const std::vector<uint8_t>& changes = {});
  /** Hands the program a copy of `descriptor` (stream_io.h); false if that fails. */
  bool SendDescriptor(int descriptor);
  /**
   * After Next returned false: waits for the process to end and forwards the rest of its
   * output. Returns how it ended: "exited with status 0", "was killed by signal 11 (...)".
   */
  std::string Reap();
  /** The process ended with status 0. Valid after Reap. */
  bool exited_cleanly() const { return exited_cleanly_; }
  /** The process's peak resident memory so far in KiB (0 once it has ended). */
  uint64_t PeakRssKib() const;
  const std::string& broken() const { return broken_; }
  pid_t pid() const { return pid_; }

 private:
  /** Where the program's next message is, once WaitForMessage has seen it. */
  enum class Arrival { kInLane, kOnSocket, kEnded };

  RankProcess(pid_t pid, int channel, int out, int err, int bell, mpi::wire::Lanes* lanes, int rank,
              bool spin);
  /** Waits for the program's next message, forwarding its output meanwhile (what it printed
   *  before the message comes out first). kEnded as Next's false says. */
  Arrival WaitForMessage();
  /** Reads a message from the socket. */
  bool ReadFromSocket(mpi::wire::Header* header, std::vector<uint8_t>* args);
  /** Forwards what the output pipes hold; waits up to `timeout_ms` for something (-1: forever). */
  void Forward(int timeout_ms);
  void Drain(int& fd, LineTagger& tag);
  /** Reads `n` bytes of the channel, forwarding output meanwhile; false as Next says
   *  (`mid_message`: the bytes belong to a message already begun, so an end is broken). */
  bool Receive(void* buf, size_t n, bool mid_message);
  /** Reaps the process if it has exited (keeping its status for Reap); true once reaped. */
  bool ReapIfExited();

  pid_t pid_;
  int channel_;
  int out_;
  int err_;
  /** The eventfd the program rings when this end sleeps, and the lanes both map. */
  int bell_;
  mpi::wire::Lanes* lanes_;
  /** Calls taken so far from the calls lane, and where the next one is there. */
  uint32_t calls_seen_ = 0;
  uint64_t calls_at_ = 0;
  LineTagger out_tag_;
  LineTagger err_tag_;
  bool reaped_ = false;
  /** The wait status, once reaped. */
  int status_ = 0;
  bool exited_cleanly_ = false;
  bool timed_out_ = false;
  int stopped_by_ = 0;
  std::string broken_;
  /** Waits for the program's next message without sleeping first (the program's next call
   *  usually comes within microseconds). */
  mpi::wire::Spinner call_spinner_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

}  // namespace nicsim::sim
