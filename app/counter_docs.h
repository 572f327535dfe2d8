// SPDX-License-Identifier: Apache-2.0
// The counter tables as documentation: `nicsim counters` prints every counter and drop reason
// a component declares (firmware, adapter model, fabric, real port, transport), and
// docs/stats.md holds the same text (`nicsim counters --markdown`), checked by a test.
#pragma once

#include <string>

namespace nicsim::sim {

/** Every counter table as Markdown: one section per table, one row per counter. */
std::string CountersMarkdown();

/** The same tables as plain text: "TABLE  NAME  DESCRIPTION" per line, with a header. */
std::string CountersText();

}  // namespace nicsim::sim
