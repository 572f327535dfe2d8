// SPDX-License-Identifier: Apache-2.0
// Push-pull messaging (ulp/pushpull) between two forked processes in one mode, or the postbox
// engine (ulp/postbox) for comparison: 8 B and 4 KiB ping-pong latency, 64 KiB and 1 MiB
// streaming bandwidth. bench/pushpull_modes.py runs every engine and prints the ratios.
//
// bench_pushpull_modes ENGINE [SCALE] with ENGINE push-pull | push-all | push-zero | postbox
// prints "key value" lines; SCALE (default 1) multiplies the iteration counts. The parent is
// rank 0, the child rank 1, each bound to its own CPU when there are two; both busy-poll and
// yield after 64 idle turns (the machine may be shared).

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/heap_reuse.h"
#include "ulp/postbox/receiver.h"
#include "ulp/postbox/segment_layout.h"
#include "ulp/postbox/sender.h"
#include "ulp/pushpull/receiver.h"
#include "ulp/pushpull/sender.h"
#include "ulp/pushpull/shm_platform.h"
#include "ulp/segments/shm_segments.h"

namespace {

namespace pp = nicsim::ulp::pushpull;
using nicsim::ExitCodeOf;
using nicsim::ForkCall;
using nicsim::Result;
using nicsim::WaitFor;
namespace pb = nicsim::ulp::postbox;
using Clock = std::chrono::steady_clock;

constexpr auto kTimeout = std::chrono::seconds(30);
constexpr uint32_t kSpinTurns = 64;

/** Byte i of message `seq`. */
inline uint8_t Pattern(uint64_t seq, size_t i) {
  return static_cast<uint8_t>((i * 31u) ^ (seq * 7u + 1u));
}

[[noreturn]] void Die(const std::string& why) { throw std::runtime_error(why); }

/** The two calls every engine offers here: a send that may return before it is done, and a
 *  receive that returns once the next message is in `dst`. */
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  /** Starts sending `n` bytes at `data` (left unchanged until Flush or the peer's answer). */
  virtual void Send(const uint8_t* data, size_t n) = 0;
  /** Posts receives for the next `count` messages into dst[0..count-1] and waits for all. */
  virtual void Receive(uint8_t* const* dst, size_t cap, size_t count) = 0;
  /** Waits until every send is finished. */
  virtual void Flush() = 0;
  /** Engine counters worth printing. */
  virtual std::string Counters() const = 0;

 protected:
  void Idle() {
    if (++idle_ >= kSpinTurns) sched_yield();
  }
  void Busy() { idle_ = 0; }
  void Watch(Clock::time_point start) {
    if ((++turns_ & 0xffff) == 0 && Clock::now() - start > kTimeout) Die("timed out");
  }

 private:
  uint32_t idle_ = 0;
  uint64_t turns_ = 0;
};

class PushPullEndpoint : public Endpoint {
 public:
  PushPullEndpoint(pp::Platform* platform, pp::Params p, uint32_t self) : peer_(1 - self) {
    auto r = pp::Receiver::Create(platform, 2, self, p);
    auto s = pp::Sender::Create(platform, 2, self, p);
    if (!r.ok() || !s.ok()) Die("cannot create the push-pull engines");
    receiver_ = std::move(*r);
    sender_ = std::move(*s);
  }
  void Send(const uint8_t* data, size_t n) override {
    if (!sender_->Send(peer_, 0, data, n).ok()) Die("push-pull send refused");
  }
  void Receive(uint8_t* const* dst, size_t cap, size_t count) override {
    handles_.clear();
    for (size_t i = 0; i < count; ++i) {
      auto h = receiver_->PostReceive(peer_, 0, dst[i], cap);
      if (!h.ok()) Die("push-pull receive refused");
      handles_.push_back(*h);
    }
    const auto start = Clock::now();
    size_t next = 0;
    while (next < count) {
      while (next < count && receiver_->Take(handles_[next]).has_value()) ++next;
      if (next == count) break;
      auto polled = receiver_->Poll();
      auto progressed = sender_->Progress();
      if (!polled.ok() || !progressed.ok()) Die("push-pull protocol error");
      if (*polled + *progressed == 0) {
        Idle();
      } else {
        Busy();
      }
      Watch(start);
    }
    Busy();
  }
  void Flush() override {
    const auto start = Clock::now();
    while (!sender_->Idle()) {
      auto polled = receiver_->Poll();
      auto progressed = sender_->Progress();
      if (!polled.ok() || !progressed.ok()) Die("push-pull protocol error");
      if (*progressed == 0) Idle();
      Watch(start);
    }
  }
  std::string Counters() const override {
    const auto& s = sender_->stats();
    const auto& r = receiver_->stats();
    return "bytes_pushed=" + std::to_string(s.bytes_pushed) +
           " bytes_pulled=" + std::to_string(s.bytes_pulled) +
           " zero_copy_rounds=" + std::to_string(s.zero_copy_rounds) +
           " zero_copy_fallbacks=" + std::to_string(s.zero_copy_fallbacks) +
           " early_matches=" + std::to_string(r.early_matches) +
           " late_matches=" + std::to_string(r.late_matches) +
           " pushed_bytes_buffered=" + std::to_string(r.pushed_bytes_buffered);
  }

 private:
  uint32_t peer_;
  std::unique_ptr<pp::Receiver> receiver_;
  std::unique_ptr<pp::Sender> sender_;
  std::vector<pp::ReceiveHandle> handles_;
};

class PostboxEndpoint : public Endpoint {
 public:
  PostboxEndpoint(pb::Platform* platform, uint32_t self) : peer_{0, 1 - self} {
    pb::Topology t;
    t.processes_per_node = {2};
    // The sizes bench/shm_pingpong.cc found best for this engine.
    pb::Params p;
    p.piece_bytes = 65536;
    p.pool_blocks = 8;
    p.slots_per_receiver = 64;
    p.inline_bytes = 64;
    p.receiver_quota_blocks = 8;
    auto s = pb::Sender::Create(platform, t, {0, self}, p);
    auto r = pb::Receiver::Create(platform, t, {0, self}, p);
    if (!s.ok() || !r.ok()) Die("cannot create the postbox engines");
    sender_ = std::move(*s);
    receiver_ = std::move(*r);
    receiver_->SetAttachInterval(1024);
  }
  void Send(const uint8_t* data, size_t n) override {
    if (!sender_->SendInPlace(peer_, data, n).ok()) Die("postbox send refused");
  }
  void Receive(uint8_t* const* dst, size_t cap, size_t count) override {
    const auto start = Clock::now();
    for (size_t i = 0; i < count;) {
      if (auto m = receiver_->Take()) {
        // The engine delivers into its own vector; the caller's buffer needs one more copy.
        if (m->bytes.size() > cap) Die("postbox message too long");
        if (!m->bytes.empty()) std::memcpy(dst[i], m->bytes.data(), m->bytes.size());
        ++i;
        Busy();
        continue;
      }
      auto polled = receiver_->Poll();
      if (!polled.ok()) Die("postbox poll failed");
      if (*polled == 0 && Progress() == 0) Idle();
      Watch(start);
    }
  }
  void Flush() override {
    const auto start = Clock::now();
    while (!sender_->Idle()) {
      if (Progress() == 0) Idle();
      Watch(start);
    }
  }
  std::string Counters() const override {
    return "bytes_posted=" + std::to_string(sender_->stats().bytes_posted);
  }

 private:
  /** One turn of the sender: pieces posted (a protocol error ends the bench). */
  size_t Progress() {
    nicsim::Result<size_t> posted = sender_->Progress();
    if (!posted.ok()) Die("postbox protocol error: " + posted.status().message());
    return *posted;
  }

  pb::ProcessId peer_;
  std::unique_ptr<pb::Sender> sender_;
  std::unique_ptr<pb::Receiver> receiver_;
};

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

bool Check(const uint8_t* b, size_t n, uint64_t seq, bool full) {
  if (n == 0) return true;
  const size_t step = full ? 1 : 4099;
  for (size_t i = 0; i < n; i += step) {
    if (b[i] != Pattern(seq, i)) return false;
  }
  return b[n - 1] == Pattern(seq, n - 1);
}

/** Half the mean round trip of `bytes`-byte ping-pongs, microseconds (rank 0). */
double Latency(Endpoint& e, bool first, size_t bytes, int iterations) {
  std::vector<uint8_t> out(bytes), in(bytes);
  uint8_t* dst = in.data();
  Clock::time_point start;
  const int warmup = iterations / 10;
  for (int i = -warmup; i < iterations; ++i) {
    if (i == 0) start = Clock::now();
    const uint64_t seq = static_cast<uint64_t>(i + warmup) * 2;
    if (first) {
      for (size_t k = 0; k < bytes; ++k) out[k] = Pattern(seq, k);
      e.Send(out.data(), bytes);
      e.Receive(&dst, bytes, 1);
      if (!Check(dst, bytes, seq + 1, true)) Die("ping-pong reply damaged");
    } else {
      e.Receive(&dst, bytes, 1);
      if (!Check(dst, bytes, seq, true)) Die("ping-pong request damaged");
      for (size_t k = 0; k < bytes; ++k) out[k] = Pattern(seq + 1, k);
      e.Send(out.data(), bytes);
    }
  }
  e.Flush();
  return Seconds(start, Clock::now()) * 1e6 / iterations / 2;
}

/** Rank 0 streams `messages` messages, `window` per 8 B ack; MB/s (1e6 B) on rank 0. */
double Bandwidth(Endpoint& e, bool first, size_t bytes, int messages, int window) {
  constexpr int kVariants = 4;
  std::vector<std::vector<uint8_t>> variants;
  std::vector<std::vector<uint8_t>> dests;
  std::vector<uint8_t*> dst;
  if (first) {
    for (int v = 0; v < kVariants; ++v) {
      variants.emplace_back(bytes);
      for (size_t k = 0; k < bytes; ++k) variants.back()[k] = Pattern(1000 + v, k);
    }
  } else {
    for (int w = 0; w < window; ++w) {
      dests.emplace_back(bytes);
      dst.push_back(dests.back().data());
    }
  }
  std::vector<uint8_t> ack(8, 0xa5), ack_in(8);
  uint8_t* ack_dst = ack_in.data();
  Clock::time_point start;
  const int windows = messages / window;
  for (int w = -1; w < windows; ++w) {  // one untimed window: pages faulted in, channels met
    if (w == 0) start = Clock::now();
    if (first) {
      for (int j = 0; j < window; ++j) {
        const int k = (w + 1) * window + j;
        e.Send(variants[k % kVariants].data(), bytes);
      }
      e.Receive(&ack_dst, 8, 1);
      if (ack_in != ack) Die("window ack damaged");
    } else {
      e.Receive(dst.data(), bytes, window);
      for (int j = 0; j < window; ++j) {
        const int k = (w + 1) * window + j;
        if (!Check(dst[j], bytes, 1000 + k % kVariants, j == 0)) Die("stream message damaged");
      }
      e.Send(ack.data(), 8);
    }
  }
  e.Flush();
  return static_cast<double>(bytes) * windows * window / Seconds(start, Clock::now()) / 1e6;
}

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

/** The parameters of a push-pull run in `mode`. */
pp::Params PushPullParams(pp::Mode mode) {
  pp::Params p;
  p.mode = mode;
  p.btp1_bytes = 64;
  p.btp2_bytes = 960;
  p.push_all_chunk_bytes = 65536;
  p.pushed_slots = 8;
  p.pull_round_bytes = 1 << 20;
  return p;
}

void Run(const std::string& engine, bool first, int scale, const std::string& prefix) {
  const uint32_t self = first ? 0 : 1;
  BindToCpu(static_cast<int>(self));
  std::unique_ptr<pp::ShmPlatform> pp_platform;
  std::unique_ptr<nicsim::ulp::segments::ShmSegments> pb_platform;
  std::unique_ptr<Endpoint> e;
  if (engine == "postbox") {
    pb_platform = std::make_unique<nicsim::ulp::segments::ShmSegments>(prefix);
    e = std::make_unique<PostboxEndpoint>(pb_platform.get(), self);
  } else {
    const pp::Mode mode = engine == "push-all"    ? pp::Mode::kPushAll
                          : engine == "push-zero" ? pp::Mode::kPushZero
                                                  : pp::Mode::kPushPull;
    pp_platform = std::make_unique<pp::ShmPlatform>(prefix);
    e = std::make_unique<PushPullEndpoint>(pp_platform.get(), PushPullParams(mode), self);
  }
  for (size_t bytes : {size_t{8}, size_t{4096}}) {
    const double us = Latency(*e, first, bytes, 10000 * scale);
    if (first) std::printf("latency_%zuB_us %.4f\n", bytes, us);
  }
  const double bw64 = Bandwidth(*e, first, 65536, 1024 * scale, 32);
  if (first) std::printf("bandwidth_65536B_mbps %.1f\n", bw64);
  const double bw1m = Bandwidth(*e, first, 1 << 20, 96 * scale, 8);
  if (first) std::printf("bandwidth_1048576B_mbps %.1f\n", bw1m);
  if (first) std::printf("counters %s\n", e->Counters().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string engine = argc > 1 ? argv[1] : "";
  const int scale = argc > 2 ? std::atoi(argv[2]) : 1;
  if ((engine != "push-pull" && engine != "push-all" && engine != "push-zero" &&
       engine != "postbox") ||
      scale <= 0) {
    std::fprintf(stderr,
                 "usage: bench_pushpull_modes push-pull|push-all|push-zero|postbox "
                 "[SCALE>0]\n");
    return 2;
  }
  // Received and streamed buffers are reused; keep freed memory in the heap.
  nicsim::KeepFreedHeapForReuse();
  std::printf("engine %s\n", engine.c_str());
  const std::string prefix = engine == "postbox"
                                 ? nicsim::ulp::segments::ShmSegments::PrefixForThisProcess("pbx")
                                 : pp::ShmPlatform::PrefixForThisProcess();
  Result<pid_t> child = ForkCall("bench_pushpull_modes", [&] {
    Run(engine, false, scale, prefix);
    return 0;
  });
  if (!child.ok()) {
    std::fprintf(stderr, "%s\n", child.status().message().c_str());
    return 1;
  }
  int code = 0;
  try {
    Run(engine, true, scale, prefix);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "bench_pushpull_modes: %s\n", ex.what());
    code = 1;
    kill(*child, SIGKILL);  // the child this run started, by its PID
  }
  const int status = WaitFor(*child);
  if (ExitCodeOf(status) != 0) {
    std::fprintf(stderr, "bench_pushpull_modes: child failed (wait status %d)\n", status);
    code = 1;
  }
  // Whatever a failure left behind goes too (the normal path has unlinked it all).
  for (uint32_t s = 0; s < 2; ++s) {
    shm_unlink((prefix + pp::ChannelName(s, 1 - s)).c_str());
    shm_unlink((prefix + pb::DataSegmentName({0, s}, 0)).c_str());
  }
  shm_unlink((prefix + pb::AckSegmentName(0, 0)).c_str());
  return code;
}
