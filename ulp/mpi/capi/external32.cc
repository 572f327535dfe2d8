// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/external32.h"

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <vector>

#include "ulp/mpi/capi/client.h"

namespace nicsim::mpi::capi {
namespace {

/** How the numbers of a basic element (two for a complex) convert: each is `native` bytes
 *  here and `external` bytes in external32. */
struct Format {
  enum Kind : uint8_t { kPlain, kSigned, kUnsigned, kLongDouble };
  Kind kind = kPlain;
  size_t native = 1;
  size_t external = 1;
};

Format FormatOf(MPI_Datatype elem) {
  constexpr size_t kLd = sizeof(long double);
  switch (elem) {
    // Narrower in external32 than here: long is 4 bytes (table 13.2 of MPI 3.1, as MPICH and
    // Open MPI have it), wchar_t 2; a value that does not fit does not survive.
    case MPI_LONG:
      return Format{Format::kSigned, sizeof(long), 4};
    case MPI_UNSIGNED_LONG:
      return Format{Format::kUnsigned, sizeof(long), 4};
    case MPI_WCHAR:
      return Format{Format::kUnsigned, sizeof(wchar_t), 2};
    case MPI_LONG_DOUBLE:
    case MPI_REAL16:
      return Format{Format::kLongDouble, kLd, 16};
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
    case MPI_COMPLEX32:
      return Format{Format::kLongDouble, kLd, 16};
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
      return Format{Format::kPlain, 4, 4};
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
      return Format{Format::kPlain, 8, 8};
    default:
      break;
  }
  const size_t n = C().types.Find(elem)->size;
  return Format{Format::kPlain, n, n};
}

constexpr bool kBigEndianHost = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

/** `n` bytes of a number in the host's order to big-endian, or back (the same reversal). */
void Swap(const uint8_t* from, uint8_t* to, size_t n) {
  if (kBigEndianHost) {
    std::memcpy(to, from, n);
  } else {
    for (size_t i = 0; i < n; ++i) to[i] = from[n - 1 - i];
  }
}

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/**
 * A long double to a big-endian IEEE quad. x87's 80-bit format has the quad's sign and
 * exponent (the same bias and range), and a 64-bit significand with an explicit leading bit
 * where the quad's 112-bit fraction has an implicit one: the conversion is exact.
 */
void LongDoubleToQuad(const uint8_t* in, uint8_t* out) {
  if constexpr (LDBL_MANT_DIG == 64 && !kBigEndianHost) {
    const uint64_t significand = Load64(in);
    uint16_t sign_exponent;
    std::memcpy(&sign_exponent, in + 8, 2);
    const uint64_t fraction = significand & ~(uint64_t{1} << 63);
    const uint64_t words[2] = {(uint64_t{sign_exponent} << 48) | (fraction >> 15), fraction << 49};
    for (int w = 0; w < 2; ++w) Swap(reinterpret_cast<const uint8_t*>(&words[w]), out + 8 * w, 8);
  } else {
    // Already a quad (LDBL_MANT_DIG 113), or a format this library does not convert.
    Swap(in, out, std::min<size_t>(sizeof(long double), 16));
  }
}

void QuadToLongDouble(const uint8_t* in, uint8_t* out) {
  if constexpr (LDBL_MANT_DIG == 64 && !kBigEndianHost) {
    uint64_t words[2];
    for (int w = 0; w < 2; ++w) Swap(in + 8 * w, reinterpret_cast<uint8_t*>(&words[w]), 8);
    const auto sign_exponent = static_cast<uint16_t>(words[0] >> 48);
    const uint64_t fraction = ((words[0] & ((uint64_t{1} << 48) - 1)) << 15) | (words[1] >> 49);
    // The explicit leading bit: set but for zeros and subnormals (exponent 0).
    const uint64_t lead = (sign_exponent & 0x7fff) != 0 ? uint64_t{1} << 63 : 0;
    const uint64_t significand = fraction | lead;
    std::memset(out, 0, sizeof(long double));
    std::memcpy(out, &significand, 8);
    std::memcpy(out + 8, &sign_exponent, 2);
  } else {
    Swap(in, out, std::min<size_t>(sizeof(long double), 16));
  }
}

/** One number (part of an element) to external32. */
void Encode(const Format& f, const uint8_t* in, uint8_t* out) {
  switch (f.kind) {
    case Format::kPlain:
      return Swap(in, out, f.native);
    case Format::kLongDouble:
      return LongDoubleToQuad(in, out);
    case Format::kSigned:
    case Format::kUnsigned: {
      // The low-order bytes, big-endian.
      uint8_t big[sizeof(uint64_t)];
      Swap(in, big, f.native);
      std::memcpy(out, big + (f.native - f.external), f.external);
      return;
    }
  }
}

void Decode(const Format& f, const uint8_t* in, uint8_t* out) {
  switch (f.kind) {
    case Format::kPlain:
      return Swap(in, out, f.native);
    case Format::kLongDouble:
      return QuadToLongDouble(in, out);
    case Format::kSigned:
    case Format::kUnsigned: {
      // Extended by the sign, or by zeros (characters are code points, never negative).
      const bool negative = f.kind == Format::kSigned && (in[0] & 0x80) != 0;
      uint8_t big[sizeof(uint64_t)];
      std::memset(big, negative ? 0xff : 0, sizeof(big));
      std::memcpy(big + (f.native - f.external), in, f.external);
      Swap(big, out, f.native);
      return;
    }
  }
}

/** Calls f(format, address of an element, count of them) for each run's elements, in
 *  type-map order, over `count` items at `buf`. */
template <typename F>
void ForEachBlock(uint8_t* buf, size_t count, const TypeInfo& t, F f) {
  std::vector<Format> formats;
  for (const Run& r : t.runs) formats.push_back(FormatOf(r.elem));
  for (size_t i = 0; i < count; ++i) {
    uint8_t* item = buf + static_cast<ptrdiff_t>(i) * t.extent;
    for (size_t k = 0; k < t.runs.size(); ++k) {
      const Run& r = t.runs[k];
      const Format& format = formats[k];
      const size_t numbers = r.length / format.native;
      uint8_t* block = item + r.offset;
      for (size_t b = 0; b < r.count; ++b, block += r.stride) f(format, block, numbers);
    }
  }
}

}  // namespace

size_t External32Size(const TypeInfo& t) {
  size_t n = 0;
  for (const Run& r : t.runs) {
    const Format f = FormatOf(r.elem);
    n += r.count * (r.length / f.native) * f.external;
  }
  return n;
}

void PackExternal32(const void* buf, size_t count, const TypeInfo& t, uint8_t* out) {
  ForEachBlock(static_cast<uint8_t*>(const_cast<void*>(buf)), count, t,
               [&out](const Format& f, const uint8_t* at, size_t numbers) {
                 for (size_t j = 0; j < numbers; ++j, at += f.native, out += f.external) {
                   Encode(f, at, out);
                 }
               });
}

void UnpackExternal32(const uint8_t* in, void* buf, size_t count, const TypeInfo& t) {
  ForEachBlock(static_cast<uint8_t*>(buf), count, t,
               [&in](const Format& f, uint8_t* at, size_t numbers) {
                 for (size_t j = 0; j < numbers; ++j, at += f.native, in += f.external) {
                   Decode(f, in, at);
                 }
               });
}

}  // namespace nicsim::mpi::capi
