/* SPDX-License-Identifier: Apache-2.0 */
/* Part of nicsim's mpi.h (include that): the handles, callbacks' types, predefined objects,
 * constants and error classes. */
#ifndef NICSIM_MPI_TYPES_H
#define NICSIM_MPI_TYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef int MPI_Message;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  /* Private: the bytes received. */
  int nicsim_cancelled;
  long long nicsim_bytes;
} MPI_Status;

typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);

/* Callbacks of attributes (copy on MPI_Comm_dup / MPI_Type_dup, delete on free) and of error
 * handlers. */
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                           void* extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void* attribute_val, void* extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void* attribute_val,
                                          void* extra_state);
/* MPI-1 names of the communicator callbacks (MPI_Keyval_create). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
typedef void(MPI_Comm_errhandler_function)(MPI_Comm* comm, int* error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef void(MPI_Win_errhandler_function)(MPI_Win* win, int* error_code, ...);
typedef void(MPI_File_errhandler_function)(MPI_File* file, int* error_code, ...);

/* The predefined attribute callbacks. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int*);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*);
int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void*, void*, int*);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int*);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*);
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void*, void*, int*);
int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void*, void*, void*, int*);
int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void*, void*);
int MPI_WIN_DUP_FN(MPI_Win, int, void*, void*, void*, int*);
#define MPI_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_DUP_FN MPI_COMM_DUP_FN

/* Communicators. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

/* Datatypes. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG_INT ((MPI_Datatype)11)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_INT8_T ((MPI_Datatype)15)
#define MPI_INT16_T ((MPI_Datatype)16)
#define MPI_INT32_T ((MPI_Datatype)17)
#define MPI_INT64_T ((MPI_Datatype)18)
#define MPI_UINT8_T ((MPI_Datatype)19)
#define MPI_UINT16_T ((MPI_Datatype)20)
#define MPI_UINT32_T ((MPI_Datatype)21)
#define MPI_UINT64_T ((MPI_Datatype)22)
#define MPI_WCHAR ((MPI_Datatype)23)
#define MPI_C_BOOL ((MPI_Datatype)24)
#define MPI_AINT ((MPI_Datatype)25)
#define MPI_PACKED ((MPI_Datatype)26)
#define MPI_FLOAT_INT ((MPI_Datatype)27)
#define MPI_DOUBLE_INT ((MPI_Datatype)28)
#define MPI_LONG_INT ((MPI_Datatype)29)
#define MPI_2INT ((MPI_Datatype)30)
#define MPI_SHORT_INT ((MPI_Datatype)31)
#define MPI_LONG_DOUBLE ((MPI_Datatype)32)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)33)
#define MPI_UNSIGNED_LONG_LONG_INT MPI_UNSIGNED_LONG_LONG
#define MPI_OFFSET ((MPI_Datatype)34)
#define MPI_COUNT ((MPI_Datatype)35)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)36)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)37)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)38)
/* Markers of a type's bounds (MPI-1, removed in MPI-3.0, still used): size 0. */
#define MPI_UB ((MPI_Datatype)39)
#define MPI_LB ((MPI_Datatype)40)
/* Fortran's types, by their C layouts (a C program may name them). */
#define MPI_CHARACTER ((MPI_Datatype)41)
#define MPI_LOGICAL ((MPI_Datatype)42)
#define MPI_INTEGER ((MPI_Datatype)43)
#define MPI_REAL ((MPI_Datatype)44)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)45)
#define MPI_COMPLEX ((MPI_Datatype)46)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)47)
#define MPI_INTEGER1 ((MPI_Datatype)48)
#define MPI_INTEGER2 ((MPI_Datatype)49)
#define MPI_INTEGER4 ((MPI_Datatype)50)
#define MPI_INTEGER8 ((MPI_Datatype)51)
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_REAL4 ((MPI_Datatype)52)
#define MPI_REAL8 ((MPI_Datatype)53)
#define MPI_REAL16 ((MPI_Datatype)54)
#define MPI_COMPLEX8 ((MPI_Datatype)55)
#define MPI_COMPLEX16 ((MPI_Datatype)56)
#define MPI_COMPLEX32 ((MPI_Datatype)57)
#define MPI_2REAL ((MPI_Datatype)58)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)59)
#define MPI_2INTEGER ((MPI_Datatype)60)
#define MPI_CXX_BOOL ((MPI_Datatype)61)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)62)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)63)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)64)
/* One past the last predefined datatype handle. */
#define NICSIM_MPI_PREDEFINED_TYPES 65

/* How a datatype was made (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* Array layouts and distributions (MPI_Type_create_subarray, MPI_Type_create_darray). */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Type classes (MPI_Type_match_size). */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* Reduction operations. */
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_SUM ((MPI_Op)1)
#define MPI_PROD ((MPI_Op)2)
#define MPI_MAX ((MPI_Op)3)
#define MPI_MIN ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_LOR ((MPI_Op)6)
#define MPI_LXOR ((MPI_Op)7)
#define MPI_BAND ((MPI_Op)8)
#define MPI_BOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)-1)

#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_ERRCODES_IGNORE ((int*)0)
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)
#define MPI_UNWEIGHTED ((int*)1)
#define MPI_WEIGHTS_EMPTY ((int*)2)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_BOTTOM ((void*)0)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)

#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 96

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 256
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* Topologies (MPI_Topo_test) and communicator types (MPI_Comm_split_type). */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_COMM_TYPE_SHARED 1

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD; MPI_Win_get_attr). */
#define MPI_TAG_UB 1
#define MPI_WTIME_IS_GLOBAL 2
#define MPI_HOST 3
#define MPI_IO 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12

/* Windows: flavors (MPI_WIN_CREATE_FLAVOR), memory models (MPI_WIN_MODEL), lock types and
   assertions. */
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* Error classes (each error code is its class). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_IN_STATUS 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_ASSERT 22
#define MPI_ERR_BAD_FILE 23
#define MPI_ERR_BASE 24
#define MPI_ERR_CONVERSION 25
#define MPI_ERR_DISP 26
#define MPI_ERR_DUP_DATAREP 27
#define MPI_ERR_FILE_EXISTS 28
#define MPI_ERR_FILE_IN_USE 29
#define MPI_ERR_FILE 30
#define MPI_ERR_INFO_KEY 31
#define MPI_ERR_INFO_NOKEY 32
#define MPI_ERR_INFO_VALUE 33
#define MPI_ERR_INFO 34
#define MPI_ERR_IO 35
#define MPI_ERR_KEYVAL 36
#define MPI_ERR_LOCKTYPE 37
#define MPI_ERR_NAME 38
#define MPI_ERR_NO_MEM 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_CONFLICT 46
#define MPI_ERR_RMA_SYNC 47
#define MPI_ERR_SERVICE 48
#define MPI_ERR_SIZE 49
#define MPI_ERR_SPAWN 50
#define MPI_ERR_UNSUPPORTED_DATAREP 51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_T_ERR_INVALID_HANDLE 58
#define MPI_ERR_LASTCODE 58

#ifdef __cplusplus
}
#endif

#endif /* NICSIM_MPI_TYPES_H */
