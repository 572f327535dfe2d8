// SPDX-License-Identifier: Apache-2.0
// A guard in front of the TOML parser: it recurses once per dotted part of a key or table
// header, so a key of hundreds of thousands of parts would exhaust the stack. Keys are
// counted in the text before it is parsed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nicsim::sim {

/** The most dotted parts a key or table header may have (toml++'s own bound on nested
 *  values). */
inline constexpr size_t kMaxTomlKeyParts = 256;

/** Where the first key of more than kMaxTomlKeyParts parts begins, as "line:col: message";
 *  nullopt when there is none. Strings and comments are skipped; anything malformed is left
 *  to the parser. */
std::optional<std::string> FindTooDeepKey(std::string_view toml_text);

}  // namespace nicsim::sim
