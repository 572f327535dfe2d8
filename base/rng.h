// SPDX-License-Identifier: Apache-2.0
// Deterministic random streams: one scenario seed, one independent stream per consumer.
// SplitMix64 derives stream seeds; xoshiro256** generates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nicsim {

/** SplitMix64 step: a well-mixed 64-bit value from a counter. */
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/** A xoshiro256** generator; `Rng(seed, "fabric")` gives the fabric's own stream. */
class Rng {
 public:
  Rng(uint64_t seed, std::string_view stream) {
    uint64_t s = seed;
    for (char c : stream) s = s * 1099511628211ull ^ static_cast<uint8_t>(c);
    for (auto& word : s_) word = SplitMix64(s);
  }
  /** Next 64 random bits. */
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  /** Uniform in [0, n); n > 0. */
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<__uint128_t>(Next()) * n) >> 64);
  }
  /** Uniform in [lo, hi]. */
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
  /** True with probability p. */
  bool Chance(double p) { return p > 0 && (Next() >> 11) * 0x1.0p-53 < p; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

/**
 * The draws of one stream by their index: `At(i)` is what the (i + 1)-th `Next()` of
 * `Rng(seed, stream)` returns. Asking in increasing order costs one draw per index passed;
 * asking for an earlier index starts the stream again.
 */
class RngDraws {
 public:
  RngDraws(uint64_t seed, std::string_view stream)
      : seed_(seed), stream_(stream), rng_(seed, stream) {}
  uint64_t At(uint64_t index) {
    if (index + 1 < drawn_) {
      rng_ = Rng(seed_, stream_);
      drawn_ = 0;
    }
    for (; drawn_ <= index; ++drawn_) last_ = rng_.Next();
    return last_;
  }

 private:
  uint64_t seed_;
  std::string stream_;
  Rng rng_;
  /** Draws taken from rng_; last_ is the latest. */
  uint64_t drawn_ = 0;
  uint64_t last_ = 0;
};

}  // namespace nicsim
