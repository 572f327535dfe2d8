// SPDX-License-Identifier: Apache-2.0
// MPI's attribute calls: keyvals, the attributes cached on communicators and datatypes, the
// predefined attributes of communicators, windows and callbacks, and what a communicator's or
// type's duplication and freeing (and a window's freeing) do to its attributes (object_hooks.h).
#include "ulp/mpi/capi/attributes.h"
#include "ulp/mpi/capi/checks.h"
#include "ulp/mpi/capi/comm_names.h"
#include "ulp/mpi/capi/error_codes.h"
#include "ulp/mpi/capi/object_hooks.h"

using namespace nicsim::mpi::capi;  // NOLINT: the C entry points below are global

namespace {

Attributes& A() { return Attributes::Get(); }

const char* KindName(AttrKind kind) {
  return kind == AttrKind::kComm ? "communicator" : kind == AttrKind::kType ? "datatype" : "window";
}

/**
 * The value of a predefined communicator attribute (MPI 3.1, 8.1.2), or nullptr for another
 * key. MPI caches them on MPI_COMM_WORLD; every communicator answers here (as in MPICH), so a
 * library handed a duplicate of the world finds them too.
 */
int* PredefinedCommValue(int keyval) {
  static int tag_ub = nicsim::mpi::kTagUb;
  // No process is the host; every process can do I/O; simulated time is one clock.
  static int host = MPI_PROC_NULL;
  static int io = MPI_ANY_SOURCE;
  static int wtime_is_global = 1;
  static int universe_size = 0;
  static int appnum = 0;
  switch (keyval) {
    case MPI_TAG_UB:
      return &tag_ub;
    case MPI_HOST:
      return &host;
    case MPI_IO:
      return &io;
    case MPI_WTIME_IS_GLOBAL:
      return &wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      // `nicsim mpirun` starts every process there is: no room to spawn more.
      universe_size = C().world_size;
      return &universe_size;
    case MPI_APPNUM:
      return &appnum;
    case MPI_LASTUSEDCODE:
      return LastUsedErrorCode();
    default:
      return nullptr;
  }
}

/**
 * Where a predefined window attribute's value is (MPI 3.1, 11.2.6), or nullptr for another
 * key: MPI_WIN_BASE's value is the base address itself, the others point to the value.
 */
void* PredefinedWinValue(WinInfo& w, int keyval) {
  switch (keyval) {
    case MPI_WIN_BASE:
      return w.base;
    case MPI_WIN_SIZE:
      return &w.size;
    case MPI_WIN_DISP_UNIT:
      return &w.disp_unit;
    case MPI_WIN_CREATE_FLAVOR:
      return &w.flavor;
    case MPI_WIN_MODEL:
      return &w.model;
    default:
      return nullptr;
  }
}

/** The object an attribute call names: a live communicator, datatype or window. */
int CheckObject(AttrKind kind, int object, const char* call) {
  if (kind == AttrKind::kComm) return CheckComm(object, call);
  if (kind == AttrKind::kType && C().types.Find(object) != nullptr) return MPI_SUCCESS;
  if (kind == AttrKind::kType) {
    return C().Error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype");
  }
  if (C().Win(object) != nullptr) return MPI_SUCCESS;
  return C().Error(MPI_COMM_WORLD, MPI_ERR_WIN, call, "invalid window");
}

/** Where errors on `object` go: a communicator's handler, else MPI_COMM_WORLD's. */
MPI_Comm ErrorComm(AttrKind kind, int object) {
  return kind == AttrKind::kComm ? object : MPI_COMM_WORLD;
}

/** A keyval the program made for `kind` (and has not freed out of existence); errors go to
 *  `report_on`'s handler. MPI's own keys are read-only: no program may set, delete or free. */
int CheckUserKeyval(AttrKind kind, int keyval, MPI_Comm report_on, const char* call) {
  if (PredefinedKeyval(keyval)) {
    return C().Error(report_on, MPI_ERR_KEYVAL, call,
                     "keyval " + std::to_string(keyval) + " is predefined");
  }
  if (!A().IsKeyval(kind, keyval)) {
    return C().Error(report_on, MPI_ERR_KEYVAL, call,
                     "keyval " + std::to_string(keyval) + " is no " + KindName(kind) + " keyval");
  }
  return MPI_SUCCESS;
}

int CreateKeyval(AttrKind kind, AttrCopyFn* copy, AttrDeleteFn* del, int* keyval, void* extra_state,
                 const char* call) {
  if (keyval == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "null keyval");
  *keyval = A().CreateKeyval(kind, copy, del, extra_state);
  return MPI_SUCCESS;
}

int FreeKeyval(AttrKind kind, int* keyval, const char* call) {
  if (keyval == nullptr) return C().Error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "null keyval");
  NICSIM_MPI_TRY(CheckUserKeyval(kind, *keyval, MPI_COMM_WORLD, call));
  A().FreeKeyval(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int SetAttr(AttrKind kind, int object, int keyval, void* value, const char* call) {
  NICSIM_MPI_TRY(CheckObject(kind, object, call));
  NICSIM_MPI_TRY(CheckUserKeyval(kind, keyval, ErrorComm(kind, object), call));
  const int result = A().Set(kind, object, keyval, value);
  if (result != MPI_SUCCESS) {
    return C().Error(ErrorComm(kind, object), result, call,
                     "the delete callback of the value replaced failed");
  }
  return MPI_SUCCESS;
}

int GetAttr(AttrKind kind, int object, int keyval, void* attribute_val, int* flag,
            const char* call) {
  NICSIM_MPI_TRY(CheckObject(kind, object, call));
  if (attribute_val == nullptr || flag == nullptr) {
    return C().Error(ErrorComm(kind, object), MPI_ERR_ARG, call, "null value or flag");
  }
  // The value is a pointer, stored where attribute_val points (MPI 3.1, 6.7.2).
  void** out = static_cast<void**>(attribute_val);
  if (kind == AttrKind::kComm) {
    if (int* predefined = PredefinedCommValue(keyval)) {
      *out = predefined;
      *flag = 1;
      return MPI_SUCCESS;
    }
  }
  if (kind == AttrKind::kWin && PredefinedKeyval(keyval) && keyval >= MPI_WIN_BASE) {
    *out = PredefinedWinValue(*C().Win(object), keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  NICSIM_MPI_TRY(CheckUserKeyval(kind, keyval, ErrorComm(kind, object), call));
  *flag = A().Find(kind, object, keyval, out) ? 1 : 0;
  return MPI_SUCCESS;
}

int DeleteAttr(AttrKind kind, int object, int keyval, const char* call) {
  NICSIM_MPI_TRY(CheckObject(kind, object, call));
  NICSIM_MPI_TRY(CheckUserKeyval(kind, keyval, ErrorComm(kind, object), call));
  const int result = A().Delete(kind, object, keyval);
  if (result != MPI_SUCCESS) {
    return C().Error(ErrorComm(kind, object), result, call, "the delete callback failed");
  }
  return MPI_SUCCESS;
}

}  // namespace

namespace nicsim::mpi::capi {

int CopyCommAttributes(MPI_Comm old, MPI_Comm made) {
  return A().CopyAll(AttrKind::kComm, old, made);
}

int DeleteCommAttributes(MPI_Comm comm) {
  const int result = A().DeleteAll(AttrKind::kComm, comm);
  ForgetCommName(comm);
  return result;
}

int CopyTypeAttributes(MPI_Datatype old, MPI_Datatype made) {
  return A().CopyAll(AttrKind::kType, old, made);
}

int DeleteTypeAttributes(MPI_Datatype type) { return A().DeleteAll(AttrKind::kType, type); }

int DeleteWinAttributes(MPI_Win win) { return A().DeleteAll(AttrKind::kWin, win); }

}  // namespace nicsim::mpi::capi

extern "C" {

// The predefined callbacks (MPI 3.1, 6.7.2): copy nothing, copy the value, delete nothing.
int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }

int MPI_WIN_DUP_FN(MPI_Win, int, void*, void* attribute_val_in, void* attribute_val_out,
                   int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                           void* extra_state) {
  return CreateKeyval(AttrKind::kComm, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                      extra_state, "MPI_Comm_create_keyval");
}

int MPI_Comm_free_keyval(int* comm_keyval) {
  return FreeKeyval(AttrKind::kComm, comm_keyval, "MPI_Comm_free_keyval");
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return SetAttr(AttrKind::kComm, comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return GetAttr(AttrKind::kComm, comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return DeleteAttr(AttrKind::kComm, comm, comm_keyval, "MPI_Comm_delete_attr");
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                           void* extra_state) {
  return CreateKeyval(AttrKind::kType, type_copy_attr_fn, type_delete_attr_fn, type_keyval,
                      extra_state, "MPI_Type_create_keyval");
}

int MPI_Type_free_keyval(int* type_keyval) {
  return FreeKeyval(AttrKind::kType, type_keyval, "MPI_Type_free_keyval");
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  return SetAttr(AttrKind::kType, datatype, type_keyval, attribute_val, "MPI_Type_set_attr");
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  return GetAttr(AttrKind::kType, datatype, type_keyval, attribute_val, flag, "MPI_Type_get_attr");
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  return DeleteAttr(AttrKind::kType, datatype, type_keyval, "MPI_Type_delete_attr");
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                          void* extra_state) {
  return CreateKeyval(AttrKind::kWin, win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state,
                      "MPI_Win_create_keyval");
}

int MPI_Win_free_keyval(int* win_keyval) {
  return FreeKeyval(AttrKind::kWin, win_keyval, "MPI_Win_free_keyval");
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  return SetAttr(AttrKind::kWin, win, win_keyval, attribute_val, "MPI_Win_set_attr");
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  return GetAttr(AttrKind::kWin, win, win_keyval, attribute_val, flag, "MPI_Win_get_attr");
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  return DeleteAttr(AttrKind::kWin, win, win_keyval, "MPI_Win_delete_attr");
}

// MPI-1's names of the communicator calls: the same semantics (MPI 3.1, 6.7.2 and 15.2).
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
  return CreateKeyval(AttrKind::kComm, copy_fn, delete_fn, keyval, extra_state,
                      "MPI_Keyval_create");
}

int MPI_Keyval_free(int* keyval) { return FreeKeyval(AttrKind::kComm, keyval, "MPI_Keyval_free"); }

int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return SetAttr(AttrKind::kComm, comm, keyval, attribute_val, "MPI_Attr_put");
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return GetAttr(AttrKind::kComm, comm, keyval, attribute_val, flag, "MPI_Attr_get");
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return DeleteAttr(AttrKind::kComm, comm, keyval, "MPI_Attr_delete");
}

}  // extern "C"
