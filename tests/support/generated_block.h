// SPDX-License-Identifier: Apache-2.0
// The generated part of a document: the text between a begin marker line and an end marker,
// so a test can compare it with what the generator prints now.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace nicsim::testing {

/**
 * The text of `path` after the line `begin` (which must end in a newline) and before `end`;
 * nothing if the file or either marker is missing.
 */
inline std::optional<std::string> GeneratedBlock(const std::string& path, const std::string& begin,
                                                 const std::string& end) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  std::fclose(f);
  const size_t at = text.find(begin);
  if (at == std::string::npos) return std::nullopt;
  const size_t stop = text.find(end, at);
  if (stop == std::string::npos) return std::nullopt;
  return text.substr(at + begin.size(), stop - at - begin.size());
}

}  // namespace nicsim::testing
