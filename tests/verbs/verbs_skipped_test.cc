// SPDX-License-Identifier: Apache-2.0
// Stands in for the verbs port tests when the verbs backend is not built: skips with the
// reason.
#include <gtest/gtest.h>

TEST(VerbsPortTest, SkippedWithoutVerbs) {
  GTEST_SKIP() << "verbs backend not built (WITH_VERBS=OFF or libibverbs-dev missing)";
}
