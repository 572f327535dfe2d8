// SPDX-License-Identifier: Apache-2.0
// Parameter presets that reproduce known machines. A preset is a list of key=value pairs
// applied at the point `preset` is set; keys set after it win.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sim/config/param_table.h"

namespace nicsim::sim {

/** The key=value pairs of a preset, or nullptr for an unknown name. */
const std::vector<std::pair<std::string_view, std::string_view>>* PresetValues(
    std::string_view preset);

/** Sets `preset` and every value it carries. */
Status ApplyPreset(ParamValues& params, std::string_view preset);

}  // namespace nicsim::sim
