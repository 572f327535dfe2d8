// SPDX-License-Identifier: Apache-2.0
// Writing an output file whole or not at all: a reader never finds it cut short by a full
// disk or a crash in the middle, and a failed write is reported, never taken for success.
#pragma once

#include <string>

#include "base/status.h"

namespace nicsim {

/**
 * Writes `text` to a temporary file beside `path`, checks every write, flushes it to the
 * disk, then renames it over `path`. On any failure `path` is left as it was (absent, or the
 * previous file) and the error names the path and the system's reason.
 */
Status WriteWholeFile(const std::string& path, const std::string& text);

}  // namespace nicsim
