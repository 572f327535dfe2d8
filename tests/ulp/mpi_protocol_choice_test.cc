// SPDX-License-Identifier: Apache-2.0
// Which point-to-point protocol carries a message, and that each one's messages reach a
// receive posted after they came: eager up to the eager limit, rendezvous above it and for
// every synchronous send (announced through the transport to another node, a request to send
// and a clear to send within a node), with exact bytes, counters and messages per path.
#include <gtest/gtest.h>

#include "sim/cluster/mpi_job.h"

namespace nicsim::sim {
namespace {

using mpi::kByte;

constexpr uint64_t kEagerLimit = 1024;
constexpr int kGoTag = 9;

std::vector<uint8_t> Pattern(size_t size, int index) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) v[i] = static_cast<uint8_t>(i * 29 + index * 11 + 1);
  return v;
}

struct Placement {
  const char* name;
  /** Both ranks on one node, talking through the postbox path; else one rank per node. */
  bool same_node;
};

class ProtocolChoiceTest : public ::testing::TestWithParam<Placement> {};

TEST_P(ProtocolChoiceTest, EachSizeTakesItsProtocolAndReachesALateReceive) {
  MpiJobConfig c;
  c.cluster.backend = BackendKind::kFunc;
  c.ranks = 2;
  c.cluster.nodes = GetParam().same_node ? 1 : 2;
  c.cluster.microcode.rcxts = 2048;
  c.mpi.eager_limit = kEagerLimit;
  if (GetParam().same_node) c.mpi.intranode = mpi::IntranodeTransport::kPostbox;
  Result<std::unique_ptr<MpiJob>> job = MpiJob::Create(c);
  ASSERT_TRUE(job.ok()) << job.status().message();

  // Tag i + 1 carries sizes[i]; the last is a synchronous send.
  const std::vector<size_t> sizes = {0, kEagerLimit, kEagerLimit + 1, 8};
  const size_t synchronous = 3;
  std::vector<std::vector<uint8_t>> got(sizes.size());
  std::vector<mpi::Status> statuses(sizes.size());
  const Status run = (*job)->Run([&](mpi::Mpi& m) {
    const mpi::Comm& w = m.world();
    if (w.rank == 0) {
      std::vector<std::vector<uint8_t>> out;
      std::vector<mpi::Request> sends;
      for (size_t i = 0; i < sizes.size(); ++i) out.push_back(Pattern(sizes[i], int(i)));
      for (size_t i = 0; i < sizes.size(); ++i) {
        const int tag = static_cast<int>(i) + 1;
        sends.push_back(i == synchronous ? m.Issend(out[i].data(), sizes[i], kByte, 1, tag, w)
                                         : m.Isend(out[i].data(), sizes[i], kByte, 1, tag, w));
      }
      // Sent after the others from the same source: when it is received, they have all come.
      m.Send(nullptr, 0, kByte, 1, kGoTag, w);
      m.Waitall(sends);
      return;
    }
    m.Recv(nullptr, 0, kByte, 0, kGoTag, w);
    for (size_t i = 0; i < sizes.size(); ++i) {
      got[i].assign(sizes[i] + 16, 0xee);
      statuses[i] = m.Recv(got[i].data(), got[i].size(), kByte, 0, static_cast<int>(i) + 1, w);
    }
  });
  ASSERT_TRUE(run.ok()) << run.message();

  for (size_t i = 0; i < sizes.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(statuses[i].bytes, sizes[i]);
    EXPECT_EQ(statuses[i].tag, static_cast<int>(i) + 1);
    EXPECT_FALSE(statuses[i].truncated);
    std::vector<uint8_t> want = Pattern(sizes[i], int(i));
    want.resize(sizes[i] + 16, 0xee);
    EXPECT_EQ(got[i], want);
  }
  const mpi::MpiStats& sender = (*job)->mpi(0).stats();
  const mpi::MpiStats& receiver = (*job)->mpi(1).stats();
  // Eager: sizes 0 and the limit itself, and the go message; rendezvous: one past the limit
  // and the synchronous send.
  EXPECT_EQ(sender.eager_sends, 3u);
  EXPECT_EQ(sender.rendezvous_sends, 2u);
  EXPECT_EQ(sender.rendezvous_by_request, 0u);
  // Every data message came before its receive was posted.
  EXPECT_EQ(receiver.unexpected, sizes.size());
  if (GetParam().same_node) {
    // Three eager messages, and per rendezvous a request to send and the data; the receiver
    // sends the two clears to send.
    EXPECT_EQ(sender.intranode_messages, 3u + 2u * 2u);
    EXPECT_EQ(receiver.intranode_messages, 2u);
  } else {
    EXPECT_EQ(sender.intranode_messages, 0u);
    EXPECT_EQ(receiver.intranode_messages, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, ProtocolChoiceTest,
                         ::testing::Values(Placement{"between_nodes", false},
                                           Placement{"within_a_node", true}),
                         [](const ::testing::TestParamInfo<Placement>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
}  // namespace nicsim::sim
