// SPDX-License-Identifier: Apache-2.0
// The message state name tables: one distinct, non-empty name per state, in enum order.
#include "ulp/transport/message_states.h"

#include <gtest/gtest.h>

#include <set>
#include <string_view>

namespace nicsim::ulp {
namespace {

template <typename Names>
void ExpectDistinctAndNonEmpty(const Names& names) {
  std::set<std::string_view> seen;
  for (std::string_view name : names) {
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
}

TEST(MessageStatesTest, EveryOutStateHasItsOwnName) {
  ExpectDistinctAndNonEmpty(kOutStateNames);
  EXPECT_EQ(ToString(OutState::kEager), "eager");
  EXPECT_EQ(ToString(OutState::kOffered), "offered");
  EXPECT_EQ(ToString(OutState::kPushed), "pushed");
  EXPECT_EQ(ToString(OutState::kDone), "done");
}

TEST(MessageStatesTest, EveryInStateHasItsOwnName) {
  ExpectDistinctAndNonEmpty(kInStateNames);
  EXPECT_EQ(ToString(InState::kFragments), "fragments");
  EXPECT_EQ(ToString(InState::kPulling), "pulling");
  EXPECT_EQ(ToString(InState::kPushed), "pushed");
  EXPECT_EQ(ToString(InState::kComplete), "complete");
}

}  // namespace
}  // namespace nicsim::ulp
