// SPDX-License-Identifier: Apache-2.0
// Postbox messaging between two real processes of one node over POSIX shared memory: 8 B
// ping-pong latency, one-way streaming bandwidth, and plain memcpy bandwidth for comparison.
//
// bench_shm_pingpong [ITERATIONS] prints one "key value" line per figure (bench/shm_vs_vader.py
// parses them). The parent is rank 0 of node 0, a forked child rank 1; both busy-poll, each
// bound to its own CPU, yielding once idle for a while. NICSIM_SHM_BIND, NICSIM_SHM_SPIN_TURNS
// and NICSIM_SHM_PARAMS change that and the sizes (see below).

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/heap_reuse.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/sender.h"
#include "ulp/segments/shm_segments.h"

namespace {

using nicsim::ExitCodeOf;
using nicsim::ForkCall;
using nicsim::ReapIfEnded;
using nicsim::Result;
using nicsim::WaitFor;
using nicsim::ulp::postbox::AckSegmentName;
using nicsim::ulp::postbox::DataSegmentName;
using nicsim::ulp::postbox::Message;
using nicsim::ulp::postbox::Params;
using nicsim::ulp::postbox::ProcessId;
using nicsim::ulp::postbox::Receiver;
using nicsim::ulp::postbox::Sender;
using nicsim::ulp::postbox::Topology;
using nicsim::ulp::segments::ShmSegments;
using Clock = std::chrono::steady_clock;

constexpr size_t kLatencyBytes = 8;
constexpr int kWarmup = 1000;
// A stalled peer (crashed, or a protocol error) must not hang the benchmark forever.
constexpr auto kTimeout = std::chrono::seconds(60);

// In the parent: the child's pid, watched while busy-polling so a child that died ends the run
// at once instead of after kTimeout. 0 in the child.
pid_t g_child = 0;
int g_child_status = 0;
bool g_child_reaped = false;
// Idle turns spent spinning before each further one yields (NICSIM_SHM_SPIN_TURNS).
// 64 turns are a few microseconds, longer than a round trip while the peer is running.
uint32_t g_spin_turns = 64;
// Bind rank 0 and rank 1 to different CPUs, as mpirun binds two ranks by default
// (NICSIM_SHM_BIND=0 leaves them unbound: on a loaded machine the scheduler may then run both
// on one core, where the pieces stay in cache and streaming gets faster, latency slower).
bool g_bind = true;

struct Stream {
  size_t bytes;
  int messages;
  int window;  // messages in flight before the receiver's ack
};
const Stream kStreams[] = {{65536, 20000, 64}, {4194304, 400, 16}};

/**
 * The run's sizes: 64 KiB pieces so a 64 KiB message is one piece, and a small pool (8 blocks,
 * 512 KiB in flight): the blocks stay in cache between the sender's write and the receiver's
 * read. With 64 blocks (4 MiB) both bandwidths were 10-20% lower on the development machine.
 */
Params BenchParams() {
  Params p;
  p.piece_bytes = 65536;
  p.pool_blocks = 8;
  p.slots_per_receiver = 64;
  p.inline_bytes = 64;
  p.receiver_quota_blocks = 8;
  // NICSIM_SHM_PARAMS=piece,pool,slots,quota overrides them, for trying other sizes.
  if (const char* e = std::getenv("NICSIM_SHM_PARAMS")) {
    unsigned piece = 0, pool = 0, slots = 0, quota = 0;
    if (std::sscanf(e, "%u,%u,%u,%u", &piece, &pool, &slots, &quota) == 4) {
      p.piece_bytes = piece;
      p.pool_blocks = pool;
      p.slots_per_receiver = slots;
      p.receiver_quota_blocks = quota;
    }
  }
  return p;
}

/** Byte i of message `seq`: cheap to make and to check, different for every message. */
inline uint8_t Pattern(uint64_t seq, size_t i) {
  return static_cast<uint8_t>((i * 31u) ^ (seq * 7u + 1u));
}

void Fill(std::vector<uint8_t>& b, uint64_t seq) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = Pattern(seq, i);
}

/** True if `b` is message `seq`: every byte when `full`, else first, last and every 4099th. */
bool Check(const std::vector<uint8_t>& b, size_t bytes, uint64_t seq, bool full) {
  if (b.size() != bytes) return false;
  if (bytes == 0) return true;
  if (full) {
    for (size_t i = 0; i < bytes; ++i) {
      if (b[i] != Pattern(seq, i)) return false;
    }
    return true;
  }
  if (b[0] != Pattern(seq, 0) || b[bytes - 1] != Pattern(seq, bytes - 1)) return false;
  for (size_t i = 4099; i < bytes; i += 4099) {
    if (b[i] != Pattern(seq, i)) return false;
  }
  return true;
}

/** One side of the run: its sender, receiver and the peer's id. */
class Side {
 public:
  Side(ShmSegments* platform, const Topology& topology, ProcessId self, ProcessId peer)
      : peer_(peer) {
    auto s = Sender::Create(platform, topology, self, BenchParams());
    auto r = Receiver::Create(platform, topology, self, BenchParams());
    if (!s.ok() || !r.ok()) Die("cannot create the engines");
    sender_ = std::move(*s);
    receiver_ = std::move(*r);
    // The peer's segment is the only one ever to appear; looking for the absent ones (our
    // own, to ourselves) on every poll would add a failed shm_open to each turn.
    receiver_->SetAttachInterval(1024);
  }

  /** Abandons the run: thrown to main, which reaps the child and unlinks the segments. */
  [[noreturn]] static void Die(const std::string& why) { throw std::runtime_error(why); }

  /** One turn of the sender: pieces posted (a protocol error ends the bench). */
  size_t Progress() {
    nicsim::Result<size_t> posted = sender_->Progress();
    if (!posted.ok()) Die("protocol error: " + posted.status().message());
    return *posted;
  }

  /**
   * Every 2^16 turns: the timeout, and in the parent whether the child has died. The clock
   * starts at the first check (`start` is zero until then), so a wait that ends quickly never
   * reads it.
   */
  static void Watch(uint64_t turns, Clock::time_point* start, const char* what) {
    if ((turns & 0xffff) != 0) return;
    const auto now = Clock::now();
    if (*start == Clock::time_point{}) *start = now;
    if (now - *start > kTimeout) Die(std::string("timed out ") + what);
    if (g_child == 0 || g_child_reaped) return;
    if (const std::optional<int> status = ReapIfEnded(g_child)) {
      g_child_status = *status;
      g_child_reaped = true;
      Die(std::string("child died while ") + what);
    }
  }

  /**
   * Sends without the engine's up-front copy: `data` must stay unchanged until posted. The
   * callers guarantee it: a buffer is only refilled after the peer has answered (so received)
   * its message, and the stream's buffers are never written while streaming.
   */
  void Send(const std::vector<uint8_t>& data) {
    auto h = sender_->SendInPlace(peer_, data.data(), data.size());
    if (!h.ok()) Die("send failed: " + h.status().message());
  }

  /** Busy-polls until a message arrives (progressing our own sends meanwhile). */
  Message Receive() {
    uint64_t turns = 0;
    Clock::time_point start{};
    while (true) {
      if (auto m = receiver_->Take()) {
        Busy();
        return std::move(*m);
      }
      auto polled = receiver_->Poll();
      if (!polled.ok()) Die("poll failed: " + polled.status().message());
      if (*polled > 0) {
        Busy();
        continue;
      }
      if (Progress() == 0) {
        Idle();
      } else {
        Busy();
      }
      Watch(++turns, &start, "receiving");
    }
  }

  /** Busy-progresses until every send has been posted and acknowledged. */
  void Drain() {
    Clock::time_point start{};
    uint64_t turns = 0;
    while (!sender_->Idle()) {
      if (Progress() == 0) Idle();
      Watch(++turns, &start, "draining");
    }
  }

  Sender& sender() { return *sender_; }

  /**
   * A turn with nothing to do. With the two processes alone on two cores spinning is best,
   * but this machine is shared: when a third process holds the peer's core, spinning burns
   * the time slice the peer needs. So after g_spin_turns idle turns in a row each idle turn
   * gives the core away (sched_yield). NICSIM_SHM_SPIN_TURNS sets the count.
   */
  void Idle() {
    if (++idle_turns_ >= g_spin_turns) sched_yield();
  }
  void Busy() { idle_turns_ = 0; }

 private:
  uint32_t idle_turns_ = 0;
  ProcessId peer_;
  std::unique_ptr<Sender> sender_;
  std::unique_ptr<Receiver> receiver_;
};

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/** Rank 0 sends, rank 1 echoes; rank 0 returns half the mean round trip in microseconds. */
double Latency(Side& side, bool first, int iterations) {
  std::vector<uint8_t> out(kLatencyBytes);
  Clock::time_point start;
  for (int i = -kWarmup; i < iterations; ++i) {
    if (i == 0) start = Clock::now();
    const uint64_t seq = static_cast<uint64_t>(i + kWarmup) * 2;
    if (first) {
      Fill(out, seq);
      side.Send(out);
      Message m = side.Receive();
      if (!Check(m.bytes, kLatencyBytes, seq + 1, true)) Side::Die("ping-pong reply damaged");
    } else {
      Message m = side.Receive();
      if (!Check(m.bytes, kLatencyBytes, seq, true)) Side::Die("ping-pong request damaged");
      Fill(out, seq + 1);
      side.Send(out);
    }
  }
  return Seconds(start, Clock::now()) * 1e6 / iterations / 2;
}

/**
 * Rank 0 streams `s.messages` messages, `s.window` at a time, each window closed by an 8 B
 * ack from rank 1 (the osu_bw pattern); returns MB/s (1e6 bytes) on rank 0.
 */
double Bandwidth(Side& side, bool first, const Stream& s) {
  std::vector<uint8_t> ack(kLatencyBytes, 0xa5);
  // The sender prepares a few distinct messages beforehand so the timed loop measures the
  // transport, not the filling; message k carries pattern k % kVariants.
  constexpr int kVariants = 4;
  std::vector<std::vector<uint8_t>> variants;
  if (first) {
    for (int v = 0; v < kVariants; ++v) {
      variants.emplace_back(s.bytes);
      Fill(variants.back(), 1000 + v);
    }
  }
  // One untimed window so both sides have made their segments and faulted their pages in.
  Clock::time_point start;
  const int windows = s.messages / s.window;
  for (int w = -1; w < windows; ++w) {
    if (w == 0) start = Clock::now();
    for (int j = 0; j < s.window; ++j) {
      const int k = (w + 1) * s.window + j;
      if (first) {
        side.Send(variants[k % kVariants]);
      } else {
        Message m = side.Receive();
        // Every message is checked cheaply; the first and last of each window in full.
        const bool full = j == 0 || j == s.window - 1;
        if (!Check(m.bytes, s.bytes, 1000 + k % kVariants, full)) {
          Side::Die("stream message " + std::to_string(k) + " of " + std::to_string(s.bytes) +
                    " B damaged");
        }
      }
    }
    if (first) {
      Message m = side.Receive();
      if (m.bytes != ack) Side::Die("window ack damaged");
    } else {
      side.Send(ack);
    }
  }
  const double seconds = Seconds(start, Clock::now());
  return static_cast<double>(s.bytes) * windows * s.window / seconds / 1e6;
}

/** memcpy of `bytes` between two buffers, repeated for about 0.2 s; MB/s. */
double MemcpyBandwidth(size_t bytes) {
  std::vector<uint8_t> a(bytes), b(bytes);
  std::memset(a.data(), 1, bytes);
  std::memset(b.data(), 2, bytes);
  const size_t rounds = std::max<size_t>(8, (size_t{1} << 31) / bytes);
  const auto start = Clock::now();
  for (size_t i = 0; i < rounds; ++i) {
    std::memcpy(i % 2 ? a.data() : b.data(), i % 2 ? b.data() : a.data(), bytes);
    // Keeps the compiler from dropping copies whose results it can see are unused.
    asm volatile("" : : "r"(a.data()), "r"(b.data()) : "memory");
  }
  return static_cast<double>(bytes) * rounds / Seconds(start, Clock::now()) / 1e6;
}

/**
 * Binds this process to the `index`-th CPU it may run on, as mpirun binds each of two ranks
 * to its own core by default: without it the scheduler may stack both spinning processes on
 * one core. Returns the CPU, or -1 if there are not two to choose from (then unbound).
 */
int BindToCpu(int index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return -1;
  int seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == index) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
    }
  }
  return -1;
}

/** Both processes' whole script; prints on rank 0 only. */
void Run(ShmSegments* platform, const Topology& topology, bool first, int iterations) {
  const ProcessId self{0, first ? 0u : 1u}, peer{0, first ? 1u : 0u};
  const int cpu = g_bind ? BindToCpu(first ? 0 : 1) : -1;
  if (first) std::printf("rank0_cpu %d\n", cpu);
  Side side(platform, topology, self, peer);
  const double latency = Latency(side, first, iterations);
  if (first) std::printf("latency_8B_us %.4f\n", latency);
  for (const Stream& s : kStreams) {
    const double mbps = Bandwidth(side, first, s);
    if (first) std::printf("bandwidth_%zuB_mbps %.1f\n", s.bytes, mbps);
    std::fflush(stdout);
  }
  side.Drain();
}

/** Unlinks every segment name this run can have made; the usual path has unlinked them. */
void UnlinkAll(const std::string& prefix) {
  for (uint32_t r = 0; r < 2; ++r) {
    shm_unlink((prefix + DataSegmentName({0, r}, 0)).c_str());
  }
  shm_unlink((prefix + AckSegmentName(0, 0)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (iterations <= 0) {
    std::fprintf(stderr, "usage: bench_shm_pingpong [ITERATIONS>0]\n");
    return 2;
  }
  const char* spin = std::getenv("NICSIM_SHM_SPIN_TURNS");
  if (spin != nullptr) g_spin_turns = static_cast<uint32_t>(std::strtoul(spin, nullptr, 10));
  // Each delivered message is a fresh vector: the next one reuses its memory, as an MPI
  // library reuses its buffers.
  nicsim::KeepFreedHeapForReuse();
  const char* bind = std::getenv("NICSIM_SHM_BIND");
  g_bind = bind == nullptr || std::strcmp(bind, "0") != 0;
  const Params p = BenchParams();
  std::printf("idle sched_yield after %u idle turns\n", g_spin_turns);
  std::printf(
      "params piece_bytes=%u pool_blocks=%u slots_per_receiver=%u inline_bytes=%u "
      "receiver_quota_blocks=%u\n",
      p.piece_bytes, p.pool_blocks, p.slots_per_receiver, p.inline_bytes, p.receiver_quota_blocks);
  for (const Stream& s : kStreams) {
    std::printf("memcpy_%zuB_mbps %.1f\n", s.bytes, MemcpyBandwidth(s.bytes));
  }
  std::fflush(stdout);

  Topology topology;
  topology.processes_per_node = {2};  // one SMP node, two ranks: intranode shared memory
  const std::string prefix = ShmSegments::PrefixForThisProcess("pbx");
  Result<pid_t> forked = ForkCall("bench_shm_pingpong", [&] {
    ShmSegments platform(prefix);  // engines detach, the platform unlinks, then the child goes
    Run(&platform, topology, false, iterations);
    return 0;
  });
  if (!forked.ok()) {
    std::fprintf(stderr, "%s\n", forked.status().message().c_str());
    return 1;
  }
  const pid_t child = *forked;
  g_child = child;
  int code = 0;
  try {
    ShmSegments platform(prefix);
    Run(&platform, topology, true, iterations);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_shm_pingpong: %s\n", e.what());
    code = 1;
    if (!g_child_reaped) kill(child, SIGKILL);  // the child this run started, by its PID
  }
  if (!g_child_reaped) g_child_status = WaitFor(child);
  if (ExitCodeOf(g_child_status) != 0) {
    std::fprintf(stderr, "bench_shm_pingpong: child failed (wait status %d)\n", g_child_status);
    code = 1;
  }
  // Whatever happened, no segment of this run survives it.
  UnlinkAll(prefix);
  return code;
}
