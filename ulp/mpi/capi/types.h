// SPDX-License-Identifier: Apache-2.0
// The program's datatypes, on its side of the channel: each is a list of byte runs (where its
// data lies relative to the buffer, in type-map order) with its bounds, so any layout packs to
// and unpacks from the contiguous bytes that travel. A type made of one base type only also
// knows that base, so predefined reductions can run on its packed bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"
#include "ulp/mpi/datatype.h"

namespace nicsim::mpi::capi {

struct Run {
  ptrdiff_t offset;
  size_t length;
};

struct TypeInfo {
  bool valid = false;
  bool predefined = false;
  bool committed = false;
  /** Bytes of data in one item. */
  size_t size = 0;
  ptrdiff_t lb = 0;
  ptrdiff_t extent = 0;
  /** The largest alignment of a base type inside (a struct's extent is padded to it). */
  size_t align = 1;
  std::vector<Run> runs;
  /** Every element is of `base` (predefined reductions may use it). */
  bool homogeneous = true;
  Base base = Base::kByte;

  /** One item is one run of bytes at the buffer's start: `count` items are contiguous. */
  bool contiguous() const {
    return runs.size() == 1 && runs[0].offset == 0 && static_cast<ptrdiff_t>(size) == extent;
  }
};

class TypeTable {
 public:
  TypeTable();
  /** The type of handle `t` if it may be used in communication (valid and committed). */
  const TypeInfo* Usable(MPI_Datatype t) const;
  /** The type of handle `t` if it exists (committed or not). */
  const TypeInfo* Find(MPI_Datatype t) const;
  MPI_Datatype Add(TypeInfo info);
  /** Frees a derived type; false for a predefined or unknown one. */
  bool Free(MPI_Datatype t);
  bool Commit(MPI_Datatype t);

 private:
  std::vector<TypeInfo> types_;
};

/** `count` items of `t` at `buf`, packed. */
std::vector<uint8_t> Pack(const void* buf, size_t count, const TypeInfo& t);
/** Places up to `bytes` packed bytes into `count` items of `t` at `buf`. */
void Unpack(const uint8_t* data, size_t bytes, void* buf, size_t count, const TypeInfo& t);

/** Type constructors: `old` repeated at the given element or byte displacements. */
TypeInfo MakeContiguous(size_t count, const TypeInfo& old);
TypeInfo MakeHvector(size_t count, size_t blocklength, ptrdiff_t stride_bytes, const TypeInfo& old);
TypeInfo MakeIndexed(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                     const TypeInfo& old);
TypeInfo MakeStruct(const std::vector<int>& blocklengths, const std::vector<ptrdiff_t>& byte_displs,
                    const std::vector<const TypeInfo*>& types);

}  // namespace nicsim::mpi::capi
