/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the MPICH test suite's configure would find for nicsim-mpicc, forced into every file of
 * the suite (-include) ahead of the suite's own mpitestconf.h, which this one's guard then
 * skips: a C compiler with long double and long long, the usual POSIX headers, no Fortran,
 * no spawn, no MPI-IO; one-sided windows (MPI_Win_create).
 */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED

/* Some programs expect stdio.h from mpi.h, as SMPI's provides it. */
#include <stdio.h>

#define HAVE_GETRUSAGE 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_MEMORY_H 1
/* mpi.h names MPI_INTEGER16 (as MPI_DATATYPE_NULL: not available). */
#define HAVE_MPI_INTEGER16 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE__BOOL 1
#define STDC_HEADERS 1
#define POINTERINT_t int

/* Two SimGrid macros a few programs of this copy use. */
#define _XBT_CONCAT3(a, b, c) a##b##c
#define XBT_ATTRIB_UNUSED __attribute__((unused))

#endif /* MPITESTCONF_H_INCLUDED */
