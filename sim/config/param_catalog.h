// SPDX-License-Identifier: Apache-2.0
// The seam between the parameter table and the components it lists: the table (AllParams())
// calls CatalogParams(), and the program defines it (app/param_catalog.cc), the one place that
// knows every component with parameters. So this room includes none of them.
#pragma once

#include <vector>

#include "base/params.h"

namespace nicsim::sim {

/** Every component's declared parameters, in the order `nicsim params` prints them. */
std::vector<ParamSpec> CatalogParams();

}  // namespace nicsim::sim
