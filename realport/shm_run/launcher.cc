// SPDX-License-Identifier: Apache-2.0
// The shm-run launcher: the ranks started (base/child_process.h), a wait loop on SIGCHLD,
// SIGINT, SIGTERM, SIGHUP and the timeout, the dead marks in the control segment, and
// reclamation of the segments.
#include "realport/shm_run/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "ulp/shm/control_segment.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/segments/shm_segments.h"

namespace nicsim::sim {
namespace {

namespace pb = ulp::postbox;
namespace shm = ulp::shm;
using Clock = std::chrono::steady_clock;

constexpr int kRunFailed = 1;
/** After forwarding SIGINT or SIGTERM: how long the processes get before SIGKILL. */
constexpr double kGraceSeconds = 2.0;
/** Longest sleep of the wait loop (it wakes at once on a child's end or a signal). */
constexpr long kWaitSliceNs = 100'000'000;
/** Longest --prefix. */
constexpr size_t kMaxPrefixChars = 100;

void Say(const std::string& line) { std::fprintf(stderr, "nicsim shm-run: %s\n", line.c_str()); }

bool ValidPrefix(const std::string& p) {
  if (p.empty() || p.size() > kMaxPrefixChars) return false;
  for (char c : p) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/** "SIGINT", "SIGTERM" or "SIGHUP": the signals the launcher forwards. */
const char* SignalName(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/** One process of the run, as the launcher sees it. */
struct Child {
  pid_t pid = -1;
  bool ended = false;
  int wait_status = 0;
  /** Its state when it ended: finalized, or dead (marked by the launcher). */
  shm::ProcessState final_state = shm::ProcessState::kStarting;
};

/** Records how a reaped process ended and marks it dead unless it finalized. */
shm::ProcessState MarkEnded(shm::ProcessEntry* e, int status) {
  e->exit_code.store(WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::memory_order_relaxed);
  e->term_signal.store(WIFSIGNALED(status) ? WTERMSIG(status) : 0, std::memory_order_relaxed);
  e->ended.store(1, std::memory_order_release);
  // The process may be racing from running to finalized only if it is alive; it is not, so
  // the state read here is final unless this swap makes it dead.
  uint32_t s = e->state.load(std::memory_order_acquire);
  while (s == static_cast<uint32_t>(shm::ProcessState::kStarting) ||
         s == static_cast<uint32_t>(shm::ProcessState::kRunning)) {
    if (e->state.compare_exchange_weak(s, static_cast<uint32_t>(shm::ProcessState::kDead),
                                       std::memory_order_acq_rel)) {
      return shm::ProcessState::kDead;
    }
  }
  return static_cast<shm::ProcessState>(s);
}

/**
 * True if `name` (after the run's prefix) is one the engines give a segment of a run of
 * `processes` processes on one node: postbox data and ACK segments, push-pull channels, with
 * ranks below `processes` written as std::to_string writes them. Another run whose prefix
 * extends this one's ("<prefix>-pbx-x") has names that are not of this form, so its segments
 * are never taken for this run's.
 */
bool IsRunSegmentName(const std::string& name, uint32_t processes) {
  static const std::regex kData("pbx-data-n0\\.r(0|[1-9][0-9]{0,8})-to-n0");
  static const std::regex kChannel("pp-ch-(0|[1-9][0-9]{0,8})-to-(0|[1-9][0-9]{0,8})");
  auto rank_ok = [processes](const std::ssub_match& m) { return std::stoul(m.str()) < processes; };
  std::smatch m;
  if (std::regex_match(name, m, kData)) return rank_ok(m[1]);
  if (std::regex_match(name, m, kChannel)) return rank_ok(m[1]) && rank_ok(m[2]);
  return name == pb::AckSegmentName(0, 0);
}

/** A segment unlinked at the end of the run. */
struct Reclaimed {
  std::string name;  // without the platform prefix
  size_t bytes = 0;
};

/**
 * Unlinks every segment of the run: the names the protocol gives them (control, the ACK
 * segment, each rank's data segment), then any other segment of the run's engines under the
 * prefix in /dev/shm (IsRunSegmentName).
 */
std::vector<Reclaimed> ReclaimSegments(const std::string& run_prefix, uint32_t processes) {
  const std::string platform_prefix = shm::PlatformPrefixOfRun(run_prefix);
  std::vector<std::string> names = {shm::ControlSegmentName(), pb::AckSegmentName(0, 0)};
  for (uint32_t r = 0; r < processes; ++r) names.push_back(pb::DataSegmentName({0, r}, 0));
  // Linux shows POSIX shared-memory objects as files in /dev/shm: catch any other name.
  const std::string file_prefix = run_prefix + "-";
  if (DIR* dir = opendir("/dev/shm")) {
    std::set<std::string> known(names.begin(), names.end());
    while (dirent* d = readdir(dir)) {
      const std::string file = d->d_name;
      if (file.rfind(file_prefix, 0) != 0) continue;
      // Only this run's engines' names: a run whose prefix extends this one
      // ("<prefix>-x-control", "<prefix>-pbx-x-pbx-ack-n0-from-n0") is another run's business.
      const std::string name = file.substr(file_prefix.size());
      if (!IsRunSegmentName(name, processes)) continue;
      if (known.insert(name).second) names.push_back(name);
    }
    closedir(dir);
  }
  std::vector<Reclaimed> reclaimed;
  for (const std::string& name : names) {
    const std::string full = platform_prefix + name;
    Reclaimed r;
    r.name = name;
    const int fd = shm_open(full.c_str(), O_RDONLY, 0);
    if (fd < 0) continue;  // never made (a rank that sent nothing) or already gone
    struct stat st {};
    if (fstat(fd, &st) == 0) r.bytes = static_cast<size_t>(st.st_size);
    close(fd);
    if (shm_unlink(full.c_str()) == 0) reclaimed.push_back(r);
  }
  return reclaimed;
}

}  // namespace

Status ValidateShmRunOptions(ShmRunOptions* options) {
  if (options->processes < 1) {
    return Status::Error("shm-run: -n: expected at least 1 process, got " +
                         std::to_string(options->processes));
  }
  if (options->processes > shm::kMaxRunProcesses) {
    return Status::Error("shm-run: -n: at most " + std::to_string(shm::kMaxRunProcesses) +
                         " processes, got " + std::to_string(options->processes));
  }
  if (options->program.empty()) {
    return Status::Error(
        "shm-run: a program to run is required: nicsim shm-run -n N PROGRAM [ARGS...]");
  }
  if (!options->prefix.empty() && !ValidPrefix(options->prefix)) {
    return Status::Error("shm-run: --prefix '" + options->prefix + "': use 1 to " +
                         std::to_string(kMaxPrefixChars) + " letters, digits, '.', '_' or '-'");
  }
  if (!std::isfinite(options->timeout_s) || options->timeout_s < 0) {
    return Status::Error("shm-run: --timeout: expected seconds >= 0 (0: none), got " +
                         std::to_string(options->timeout_s));
  }
  Result<std::string> path = FindProgram(options->program.front());
  if (!path.ok()) return Status::Error("shm-run: " + path.status().message());
  options->program.front() = *path;
  return Status();
}

int ShmRunCommand(const ShmRunOptions& options) {
  const auto n = static_cast<uint32_t>(options.processes);
  const pid_t self = getpid();
  const std::string run_prefix = options.prefix.empty()
                                     ? "nicsim-run-" + std::to_string(static_cast<long>(self))
                                     : options.prefix;
  const std::string platform_prefix = shm::PlatformPrefixOfRun(run_prefix);

  // The signals the wait loop takes with sigtimedwait: blocked from here on, so one that
  // comes while the processes start is not lost (the children get the old mask back).
  sigset_t watched, old_mask;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGINT);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigprocmask(SIG_BLOCK, &watched, &old_mask);

  ulp::segments::ShmSegments platform(platform_prefix);
  platform.KeepSegments();  // ReclaimSegments unlinks, and reports, everything at the end
  Result<ulp::segments::Mapping> control =
      platform.Create(shm::ControlSegmentName(), shm::ControlSegmentBytes(n));
  if (!control.ok()) {
    Say("cannot create the control segment of run " + run_prefix + ": " +
        control.status().message() + " (another run uses this --prefix, or a killed one left " +
        "/dev/shm/" + run_prefix + "-*)");
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return kRunFailed;
  }
  auto* header = new (control->base) shm::ControlHeader{};
  header->version = shm::kControlVersion;
  header->process_count = n;
  header->launcher_pid = static_cast<int32_t>(self);
  for (uint32_t r = 0; r < n; ++r) new (shm::EntryAt(control->base, r)) shm::ProcessEntry{};
  header->magic.store(shm::kControlMagic, std::memory_order_release);

  std::vector<Child> children(n);
  bool failed_to_start = false;
  for (uint32_t r = 0; r < n; ++r) {
    SpawnRequest request;
    request.argv = options.program;
    // Every rank talks the same protocol.
    request.set_env = {std::string(shm::kRankEnv) + "=" + std::to_string(r),
                       std::string(shm::kSizeEnv) + "=" + std::to_string(n),
                       std::string(shm::kPrefixEnv) + "=" + platform_prefix,
                       std::string(shm::kProtocolEnv) + "=" + options.protocol};
    request.mask = old_mask;
    // A launcher killed without forwarding a signal (SIGKILL) takes the ranks with it rather
    // than leave them polling for ever.
    request.die_with_parent = true;
    Result<pid_t> pid = Spawn(request);
    if (!pid.ok()) {
      Say("cannot start rank " + std::to_string(r) + ": " + pid.status().message());
      failed_to_start = true;
      break;
    }
    children[r].pid = *pid;
    shm::EntryAt(control->base, r)
        ->pid.store(static_cast<int32_t>(*pid), std::memory_order_release);
  }

  auto live = [&] {
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < n; ++r) {
      if (children[r].pid > 0 && !children[r].ended) ranks.push_back(r);
    }
    return ranks;
  };
  auto signal_all = [&](int sig) {
    for (uint32_t r : live()) kill(children[r].pid, sig);
  };
  if (failed_to_start) signal_all(SIGKILL);

  const auto start = Clock::now();
  int interrupted_by = 0;
  bool timed_out = false;
  bool killed_after_grace = false;
  Clock::time_point grace_end{};
  while (!live().empty()) {
    for (uint32_t r : live()) {
      const std::optional<int> status = ReapIfEnded(children[r].pid);
      if (!status) continue;
      children[r].ended = true;
      children[r].wait_status = *status;
      children[r].final_state = MarkEnded(shm::EntryAt(control->base, r), *status);
    }
    if (live().empty()) break;
    const auto now = Clock::now();
    if (interrupted_by != 0 && !killed_after_grace && now >= grace_end) {
      killed_after_grace = true;
      signal_all(SIGKILL);
    }
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (options.timeout_s > 0 && !timed_out && elapsed >= options.timeout_s) {
      timed_out = true;
      std::string who;
      for (uint32_t r : live()) {
        const auto s = static_cast<shm::ProcessState>(
            shm::EntryAt(control->base, r)->state.load(std::memory_order_acquire));
        who += std::string(who.empty() ? "" : ", ") + "rank " + std::to_string(r) + " (pid " +
               std::to_string(children[r].pid) + ", " + shm::ToString(s) + ")";
      }
      char limit[32];
      std::snprintf(limit, sizeof(limit), "%g", options.timeout_s);
      Say(std::string("timed out after ") + limit + " s; still running: " + who + "; killing them");
      signal_all(SIGKILL);
    }
    struct timespec slice = {0, kWaitSliceNs};
    siginfo_t info{};
    const int sig = sigtimedwait(&watched, &info, &slice);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      if (interrupted_by == 0) {
        interrupted_by = sig;
        grace_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(kGraceSeconds));
        Say(std::string("got ") + SignalName(sig) + "; forwarding it to " +
            std::to_string(live().size()) + " running processes");
        signal_all(sig);
      } else {
        // A second interrupt: no more grace.
        killed_after_grace = true;
        signal_all(SIGKILL);
      }
    }
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);

  // Every process has ended: nothing maps the segments but this launcher's control mapping.
  platform.Detach(*control);
  const std::vector<Reclaimed> reclaimed = ReclaimSegments(run_prefix, n);
  size_t bytes = 0;
  std::string list;
  for (const Reclaimed& s : reclaimed) {
    bytes += s.bytes;
    list += (list.empty() ? "" : ", ") + s.name;
    for (uint32_t r = 0; r < n; ++r) {
      if (children[r].final_state == shm::ProcessState::kDead &&
          s.name == pb::DataSegmentName({0, r}, 0)) {
        list += " (dead rank " + std::to_string(r) + "'s)";
      }
    }
  }
  Say("reclaimed " + std::to_string(reclaimed.size()) + " shared-memory segments (" +
      std::to_string(bytes) + " bytes) of run " + run_prefix + ": " + list);

  uint32_t clean = 0;
  for (uint32_t r = 0; r < n; ++r) {
    const Child& c = children[r];
    if (c.pid <= 0) {
      Say("rank " + std::to_string(r) + " was never started");
      continue;
    }
    const bool finalized = c.final_state == shm::ProcessState::kFinalized;
    const bool exited_zero = WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 0;
    if (finalized && exited_zero) {
      ++clean;
      continue;
    }
    Say("rank " + std::to_string(r) + " (pid " + std::to_string(c.pid) + ") " +
        DescribeWaitStatus(c.wait_status) +
        (finalized ? " after finalizing" : " without finalizing: marked dead"));
  }
  if (clean == n && !failed_to_start && interrupted_by == 0 && !timed_out) {
    Say(std::to_string(n) + " processes finalized and exited with status 0");
    return 0;
  }
  std::string why;
  if (timed_out) why = ", timed out";
  if (interrupted_by != 0) {
    why += std::string(", interrupted by ") + SignalName(interrupted_by);
  }
  Say("FAILED: " + std::to_string(n - clean) + " of " + std::to_string(n) +
      " processes did not finalize and exit with status 0" + why);
  return kRunFailed;
}

}  // namespace nicsim::sim
