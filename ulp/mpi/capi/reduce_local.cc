// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/reduce_local.h"

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ulp/mpi/capi/api_types.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry point below is global

namespace nicsim::mpi::capi {
namespace {

/**
 * The groups of types of MPI 3.1's table of reduction ops (5.9.2), with MPICH's extensions,
 * which the MPICH test suite expects: MPI_CHAR is a C integer, and the logical ops apply to
 * floating point too.
 */
enum class Group : uint8_t {
  kNone,
  kCInteger,
  kFortranInteger,
  kMultiLanguage,
  kFloat,
  kLogical,
  kComplex,
  kByte,
  kPair,
};

Group GroupOf(MPI_Datatype unit) {
  switch (unit) {
    case MPI_INT:
    case MPI_LONG:
    case MPI_SHORT:
    case MPI_UNSIGNED_SHORT:
    case MPI_UNSIGNED:
    case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_INT8_T:
    case MPI_INT16_T:
    case MPI_INT32_T:
    case MPI_INT64_T:
    case MPI_UINT8_T:
    case MPI_UINT16_T:
    case MPI_UINT32_T:
    case MPI_UINT64_T:
      return Group::kCInteger;
    case MPI_INTEGER:
    case MPI_INTEGER1:
    case MPI_INTEGER2:
    case MPI_INTEGER4:
    case MPI_INTEGER8:
      return Group::kFortranInteger;
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
      return Group::kMultiLanguage;
    case MPI_FLOAT:
    case MPI_DOUBLE:
    case MPI_LONG_DOUBLE:
    case MPI_REAL:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL4:
    case MPI_REAL8:
    case MPI_REAL16:
      return Group::kFloat;
    case MPI_LOGICAL:
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
      return Group::kLogical;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
    case MPI_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX8:
    case MPI_COMPLEX16:
    case MPI_COMPLEX32:
      return Group::kComplex;
    case MPI_BYTE:
      return Group::kByte;
    case MPI_FLOAT_INT:
    case MPI_DOUBLE_INT:
    case MPI_LONG_INT:
    case MPI_2INT:
    case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT:
    case MPI_2REAL:
    case MPI_2DOUBLE_PRECISION:
    case MPI_2INTEGER:
      return Group::kPair;
    default:
      return Group::kNone;  // characters (MPI_WCHAR, MPI_CHARACTER), MPI_PACKED
  }
}

bool Allowed(MPI_Op op, Group g) {
  switch (op) {
    case MPI_MAX:
    case MPI_MIN:
      return g == Group::kCInteger || g == Group::kFortranInteger || g == Group::kMultiLanguage ||
             g == Group::kFloat;
    case MPI_SUM:
    case MPI_PROD:
      return g == Group::kCInteger || g == Group::kFortranInteger || g == Group::kMultiLanguage ||
             g == Group::kFloat || g == Group::kComplex;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR:
      return g == Group::kCInteger || g == Group::kLogical || g == Group::kFloat;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR:
      return g == Group::kCInteger || g == Group::kFortranInteger || g == Group::kMultiLanguage ||
             g == Group::kByte;
    case MPI_MAXLOC:
    case MPI_MINLOC:
      return g == Group::kPair;
    case MPI_REPLACE:
    case MPI_NO_OP:
      return true;
    default:
      return false;
  }
}

/** Integers, floating point and logicals (as integers): the logical ops give 0 or 1. */
template <typename T>
void Numbers(MPI_Op op, const uint8_t* in, uint8_t* acc, size_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
      for (size_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, acc + i * sizeof(T), sizeof(T));
        std::memcpy(&b, in + i * sizeof(T), sizeof(T));
        const bool x = a != 0, y = b != 0;
        a = static_cast<T>(op == MPI_LAND ? x && y : op == MPI_LOR ? x || y : x != y);
        std::memcpy(acc + i * sizeof(T), &a, sizeof(T));
      }
      return;
    }
  }
  ReduceScalars<T>(static_cast<Op>(op - MPI_SUM), acc, in, n);
}

/** SUM and PROD of complex numbers of T. */
template <typename T>
void Complex(MPI_Op op, const uint8_t* in, uint8_t* acc, size_t n) {
  using Z = std::complex<T>;
  for (size_t i = 0; i < n; ++i) {
    Z a, b;
    std::memcpy(&a, acc + i * sizeof(Z), sizeof(Z));
    std::memcpy(&b, in + i * sizeof(Z), sizeof(Z));
    a = op == MPI_SUM ? a + b : a * b;
    std::memcpy(acc + i * sizeof(Z), &a, sizeof(Z));
  }
}

/** MAXLOC and MINLOC on packed (value V, index I) pairs: the larger (smaller) value wins, and
 *  of equal values the smaller index. */
template <typename V, typename I>
void Pairs(MPI_Op op, const uint8_t* in, uint8_t* acc, size_t n) {
  constexpr size_t kSize = sizeof(V) + sizeof(I);
  for (size_t k = 0; k < n; ++k) {
    uint8_t* a = acc + k * kSize;
    const uint8_t* b = in + k * kSize;
    V av, bv;
    I ai, bi;
    std::memcpy(&av, a, sizeof(V));
    std::memcpy(&ai, a + sizeof(V), sizeof(I));
    std::memcpy(&bv, b, sizeof(V));
    std::memcpy(&bi, b + sizeof(V), sizeof(I));
    const bool b_better = op == MPI_MAXLOC ? av < bv : bv < av;
    const bool tie = !(av < bv) && !(bv < av);
    if (b_better || (tie && bi < ai)) std::memcpy(a, b, kSize);
  }
}

}  // namespace

bool ReducePacked(MPI_Op op, MPI_Datatype unit, const uint8_t* in, uint8_t* acc, size_t n) {
  if (op == MPI_REPLACE || op == MPI_NO_OP || !Allowed(op, GroupOf(unit))) return false;
  switch (unit) {
    case MPI_CHAR:
      Numbers<char>(op, in, acc, n);
      return true;
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
    case MPI_INTEGER1:
      Numbers<int8_t>(op, in, acc, n);
      return true;
    case MPI_UNSIGNED_CHAR:
    case MPI_UINT8_T:
    case MPI_BYTE:
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
      Numbers<uint8_t>(op, in, acc, n);
      return true;
    case MPI_SHORT:
    case MPI_INT16_T:
    case MPI_INTEGER2:
      Numbers<int16_t>(op, in, acc, n);
      return true;
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
      Numbers<uint16_t>(op, in, acc, n);
      return true;
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_INTEGER:
    case MPI_INTEGER4:
    case MPI_LOGICAL:
      Numbers<int32_t>(op, in, acc, n);
      return true;
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
      Numbers<uint32_t>(op, in, acc, n);
      return true;
    case MPI_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_INTEGER8:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
      Numbers<int64_t>(op, in, acc, n);
      return true;
    case MPI_UNSIGNED_LONG:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
      Numbers<uint64_t>(op, in, acc, n);
      return true;
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4:
      Numbers<float>(op, in, acc, n);
      return true;
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8:
      Numbers<double>(op, in, acc, n);
      return true;
    case MPI_LONG_DOUBLE:
    case MPI_REAL16:
      Numbers<long double>(op, in, acc, n);
      return true;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
      Complex<float>(op, in, acc, n);
      return true;
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
      Complex<double>(op, in, acc, n);
      return true;
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
    case MPI_COMPLEX32:
      Complex<long double>(op, in, acc, n);
      return true;
    case MPI_FLOAT_INT:
      Pairs<float, int32_t>(op, in, acc, n);
      return true;
    case MPI_DOUBLE_INT:
      Pairs<double, int32_t>(op, in, acc, n);
      return true;
    case MPI_LONG_INT:
      Pairs<int64_t, int32_t>(op, in, acc, n);
      return true;
    case MPI_2INT:
    case MPI_2INTEGER:
      Pairs<int32_t, int32_t>(op, in, acc, n);
      return true;
    case MPI_SHORT_INT:
      Pairs<int16_t, int32_t>(op, in, acc, n);
      return true;
    case MPI_LONG_DOUBLE_INT:
      Pairs<long double, int32_t>(op, in, acc, n);
      return true;
    case MPI_2REAL:
      Pairs<float, float>(op, in, acc, n);
      return true;
    case MPI_2DOUBLE_PRECISION:
      Pairs<double, double>(op, in, acc, n);
      return true;
    default:
      return false;
  }
}

bool PredefinedOpDefinedOn(MPI_Op op, const TypeInfo& t) {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return true;
  if (op < MPI_SUM || op > MPI_MINLOC) return false;
  // No data: nothing to combine, whatever the op.
  if (t.size == 0) return true;
  return t.unit != MPI_DATATYPE_NULL && Allowed(op, GroupOf(t.unit));
}

int ReduceLocal(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count) {
  const TypeInfo* t = C().types.Usable(type);
  if (t == nullptr) return MPI_ERR_TYPE;
  return ReduceLocal(op, *t, type, in, inout, count);
}

int ReduceLocal(MPI_Op op, const TypeInfo& t, MPI_Datatype type, const void* in, void* inout,
                int count) {
  Client& c = C();
  if (count < 0) return MPI_ERR_COUNT;
  if (op > MPI_NO_OP) {
    if (static_cast<size_t>(op) >= c.ops.size() || !c.ops[op].valid) return MPI_ERR_OP;
    // The program's op: inout = in op inout, on its own buffers (MPI 3.1, 5.9.5).
    if (count == 0) return MPI_SUCCESS;
    int len = count;
    MPI_Datatype dt = type;
    c.ops[op].fn(const_cast<void*>(in), inout, &len, &dt);
    return MPI_SUCCESS;
  }
  if (op < MPI_SUM || !PredefinedOpDefinedOn(op, t)) return MPI_ERR_OP;
  const size_t items = static_cast<size_t>(count), bytes = PackedSize(items, t);
  if (bytes == 0 || op == MPI_NO_OP) return MPI_SUCCESS;
  if (op == MPI_REPLACE) {
    const std::vector<uint8_t> data = Pack(in, items, t);
    Unpack(data.data(), data.size(), inout, items, t);
    return MPI_SUCCESS;
  }
  const size_t units = bytes / c.types.Find(t.unit)->size;
  if (t.contiguous()) {
    // Packed is as laid out: reduce in place.
    ReducePacked(op, t.unit, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(inout), units);
    return MPI_SUCCESS;
  }
  std::vector<uint8_t> acc = Pack(inout, items, t);
  const std::vector<uint8_t> other = Pack(in, items, t);
  ReducePacked(op, t.unit, other.data(), acc.data(), units);
  Unpack(acc.data(), acc.size(), inout, items, t);
  return MPI_SUCCESS;
}

}  // namespace nicsim::mpi::capi

extern "C" int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                                MPI_Op op) {
  const int code = ReduceLocal(op, datatype, inbuf, inoutbuf, count);
  if (code == MPI_SUCCESS) return MPI_SUCCESS;
  const char* what = code == MPI_ERR_TYPE    ? "invalid or uncommitted datatype"
                     : code == MPI_ERR_COUNT ? "negative count"
                                             : "an invalid op, or one not defined on the datatype";
  return C().Error(MPI_COMM_WORLD, code, "MPI_Reduce_local", what);
}
