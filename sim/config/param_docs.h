// SPDX-License-Identifier: Apache-2.0
// The parameter table as documentation: the Markdown table in docs/scenarios.md is generated
// from the same table `nicsim params` prints (`nicsim params --markdown`), and a test checks it.
#pragma once

#include <string>

#include "sim/config/param_table.h"

namespace nicsim::sim {

/** What values a parameter accepts, in words: "[1, 4096]", ">= 0", "func \\| systemc". */
std::string AllowedText(const ParamSpec& spec);
/** The Markdown table of every parameter, one row each, in table order. */
std::string ParamsMarkdownTable();

}  // namespace nicsim::sim
