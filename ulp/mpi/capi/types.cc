// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/types.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace nicsim::mpi::capi {
namespace {

/** A predefined type: its base, size, extent and where its bytes lie. */
TypeInfo Predefined(Base base, size_t size, ptrdiff_t extent, size_t align,
                    std::vector<Run> runs) {
  TypeInfo t;
  t.valid = t.predefined = t.committed = true;
  t.size = size;
  t.extent = extent;
  t.align = align;
  t.runs = std::move(runs);
  t.base = base;
  return t;
}

TypeInfo Scalar(Base base) {
  const size_t n = BaseSize(base);
  return Predefined(base, n, static_cast<ptrdiff_t>(n), n, {{0, n}});
}

/** Appends a run, joining it to the last one when they touch. */
void AddRun(std::vector<Run>& runs, ptrdiff_t offset, size_t length) {
  if (length == 0) return;
  if (!runs.empty() && runs.back().offset + static_cast<ptrdiff_t>(runs.back().length) == offset) {
    runs.back().length += length;
    return;
  }
  runs.push_back(Run{offset, length});
}

/**
 * The general constructor: block i is blocklengths[i] items of *types[i], the first at byte
 * displs[i]. `pad` rounds the extent up to the largest alignment inside (as a C struct is).
 */
TypeInfo Compose(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& displs,
                 const std::vector<const TypeInfo*>& types, bool pad) {
  TypeInfo t;
  t.valid = true;
  ptrdiff_t lb = std::numeric_limits<ptrdiff_t>::max();
  ptrdiff_t ub = std::numeric_limits<ptrdiff_t>::min();
  bool any = false, first_base = true;
  for (size_t i = 0; i < types.size(); ++i) {
    const TypeInfo& old = *types[i];
    const auto n = static_cast<size_t>(std::max(blocklengths[i], 0));
    t.align = std::max(t.align, old.align);
    if (n == 0) continue;
    for (size_t j = 0; j < n; ++j) {
      const ptrdiff_t at = displs[i] + static_cast<ptrdiff_t>(j) * old.extent;
      for (const Run& r : old.runs) AddRun(t.runs, at + r.offset, r.length);
    }
    t.size += n * old.size;
    lb = std::min(lb, displs[i] + old.lb);
    ub = std::max(ub, displs[i] + old.lb + static_cast<ptrdiff_t>(n) * old.extent);
    any = true;
    if (old.size == 0) continue;
    if (!old.homogeneous || (!first_base && old.base != t.base)) t.homogeneous = false;
    t.base = old.base;
    first_base = false;
  }
  if (!any) lb = ub = 0;
  t.lb = lb;
  t.extent = ub - lb;
  if (pad && t.align > 1) {
    const auto a = static_cast<ptrdiff_t>(t.align);
    t.extent = (t.extent + a - 1) / a * a;
  }
  return t;
}

}  // namespace

TypeTable::TypeTable() {
  const TypeInfo i8 = Scalar(Base::kInt8), u8 = Scalar(Base::kByte), i16 = Scalar(Base::kInt16),
                 u16 = Scalar(Base::kUint16), i32 = Scalar(Base::kInt32),
                 u32 = Scalar(Base::kUint32), i64 = Scalar(Base::kInt64),
                 u64 = Scalar(Base::kUint64);
  types_ = {
      TypeInfo{},  // MPI_DATATYPE_NULL
      i8, i8, u8, u8, i16, u16, i32, u32, i64, u64, i64, u64,  // MPI_CHAR .. UNSIGNED_LONG_LONG
      Scalar(Base::kFloat), Scalar(Base::kDouble),
      i8, i16, i32, i64, u8, u16, u32, u64,  // MPI_INT8_T .. MPI_UINT64_T
      i32, u8, i64, u8,                      // MPI_WCHAR, MPI_C_BOOL, MPI_AINT, MPI_PACKED
      // The pairs, laid out as the C structs { value; int; } are.
      Predefined(Base::kFloatInt, 8, 8, 4, {{0, 8}}),
      Predefined(Base::kDoubleInt, 12, 16, 8, {{0, 12}}),
      Predefined(Base::kLongInt, 12, 16, 8, {{0, 12}}),
      Predefined(Base::kIntInt, 8, 8, 4, {{0, 8}}),
      Predefined(Base::kShortInt, 6, 8, 4, {{0, 2}, {4, 4}}),
  };
}

const TypeInfo* TypeTable::Find(MPI_Datatype t) const {
  if (t <= 0 || static_cast<size_t>(t) >= types_.size() || !types_[t].valid) return nullptr;
  return &types_[t];
}

const TypeInfo* TypeTable::Usable(MPI_Datatype t) const {
  const TypeInfo* info = Find(t);
  return info != nullptr && info->committed ? info : nullptr;
}

MPI_Datatype TypeTable::Add(TypeInfo info) {
  types_.push_back(std::move(info));
  return static_cast<MPI_Datatype>(types_.size() - 1);
}

bool TypeTable::Free(MPI_Datatype t) {
  const TypeInfo* info = Find(t);
  if (info == nullptr || info->predefined) return false;
  types_[t] = TypeInfo{};
  return true;
}

bool TypeTable::Commit(MPI_Datatype t) {
  if (Find(t) == nullptr) return false;
  types_[t].committed = true;
  return true;
}

std::vector<uint8_t> Pack(const void* buf, size_t count, const TypeInfo& t) {
  std::vector<uint8_t> out(count * t.size);
  if (out.empty()) return out;
  const auto* in = static_cast<const uint8_t*>(buf);
  if (t.contiguous()) {
    std::memcpy(out.data(), in, out.size());
    return out;
  }
  uint8_t* o = out.data();
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* item = in + static_cast<ptrdiff_t>(i) * t.extent;
    for (const Run& r : t.runs) {
      std::memcpy(o, item + r.offset, r.length);
      o += r.length;
    }
  }
  return out;
}

void Unpack(const uint8_t* data, size_t bytes, void* buf, size_t count, const TypeInfo& t) {
  auto* out = static_cast<uint8_t*>(buf);
  bytes = std::min(bytes, count * t.size);
  if (bytes == 0) return;
  if (t.contiguous()) {
    std::memcpy(out, data, bytes);
    return;
  }
  for (size_t i = 0; i < count && bytes > 0; ++i) {
    uint8_t* item = out + static_cast<ptrdiff_t>(i) * t.extent;
    for (const Run& r : t.runs) {
      if (bytes == 0) break;
      const size_t n = std::min(bytes, r.length);
      std::memcpy(item + r.offset, data, n);
      data += n;
      bytes -= n;
    }
  }
}

TypeInfo MakeContiguous(size_t count, const TypeInfo& old) {
  return Compose({static_cast<int>(count)}, {0}, {&old}, false);
}

TypeInfo MakeHvector(size_t count, size_t blocklength, ptrdiff_t stride_bytes,
                     const TypeInfo& old) {
  std::vector<int> lengths(count, static_cast<int>(blocklength));
  std::vector<ptrdiff_t> displs(count);
  for (size_t i = 0; i < count; ++i) displs[i] = static_cast<ptrdiff_t>(i) * stride_bytes;
  return Compose(lengths, displs, std::vector<const TypeInfo*>(count, &old), false);
}

TypeInfo MakeIndexed(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                     const TypeInfo& old) {
  return Compose(blocklengths, byte_displs,
                 std::vector<const TypeInfo*>(blocklengths.size(), &old), false);
}

TypeInfo MakeStruct(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                    const std::vector<const TypeInfo*>& types) {
  return Compose(blocklengths, byte_displs, types, true);
}

}  // namespace nicsim::mpi::capi
