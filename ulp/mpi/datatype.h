// SPDX-License-Identifier: Apache-2.0
// MPI datatypes (contiguous runs of a base type, and vectors of strided blocks) and the
// reduction operations, with packing to and from the contiguous bytes that travel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace nicsim::mpi {

/** Base element types. */
enum class Base : uint8_t { kByte, kInt32, kInt64, kFloat, kDouble };

inline size_t BaseSize(Base b) {
  switch (b) {
    case Base::kByte: return 1;
    case Base::kInt32: return 4;
    case Base::kInt64: return 8;
    case Base::kFloat: return 4;
    case Base::kDouble: return 8;
  }
  return 1;
}

/**
 * A datatype: `blocks` blocks of `block_len` base elements, block starts `stride` elements
 * apart (a contiguous type is one block; MPI_Type_vector is the general form). The extent is
 * the span of one item in memory.
 */
struct Datatype {
  Base base = Base::kByte;
  size_t blocks = 1;
  size_t block_len = 1;
  size_t stride = 1;

  static Datatype Of(Base b) { return Datatype{b, 1, 1, 1}; }
  static Datatype Contiguous(size_t count, Base b) { return Datatype{b, 1, count, count}; }
  static Datatype Vector(size_t blocks, size_t block_len, size_t stride, Base b) {
    return Datatype{b, blocks, block_len, stride};
  }
  /** Bytes of data in one item. */
  size_t size() const { return blocks * block_len * BaseSize(base); }
  /** Bytes one item spans in memory. */
  size_t extent() const {
    return ((blocks - 1) * stride + block_len) * BaseSize(base);
  }
  /** Items lie back to back with no gaps: `count` of them are one run of bytes. */
  bool dense() const { return extent() == size(); }
};

/** Copies `count` items at `buf` into contiguous bytes. */
inline std::vector<uint8_t> Pack(const void* buf, size_t count, const Datatype& t) {
  std::vector<uint8_t> out(count * t.size());
  const auto* in = static_cast<const uint8_t*>(buf);
  if (t.dense()) {
    if (!out.empty()) std::memcpy(out.data(), in, out.size());
    return out;
  }
  const size_t e = BaseSize(t.base);
  uint8_t* o = out.data();
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* item = in + i * t.extent();
    for (size_t b = 0; b < t.blocks; ++b) {
      std::memcpy(o, item + b * t.stride * e, t.block_len * e);
      o += t.block_len * e;
    }
  }
  return out;
}

/** Spreads contiguous bytes into `count` items at `buf` (at most `bytes` of data). */
inline void Unpack(const uint8_t* data, size_t bytes, void* buf, size_t count, const Datatype& t) {
  auto* out = static_cast<uint8_t*>(buf);
  if (t.dense()) {
    const size_t n = std::min(bytes, count * t.size());
    if (n > 0) std::memcpy(out, data, n);
    return;
  }
  const size_t e = BaseSize(t.base);
  size_t left = bytes;
  for (size_t i = 0; i < count && left > 0; ++i) {
    uint8_t* item = out + i * t.extent();
    for (size_t b = 0; b < t.blocks && left > 0; ++b) {
      const size_t n = std::min(left, t.block_len * e);
      std::memcpy(item + b * t.stride * e, data, n);
      data += n;
      left -= n;
    }
  }
}

/** Reduction operations. */
enum class Op : uint8_t { kSum, kProd, kMax, kMin };

/**
 * `f(a, b)` for integers in two's complement, wrapping on overflow (computed on the unsigned
 * type: an overflowing signed sum or product is undefined in C++, and MPI leaves it to the
 * machine, which wraps); floating point as it is.
 */
template <typename T, typename F>
T Wrapping(T a, T b, F f) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(f(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return f(a, b);
  }
}

/** acc[i] = acc[i] op in[i] over `n` packed base elements (integers wrap on overflow). */
inline void Reduce(Op op, Base base, uint8_t* acc, const uint8_t* in, size_t n) {
  auto apply = [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i < n; ++i) {
      T a, b;
      std::memcpy(&a, acc + i * sizeof(T), sizeof(T));
      std::memcpy(&b, in + i * sizeof(T), sizeof(T));
      switch (op) {
        case Op::kSum: a = Wrapping<T>(a, b, [](auto x, auto y) { return x + y; }); break;
        case Op::kProd: a = Wrapping<T>(a, b, [](auto x, auto y) { return x * y; }); break;
        case Op::kMax: a = a < b ? b : a; break;
        case Op::kMin: a = b < a ? b : a; break;
      }
      std::memcpy(acc + i * sizeof(T), &a, sizeof(T));
    }
  };
  switch (base) {
    case Base::kByte: apply(uint8_t{}); break;
    case Base::kInt32: apply(int32_t{}); break;
    case Base::kInt64: apply(int64_t{}); break;
    case Base::kFloat: apply(float{}); break;
    case Base::kDouble: apply(double{}); break;
  }
}

}  // namespace nicsim::mpi
