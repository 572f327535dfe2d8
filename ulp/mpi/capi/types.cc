// SPDX-License-Identifier: Apache-2.0
#include "ulp/mpi/capi/types.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace nicsim::mpi::capi {
namespace {

/** Runs one type may have: beyond it a constructor fails (MPI_ERR_NO_MEM) rather than let the
 *  list of a huge type (a vector of a vector of a billion blocks) exhaust memory. */
constexpr size_t kMaxRuns = size_t{1} << 24;

/** A predefined scalar: one element of `size` bytes, aligned to `align`. */
TypeInfo Scalar(MPI_Datatype self, const char* name, size_t size, size_t align,
                std::optional<Base> base) {
  TypeInfo t;
  t.valid = t.predefined = t.committed = true;
  t.size = size;
  t.extent = static_cast<ptrdiff_t>(size);
  t.true_ub = t.extent;
  t.align = align;
  t.runs = {Run{0, size, 1, 0, self}};
  t.elements = 1;
  t.unit = self;
  t.homogeneous = base.has_value();
  t.base = base.value_or(Base::kByte);
  t.name = name;
  return t;
}

/** A value-index pair for MAXLOC and MINLOC, laid out as the C struct { value; index; } is. */
TypeInfo Pair(MPI_Datatype self, const char* name, const TypeInfo& value, const TypeInfo& index,
              std::optional<Base> base) {
  TypeInfo t;
  t.valid = t.predefined = t.committed = true;
  t.align = std::max(value.align, index.align);
  const size_t aligned = (value.size + index.align - 1) / index.align * index.align;
  const auto at = static_cast<ptrdiff_t>(aligned);
  t.size = value.size + index.size;
  const auto end = at + static_cast<ptrdiff_t>(index.size);
  const auto a = static_cast<ptrdiff_t>(t.align);
  t.extent = (end + a - 1) / a * a;
  t.true_ub = end;
  t.runs = {Run{0, value.size, 1, 0, value.unit}};
  if (at == static_cast<ptrdiff_t>(value.size) && value.unit == index.unit) {
    t.runs[0].length += index.size;
  } else {
    t.runs.push_back(Run{at, index.size, 1, 0, index.unit});
  }
  t.elements = 2;
  t.unit = self;
  t.homogeneous = base.has_value();
  t.base = base.value_or(Base::kByte);
  t.name = name;
  return t;
}

/** MPI_LB or MPI_UB: no data, a bound at 0 that sticks. */
TypeInfo Marker(const char* name, bool upper) {
  TypeInfo t;
  t.valid = t.predefined = t.committed = true;
  t.sticky_lb = !upper;
  t.sticky_ub = upper;
  t.name = name;
  return t;
}

/** Appends a run, joining it to the last one when it continues it (touching, or one more
 *  block at the same stride). */
void AddRun(std::vector<Run>& runs, Run r) {
  if (r.length == 0 || r.count == 0) return;
  if (r.count == 1) r.stride = 0;
  if (r.count > 1 && r.stride == static_cast<ptrdiff_t>(r.length)) {
    r.length *= r.count;
    r.count = 1;
    r.stride = 0;
  }
  if (!runs.empty() && runs.back().elem == r.elem) {
    Run& last = runs.back();
    if (last.count == 1 && r.count == 1 &&
        last.offset + static_cast<ptrdiff_t>(last.length) == r.offset) {
      last.length += r.length;
      return;
    }
    if (r.count == 1 && last.length == r.length) {
      if (last.count == 1) {
        last.stride = r.offset - last.offset;
        last.count = 2;
        return;
      }
      if (r.offset == last.offset + static_cast<ptrdiff_t>(last.count) * last.stride) {
        ++last.count;
        return;
      }
    }
  }
  runs.push_back(r);
}

/**
 * Builds a type map from parts: `n` copies of a type, `step` bytes apart, the first at a
 * displacement. Bounds follow MPI-1: markers (sticky bounds) win over the data's bounds.
 */
class Layout {
 public:
  void Add(const TypeInfo& old, size_t n, ptrdiff_t step, ptrdiff_t at) {
    if (n == 0) return;  // no entries: a zero-length block adds neither data nor bounds
    const ptrdiff_t span = static_cast<ptrdiff_t>(n - 1) * step;
    const ptrdiff_t low = std::min<ptrdiff_t>(0, span), high = std::max<ptrdiff_t>(0, span);
    const bool has_data = old.size > 0;
    if (old.sticky_lb) {
      Lower(marker_lb_, at + old.lb + low);
    } else if (has_data) {
      Lower(data_lb_, at + old.lb + low);
    }
    if (old.sticky_ub) {
      Raise(marker_ub_, at + old.ub() + high);
    } else if (has_data) {
      Raise(data_ub_, at + old.ub() + high);
    }
    t_.align = std::max(t_.align, old.align);
    if (!has_data) return;
    Lower(true_lb_, at + old.true_lb + low);
    Raise(true_ub_, at + old.true_ub + high);
    t_.size += n * old.size;
    t_.elements += n * old.elements;
    if (first_data_) {
      t_.unit = old.unit;
      t_.base = old.base;
      t_.homogeneous = old.homogeneous;
    } else {
      if (t_.unit != old.unit) t_.unit = MPI_DATATYPE_NULL;
      if (!old.homogeneous || old.base != t_.base) t_.homogeneous = false;
    }
    first_data_ = false;
    AddRuns(old.runs, n, step, at);
  }

  /** The type; `pad` rounds the extent up to the alignment inside, as a C struct's is. */
  TypeInfo Finish(bool pad) {
    TypeInfo t = std::move(t_);
    t.valid = !too_big_;
    if (too_big_) t.runs.clear();
    t.sticky_lb = marker_lb_.has_value();
    t.sticky_ub = marker_ub_.has_value();
    std::optional<ptrdiff_t> lb = t.sticky_lb ? marker_lb_ : data_lb_;
    std::optional<ptrdiff_t> ub = t.sticky_ub ? marker_ub_ : data_ub_;
    // A bound with nothing to set it (no data, one marker only) meets the other.
    if (!lb && !ub) lb = ub = 0;
    if (!lb) lb = ub;
    if (!ub) ub = lb;
    t.lb = *lb;
    t.extent = *ub - *lb;
    if (pad && !t.sticky_lb && !t.sticky_ub && t.align > 1 && t.extent > 0) {
      const auto a = static_cast<ptrdiff_t>(t.align);
      t.extent = (t.extent + a - 1) / a * a;
    }
    t.true_lb = true_lb_.value_or(0);
    t.true_ub = true_ub_.value_or(0);
    return t;
  }

 private:
  static void Lower(std::optional<ptrdiff_t>& v, ptrdiff_t x) { v = v ? std::min(*v, x) : x; }
  static void Raise(std::optional<ptrdiff_t>& v, ptrdiff_t x) { v = v ? std::max(*v, x) : x; }

  void AddRuns(const std::vector<Run>& runs, size_t n, ptrdiff_t step, ptrdiff_t at) {
    if (too_big_) return;
    // One run repeated: one strided run (or a longer one), however many copies.
    if (runs.size() == 1) {
      const Run& r = runs[0];
      if (r.count == 1 || n == 1) {
        if (r.count == 1) {
          AddRun(t_.runs, Run{at + r.offset, r.length, n, step, r.elem});
        } else {
          AddRun(t_.runs, Run{at + r.offset, r.length, r.count, r.stride, r.elem});
        }
        return Check();
      }
      if (step == static_cast<ptrdiff_t>(r.count) * r.stride) {
        AddRun(t_.runs, Run{at + r.offset, r.length, r.count * n, r.stride, r.elem});
        return Check();
      }
    }
    if (runs.size() > kMaxRuns / n || t_.runs.size() + runs.size() * n > kMaxRuns) {
      too_big_ = true;
      return;
    }
    for (size_t j = 0; j < n; ++j) {
      const ptrdiff_t base = at + static_cast<ptrdiff_t>(j) * step;
      for (Run r : runs) {
        r.offset += base;
        AddRun(t_.runs, r);
      }
    }
  }

  void Check() {
    if (t_.runs.size() > kMaxRuns) too_big_ = true;
  }

  TypeInfo t_;
  bool first_data_ = true;
  bool too_big_ = false;
  std::optional<ptrdiff_t> marker_lb_, marker_ub_, data_lb_, data_ub_, true_lb_, true_ub_;
};

}  // namespace

TypeTable::TypeTable() {
  std::vector<TypeInfo> t(NICSIM_MPI_PREDEFINED_TYPES);
  auto scalar = [&t](MPI_Datatype h, const char* name, size_t size, std::optional<Base> base,
                     size_t align = 0) {
    t[h] = Scalar(h, name, size, align == 0 ? size : align, base);
  };
  auto pair = [&t](MPI_Datatype h, const char* name, MPI_Datatype value, MPI_Datatype index,
                   std::optional<Base> base) { t[h] = Pair(h, name, t[value], t[index], base); };
  const size_t ld = sizeof(long double), ld_align = alignof(long double);
  scalar(MPI_CHAR, "MPI_CHAR", 1, Base::kInt8);
  scalar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, Base::kInt8);
  scalar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, Base::kByte);
  scalar(MPI_BYTE, "MPI_BYTE", 1, Base::kByte);
  scalar(MPI_SHORT, "MPI_SHORT", 2, Base::kInt16);
  scalar(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, Base::kUint16);
  scalar(MPI_INT, "MPI_INT", 4, Base::kInt32);
  scalar(MPI_UNSIGNED, "MPI_UNSIGNED", 4, Base::kUint32);
  scalar(MPI_LONG, "MPI_LONG", 8, Base::kInt64);
  scalar(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 8, Base::kUint64);
  // MPI_LONG_LONG_INT and MPI_LONG_LONG are one handle: MPICH names it by the shorter name, which
  // a prefix compare of either name accepts.
  scalar(MPI_LONG_LONG_INT, "MPI_LONG_LONG", 8, Base::kInt64);
  scalar(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, Base::kUint64);
  scalar(MPI_FLOAT, "MPI_FLOAT", 4, Base::kFloat);
  scalar(MPI_DOUBLE, "MPI_DOUBLE", 8, Base::kDouble);
  scalar(MPI_INT8_T, "MPI_INT8_T", 1, Base::kInt8);
  scalar(MPI_INT16_T, "MPI_INT16_T", 2, Base::kInt16);
  scalar(MPI_INT32_T, "MPI_INT32_T", 4, Base::kInt32);
  scalar(MPI_INT64_T, "MPI_INT64_T", 8, Base::kInt64);
  scalar(MPI_UINT8_T, "MPI_UINT8_T", 1, Base::kByte);
  scalar(MPI_UINT16_T, "MPI_UINT16_T", 2, Base::kUint16);
  scalar(MPI_UINT32_T, "MPI_UINT32_T", 4, Base::kUint32);
  scalar(MPI_UINT64_T, "MPI_UINT64_T", 8, Base::kUint64);
  scalar(MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), Base::kInt32);
  scalar(MPI_C_BOOL, "MPI_C_BOOL", 1, Base::kByte);
  scalar(MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), Base::kInt64);
  scalar(MPI_PACKED, "MPI_PACKED", 1, Base::kByte);
  scalar(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", ld, Base::kLongDouble, ld_align);
  scalar(MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), Base::kInt64);
  scalar(MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), Base::kInt64);
  // Complex numbers: no base of the simulator's reduces them.
  scalar(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 8, std::nullopt, 4);
  scalar(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, std::nullopt, 8);
  scalar(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 2 * ld, std::nullopt, ld_align);
  t[MPI_UB] = Marker("MPI_UB", true);
  t[MPI_LB] = Marker("MPI_LB", false);
  // Fortran's types, as gfortran lays them out.
  scalar(MPI_CHARACTER, "MPI_CHARACTER", 1, std::nullopt);
  scalar(MPI_LOGICAL, "MPI_LOGICAL", 4, Base::kInt32);
  scalar(MPI_INTEGER, "MPI_INTEGER", 4, Base::kInt32);
  scalar(MPI_REAL, "MPI_REAL", 4, Base::kFloat);
  scalar(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, Base::kDouble);
  scalar(MPI_COMPLEX, "MPI_COMPLEX", 8, std::nullopt, 4);
  scalar(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, std::nullopt, 8);
  scalar(MPI_INTEGER1, "MPI_INTEGER1", 1, Base::kInt8);
  scalar(MPI_INTEGER2, "MPI_INTEGER2", 2, Base::kInt16);
  scalar(MPI_INTEGER4, "MPI_INTEGER4", 4, Base::kInt32);
  scalar(MPI_INTEGER8, "MPI_INTEGER8", 8, Base::kInt64);
  scalar(MPI_REAL4, "MPI_REAL4", 4, Base::kFloat);
  scalar(MPI_REAL8, "MPI_REAL8", 8, Base::kDouble);
  scalar(MPI_REAL16, "MPI_REAL16", ld, std::nullopt, ld_align);
  scalar(MPI_COMPLEX8, "MPI_COMPLEX8", 8, std::nullopt, 4);
  scalar(MPI_COMPLEX16, "MPI_COMPLEX16", 16, std::nullopt, 8);
  scalar(MPI_COMPLEX32, "MPI_COMPLEX32", 2 * ld, std::nullopt, ld_align);
  scalar(MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(bool), Base::kByte);
  scalar(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8, std::nullopt, 4);
  scalar(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16, std::nullopt, 8);
  scalar(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 2 * ld, std::nullopt,
         ld_align);
  // The pairs of MAXLOC and MINLOC (after the scalars they are made of).
  pair(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT, Base::kFloatInt);
  pair(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT, Base::kDoubleInt);
  pair(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT, Base::kLongInt);
  pair(MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT, Base::kIntInt);
  pair(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT, Base::kShortInt);
  pair(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT, Base::kLongDoubleInt);
  pair(MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL, std::nullopt);
  pair(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION,
       std::nullopt);
  pair(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER, Base::kIntInt);
  types_.resize(t.size());
  for (size_t h = 1; h < t.size(); ++h) types_[h] = std::make_shared<TypeInfo>(std::move(t[h]));
}

const TypeInfo* TypeTable::Find(MPI_Datatype t) const {
  if (t <= 0 || static_cast<size_t>(t) >= types_.size() || !types_[t]) return nullptr;
  return types_[t].get();
}

std::shared_ptr<const TypeInfo> TypeTable::Shared(MPI_Datatype t) const {
  return Find(t) != nullptr ? types_[t] : nullptr;
}

const TypeInfo* TypeTable::Usable(MPI_Datatype t) const {
  const TypeInfo* info = Find(t);
  return info != nullptr && info->committed ? info : nullptr;
}

MPI_Datatype TypeTable::Add(TypeInfo info) {
  info.valid = true;
  info.predefined = false;
  auto made = std::make_shared<TypeInfo>(std::move(info));
  if (!free_.empty()) {
    const MPI_Datatype t = free_.back();
    free_.pop_back();
    types_[t] = std::move(made);
    return t;
  }
  types_.push_back(std::move(made));
  return static_cast<MPI_Datatype>(types_.size() - 1);
}

bool TypeTable::Free(MPI_Datatype t) {
  const TypeInfo* info = Find(t);
  if (info == nullptr || info->predefined) return false;
  // Types made from it keep their own reference (their contents).
  types_[t].reset();
  free_.push_back(t);
  return true;
}

bool TypeTable::Commit(MPI_Datatype t) {
  if (Find(t) == nullptr) return false;
  types_[t]->committed = true;
  return true;
}

bool TypeTable::SetName(MPI_Datatype t, const std::string& name) {
  if (Find(t) == nullptr) return false;
  types_[t]->name = name;
  return true;
}

void PackTo(const void* buf, size_t count, const TypeInfo& t, uint8_t* out) {
  const auto* in = static_cast<const uint8_t*>(buf);
  if (t.size == 0 || count == 0) return;
  if (t.contiguous()) {
    std::memcpy(out, in, count * t.size);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* item = in + static_cast<ptrdiff_t>(i) * t.extent;
    for (const Run& r : t.runs) {
      const uint8_t* from = item + r.offset;
      for (size_t k = 0; k < r.count; ++k, from += r.stride) {
        std::memcpy(out, from, r.length);
        out += r.length;
      }
    }
  }
}

std::vector<uint8_t> Pack(const void* buf, size_t count, const TypeInfo& t) {
  std::vector<uint8_t> out(PackedSize(count, t));
  PackTo(buf, count, t, out.data());
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
      uint8_t* to = item + r.offset;
      for (size_t k = 0; k < r.count && bytes > 0; ++k, to += r.stride) {
        const size_t n = std::min(bytes, r.length);
        std::memcpy(to, data, n);
        data += n;
        bytes -= n;
      }
      if (bytes == 0) return;
    }
  }
}

TypeInfo MakeContiguous(size_t count, const TypeInfo& old) {
  Layout l;
  l.Add(old, count, old.extent, 0);
  return l.Finish(false);
}

TypeInfo MakeHvector(size_t count, size_t blocklength, ptrdiff_t stride_bytes,
                     const TypeInfo& old) {
  if (count == 0 || blocklength == 0) return Layout().Finish(false);
  const TypeInfo block = MakeContiguous(blocklength, old);
  if (!block.valid) return block;
  Layout l;
  l.Add(block, count, stride_bytes, 0);
  return l.Finish(false);
}

TypeInfo MakeIndexed(const std::vector<int>& blocklengths,
                     const std::vector<ptrdiff_t>& byte_displs, const TypeInfo& old) {
  Layout l;
  for (size_t i = 0; i < blocklengths.size(); ++i) {
    l.Add(old, static_cast<size_t>(std::max(blocklengths[i], 0)), old.extent, byte_displs[i]);
  }
  return l.Finish(false);
}

TypeInfo MakeStruct(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                    const std::vector<const TypeInfo*>& types) {
  Layout l;
  for (size_t i = 0; i < types.size(); ++i) {
    l.Add(*types[i], static_cast<size_t>(std::max(blocklengths[i], 0)), types[i]->extent,
          byte_displs[i]);
  }
  return l.Finish(true);
}

TypeInfo MakeResized(const TypeInfo& old, ptrdiff_t lb, ptrdiff_t extent) {
  TypeInfo t = old;
  t.predefined = t.committed = false;
  t.name.clear();
  t.contents.reset();
  t.lb = lb;
  t.extent = extent;
  t.sticky_lb = t.sticky_ub = true;
  return t;
}

}  // namespace nicsim::mpi::capi
