// SPDX-License-Identifier: Apache-2.0
// The generated tables of docs/scenarios.md (parameters and presets) match what `nicsim params
// --markdown` and `nicsim params --presets` print now.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "sim/config/param_docs.h"
#include "tests/support/generated_block.h"

namespace nicsim::sim {
namespace {

TEST(ParamDocsTest, ScenariosMdHoldsTheGeneratedParameterTable) {
  const std::optional<std::string> block = testing::GeneratedBlock(
      NICSIM_SOURCE_DIR "/docs/scenarios.md",
      "<!-- params:begin (generated: build/nicsim params --markdown) -->\n", "<!-- params:end -->");
  ASSERT_TRUE(block.has_value()) << "docs/scenarios.md or its markers are missing";
  EXPECT_EQ(*block, ParamsMarkdownTable()) << "regenerate with: build/nicsim params --markdown";
}

TEST(ParamDocsTest, ScenariosMdHoldsTheGeneratedPresetTable) {
  const std::optional<std::string> block =
      testing::GeneratedBlock(NICSIM_SOURCE_DIR "/docs/scenarios.md",
                              "<!-- presets:begin (generated: build/nicsim params --presets) -->\n",
                              "<!-- presets:end -->");
  ASSERT_TRUE(block.has_value()) << "docs/scenarios.md or its markers are missing";
  EXPECT_EQ(*block, PresetsMarkdownTable()) << "regenerate with: build/nicsim params --presets";
  // Spot checks against sim/config/presets.cc, so a broken renderer cannot pass on its own.
  EXPECT_NE(block->find("| `dma.latency` | 300ns | 1us |"), std::string::npos);
  EXPECT_NE(block->find("| `ulp.send_overhead` | 1050ns | (unchanged) |"), std::string::npos);
}

}  // namespace
}  // namespace nicsim::sim
