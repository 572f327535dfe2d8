// SPDX-License-Identifier: Apache-2.0
// Counters declared by the component that keeps them, in one table each: the stats.json key,
// the member that holds the count and what it counts. stats.json, `nicsim counters` and
// docs/stats.md read the tables, so a counter is named and described once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nicsim {

/** One named count: its stats.json key and a one-line description. */
struct CounterDoc {
  std::string_view name;
  std::string_view doc;
};

/** One counter of `Counters`: its key, the member holding it, and what it counts. */
template <class Counters>
struct CounterField {
  std::string_view name;
  uint64_t Counters::*member;
  std::string_view doc;
};

/** The names of a table of reasons or counters, in table order (an enum's name table). */
template <class Entry, size_t N>
constexpr std::array<std::string_view, N> NamesOf(const std::array<Entry, N>& table) {
  std::array<std::string_view, N> names{};
  for (size_t i = 0; i < N; ++i) names[i] = table[i].name;
  return names;
}

/** Adds every counter of `from` to `to` (Counters::Fields() lists them). */
template <class Counters>
constexpr Counters& AddCounters(Counters& to, const Counters& from) {
  for (const auto& f : Counters::Fields()) to.*f.member += from.*f.member;
  return to;
}

}  // namespace nicsim
