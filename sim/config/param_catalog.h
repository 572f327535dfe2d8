// SPDX-License-Identifier: Apache-2.0
// The one place that knows every component with parameters: it gathers their declarations
// into the parameter table (AllParams()).
#pragma once

#include <vector>

#include "base/params.h"

namespace nicsim::sim {

/** Every component's declared parameters, in the order `nicsim params` prints them. */
std::vector<ParamSpec> CatalogParams();

}  // namespace nicsim::sim
