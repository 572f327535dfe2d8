// SPDX-License-Identifier: Apache-2.0
// MPI datatypes (contiguous runs of a base type, and vectors of strided blocks) and the
// reduction operations, with packing to and from the contiguous bytes that travel. The base
// types and operations are those of MPI's C binding (value-index pairs included), so the C API
// (ulp/mpi/capi) reduces with the same code as the built-in workloads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

namespace nicsim::mpi {

/**
 * Base element types. kByte is unsigned; the pairs (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 * MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) are a value then an int index,
 * packed with no padding; kLongDouble is the machine's long double, as the C API packs it.
 */
enum class Base : uint8_t {
  kByte,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kInt8,
  kInt16,
  kUint16,
  kUint32,
  kUint64,
  kFloatInt,
  kDoubleInt,
  kLongInt,
  kIntInt,
  kShortInt,
  kLongDouble,
  kLongDoubleInt,
};
inline constexpr int kBaseCount = 17;

inline size_t BaseSize(Base b) {
  switch (b) {
    case Base::kByte:
    case Base::kInt8:
      return 1;
    case Base::kInt16:
    case Base::kUint16:
      return 2;
    case Base::kInt32:
    case Base::kUint32:
    case Base::kFloat:
      return 4;
    case Base::kInt64:
    case Base::kUint64:
    case Base::kDouble:
      return 8;
    case Base::kFloatInt:
    case Base::kIntInt:
      return 8;
    case Base::kDoubleInt:
    case Base::kLongInt:
      return 12;
    case Base::kShortInt:
      return 6;
    case Base::kLongDouble:
      return sizeof(long double);
    case Base::kLongDoubleInt:
      return sizeof(long double) + 4;
  }
  return 1;
}

/** A value-index pair type (for MAXLOC and MINLOC only). */
inline bool IsPair(Base b) {
  return (b >= Base::kFloatInt && b <= Base::kShortInt) || b == Base::kLongDoubleInt;
}
inline bool IsFloating(Base b) {
  return b == Base::kFloat || b == Base::kDouble || b == Base::kLongDouble;
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
  /** `n` bytes, back to back (what collectives on packed bytes send). */
  static Datatype Bytes(size_t n) { return Contiguous(n, Base::kByte); }
  static Datatype Vector(size_t blocks, size_t block_len, size_t stride, Base b) {
    return Datatype{b, blocks, block_len, stride};
  }
  /** Bytes of data in one item. */
  size_t size() const { return blocks * block_len * BaseSize(base); }
  /** Bytes one item spans in memory. */
  size_t extent() const { return ((blocks - 1) * stride + block_len) * BaseSize(base); }
  /** Items lie back to back with no gaps: `count` of them are one run of bytes. */
  bool dense() const { return extent() == size(); }
};

/** Single bytes: what collectives on packed bytes move. */
inline const Datatype kByteType = Datatype::Of(Base::kByte);

/** Copies `count` items at `buf` into contiguous bytes. */
inline std::vector<uint8_t> Pack(const void* buf, size_t count, const Datatype& t) {
  const auto* in = static_cast<const uint8_t*>(buf);
  // Dense: one copy, without first zeroing a buffer of the message's size.
  if (t.dense()) return std::vector<uint8_t>(in, in + count * t.size());
  std::vector<uint8_t> out(count * t.size());
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

/** Reduction operations (MPI's predefined ones). */
enum class Op : uint8_t {
  kSum,
  kProd,
  kMax,
  kMin,
  kLand,
  kLor,
  kLxor,
  kBand,
  kBor,
  kBxor,
  kMaxloc,
  kMinloc,
};
inline constexpr int kOpCount = 12;

/**
 * Whether MPI defines `op` on `base`: arithmetic and ordering on numbers, logical ops on
 * integers, bitwise ops on integers and bytes, MAXLOC and MINLOC on pairs only.
 */
inline bool OpDefinedOn(Op op, Base base) {
  switch (op) {
    case Op::kMaxloc:
    case Op::kMinloc:
      return IsPair(base);
    case Op::kSum:
    case Op::kProd:
    case Op::kMax:
    case Op::kMin:
      return !IsPair(base);
    case Op::kLand:
    case Op::kLor:
    case Op::kLxor:
    case Op::kBand:
    case Op::kBor:
    case Op::kBxor:
      return !IsPair(base) && !IsFloating(base);
  }
  return false;
}

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

/** a op b for one scalar (an op not defined on T leaves a as it is). */
template <typename T>
T Apply(Op op, T a, T b) {
  switch (op) {
    case Op::kSum:
      return Wrapping<T>(a, b, [](auto x, auto y) { return x + y; });
    case Op::kProd:
      return Wrapping<T>(a, b, [](auto x, auto y) { return x * y; });
    case Op::kMax:
      return a < b ? b : a;
    case Op::kMin:
      return b < a ? b : a;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::kLand:
        return static_cast<T>((a != 0) && (b != 0));
      case Op::kLor:
        return static_cast<T>((a != 0) || (b != 0));
      case Op::kLxor:
        return static_cast<T>((a != 0) != (b != 0));
      case Op::kBand:
        return static_cast<T>(a & b);
      case Op::kBor:
        return static_cast<T>(a | b);
      case Op::kBxor:
        return static_cast<T>(a ^ b);
      default:
        break;
    }
  }
  return a;
}

/** acc[i] = acc[i] kOp in[i] over `n` packed scalars of type T: the op is a constant, so
 *  the loop body is one operation, not a switch per element. */
template <typename T, Op kOp>
void ReduceScalarsWith(uint8_t* acc, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, acc + i * sizeof(T), sizeof(T));
    std::memcpy(&b, in + i * sizeof(T), sizeof(T));
    a = Apply<T>(kOp, a, b);
    std::memcpy(acc + i * sizeof(T), &a, sizeof(T));
  }
}

/** acc[i] = acc[i] op in[i] over `n` packed scalars of type T (an op Apply does not define
 *  on T leaves acc as it is): one switch per call, choosing the loop for the op. */
template <typename T>
void ReduceScalars(Op op, uint8_t* acc, const uint8_t* in, size_t n) {
  switch (op) {
    case Op::kSum:
      return ReduceScalarsWith<T, Op::kSum>(acc, in, n);
    case Op::kProd:
      return ReduceScalarsWith<T, Op::kProd>(acc, in, n);
    case Op::kMax:
      return ReduceScalarsWith<T, Op::kMax>(acc, in, n);
    case Op::kMin:
      return ReduceScalarsWith<T, Op::kMin>(acc, in, n);
    case Op::kLand:
      return ReduceScalarsWith<T, Op::kLand>(acc, in, n);
    case Op::kLor:
      return ReduceScalarsWith<T, Op::kLor>(acc, in, n);
    case Op::kLxor:
      return ReduceScalarsWith<T, Op::kLxor>(acc, in, n);
    case Op::kBand:
      return ReduceScalarsWith<T, Op::kBand>(acc, in, n);
    case Op::kBor:
      return ReduceScalarsWith<T, Op::kBor>(acc, in, n);
    case Op::kBxor:
      return ReduceScalarsWith<T, Op::kBxor>(acc, in, n);
    case Op::kMaxloc:
    case Op::kMinloc:
      return;  // pairs only (ReducePairs)
  }
}

/**
 * MAXLOC or MINLOC over `n` packed (value V, int index) pairs: the larger (smaller) value
 * wins; on a tie, the smaller index.
 */
template <typename V>
void ReducePairs(Op op, uint8_t* acc, const uint8_t* in, size_t n) {
  constexpr size_t kSize = sizeof(V) + sizeof(int32_t);
  for (size_t i = 0; i < n; ++i) {
    V av, bv;
    int32_t ai, bi;
    std::memcpy(&av, acc + i * kSize, sizeof(V));
    std::memcpy(&ai, acc + i * kSize + sizeof(V), sizeof(ai));
    std::memcpy(&bv, in + i * kSize, sizeof(V));
    std::memcpy(&bi, in + i * kSize + sizeof(V), sizeof(bi));
    const bool b_wins = op == Op::kMaxloc ? av < bv : bv < av;
    if (b_wins || (!(av < bv) && !(bv < av) && bi < ai)) {
      std::memcpy(acc + i * kSize, &bv, sizeof(V));
      std::memcpy(acc + i * kSize + sizeof(V), &bi, sizeof(bi));
    }
  }
}

/** acc[i] = acc[i] op in[i] over `n` packed base elements (integers wrap on overflow). */
inline void Reduce(Op op, Base base, uint8_t* acc, const uint8_t* in, size_t n) {
  switch (base) {
    case Base::kByte:
      ReduceScalars<uint8_t>(op, acc, in, n);
      break;
    case Base::kInt8:
      ReduceScalars<int8_t>(op, acc, in, n);
      break;
    case Base::kInt16:
      ReduceScalars<int16_t>(op, acc, in, n);
      break;
    case Base::kUint16:
      ReduceScalars<uint16_t>(op, acc, in, n);
      break;
    case Base::kInt32:
      ReduceScalars<int32_t>(op, acc, in, n);
      break;
    case Base::kUint32:
      ReduceScalars<uint32_t>(op, acc, in, n);
      break;
    case Base::kInt64:
      ReduceScalars<int64_t>(op, acc, in, n);
      break;
    case Base::kUint64:
      ReduceScalars<uint64_t>(op, acc, in, n);
      break;
    case Base::kFloat:
      ReduceScalars<float>(op, acc, in, n);
      break;
    case Base::kDouble:
      ReduceScalars<double>(op, acc, in, n);
      break;
    case Base::kFloatInt:
      ReducePairs<float>(op, acc, in, n);
      break;
    case Base::kDoubleInt:
      ReducePairs<double>(op, acc, in, n);
      break;
    case Base::kLongInt:
      ReducePairs<int64_t>(op, acc, in, n);
      break;
    case Base::kIntInt:
      ReducePairs<int32_t>(op, acc, in, n);
      break;
    case Base::kShortInt:
      ReducePairs<int16_t>(op, acc, in, n);
      break;
    case Base::kLongDouble:
      ReduceScalars<long double>(op, acc, in, n);
      break;
    case Base::kLongDoubleInt:
      ReducePairs<long double>(op, acc, in, n);
      break;
  }
}

/**
 * A reduction over packed bytes: apply(acc, in, bytes) makes acc = acc op in, where acc holds
 * the contribution of the lower ranks. A predefined op, or a program's own (the C API's
 * MPI_Op_create), which may not commute: the collectives then combine in rank order.
 */
struct Combiner {
  std::function<void(uint8_t* acc, const uint8_t* in, size_t bytes)> apply;
  bool commutative = true;
  /** Bytes of one element `apply` works on; 0: unknown (such a reduction is never split at
   *  packet boundaries: mpi.reduce=half_rdma leaves it point to point). */
  size_t element_bytes = 0;

  static Combiner Of(Op op, Base base) {
    return Combiner{[op, base](uint8_t* acc, const uint8_t* in, size_t bytes) {
                      Reduce(op, base, acc, in, bytes / BaseSize(base));
                    },
                    true, BaseSize(base)};
  }
};

/** MPI_BYTE: one byte, what messages of packed bytes are counted in. */
inline const Datatype kByte = Datatype::Of(Base::kByte);

}  // namespace nicsim::mpi
