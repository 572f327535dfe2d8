// SPDX-License-Identifier: Apache-2.0
// Keyed records of a split run: the merge puts every process's share in event-key order,
// keeps the order within one key, and names a share that ends inside a record.
#include "sim/distrib/split_records.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nicsim::sim::distrib {
namespace {

/** One process's share: records made by events at the given (time, tie) keys. */
std::string Share(const std::vector<std::pair<uint64_t, std::string>>& at_time) {
  kernel::EventQueue events;
  KeyedRecords records;
  records.Bind(&events);
  for (const auto& [time_ps, text] : at_time) {
    events.At(time_ps, [&records, time_ps, text = text] {
      records.Add(time_ps + 1, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    });
  }
  while (events.RunOne()) {
  }
  return records.encoded();
}

TEST(KeyedRecordsTest, MergeOrdersByEventKeyAndKeepsTheOrderWithinAProcess) {
  const std::vector<std::string> parts = {Share({{30, "a30"}, {10, "a10"}}),
                                          Share({{20, "b20"}, {40, "b40"}})};
  Result<std::vector<KeyedRecords::Record>> merged = KeyedRecords::Merge(parts);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  std::vector<std::string> texts;
  for (const KeyedRecords::Record& r : *merged) {
    texts.emplace_back(r.bytes);
    EXPECT_EQ(r.time_ps, r.key_time_ps + 1);  // the record's own time travels with it
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"a10", "b20", "a30", "b40"}));
}

TEST(KeyedRecordsTest, AShareThatEndsInsideARecordIsAnErrorNamingTheProcess) {
  std::string cut = Share({{5, "hello"}});
  cut.resize(cut.size() - 2);
  Result<std::vector<KeyedRecords::Record>> merged = KeyedRecords::Merge({Share({}), cut});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("process 1"), std::string::npos)
      << merged.status().message();
  Result<std::vector<KeyedRecords::Record>> headless = KeyedRecords::Merge({std::string(10, 'x')});
  ASSERT_FALSE(headless.ok());
  EXPECT_NE(headless.status().message().find("inside a record header"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::sim::distrib
