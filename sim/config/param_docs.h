// SPDX-License-Identifier: Apache-2.0
// The parameter table as documentation: the Markdown table in docs/scenarios.md is generated
// from the same table `nicsim params` prints (`nicsim params --markdown`), and a test checks it;
// likewise the preset table (`nicsim params --presets`) from sim/config/presets.cc.
#pragma once

#include <string>

#include "sim/config/param_table.h"

namespace nicsim::sim {

/** What values a parameter accepts, in words: "[1, 4096]", ">= 0", "func \\| systemc". */
std::string AllowedText(const ParamSpec& spec);
/** The Markdown table of every parameter, one row each, in table order. */
std::string ParamsMarkdownTable();
/**
 * The Markdown table of the presets: one row per key any preset sets (in the order the
 * presets set them), one column per preset (in `preset`'s choice order), "(unchanged)" where
 * a preset leaves the key alone.
 */
std::string PresetsMarkdownTable();

}  // namespace nicsim::sim
