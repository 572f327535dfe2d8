// SPDX-License-Identifier: Apache-2.0
// Tests for LifeToken: watches report the token alive until it is destroyed,
// whatever order watches and token go in, and copies and moves keep the shared
// cell counted.
#include "base/life_token.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <utility>

namespace nicsim {
namespace {

TEST(LifeTokenTest, WatchReportsAliveUntilTheTokenIsDestroyed) {
  auto token = std::make_unique<LifeToken>();
  LifeToken::Watch watch = token->watch();
  EXPECT_TRUE(watch.alive());
  token.reset();
  EXPECT_FALSE(watch.alive());  // the cell outlives the token while a watch holds it
}

TEST(LifeTokenTest, CopiesAndMovesShareTheCellAndOutliveTheToken) {
  std::optional<LifeToken::Watch> moved;
  std::optional<LifeToken::Watch> copy;
  {
    LifeToken token;
    LifeToken::Watch first = token.watch();
    copy.emplace(first);
    moved.emplace(std::move(first));
    EXPECT_TRUE(copy->alive());
    EXPECT_TRUE(moved->alive());
  }
  EXPECT_FALSE(copy->alive());
  copy.reset();
  EXPECT_FALSE(moved->alive());  // still readable after the other watch released the cell
}

TEST(LifeTokenTest, WatchesGoneBeforeTheTokenLeaveItAlive) {
  LifeToken token;
  for (int i = 0; i < 3; ++i) {
    LifeToken::Watch watch = token.watch();
    EXPECT_TRUE(watch.alive());
  }
  EXPECT_TRUE(token.watch().alive());
}

}  // namespace
}  // namespace nicsim
