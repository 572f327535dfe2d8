// SPDX-License-Identifier: Apache-2.0
// Shared by the RTL tests: the replayable seed, and a lock-step pair that clocks the RTL and its
// reference model together and compares every output after every edge.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "tests/support/test_seed.h"

namespace nicsim::hw::rtl::testing {

using nicsim::testing::TestSeed;

/** "seed=N (replay: NICSIM_TEST_SEED=N)", for failure messages. */
inline std::string ReplayHint(uint64_t seed) {
  return "seed=" + std::to_string(seed) + " (replay: NICSIM_TEST_SEED=" + std::to_string(seed) +
         ")";
}

/**
 * The RTL and its model behind one Reset/Clock/Outputs interface: every edge is applied to both and
 * their outputs must agree. Outputs() returns the RTL's. The first disagreement is reported (with
 * the cycle and both output sets); later ones are not, to keep logs short.
 */
template <typename Rtl, typename Model>
class Lockstep {
 public:
  Lockstep(Rtl& rtl, Model& model, std::string hint = "")
      : rtl_(rtl), model_(model), hint_(std::move(hint)) {}

  void Reset() {
    rtl_.Reset();
    model_.Reset();
    cycle_ = 0;
    Compare("reset");
  }
  template <typename Inputs>
  void Clock(const Inputs& in) {
    rtl_.Clock(in);
    model_.Clock(in);
    ++cycle_;
    Compare("clock");
  }
  auto Outputs() const { return rtl_.Outputs(); }
  /** True once the RTL and the model have disagreed. */
  bool diverged() const { return diverged_; }
  uint64_t cycle() const { return cycle_; }
  Model& model() { return model_; }

 private:
  void Compare(const char* what) {
    if (diverged_) return;
    const auto rtl = rtl_.Outputs();
    const auto model = model_.Outputs();
    if (rtl == model) return;
    diverged_ = true;
    ADD_FAILURE() << "RTL and model disagree after " << what << " at cycle " << cycle_ << " "
                  << hint_ << "\n  rtl:   " << rtl.ToString() << "\n  model: " << model.ToString();
  }

  Rtl& rtl_;
  Model& model_;
  std::string hint_;
  uint64_t cycle_ = 0;
  bool diverged_ = false;
};

/**
 * One Verilated `Driver` per process (SystemC elaborates once), created on first use and
 * destroyed when the tests end, so its VCD (if any) closes before SystemC's main returns.
 */
template <typename Driver>
class RtlEnvironment : public ::testing::Environment {
 public:
  static Driver& Dut() {
    if (!dut_) dut_ = std::make_unique<Driver>();
    return *dut_;
  }
  void TearDown() override { dut_.reset(); }

 private:
  static inline std::unique_ptr<Driver> dut_;
};

}  // namespace nicsim::hw::rtl::testing
