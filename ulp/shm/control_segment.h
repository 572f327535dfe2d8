// SPDX-License-Identifier: Apache-2.0
// The control segment of a `nicsim shm-run` run: one entry per process (pid, state, how it
// ended), made by the launcher, read by every process to tell a live peer from a dead one.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ulp/postbox/segment_layout.h"

namespace nicsim::ulp::shm {

/** Marks a control segment whose header and entries are complete ("PBXC"). */
inline constexpr uint32_t kControlMagic = 0x50425843;
/** Layout version of the control segment. */
inline constexpr uint32_t kControlVersion = 1;
/** Most processes one run may start (one node's postboxes grow with the count). */
inline constexpr uint32_t kMaxRunProcesses = 256;

/** Environment variables the launcher sets for each process it starts. */
inline constexpr const char* kRankEnv = "NICSIM_SHM_RANK";
inline constexpr const char* kSizeEnv = "NICSIM_SHM_SIZE";
/** The ShmSegments prefix of the run's segments ("/<run prefix>-"). */
inline constexpr const char* kPrefixEnv = "NICSIM_SHM_PREFIX";
/** The protocol the C API talks: "postbox" (reference 000, the default) or "pushpull"
 *  (reference 003: pushes, then a one-copy pull straight into the receiver's buffer). */
inline constexpr const char* kProtocolEnv = "NICSIM_SHM_PROTOCOL";

/**
 * Where a process of a run stands. Starting -> running (the process, in init) -> finalized
 * (the process, in finalize); starting or running -> dead (the launcher, once it has reaped a
 * process that had not finalized). A finalized process never becomes dead.
 */
enum class ProcessState : uint32_t {
  /** Forked by the launcher; init not yet called. */
  kStarting = 0,
  /** Init done: it may send and receive. */
  kRunning = 1,
  /** Finalize done: it sends nothing more (what it posted before can still be received). */
  kFinalized = 2,
  /** Ended (a signal, an exit, a failed exec) without finalizing. */
  kDead = 3,
};

/** Names of the states, indexed by the enum. */
inline constexpr const char* kProcessStateNames[] = {"starting", "running", "finalized", "dead"};

/** "starting", "running", "finalized", "dead" ("?" for anything else). */
inline const char* ToString(ProcessState s) {
  const auto i = static_cast<uint32_t>(s);
  return i < 4 ? kProcessStateNames[i] : "?";
}

/** Start of the control segment. Written by the launcher only, `magic` last (release). */
struct ControlHeader {
  /** kControlMagic once the entries are initialised; 0 before. */
  std::atomic<uint32_t> magic;
  /** kControlVersion of the writer. */
  uint32_t version;
  /** Processes of the run = entries that follow. */
  uint32_t process_count;
  /** Pid of the launcher. */
  int32_t launcher_pid;
  /** Unused; zero. Pads the header to one cache line. */
  uint8_t reserved[48];
};
static_assert(sizeof(ControlHeader) == 64, "control header layout changed");
static_assert(std::is_standard_layout_v<ControlHeader>, "shared structs are plain");

/**
 * One process of the run, one cache line each. `state` has two writers that never race on
 * the same transition: the process itself (starting -> running -> finalized) and the
 * launcher (compare-and-swap to dead, only from starting or running). The launcher writes the
 * end fields before `ended` and the state (both release), so a reader that sees dead (acquire)
 * also sees how the process ended.
 */
struct ProcessEntry {
  /** ProcessState. */
  std::atomic<uint32_t> state;
  /** The process's pid, written by the launcher right after fork. */
  std::atomic<int32_t> pid;
  /** 1 once the launcher has reaped the process. */
  std::atomic<uint32_t> ended;
  /** Exit status if it exited; -1 if a signal ended it. */
  std::atomic<int32_t> exit_code;
  /** Signal that ended it; 0 if it exited. */
  std::atomic<int32_t> term_signal;
  /** Unused; zero. */
  uint8_t reserved[44];
};
static_assert(sizeof(ProcessEntry) == 64, "process entry layout changed");
static_assert(std::is_standard_layout_v<ProcessEntry>, "shared structs are plain");

/** Name of the control segment, under the run's prefix. */
inline std::string ControlSegmentName() { return "control"; }

/** Length of the control segment of `processes` processes. */
inline size_t ControlSegmentBytes(uint32_t processes) {
  return sizeof(ControlHeader) + size_t{processes} * sizeof(ProcessEntry);
}

/** The entry of `rank` in a mapped control segment. */
inline ProcessEntry* EntryAt(void* base, uint32_t rank) {
  return reinterpret_cast<ProcessEntry*>(static_cast<uint8_t*>(base) + sizeof(ControlHeader) +
                                         size_t{rank} * sizeof(ProcessEntry));
}

/** The ShmSegments prefix of a run named `run_prefix`: "/<run_prefix>-". */
inline std::string PlatformPrefixOfRun(const std::string& run_prefix) {
  return "/" + run_prefix + "-";
}

}  // namespace nicsim::ulp::shm
