// SPDX-License-Identifier: Apache-2.0
// Push-pull messaging between four real processes: forked children exchange seeded random
// traffic through POSIX shared memory and process_vm_writev (or the forced staging fallback),
// check every byte and report their counters; the seed is printed on failure.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "ulp/pushpull/receiver.h"
#include "ulp/pushpull/sender.h"
#include "ulp/pushpull/shm_platform.h"

namespace nicsim::ulp::pushpull {
namespace {

constexpr uint32_t kRanks = 4;

/** The run's seed: NICSIM_PUSHPULL_SEED if set, so a failure can be replayed exactly. */
uint64_t Seed() {
  const char* e = std::getenv("NICSIM_PUSHPULL_SEED");
  return e != nullptr ? std::strtoull(e, nullptr, 10) : 20261126u;
}

/** Byte `i` of message `k` from `s` to `d`. */
uint8_t Byte(uint64_t seed, uint32_t s, uint32_t d, uint32_t k, size_t i) {
  return static_cast<uint8_t>((i * 167 + (i >> 9) + k * 31 + s * 7 + d * 3 + seed) & 0xff);
}

struct Planned {
  uint32_t tag;
  size_t size;
};

/** What `s` sends `d`, in order; every process computes the same plan from the seed. */
std::vector<Planned> Plan(uint64_t seed, uint32_t s, uint32_t d, const Params& p) {
  std::mt19937_64 rng(seed * 1000003 + s * 131 + d);
  const uint64_t b = p.btp1_bytes, b2 = p.btp1_bytes + p.btp2_bytes;
  const std::vector<size_t> edges = {0, 1, b - 1, b, b + 1, b2 - 1, b2, b2 + 1};
  std::vector<Planned> plan(20 + rng() % 20);
  for (Planned& m : plan) {
    m.tag = static_cast<uint32_t>(rng() % 2);
    const uint64_t pick = rng() % 4;
    m.size = pick == 0   ? edges[rng() % edges.size()]
             : pick == 1 ? rng() % (300 * 1024)
                         : rng() % 8192;
  }
  return plan;
}

/** Counters one child hands back through shared memory. */
struct Report {
  int code;
  uint64_t sender_pulled, receiver_pulled, zero_copy_rounds, fallbacks, staged, unstaged;
  uint64_t delivered_bytes, messages;
  uint64_t sender_pushed, receiver_pushed_in;  // pushed bytes: sent, and taken out
};

Params ShmParams(Mode mode) {
  Params p;
  p.mode = mode;
  p.btp1_bytes = 64;
  p.btp2_bytes = 960;
  p.push_all_chunk_bytes = 4096;
  p.pushed_slots = 2;
  p.pull_round_bytes = 64 * 1024;
  return p;
}

/** One child's whole life: send its plan, receive everyone's, check every byte. */
int Child(const std::string& prefix, uint32_t self, Mode mode, bool force, uint64_t seed,
          Report* report) {
  const Params p = ShmParams(mode);
  ShmPlatform platform(prefix, force);
  auto receiver = Receiver::Create(&platform, kRanks, self, p);
  auto sender = Sender::Create(&platform, kRanks, self, p);
  if (!receiver.ok() || !sender.ok()) return 2;
  // Sends, all queued at once (the buffers stay alive until the end).
  std::vector<std::vector<uint8_t>> out;
  for (uint32_t d = 0; d < kRanks; ++d) {
    if (d == self) continue;
    const auto plan = Plan(seed, self, d, p);
    for (uint32_t k = 0; k < plan.size(); ++k) {
      out.emplace_back(plan[k].size);
      for (size_t i = 0; i < plan[k].size; ++i) out.back()[i] = Byte(seed, self, d, k, i);
      if (!(*sender)->Send(d, plan[k].tag, out.back().data(), plan[k].size).ok()) return 3;
    }
  }
  // Receives: at most kWindow outstanding per source, so some are posted before their
  // message arrives (early) and some after (late).
  constexpr size_t kWindow = 3;
  struct Pending {
    uint32_t k;
    ReceiveHandle h;
    std::vector<uint8_t> dest;
  };
  std::vector<std::vector<Planned>> plans(kRanks);
  std::vector<uint32_t> next_post(kRanks, 0), got(kRanks, 0);
  std::vector<std::deque<Pending>> pending(kRanks);
  size_t expected = 0, received = 0;
  for (uint32_t s = 0; s < kRanks; ++s) {
    if (s != self) plans[s] = Plan(seed, s, self, p);
    expected += plans[s].size();
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (received < expected || !(*sender)->Idle()) {
    if (std::chrono::steady_clock::now() > deadline) return 4;
    size_t work = 0;
    for (uint32_t s = 0; s < kRanks; ++s) {
      while (pending[s].size() < kWindow && next_post[s] < plans[s].size()) {
        Pending pd;
        pd.k = next_post[s]++;
        pd.dest.assign(plans[s][pd.k].size, 0);
        auto h = (*receiver)->PostReceive(s, plans[s][pd.k].tag, pd.dest.data(), pd.dest.size());
        if (!h.ok()) return 5;
        pd.h = *h;
        pending[s].push_back(std::move(pd));
      }
    }
    auto polled = (*receiver)->Poll();
    if (!polled.ok()) return 6;
    auto progressed = (*sender)->Progress();
    if (!progressed.ok()) return 7;
    work += *polled + *progressed;
    for (uint32_t s = 0; s < kRanks; ++s) {
      // Receives of one source may finish out of post order (tags differ); check each.
      for (auto it = pending[s].begin(); it != pending[s].end();) {
        auto c = (*receiver)->Take(it->h);
        if (!c.has_value()) {
          ++it;
          continue;
        }
        if (c->bytes != plans[s][it->k].size || c->source != s) return 8;
        for (size_t i = 0; i < it->dest.size(); ++i) {
          if (it->dest[i] != Byte(seed, s, self, it->k, i)) return 9;
        }
        ++received;
        ++work;
        it = pending[s].erase(it);
      }
    }
    if (work == 0) sched_yield();  // four processes share two cores
  }
  const SenderStats& ss = (*sender)->stats();
  const ReceiverStats& rs = (*receiver)->stats();
  *report = Report{};
  report->sender_pulled = ss.bytes_pulled;
  report->receiver_pulled = rs.bytes_pulled;
  report->zero_copy_rounds = ss.zero_copy_rounds;
  report->fallbacks = ss.zero_copy_fallbacks;
  report->staged = ss.bytes_staged;
  report->unstaged = rs.bytes_unstaged;
  report->delivered_bytes = rs.bytes_delivered;
  report->messages = rs.receives_completed;
  report->sender_pushed = ss.bytes_pushed;
  report->receiver_pushed_in = rs.pushed_bytes_direct + rs.pushed_bytes_buffered;
  return 0;
}

/** True if this machine lets a process write into its child with process_vm_writev. */
bool CrossCopyWorksHere() {
  static volatile uint64_t word = 0;
  int go[2];
  if (pipe(go) != 0) return false;
  Result<pid_t> forked = ForkCall("cross-copy probe", [&] {
    char c;
    close(go[1]);
    (void)!read(go[0], &c, 1);
    return word == 0x5eed ? 0 : 1;
  });
  close(go[0]);
  if (!forked.ok()) {
    close(go[1]);
    return false;
  }
  const pid_t child = *forked;
  uint64_t value = 0x5eed;
  iovec local{&value, sizeof value};
  iovec remote{const_cast<uint64_t*>(&word), sizeof word};
  const ssize_t n = process_vm_writev(child, &local, 1, &remote, 1, 0);
  close(go[1]);
  return ExitCodeOf(WaitFor(child)) == 0 && n == sizeof value;
}

void RunFour(Mode mode, bool force) {
  const uint64_t seed = Seed();
  SCOPED_TRACE(std::string(ToString(mode)) + (force ? " forced fallback" : "") +
               "; replay with NICSIM_PUSHPULL_SEED=" + std::to_string(seed));
  auto* reports = static_cast<Report*>(mmap(
      nullptr, sizeof(Report) * kRanks, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(reports, MAP_FAILED);
  for (uint32_t r = 0; r < kRanks; ++r) {
    reports[r] = Report{};
    reports[r].code = -1;
  }
  const std::string prefix = ShmPlatform::PrefixForThisProcess();
  std::vector<pid_t> children;
  for (uint32_t r = 0; r < kRanks; ++r) {
    Result<pid_t> pid = ForkCall("pushpull rank " + std::to_string(r), [&] {
      alarm(90);  // a hung child dies instead of hanging the test
      return Child(prefix, r, mode, force, seed, &reports[r]);
    });
    ASSERT_TRUE(pid.ok()) << pid.status().message();
    children.push_back(*pid);
  }
  Report sum{};
  for (uint32_t r = 0; r < kRanks; ++r) {
    const int status = WaitFor(children[r]);
    EXPECT_EQ(ExitCodeOf(status), 0)
        << "rank " << r << " " << DescribeWaitStatus(status) << " (exit codes: 4 timeout, 8 size, "
        << "9 a wrong byte) seed " << seed;
    sum.sender_pulled += reports[r].sender_pulled;
    sum.receiver_pulled += reports[r].receiver_pulled;
    sum.zero_copy_rounds += reports[r].zero_copy_rounds;
    sum.fallbacks += reports[r].fallbacks;
    sum.staged += reports[r].staged;
    sum.unstaged += reports[r].unstaged;
    sum.delivered_bytes += reports[r].delivered_bytes;
    sum.messages += reports[r].messages;
    sum.sender_pushed += reports[r].sender_pushed;
    sum.receiver_pushed_in += reports[r].receiver_pushed_in;
  }
  // Each child unlinked the channels it made; whatever a failed child left behind goes too.
  for (uint32_t s = 0; s < kRanks; ++s) {
    for (uint32_t d = 0; d < kRanks; ++d) {
      const std::string name = prefix + ChannelName(s, d);
      EXPECT_NE(shm_unlink(name.c_str()), 0) << name << " outlived its receiver";
    }
  }
  munmap(reports, sizeof(Report) * kRanks);
  // The counters the plan implies, exactly.
  const Params p = ShmParams(mode);
  uint64_t messages = 0, bytes = 0, pulled = 0, pushed = 0;
  for (uint32_t s = 0; s < kRanks; ++s) {
    for (uint32_t d = 0; d < kRanks; ++d) {
      if (s == d) continue;
      for (const Planned& m : Plan(seed, s, d, p)) {
        ++messages;
        bytes += m.size;
        pulled += m.size - p.PushedBytesOf(m.size);
        pushed += p.PushedBytesOf(m.size);
      }
    }
  }
  EXPECT_EQ(sum.messages, messages);
  EXPECT_EQ(sum.delivered_bytes, bytes);
  EXPECT_EQ(sum.sender_pushed, pushed);
  EXPECT_EQ(sum.receiver_pushed_in, pushed);
  EXPECT_EQ(sum.sender_pulled, pulled);
  EXPECT_EQ(sum.receiver_pulled, pulled);
  if (force) {
    EXPECT_EQ(sum.zero_copy_rounds, 0u);
    EXPECT_GT(sum.fallbacks, 0u);
    EXPECT_EQ(sum.staged, pulled);
    EXPECT_EQ(sum.unstaged, pulled);
  } else if (CrossCopyWorksHere()) {
    EXPECT_EQ(sum.fallbacks, 0u);
    EXPECT_EQ(sum.staged, 0u);
    EXPECT_EQ(sum.unstaged, 0u);
    EXPECT_EQ(sum.zero_copy_rounds > 0, pulled > 0);  // push-all pulls nothing
  } else {
    EXPECT_EQ(sum.staged, pulled);  // refused by the kernel: every round staged, none lost
  }
}

TEST(PushPullShmTest, FourProcessesPushPullWithOneCopyPulls) { RunFour(Mode::kPushPull, false); }

TEST(PushPullShmTest, FourProcessesPushPullWithForcedStagingFallback) {
  RunFour(Mode::kPushPull, true);
}

TEST(PushPullShmTest, FourProcessesPushAll) { RunFour(Mode::kPushAll, false); }

TEST(PushPullShmTest, FourProcessesPushZero) { RunFour(Mode::kPushZero, false); }

TEST(PushPullShmTest, ProcessVmWritevIsUsableOnThisMachine) {
  if (!CrossCopyWorksHere()) GTEST_SKIP() << "process_vm_writev refused here (EPERM/ENOSYS)";
  ShmPlatform platform(ShmPlatform::PrefixForThisProcess());
  // A copy into this process itself goes through the same system call.
  uint8_t src[5000], dst[5000] = {};
  for (size_t i = 0; i < sizeof src; ++i) src[i] = static_cast<uint8_t>(i * 7);
  const Extent local{reinterpret_cast<uint64_t>(src), sizeof src};
  const Extent remote[2] = {{reinterpret_cast<uint64_t>(dst), 1000},
                            {reinterpret_cast<uint64_t>(dst) + 1000, 4000}};
  EXPECT_EQ(platform.CopyTo(platform.ProcessToken(), &local, 1, remote, 2), CrossCopy::kDone);
  EXPECT_EQ(std::memcmp(src, dst, sizeof src), 0);
  ShmPlatform forced(ShmPlatform::PrefixForThisProcess(), /*force_fallback=*/true);
  EXPECT_EQ(forced.CopyTo(forced.ProcessToken(), &local, 1, remote, 2), CrossCopy::kUnsupported);
}

}  // namespace
}  // namespace nicsim::ulp::pushpull
