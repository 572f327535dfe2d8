// SPDX-License-Identifier: Apache-2.0
// The program's datatypes, on its side of the channel: each is a list of byte runs (where its
// data lies relative to the buffer, in type-map order, each run made of one predefined scalar)
// with its bounds, so any layout packs to and unpacks from the contiguous bytes that travel. A
// type made of one predefined type only also knows it, so reductions can run on its packed
// bytes; each derived type remembers how it was made (MPI_Type_get_contents).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/datatype.h"

namespace nicsim::mpi::capi {

/**
 * Bytes of a type map: `count` blocks of `length` bytes, `stride` bytes apart, the first at
 * `offset` from the buffer; every byte belongs to an element of the predefined scalar type
 * `elem` (MPI_INT, MPI_C_DOUBLE_COMPLEX...). Strided blocks keep a vector of a million
 * elements one run.
 */
struct Run {
  ptrdiff_t offset = 0;
  size_t length = 0;
  size_t count = 1;
  ptrdiff_t stride = 0;
  MPI_Datatype elem = MPI_BYTE;
};

struct TypeInfo;

/** How a derived type was made: MPI_Type_get_envelope and MPI_Type_get_contents. */
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> integers;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  /** For each of `types`: the type itself if it was derived (null if predefined), kept alive
   *  after the program frees its handle, since get_contents returns an equivalent one. */
  std::vector<std::shared_ptr<const TypeInfo>> derived;
};

struct TypeInfo {
  bool valid = false;
  bool predefined = false;
  bool committed = false;
  /** Bytes of data in one item. */
  size_t size = 0;
  ptrdiff_t lb = 0;
  /** May be negative (a resized type, or markers in reverse order). */
  ptrdiff_t extent = 0;
  /** A bound set by an MPI_LB / MPI_UB marker or MPI_Type_create_resized: MPI-1's "sticky"
   *  bounds, which every type built from this one keeps instead of its data's bounds. */
  bool sticky_lb = false;
  bool sticky_ub = false;
  /** Where the data lies: its lowest byte and one past its highest (0, 0 with no data). */
  ptrdiff_t true_lb = 0;
  ptrdiff_t true_ub = 0;
  /** The largest alignment of a base type inside (a struct's extent is padded to it). */
  size_t align = 1;
  std::vector<Run> runs;
  /** Basic elements in one item (MPI_Get_elements). */
  size_t elements = 0;
  /** The predefined type that every item is a whole number of (packed, they lie back to back:
   *  what a reduction works on), or MPI_DATATYPE_NULL when there are several or none. */
  MPI_Datatype unit = MPI_DATATYPE_NULL;
  /** Every element is of `base` (what the simulator's reductions work on). */
  bool homogeneous = true;
  Base base = Base::kByte;
  std::string name;
  /** Null for a predefined type (MPI_COMBINER_NAMED). */
  std::shared_ptr<const Contents> contents;

  ptrdiff_t ub() const { return lb + extent; }
  /** One item is one run of bytes at the buffer's start: `count` items are contiguous. */
  bool contiguous() const {
    return runs.size() == 1 && runs[0].count == 1 && runs[0].offset == 0 &&
           static_cast<ptrdiff_t>(size) == extent;
  }
};

class TypeTable {
 public:
  TypeTable();
  /** The type of handle `t` if it may be used in communication (valid and committed). */
  const TypeInfo* Usable(MPI_Datatype t) const;
  /** The type of handle `t` if it exists (committed or not). */
  const TypeInfo* Find(MPI_Datatype t) const;
  /** The type of handle `t`, to keep alive in a type made from it (null if none). */
  std::shared_ptr<const TypeInfo> Shared(MPI_Datatype t) const;
  /** A new derived type's handle: the one freed last, else a new one. */
  MPI_Datatype Add(TypeInfo info);
  /** Frees a derived type; false for a predefined or unknown one. */
  bool Free(MPI_Datatype t);
  bool Commit(MPI_Datatype t);
  bool SetName(MPI_Datatype t, const std::string& name);

 private:
  // Pointers into the table stay valid while types are added (a constructor reads its old
  // types while it adds the new one).
  std::vector<std::shared_ptr<TypeInfo>> types_;
  /** Handles of freed types, the last freed first: a new type takes the handle freed last, as
   *  MPICH and Open MPI do (programs exist that rely on it). */
  std::vector<MPI_Datatype> free_;
};

/** Bytes of `count` items of `t` packed. */
inline size_t PackedSize(size_t count, const TypeInfo& t) { return count * t.size; }
/** `count` items of `t` at `buf`, packed into `out` (PackedSize bytes). */
void PackTo(const void* buf, size_t count, const TypeInfo& t, uint8_t* out);
/** `count` items of `t` at `buf`, packed. */
std::vector<uint8_t> Pack(const void* buf, size_t count, const TypeInfo& t);
/** Places up to `bytes` packed bytes into `count` items of `t` at `buf`. */
void Unpack(const uint8_t* data, size_t bytes, void* buf, size_t count, const TypeInfo& t);

/** Type constructors: `old` repeated at the given element or byte displacements. They return
 *  a type with valid == false when its run list would not fit in memory. */
TypeInfo MakeContiguous(size_t count, const TypeInfo& old);
TypeInfo MakeHvector(size_t count, size_t blocklength, ptrdiff_t stride_bytes, const TypeInfo& old);
TypeInfo MakeIndexed(const std::vector<int>& blocklengths,
                     const std::vector<ptrdiff_t>& byte_displs, const TypeInfo& old);
TypeInfo MakeStruct(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                    const std::vector<const TypeInfo*>& types);
/** `old` with the bounds lb and lb + extent, which the types made from it keep. */
TypeInfo MakeResized(const TypeInfo& old, ptrdiff_t lb, ptrdiff_t extent);

}  // namespace nicsim::mpi::capi
