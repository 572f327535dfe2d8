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

namespace {

/** One `nicsim shm-run`: the control segment, the ranks, the wait and the reckoning. */
class ShmRun {
 public:
  explicit ShmRun(const ShmRunOptions& options)
      : options_(options),
        n_(static_cast<uint32_t>(options.processes)),
        run_prefix_(options.prefix.empty()
                        ? "nicsim-run-" + std::to_string(static_cast<long>(getpid()))
                        : options.prefix),
        platform_prefix_(shm::PlatformPrefixOfRun(run_prefix_)),
        platform_(platform_prefix_),
        children_(n_) {
    // The signals the wait loop takes with sigtimedwait: blocked from here on, so one that
    // comes while the processes start is not lost (the children get the old mask back).
    sigemptyset(&watched_);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched_, sig);
    sigprocmask(SIG_BLOCK, &watched_, &old_mask_);
    platform_.KeepSegments();  // ReclaimSegments unlinks, and reports, everything at the end
  }
  ~ShmRun() { sigprocmask(SIG_SETMASK, &old_mask_, nullptr); }

  int Run() {
    if (!CreateControl()) return kRunFailed;
    StartRanks();
    if (failed_to_start_) SignalAll(SIGKILL);
    WaitForRanks();
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    // Every process has ended: nothing maps the segments but this launcher's control mapping.
    platform_.Detach(control_);
    ReportReclaimed();
    return Verdict();
  }

 private:
  /** The control segment, every entry starting, the magic published last. */
  bool CreateControl() {
    Result<ulp::segments::Mapping> control =
        platform_.Create(shm::ControlSegmentName(), shm::ControlSegmentBytes(n_));
    if (!control.ok()) {
      Say("cannot create the control segment of run " + run_prefix_ + ": " +
          control.status().message() + " (another run uses this --prefix, or a killed one left " +
          "/dev/shm/" + run_prefix_ + "-*)");
      return false;
    }
    control_ = *control;
    auto* header = new (control_.base) shm::ControlHeader{};
    header->version = shm::kControlVersion;
    header->process_count = n_;
    header->launcher_pid = static_cast<int32_t>(getpid());
    for (uint32_t r = 0; r < n_; ++r) new (Entry(r)) shm::ProcessEntry{};
    header->magic.store(shm::kControlMagic, std::memory_order_release);
    return true;
  }

  void StartRanks() {
    for (uint32_t r = 0; r < n_; ++r) {
      SpawnRequest request;
      request.argv = options_.program;
      // Every rank talks the same protocol.
      request.set_env = {std::string(shm::kRankEnv) + "=" + std::to_string(r),
                         std::string(shm::kSizeEnv) + "=" + std::to_string(n_),
                         std::string(shm::kPrefixEnv) + "=" + platform_prefix_,
                         std::string(shm::kProtocolEnv) + "=" + options_.protocol};
      request.mask = old_mask_;
      // A launcher killed without forwarding a signal (SIGKILL) takes the ranks with it rather
      // than leave them polling for ever.
      request.die_with_parent = true;
      Result<pid_t> pid = Spawn(request);
      if (!pid.ok()) {
        Say("cannot start rank " + std::to_string(r) + ": " + pid.status().message());
        failed_to_start_ = true;
        return;
      }
      children_[r].pid = *pid;
      Entry(r)->pid.store(static_cast<int32_t>(*pid), std::memory_order_release);
    }
  }

  /** Reaps ranks as they end; forwards interrupts, kills after the grace or the timeout. */
  void WaitForRanks() {
    const auto start = Clock::now();
    while (AnyLive()) {
      ReapEnded();
      if (!AnyLive()) break;
      const auto now = Clock::now();
      if (interrupted_by_ != 0 && !killed_after_grace_ && now >= grace_end_) {
        killed_after_grace_ = true;
        SignalAll(SIGKILL);
      }
      const double elapsed = std::chrono::duration<double>(now - start).count();
      if (options_.timeout_s > 0 && !timed_out_ && elapsed >= options_.timeout_s) {
        timed_out_ = true;
        char limit[32];
        std::snprintf(limit, sizeof(limit), "%g", options_.timeout_s);
        Say(std::string("timed out after ") + limit + " s; still running: " + NameLive() +
            "; killing them");
        SignalAll(SIGKILL);
      }
      struct timespec slice = {0, kWaitSliceNs};
      siginfo_t info{};
      const int sig = sigtimedwait(&watched_, &info, &slice);
      if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) OnInterrupt(sig);
    }
  }

  void ReapEnded() {
    for (uint32_t r : Live()) {
      const std::optional<int> status = ReapIfEnded(children_[r].pid);
      if (!status) continue;
      children_[r].ended = true;
      children_[r].wait_status = *status;
      children_[r].final_state = MarkEnded(Entry(r), *status);
    }
  }

  /** The first interrupt is forwarded with a grace period; a second kills at once. */
  void OnInterrupt(int sig) {
    if (interrupted_by_ == 0) {
      interrupted_by_ = sig;
      grace_end_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(kGraceSeconds));
      Say(std::string("got ") + SignalName(sig) + "; forwarding it to " +
          std::to_string(Live().size()) + " running processes");
      SignalAll(sig);
    } else {
      killed_after_grace_ = true;
      SignalAll(SIGKILL);
    }
  }

  /** "rank 1 (pid 812, running), ..." for the ranks still running. */
  std::string NameLive() {
    std::string who;
    for (uint32_t r : Live()) {
      const auto s =
          static_cast<shm::ProcessState>(Entry(r)->state.load(std::memory_order_acquire));
      who += std::string(who.empty() ? "" : ", ") + "rank " + std::to_string(r) + " (pid " +
             std::to_string(children_[r].pid) + ", " + shm::ToString(s) + ")";
    }
    return who;
  }

  void ReportReclaimed() {
    const std::vector<Reclaimed> reclaimed = ReclaimSegments(run_prefix_, n_);
    size_t bytes = 0;
    std::string list;
    for (const Reclaimed& s : reclaimed) {
      bytes += s.bytes;
      list += (list.empty() ? "" : ", ") + s.name;
      for (uint32_t r = 0; r < n_; ++r) {
        if (children_[r].final_state == shm::ProcessState::kDead &&
            s.name == pb::DataSegmentName({0, r}, 0)) {
          list += " (dead rank " + std::to_string(r) + "'s)";
        }
      }
    }
    Say("reclaimed " + std::to_string(reclaimed.size()) + " shared-memory segments (" +
        std::to_string(bytes) + " bytes) of run " + run_prefix_ + ": " + list);
  }

  /** A line per rank that did not finalize and exit 0; 0 if every one did. */
  int Verdict() {
    uint32_t clean = 0;
    for (uint32_t r = 0; r < n_; ++r) {
      const Child& c = children_[r];
      if (c.pid <= 0) {
        Say("rank " + std::to_string(r) + " was never started");
        continue;
      }
      const bool finalized = c.final_state == shm::ProcessState::kFinalized;
      if (finalized && ExitCodeOf(c.wait_status) == 0) {
        ++clean;
        continue;
      }
      Say("rank " + std::to_string(r) + " (pid " + std::to_string(c.pid) + ") " +
          DescribeWaitStatus(c.wait_status) +
          (finalized ? " after finalizing" : " without finalizing: marked dead"));
    }
    if (clean == n_ && !failed_to_start_ && interrupted_by_ == 0 && !timed_out_) {
      Say(std::to_string(n_) + " processes finalized and exited with status 0");
      return 0;
    }
    std::string why;
    if (timed_out_) why = ", timed out";
    if (interrupted_by_ != 0) why += std::string(", interrupted by ") + SignalName(interrupted_by_);
    Say("FAILED: " + std::to_string(n_ - clean) + " of " + std::to_string(n_) +
        " processes did not finalize and exit with status 0" + why);
    return kRunFailed;
  }

  bool IsLive(uint32_t r) const { return children_[r].pid > 0 && !children_[r].ended; }
  bool AnyLive() const {
    for (uint32_t r = 0; r < n_; ++r) {
      if (IsLive(r)) return true;
    }
    return false;
  }
  std::vector<uint32_t> Live() const {
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < n_; ++r) {
      if (IsLive(r)) ranks.push_back(r);
    }
    return ranks;
  }
  void SignalAll(int sig) {
    for (uint32_t r : Live()) kill(children_[r].pid, sig);  // the run's own ranks, by PID
  }
  shm::ProcessEntry* Entry(uint32_t r) { return shm::EntryAt(control_.base, r); }

  const ShmRunOptions& options_;
  const uint32_t n_;
  const std::string run_prefix_;
  const std::string platform_prefix_;
  ulp::segments::ShmSegments platform_;
  ulp::segments::Mapping control_;
  sigset_t watched_{};
  sigset_t old_mask_{};
  std::vector<Child> children_;
  bool failed_to_start_ = false;
  int interrupted_by_ = 0;
  bool timed_out_ = false;
  bool killed_after_grace_ = false;
  Clock::time_point grace_end_{};
};

}  // namespace

int ShmRunCommand(const ShmRunOptions& options) { return ShmRun(options).Run(); }

}  // namespace nicsim::sim
