// SPDX-License-Identifier: Apache-2.0
// Fatal-window recovery: a stale RDMA write (trickle traffic: a PVO whose key no TCE holds)
// reaches a rank's window in the middle of a large transfer. The window becomes fatal, the
// rank is told, closes and reopens it, and its transport redrives what it had in flight:
// every message still arrives exactly once with every byte right, on whichever side of the
// transfer the fatal window is.
#include <gtest/gtest.h>

#include "abi/rdma.h"
#include "firmware/counters.h"
#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

constexpr size_t kLarge = 4 << 20;
constexpr int kSmall = 20;

uint8_t Byte(size_t i, int message) { return static_cast<uint8_t>(i * 131 + message * 7 + 1); }

std::unique_ptr<MpiJob> Job() {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = 2;
  c.cluster.windows_per_adapter = 2;  // window 1 of each adapter sends the stale write
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  NICSIM_CHECK(job.ok(), "job: %s", job.status().message().c_str());
  return std::move(*job);
}

/**
 * At `at_ps`, window 1 of the other node writes to `victim`'s window 0 with a PVO of a real
 * registration on the victim's node but the wrong key: the victim's adapter raises an
 * address exception and its window becomes fatal.
 */
void InjectStaleWrite(MpiJob& job, uint32_t victim, uint64_t at_ps,
                      std::vector<std::unique_ptr<hal::Port>>& keep,
                      std::vector<std::unique_ptr<hal::TaskHost>>& hosts) {
  Cluster& cluster = job.cluster();
  const uint32_t from = 1 - victim;
  keep.push_back(cluster.MakePort(from, 1));
  hosts.push_back(cluster.MakeTaskHost(from));
  hosts.push_back(cluster.MakeTaskHost(victim));
  hal::Port& port = *keep.back();
  hal::TaskHost& local = *hosts[hosts.size() - 2];
  hal::TaskHost& remote = *hosts.back();
  cluster.events().After(at_ps, [&cluster, &port, &local, &remote, victim] {
    const uint64_t src = *local.Map(4096), dst = *remote.Map(4096);
    const driver::Registration src_reg = *local.Register(src, 4096);
    const driver::Registration dst_reg = *remote.Register(dst, 4096);
    abi::RdmaRequest r{};
    r.local_rcxt = *port.AcquireRcxt();
    r.remote_rcxt = *cluster.rcxts(victim).Acquire(0);
    r.tid = 1;
    r.length = 1024;
    r.local_pvo = src_reg.pvo;
    r.remote_pvo = abi::MakePvo(abi::PvoKey(dst_reg.pvo) ^ 1, abi::PvoTable(dst_reg.pvo),
                                abi::PvoOffset(dst_reg.pvo));
    port.Post(abi::SlotType::kRdmaWrite, hal::Peer{static_cast<uint16_t>(victim), 0}, r, 0);
  });
}

/** Rank 0 sends small messages around one large one to rank 1; rank 1 checks every byte. */
void Exchange(MpiJob& job, std::vector<std::string>& errors) {
  ASSERT_TRUE(job.Run([&](mpi::Mpi& m) {
                   const auto& w = m.world();
                   using mpi::kByte;
                   for (int k = 0; k <= kSmall; ++k) {
                     const size_t n = k == kSmall / 2 ? kLarge : 100 + static_cast<size_t>(k);
                     std::vector<uint8_t> buf(n);
                     if (w.rank == 0) {
                       for (size_t i = 0; i < n; ++i) buf[i] = Byte(i, k);
                       m.Send(buf.data(), n, kByte, 1, k, w);
                       continue;
                     }
                     const mpi::Status s = m.Recv(buf.data(), n, kByte, 0, k, w);
                     if (s.bytes != n)
                       errors.push_back("message " + std::to_string(k) + ": wrong length");
                     for (size_t i = 0; i < n; ++i) {
                       if (buf[i] != Byte(i, k)) {
                         errors.push_back("message " + std::to_string(k) + ": byte " +
                                          std::to_string(i));
                         break;
                       }
                     }
                   }
                 })
                  .ok());
}

class WindowFatalTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(WindowFatalTest, TheOwnerReopensTheWindowAndEveryMessageArrivesOnce) {
  const uint32_t victim = GetParam();
  auto job = Job();
  std::vector<std::unique_ptr<hal::Port>> ports;
  std::vector<std::unique_ptr<hal::TaskHost>> hosts;
  InjectStaleWrite(*job, victim, 300'000'000, ports, hosts);  // 300 us: the pull is under way
  std::vector<std::string> errors;
  Exchange(*job, errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  const auto& drops = job->cluster().adapter(victim).firmware_counters().drops;
  EXPECT_EQ(drops[static_cast<size_t>(fw::DropReason::kRdmaAddressException)], 1u);
  EXPECT_EQ(job->transport(victim).stats().window_fatals, 1u);
  EXPECT_EQ(job->transport(1 - victim).stats().window_fatals, 0u);
  // Every message the transports accepted was delivered once.
  for (uint32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(job->transport(r).stats().messages_failed, 0u);
  }
  EXPECT_EQ(job->transport(0).stats().messages_sent, job->transport(1).stats().messages_delivered);
  // The reopened window works: a second exchange goes through untouched.
  std::vector<std::string> again;
  Exchange(*job, again);
  EXPECT_TRUE(again.empty()) << again.front();
  EXPECT_EQ(job->transport(victim).stats().window_fatals, 1u);
}

INSTANTIATE_TEST_SUITE_P(Victim, WindowFatalTest, ::testing::Values(0u, 1u),
                         [](const ::testing::TestParamInfo<uint32_t>& p) {
                           return p.param == 0 ? std::string("Sender") : std::string("Receiver");
                         });

}  // namespace
}  // namespace nicsim::sim
