// SPDX-License-Identifier: Apache-2.0
// Keyvals and the attributes cached on communicators, datatypes and windows, with MPI's rules
// for their callbacks: a value replaced or deleted goes through the keyval's delete callback
// (which may refuse), a duplicate gets what the copy callbacks give it, and a keyval the
// program frees lives on while attributes still use it.
#pragma once

#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "ulp/mpi/capi/include/mpi.h"

namespace nicsim::mpi::capi {

enum class AttrKind { kComm, kType, kWin };

/** Every kind's callbacks have one shape, since all handles are ints (mpi.h). */
using AttrCopyFn = MPI_Comm_copy_attr_function;
using AttrDeleteFn = MPI_Comm_delete_attr_function;
static_assert(std::is_same_v<AttrCopyFn, MPI_Type_copy_attr_function> &&
              std::is_same_v<AttrCopyFn, MPI_Win_copy_attr_function> &&
              std::is_same_v<AttrDeleteFn, MPI_Type_delete_attr_function> &&
              std::is_same_v<AttrDeleteFn, MPI_Win_delete_attr_function>);

/** The MPI-defined keys (MPI_TAG_UB ... MPI_WIN_MODEL): no program may set or free them. */
inline bool PredefinedKeyval(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_WIN_MODEL; }

class Attributes {
 public:
  /** The process's keyvals and attributes. */
  static Attributes& Get();

  /** A new keyval of `kind` (a null callback does nothing: no copy, deletes succeed). */
  int CreateKeyval(AttrKind kind, AttrCopyFn* copy, AttrDeleteFn* del, void* extra_state);
  /** A keyval of `kind` that lives (the program's, possibly freed but still in use). */
  bool IsKeyval(AttrKind kind, int keyval) const;
  /**
   * The program frees its handle to `keyval` (one IsKeyval accepts): the keyval goes when no
   * attribute uses it. Freeing one already freed but still alive does nothing more (a delete
   * callback may free the keyval of the attribute it deletes, once per object).
   */
  void FreeKeyval(int keyval);

  /** Caches `value`; a value it replaces goes through the delete callback first. Returns
   *  MPI_SUCCESS, or the callback's error code, leaving the old value. */
  int Set(AttrKind kind, int object, int keyval, void* value);
  /** The value cached under `keyval`, if any. */
  bool Find(AttrKind kind, int object, int keyval, void** value) const;
  /** Removes the value through the delete callback; its error code leaves the value. */
  int Delete(AttrKind kind, int object, int keyval);
  /** The object goes: every value through its delete callback, last set first. Every value
   *  is dropped; returns the first callback error. */
  int DeleteAll(AttrKind kind, int object);
  /** `made` duplicates `old`: each value through its copy callback, in the order set. On a
   *  callback's error, what was copied is deleted again and that error is returned. */
  int CopyAll(AttrKind kind, int old, int made);

 private:
  struct Keyval {
    AttrKind kind = AttrKind::kComm;
    AttrCopyFn* copy = nullptr;
    AttrDeleteFn* del = nullptr;
    void* extra_state = nullptr;
    bool freed = false;
    /** Attributes that use it: the keyval lives while any does, or until it is freed. */
    int uses = 0;
  };
  struct Attribute {
    int keyval;
    void* value;
  };
  using Object = std::pair<AttrKind, int>;

  Attributes() = default;
  Attribute* FindAttribute(const Object& o, int keyval);
  /** Inserts or overwrites without callbacks. */
  void Store(const Object& o, int keyval, void* value);
  /** Drops the value (no callback) and its use of the keyval. */
  void Erase(const Object& o, int keyval);
  int CallDelete(const Object& o, int keyval, void* value);

  /** Keyval handles are never reused: a stale copy of a freed handle stays invalid. */
  std::map<int, Keyval> keyvals_;
  int next_keyval_ = 16;
  /** Each object's attributes in the order first set. Callbacks may change any of this, so
   *  no reference into it is held across one. */
  std::map<Object, std::vector<Attribute>> cached_;
};

}  // namespace nicsim::mpi::capi
