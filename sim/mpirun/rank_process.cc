// SPDX-License-Identifier: Apache-2.0
#include "sim/mpirun/rank_process.h"

#include "base/child_process.h"
#include "sim/mpirun/call_decoder.h"
#include "ulp/mpi/capi/stream_io.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <chrono>
#include <cstring>

namespace nicsim::sim {
namespace {

volatile sig_atomic_t g_stop_signal = 0;
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
/** How often a wait for a rank's call looks for a stop signal another thread took. */
constexpr int kSignalCheckMs = 100;
/** Bytes of a message read (and its buffer grown by) at a time. */
constexpr uint64_t kReadPieceBytes = uint64_t{64} << 20;

void OnStopSignal(int sig) { g_stop_signal = sig; }

/** A rank's lanes: their shared memory (its descriptor, for the program, and this process's
 *  mapping) and the eventfd that wakes this process. */
struct LaneMemory {
  int memory = -1;
  mpi::wire::Lanes* mapped = nullptr;
  int bell = -1;
};

Result<LaneMemory> MakeLanes(int rank) {
  LaneMemory l;
  l.memory = memfd_create("nicsim-mpi-lanes", MFD_CLOEXEC);
  const auto failed = [&](const char* what) -> Result<LaneMemory> {
    const int error = errno;
    if (l.memory >= 0) close(l.memory);
    if (l.mapped != nullptr) munmap(l.mapped, sizeof(mpi::wire::Lanes));
    return Status::Error(fmt::format("rank {}: {}: {} (raise the open-file limit, ulimit -n)", rank,
                                     what, std::strerror(error)));
  };
  if (l.memory < 0) return failed("memfd_create");
  if (ftruncate(l.memory, sizeof(mpi::wire::Lanes)) != 0) return failed("ftruncate");
  void* at =
      mmap(nullptr, sizeof(mpi::wire::Lanes), PROT_READ | PROT_WRITE, MAP_SHARED, l.memory, 0);
  if (at == MAP_FAILED) return failed("mmap");
  // Zeroed memory is a pair of lanes with nothing posted: constructing them would touch every
  // page of their bytes.
  l.mapped = static_cast<mpi::wire::Lanes*>(at);
  l.bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (l.bell < 0) return failed("eventfd");
  return l;
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction on_stop {};
  on_stop.sa_handler = OnStopSignal;
  sigemptyset(&on_stop.sa_mask);
  on_stop.sa_flags = 0;  // no SA_RESTART: a wait in poll() returns with EINTR
  for (int sig : kStopSignals) sigaction(sig, &on_stop, nullptr);
}

StopSignals::~StopSignals() {
  for (int sig : kStopSignals) signal(sig, SIG_DFL);
}

int StopSignals::received() { return g_stop_signal; }

void LineTagger::Feed(const char* data, size_t n) {
  partial_.append(data, n);
  std::string lines;
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines += prefix_;
    lines.append(partial_, start, nl + 1 - start);
  }
  partial_.erase(0, start);
  Write(lines);
}

void LineTagger::Flush() {
  if (partial_.empty()) return;
  Write(prefix_ + partial_ + "\n");
  partial_.clear();
}

void LineTagger::Write(const std::string& lines) {
  if (lines.empty()) return;
  // Whole lines in one write, not through stdio's buffer (which writes out whenever it is
  // full, mid-line): whoever reads the stream (Open MPI's mpirun, which tags what it reads
  // from each process) then cuts a line only if it reads less than is waiting.
  std::fflush(to_);
  const char* at = lines.data();
  size_t left = lines.size();
  while (left > 0) {
    const ssize_t k = write(fileno(to_), at, left);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;  // nobody reads the output any more: the run goes on without it
    at += k;
    left -= static_cast<size_t>(k);
  }
}

Result<std::unique_ptr<RankProcess>> RankProcess::Start(const std::vector<std::string>& argv,
                                                        int rank, bool spin, bool measure_compute) {
  int channel[2], out[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    return Status::Error(fmt::format("rank {}: socketpair: {}", rank, std::strerror(errno)));
  }
  const bool out_made = pipe2(out, O_CLOEXEC) == 0;
  if (!out_made || pipe2(err, O_CLOEXEC) != 0) {
    const int error = errno;
    for (int fd : {channel[0], channel[1]}) close(fd);
    if (out_made) {
      for (int fd : {out[0], out[1]}) close(fd);
    }
    return Status::Error(fmt::format("rank {}: pipe: {} (raise the open-file limit, ulimit -n)",
                                     rank, std::strerror(error)));
  }
  Result<LaneMemory> lanes = MakeLanes(rank);
  if (!lanes.ok()) {
    for (int fd : {channel[0], channel[1], out[0], out[1], err[0], err[1]}) close(fd);
    return lanes.status();
  }
  // The program's ends of the channel stay open across exec; their numbers are in the
  // environment.
  SpawnRequest request;
  request.argv = argv;
  request.set_env = {fmt::format("{}={}", mpi::wire::kFdEnv, channel[1]),
                     fmt::format("{}={}", mpi::wire::kLanesEnv, lanes->memory),
                     fmt::format("{}={}", mpi::wire::kBellEnv, lanes->bell),
                     fmt::format("{}={}", mpi::wire::kSpinEnv, spin ? 1 : 0),
                     fmt::format("{}={}", mpi::wire::kComputeEnv, measure_compute ? 1 : 0),
                     fmt::format("{}={}", mpi::wire::kParentEnv, getpid())};
  request.keep_fds = {channel[1], lanes->memory, lanes->bell};
  request.stdout_fd = out[1];
  request.stderr_fd = err[1];
  // Signals nicsim ignores or handles while a program runs are the program's own again.
  request.default_signals = {SIGPIPE, SIGINT, SIGTERM, SIGHUP};
  Result<pid_t> pid = Spawn(request);
  close(channel[1]);
  close(out[1]);
  close(err[1]);
  close(lanes->memory);  // the mapping stays
  if (!pid.ok()) {
    for (int fd : {channel[0], out[0], err[0], lanes->bell}) close(fd);
    munmap(lanes->mapped, sizeof(mpi::wire::Lanes));
    return Status::Error(fmt::format("rank {}: {}", rank, pid.status().message()));
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  return std::unique_ptr<RankProcess>(
      new RankProcess(*pid, channel[0], out[0], err[0], lanes->bell, lanes->mapped, rank, spin));
}

RankProcess::RankProcess(pid_t pid, int channel, int out, int err, int bell,
                         mpi::wire::Lanes* lanes, int rank, bool spin)
    : pid_(pid),
      channel_(channel),
      out_(out),
      err_(err),
      bell_(bell),
      lanes_(lanes),
      out_tag_(fmt::format("[1,{}]<stdout>:", rank), stdout),
      err_tag_(fmt::format("[1,{}]<stderr>:", rank), stderr),
      call_spinner_(spin) {}

RankProcess::~RankProcess() {
  if (!reaped_) {
    KillAndReap(pid_);
    Forward(0);
  }
  out_tag_.Flush();
  err_tag_.Flush();
  for (int fd : {channel_, out_, err_, bell_}) {
    if (fd >= 0) close(fd);
  }
  munmap(lanes_, sizeof(mpi::wire::Lanes));
}

void RankProcess::Drain(int& fd, LineTagger& tag) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      tag.Feed(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      close(fd);
      fd = -1;
    }
    return;
  }
}

void RankProcess::Forward(int timeout_ms) {
  pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
  if (out_ < 0 && err_ < 0) return;
  if (poll(fds, 2, timeout_ms) <= 0) return;
  if (out_ >= 0 && fds[0].revents != 0) Drain(out_, out_tag_);
  if (err_ >= 0 && fds[1].revents != 0) Drain(err_, err_tag_);
}

bool RankProcess::Next(mpi::wire::Header* header, std::vector<uint8_t>* args) {
  switch (WaitForMessage()) {
    case Arrival::kEnded:
      return false;
    case Arrival::kOnSocket:
      return ReadFromSocket(header, args);
    case Arrival::kInLane:
      break;
  }
  const uint64_t at = calls_at_;
  switch (mpi::wire::TakeFromLane(lanes_->calls, &calls_at_, header, args)) {
    case mpi::wire::Taken::kOnSocket:
      // A message too long for the lane follows on the socket.
      return ReadFromSocket(header, args);
    case mpi::wire::Taken::kMalformed:
      broken_ = fmt::format("its shared lane holds no whole message at offset {}", at);
      return false;
    case mpi::wire::Taken::kMessage:
      break;
  }
  if (const Status s = calls::CheckHeader(*header); !s.ok()) {
    broken_ = s.message();
    return false;
  }
  return true;
}

RankProcess::Arrival RankProcess::WaitForMessage() {
  mpi::wire::Lane& lane = lanes_->calls;
  const auto moved = [&] { return mpi::wire::Moved(lane, calls_seen_); };
  // One message at a time: a call posted without a ring may have another behind it.
  const auto take = [&] {
    ++calls_seen_;
    return Arrival::kInLane;
  };
  // The program's next call usually comes within microseconds: wait for it without sleeping
  // first. What the program printed before its call comes out before the call runs.
  if (call_spinner_.Until(moved)) {
    Forward(0);
    return take();
  }
  for (;;) {
    if (const int sig = StopSignals::received(); sig != 0) {
      stopped_by_ = sig;
      kill(pid_, SIGKILL);  // a process this run started, by its PID
      return Arrival::kEnded;
    }
    if (!mpi::wire::Asleep(lane, calls_seen_)) {
      Forward(0);
      return take();
    }
    pollfd fds[4] = {
        {out_, POLLIN, 0}, {err_, POLLIN, 0}, {channel_, POLLIN, 0}, {bell_, POLLIN, 0}};
    // A stop signal may reach another thread than this one, which then sleeps on: the wait
    // looks at it again every kSignalCheckMs.
    int timeout_ms = kSignalCheckMs;
    if (deadline_) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          *deadline_ - std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left.count(), 0, kSignalCheckMs));
    }
    const int ready = poll(fds, 4, timeout_ms);
    mpi::wire::Awake(lane);
    if (ready < 0) {
      if (errno == EINTR) continue;
      broken_ = fmt::format("poll: {}", std::strerror(errno));
      return Arrival::kEnded;
    }
    if (fds[3].revents != 0) {
      uint64_t rung = 0;
      [[maybe_unused]] const ssize_t n = read(bell_, &rung, sizeof(rung));
    }
    if (out_ >= 0 && fds[0].revents != 0) Drain(out_, out_tag_);
    if (err_ >= 0 && fds[1].revents != 0) Drain(err_, err_tag_);
    if (moved()) return take();
    // Bytes on the socket with nothing posted: a message the program wrote there (an abort).
    if (fds[2].revents != 0) return Arrival::kOnSocket;
    if (ready == 0) {
      if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
        timed_out_ = true;
        kill(pid_, SIGKILL);  // a process this run started, by its PID
        return Arrival::kEnded;
      }
      // The rank's end is its exit: a child it forked may hold the channel open, so no
      // end of file would come.
      if (ReapIfExited()) return Arrival::kEnded;
    }
  }
}

bool RankProcess::ReadFromSocket(mpi::wire::Header* header, std::vector<uint8_t>* args) {
  if (!Receive(header, sizeof(*header), /*mid_message=*/false)) return false;
  if (const Status s = calls::CheckHeader(*header); !s.ok()) {
    broken_ = s.message();
    return false;
  }
  // The buffer grows with the bytes that come (geometrically), not with what the header
  // claims: a header that promises more than follows costs no memory.
  args->clear();
  uint64_t got = 0;
  while (got < header->bytes) {
    const uint64_t piece = std::min<uint64_t>(header->bytes - got, kReadPieceBytes);
    args->resize(got + piece);
    if (!Receive(args->data() + got, piece, /*mid_message=*/true)) return false;
    got += piece;
  }
  return true;
}

bool RankProcess::Receive(void* buf, size_t n, bool mid_message) {
  auto* at = static_cast<uint8_t*>(buf);
  size_t got = 0;
  auto ended = [&](std::string why) {
    if (mid_message || got > 0) broken_ = std::move(why);
    return false;
  };
  while (got < n) {
    if (const int sig = StopSignals::received(); sig != 0) {
      stopped_by_ = sig;
      kill(pid_, SIGKILL);  // a process this run started, by its PID
      return false;
    }
    pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {channel_, POLLIN, 0}};
    // A stop signal may reach another thread than this one, which then sleeps on: the wait
    // looks at it again every kSignalCheckMs.
    int timeout_ms = kSignalCheckMs;
    if (deadline_) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(
          *deadline_ - std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left.count(), 0, kSignalCheckMs));
    }
    const int ready = poll(fds, 3, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      broken_ = fmt::format("poll: {}", std::strerror(errno));
      return false;
    }
    if (ready == 0) {
      if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
        timed_out_ = true;
        kill(pid_, SIGKILL);  // a process this run started, by its PID
        return false;
      }
      // The rank's end is its exit: a child it forked may hold the channel open, so no
      // end of file would come.
      if (ReapIfExited()) return ended("it exited in the middle of a message");
      continue;
    }
    // Output first: what the program printed before its call comes out before the call runs.
    if (out_ >= 0 && fds[0].revents != 0) Drain(out_, out_tag_);
    if (err_ >= 0 && fds[1].revents != 0) Drain(err_, err_tag_);
    if (fds[2].revents == 0) continue;
    const ssize_t r = read(channel_, at + got, n - got);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0) {
      return ended("the channel closed in the middle of a message");
    } else if (errno != EINTR) {
      return ended(fmt::format("reading the channel: {}", std::strerror(errno)));
    }
  }
  return true;
}

uint64_t RankProcess::PeakRssKib() const {
  // VmHWM is the peak of the process's own memory since its exec (its rusage would count
  // nicsim's memory too: the spawn shared it until the exec).
  std::ifstream status(fmt::format("/proc/{}/status", pid_));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

bool RankProcess::ReapIfExited() {
  if (reaped_) return true;
  const std::optional<int> status = ReapIfEnded(pid_);
  if (!status) return false;
  status_ = *status;
  reaped_ = true;
  return true;
}

bool RankProcess::Send(mpi::wire::Call call, const std::vector<uint8_t>& args,
                       const std::vector<uint8_t>& changes) {
  mpi::wire::Lane& lane = lanes_->replies;
  // The program has posted nothing since its last call, all taken: both lanes start again.
  calls_at_ = 0;
  uint64_t at = 0;
  return mpi::wire::SendOverLane(lane, &at, channel_,
                                 mpi::wire::HeaderOf(call, changes.size(), args.size(), 0), changes,
                                 args, /*quiet=*/false,
                                 [&lane] { mpi::wire::WakeOn(lane); }) != mpi::wire::Sent::kLost;
}

bool RankProcess::SendDescriptor(int descriptor) {
  return mpi::wire::SendDescriptor(channel_, descriptor);
}

std::string RankProcess::Reap() {
  if (!reaped_) status_ = WaitFor(pid_);
  reaped_ = true;
  const int status = status_;
  // The process is gone: what its pipes still hold comes out (a child it left behind that
  // keeps them open is not waited for).
  for (int i = 0; i < 100 && (out_ >= 0 || err_ >= 0); ++i) Forward(10);
  out_tag_.Flush();
  err_tag_.Flush();
  exited_cleanly_ = ExitCodeOf(status) == 0;
  return DescribeWaitStatus(status);
}

}  // namespace nicsim::sim
