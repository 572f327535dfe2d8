// SPDX-License-Identifier: Apache-2.0
// Starting, waiting for and stopping the processes a run starts: the one launcher under
// `nicsim mpirun`, `nicsim shm-run`, the benches and the tests. A process is always addressed
// by the PID its start returned, never by name.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace nicsim {

/** A program to start and the surroundings it starts in. */
struct SpawnRequest {
  /** argv[0] is the executable's path (FindProgram makes one of a bare name). */
  std::vector<std::string> argv;
  /** "NAME=value" entries put in the program's environment, replacing inherited ones. */
  std::vector<std::string> set_env;
  /** Names taken out of the environment it inherits. */
  std::vector<std::string> unset_env;
  /** The program's stdin, stdout and stderr: -1 gives it /dev/null for stdin and this
   *  process's own for the other two. */
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  /** Descriptors the program keeps across its exec under the same numbers (besides 0-2). */
  std::vector<int> keep_fds;
  /** Signals whose default action the program gets back (ones this process handles or
   *  ignores while it runs). */
  std::vector<int> default_signals;
  /** The signal mask the program starts with; empty: the calling thread's. */
  std::optional<sigset_t> mask;
  /**
   * SIGKILL the program when the thread that started it ends, so that killing the launcher
   * (even by SIGKILL) takes its processes with it. This needs fork, which copies the
   * caller's page tables: for a small launcher. Without it the start is posix_spawn, cheap
   * from a process of any size.
   */
  bool die_with_parent = false;
};

/** Starts the program; its PID, or why it could not start (the exec's error included). */
Result<pid_t> Spawn(const SpawnRequest& request);

/**
 * Runs `body` in a forked copy of this process that dies with the calling thread; the
 * child exits with what `body` returns (1 if it throws, with the exception's message on
 * stderr after `name`). Returns the child's PID.
 */
Result<pid_t> ForkCall(const std::string& name, const std::function<int()>& body);

/** The wait status of `pid` if it has ended (reaping it), else nullopt. */
std::optional<int> ReapIfEnded(pid_t pid);
/** Waits for `pid` to end; its wait status. With `limit_s` > 0 it is killed (SIGKILL) once
 *  that many seconds pass, and `*killed` (if given) says so. */
int WaitFor(pid_t pid, double limit_s = 0, bool* killed = nullptr);
/** SIGKILL and reap: the wait status. */
int KillAndReap(pid_t pid);
/** Sends `sig`, waits up to `grace_s` for the end, then kills: the wait status. */
int StopAndReap(pid_t pid, int sig, double grace_s);

/** "exited with status 3" or "was killed by signal 9 (Killed)". */
std::string DescribeWaitStatus(int status);
/** The exit code of a wait status; -1 if a signal ended the process. */
int ExitCodeOf(int status);

/**
 * `name` as the path of an executable file: as given if it contains a '/', else the first
 * match in PATH. The error names the program and what is wrong ("no such file", "not an
 * executable file", "not found ...").
 */
Result<std::string> FindProgram(const std::string& name);

}  // namespace nicsim
