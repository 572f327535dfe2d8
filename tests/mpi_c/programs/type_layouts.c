/* type_layouts.c - the datatype constructors and queries beyond datatypes.c.
 * Tests: sizes and bounds of the predefined types C and Fortran (long double, complex, the
 * MAXLOC pairs, MPI_OFFSET, MPI_COUNT, INTEGERn, REALn...); MPI_Type_create_hindexed,
 * _indexed_block, _hindexed_block, _resized (and how resized bounds stick in a struct),
 * _subarray (C and Fortran order), _darray (block, cyclic, cyclic(2) with a short last block,
 * none; default and given dargs) sent around a ring and received as ints; MPI_Type_dup;
 * true extents; the _x queries; MPI_Type_get_envelope / _get_contents of every combiner;
 * type names; MPI_Type_match_size; the MPI-1 forms (MPI_LB / MPI_UB markers, MPI_Type_struct,
 * _hvector, _hindexed, _extent, _lb, _ub, MPI_Address) where mpi.h has them, else the MPI-2
 * equivalents, which print the same.
 * Intended NP: 4 (the darrays use a 2 x 2 grid; any NP >= 2 for the rest).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
/* Open MPI 4 leaves MPI-1's removed calls and markers out of mpi.h unless built for them. */
#if defined(OPEN_MPI) && !OMPI_ENABLE_MPI1_COMPAT
#define HAVE_MPI1 0
#else
#define HAVE_MPI1 1
#endif
static int rank, size, next, prev, fails = 0;
/* Each part's lines come from one rank (all of them check): Open MPI's mpirun splits a rank's
 * output in 4096-byte pieces, which may end inside a line, so each rank prints less. */
static int printer;
#define SAY(...)                              \
  do {                                        \
    if (rank == printer) printf(__VA_ARGS__); \
  } while (0)

static void report(const char* what, int ok) {
  if (!ok || rank == printer) printf("rank %d %s %s\n", rank, ok ? "OK" : "FAIL", what);
  if (!ok) fails++;
}

/* Size, lb, extent, true lb and true extent of `t`, printed and checked. */
static void bounds(const char* name, MPI_Datatype t, int xs, long xlb, long xext, long xtlb,
                   long xtext) {
  int s;
  MPI_Aint lb, ext, tlb, text;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  SAY("rank %d %s size %d lb %ld extent %ld true %ld %ld\n", rank, name, s, (long)lb, (long)ext,
      (long)tlb, (long)text);
  report(name, s == xs && lb == xlb && ext == xext && tlb == xtlb && text == xtext);
}

static void predefined(void) {
  struct {
    MPI_Datatype t;
    const char* name;
    int size;
    long extent;
  } p[] = {
      {MPI_LONG_DOUBLE, "long_double", 16, 16},
      {MPI_LONG_DOUBLE_INT, "long_double_int", 20, 32},
      {MPI_SHORT_INT, "short_int", 6, 8},
      {MPI_DOUBLE_INT, "double_int", 12, 16},
      {MPI_OFFSET, "offset", 8, 8},
      {MPI_COUNT, "count", 8, 8},
      {MPI_C_FLOAT_COMPLEX, "c_float_complex", 8, 8},
      {MPI_C_DOUBLE_COMPLEX, "c_double_complex", 16, 16},
      {MPI_C_LONG_DOUBLE_COMPLEX, "c_long_double_complex", 32, 32},
      {MPI_CXX_BOOL, "cxx_bool", 1, 1},
      {MPI_CXX_DOUBLE_COMPLEX, "cxx_double_complex", 16, 16},
      {MPI_CHARACTER, "character", 1, 1},
      {MPI_LOGICAL, "logical", 4, 4},
      {MPI_INTEGER, "integer", 4, 4},
      {MPI_REAL, "real", 4, 4},
      {MPI_DOUBLE_PRECISION, "double_precision", 8, 8},
      {MPI_COMPLEX, "complex", 8, 8},
      {MPI_DOUBLE_COMPLEX, "double_complex", 16, 16},
      {MPI_INTEGER1, "integer1", 1, 1},
      {MPI_INTEGER2, "integer2", 2, 2},
      {MPI_INTEGER8, "integer8", 8, 8},
      {MPI_REAL8, "real8", 8, 8},
      {MPI_COMPLEX16, "complex16", 16, 16},
      {MPI_2REAL, "2real", 8, 8},
      {MPI_2DOUBLE_PRECISION, "2double_precision", 16, 16},
      {MPI_2INTEGER, "2integer", 8, 8},
  };
  int ok = 1;
  for (unsigned i = 0; i < sizeof p / sizeof p[0]; i++) {
    int s;
    MPI_Aint lb, ext;
    MPI_Type_size(p[i].t, &s);
    MPI_Type_get_extent(p[i].t, &lb, &ext);
    SAY("rank %d predefined %s size %d lb %ld extent %ld\n", rank, p[i].name, s, (long)lb,
        (long)ext);
    ok = ok && s == p[i].size && lb == 0 && ext == p[i].extent;
  }
  report("predefined sizes", ok);
  bounds("long_double_int true", MPI_LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
}

/* Sends one `t` from `buf` to the next rank, receives `n` ints from the previous one and
 * prints them. */
static void ring(const char* name, MPI_Datatype t, const void* buf, int n, const int* expect) {
  int got[64];
  MPI_Status st;
  int cnt, ok = 1;
  MPI_Sendrecv(buf, 1, t, next, 1, got, 64, MPI_INT, prev, 1, W, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  char line[512];
  int at = snprintf(line, sizeof line, "rank %d %s got %d:", rank, name, cnt);
  for (int i = 0; i < cnt; i++) at += snprintf(line + at, sizeof line - at, " %d", got[i]);
  SAY("%s\n", line); /* one write: Open MPI tags each write of a rank's output */
  ok = cnt == n;
  for (int i = 0; ok && i < n; i++) ok = got[i] == expect[i] + 1000 * prev;
  report(name, ok);
}

static void constructors(void) {
  int v[48];
  for (int i = 0; i < 48; i++) v[i] = 1000 * rank + i;
  MPI_Datatype t, c;

  int hbl[2] = {2, 1};
  MPI_Aint hdp[2] = {0, 24};
  MPI_Type_create_hindexed(2, hbl, hdp, MPI_INT, &t);
  MPI_Type_commit(&t);
  bounds("hindexed", t, 12, 0, 28, 0, 28);
  ring("hindexed", t, v, 3, (int[]){0, 1, 6});
  MPI_Type_free(&t);

  int ibd[3] = {0, 3, 7};
  MPI_Type_create_indexed_block(3, 2, ibd, MPI_INT, &t);
  MPI_Type_commit(&t);
  bounds("indexed_block", t, 24, 0, 36, 0, 36);
  ring("indexed_block", t, v, 6, (int[]){0, 1, 3, 4, 7, 8});
  MPI_Type_free(&t);

  MPI_Aint hbd[3] = {40, 0, 16};
  MPI_Type_create_hindexed_block(3, 1, hbd, MPI_INT, &t);
  MPI_Type_commit(&t);
  bounds("hindexed_block", t, 12, 0, 44, 0, 44);
  ring("hindexed_block", t, v, 3, (int[]){10, 0, 4});
  MPI_Type_free(&t);

  /* An int with a gap before and after: every third int, starting at the second. */
  MPI_Type_create_resized(MPI_INT, -4, 12, &t);
  MPI_Type_contiguous(3, t, &c);
  MPI_Type_commit(&c);
  bounds("resized", t, 4, -4, 12, 0, 4);
  bounds("contiguous(3, resized)", c, 12, -4, 36, 0, 28);
  ring("contiguous(3, resized)", c, v + 1, 3, (int[]){1, 4, 7});
  MPI_Type_free(&c);

  /* Resized bounds stick: a struct of one keeps them, whatever else it holds. */
  int sbl[2] = {1, 1};
  MPI_Aint sdp[2] = {0, 20};
  MPI_Datatype sty[2] = {t, MPI_CHAR};
  MPI_Type_create_struct(2, sbl, sdp, sty, &c);
  bounds("struct{resized, char}", c, 5, -4, 12, 0, 21);
  MPI_Type_free(&c);
  MPI_Type_free(&t);

  MPI_Type_create_resized(MPI_DOUBLE, 0, 24, &t);
  MPI_Type_dup(t, &c);
  bounds("dup(resized double)", c, 8, 0, 24, 0, 8);
  MPI_Type_free(&c);
  MPI_Type_free(&t);

  MPI_Count sx, lbx, extx, tlbx, textx;
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
  MPI_Type_size_x(t, &sx);
  MPI_Type_get_extent_x(t, &lbx, &extx);
  MPI_Type_get_true_extent_x(t, &tlbx, &textx);
  SAY("rank %d vector _x size %lld lb %lld extent %lld true %lld %lld\n", rank, sx, lbx, extx, tlbx,
      textx);
  report("_x queries", sx == 48 && lbx == 0 && extx == 80 && tlbx == 0 && textx == 80);
  MPI_Type_free(&t);
}

static void arrays(void) {
  int a[4][5];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) a[i][j] = 1000 * rank + 10 * i + j;
  MPI_Datatype t;
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 1};
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  bounds("subarray C", t, 24, 0, 80, 24, 32);
  ring("subarray C", t, a, 6, (int[]){11, 12, 13, 21, 22, 23});
  MPI_Type_free(&t);
  /* The same numbers in Fortran order: a 4 x 5 array whose first index varies fastest. */
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
  MPI_Type_commit(&t);
  bounds("subarray Fortran", t, 24, 0, 80, 20, 40);
  ring("subarray Fortran", t, a, 6, (int[]){10, 11, 14, 20, 23, 24});
  MPI_Type_free(&t);

  if (size != 4) return;
  /* A 4 x 6 array on a 2 x 2 grid: rank r is at (r / 2, r % 2). */
  int g[24];
  for (int i = 0; i < 24; i++) g[i] = 1000 * rank + i;
  int gs[2] = {4, 6}, ps[2] = {2, 2};
  int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Type_create_darray(4, rank, 2, gs, dist, dflt, ps, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Aint lb, ext;
  int s;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &lb, &ext);
  SAY("rank %d darray block,cyclic size %d lb %ld extent %ld\n", rank, s, (long)lb, (long)ext);
  report("darray bounds", s == 24 && lb == 0 && ext == 96);
  /* The previous rank's piece: rows 2(p/2)..+1, columns p%2, +2, +4. */
  int pr = prev / 2, pc = prev % 2, e[6], k = 0;
  for (int i = 2 * pr; i < 2 * pr + 2; i++)
    for (int j = pc; j < 6; j += 2) e[k++] = 6 * i + j;
  ring("darray block,cyclic C", t, g, 6, e);
  MPI_Type_free(&t);

  /* cyclic(2) over 7 columns: blocks {0,1} {4,5} to column 0, {2,3} {6} to column 1; the
   * rows not distributed (a 1 x 4 grid would be needed for NONE over 4 ranks: use 2 x 2 with
   * a given block size instead). Fortran order: the first index is the fastest. */
  int gs2[2] = {7, 2}, dist2[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  int darg2[2] = {2, 1};
  MPI_Type_create_darray(4, rank, 2, gs2, dist2, darg2, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &lb, &ext);
  SAY("rank %d darray cyclic(2),block(1) size %d extent %ld\n", rank, s, (long)ext);
  k = 0;
  for (int j = pc; j < 2 && j < pc + 1; j++)
    for (int i = 0; i < 7; i++)
      if ((i / 2) % 2 == pr) e[k++] = 7 * j + i;
  ring("darray cyclic(2),block(1) Fortran", t, g, k, e);
  MPI_Type_free(&t);

  int gs3[2] = {3, 4}, ps3[2] = {1, 4};
  int dist3[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
  MPI_Type_create_darray(4, rank, 2, gs3, dist3, dflt, ps3, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  ring("darray none,block C", t, g, 3, (int[]){prev, 4 + prev, 8 + prev});
  MPI_Type_free(&t);
}

static const char* combiner(int c) {
  return c == MPI_COMBINER_NAMED            ? "named"
         : c == MPI_COMBINER_DUP            ? "dup"
         : c == MPI_COMBINER_CONTIGUOUS     ? "contiguous"
         : c == MPI_COMBINER_VECTOR         ? "vector"
         : c == MPI_COMBINER_HVECTOR        ? "hvector"
         : c == MPI_COMBINER_INDEXED        ? "indexed"
         : c == MPI_COMBINER_HINDEXED       ? "hindexed"
         : c == MPI_COMBINER_INDEXED_BLOCK  ? "indexed_block"
         : c == MPI_COMBINER_HINDEXED_BLOCK ? "hindexed_block"
         : c == MPI_COMBINER_STRUCT         ? "struct"
         : c == MPI_COMBINER_SUBARRAY       ? "subarray"
         : c == MPI_COMBINER_DARRAY         ? "darray"
         : c == MPI_COMBINER_RESIZED        ? "resized"
                                            : "other";
}

/* An integer argument of a subarray or darray as a name: the constants differ between MPI
 * libraries. */
static const char* constant(int comb, int i, int ndims, int v) {
  static char num[16];
  const int order_at = comb == MPI_COMBINER_SUBARRAY ? 3 * ndims + 1 : 4 * ndims + 3;
  if (i == order_at) return v == MPI_ORDER_C ? "C" : v == MPI_ORDER_FORTRAN ? "F" : "?";
  if (comb == MPI_COMBINER_DARRAY && i >= 3 + ndims && i < 3 + 2 * ndims)
    return v == MPI_DISTRIBUTE_BLOCK    ? "block"
           : v == MPI_DISTRIBUTE_CYCLIC ? "cyclic"
           : v == MPI_DISTRIBUTE_NONE   ? "none"
                                        : "?";
  if (comb == MPI_COMBINER_DARRAY && v == MPI_DISTRIBUTE_DFLT_DARG) return "dflt";
  snprintf(num, sizeof num, "%d", v);
  return num;
}

/* Prints how `t` was made; a derived type inside is described one level down, then freed. */
static void describe(const char* name, MPI_Datatype t, int depth) {
  int ni, na, nd, comb, ints[32];
  MPI_Aint addrs[16];
  MPI_Datatype types[8];
  char line[512];
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  int at = snprintf(line, sizeof line, "rank %d %*s%s: %s ints %d addresses %d types %d", rank,
                    2 * depth, "", name, combiner(comb), ni, na, nd);
  if (comb == MPI_COMBINER_NAMED) {
    SAY("%s\n", line);
    return;
  }
  /* Arrays of exactly the envelope's sizes (Open MPI 4.1 writes past larger ones). */
  MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
  const int ndims = comb == MPI_COMBINER_SUBARRAY ? ints[0] : ints[2];
  at += snprintf(line + at, sizeof line - at, " [");
  for (int i = 0; i < ni; i++) {
    const int named = comb == MPI_COMBINER_SUBARRAY || comb == MPI_COMBINER_DARRAY;
    at += snprintf(line + at, sizeof line - at, " %s",
                   named ? constant(comb, i, ndims, ints[i]) : constant(0, i, -1, ints[i]));
  }
  at += snprintf(line + at, sizeof line - at, " ] [");
  for (int i = 0; i < na; i++) at += snprintf(line + at, sizeof line - at, " %ld", (long)addrs[i]);
  SAY("%s ]\n", line);
  for (int i = 0; i < nd; i++) {
    int ni2, na2, nd2, comb2;
    MPI_Type_get_envelope(types[i], &ni2, &na2, &nd2, &comb2);
    if (comb2 == MPI_COMBINER_NAMED) {
      const char* named = types[i] == MPI_INT      ? "MPI_INT"
                          : types[i] == MPI_DOUBLE ? "MPI_DOUBLE"
                                                   : "other";
      SAY("rank %d %*s  type %d is %s\n", rank, 2 * depth, "", i, named);
    } else {
      describe("inner", types[i], depth + 1);
      MPI_Type_free(&types[i]);
    }
  }
}

static void contents(void) {
  MPI_Datatype v, t;
  MPI_Type_vector(2, 3, 4, MPI_INT, &v);
  describe("MPI_INT", MPI_INT, 0);
  describe("vector", v, 0);
  MPI_Type_create_hvector(2, 1, 40, v, &t);
  describe("hvector of vector", t, 0);
  MPI_Type_free(&t);
  MPI_Type_dup(v, &t);
  describe("dup of vector", t, 0);
  MPI_Type_free(&t);
  MPI_Type_contiguous(5, MPI_DOUBLE, &t);
  describe("contiguous", t, 0);
  MPI_Type_free(&t);
  int bl[2] = {1, 2}, dp[2] = {3, 0};
  MPI_Aint adp[2] = {8, 0};
  MPI_Datatype ty[2] = {MPI_DOUBLE, v};
  MPI_Type_indexed(2, bl, dp, MPI_INT, &t);
  describe("indexed", t, 0);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed(2, bl, adp, MPI_INT, &t);
  describe("hindexed", t, 0);
  MPI_Type_free(&t);
  MPI_Type_create_indexed_block(2, 3, dp, MPI_INT, &t);
  describe("indexed_block", t, 0);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed_block(2, 3, adp, MPI_DOUBLE, &t);
  describe("hindexed_block", t, 0);
  MPI_Type_free(&t);
  MPI_Type_create_struct(2, bl, adp, ty, &t);
  /* The vector's handle is freed; the struct's contents still give an equivalent one. */
  MPI_Type_free(&v);
  describe("struct", t, 0);
  MPI_Type_free(&t);
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
  describe("subarray", t, 0);
  MPI_Type_free(&t);
  int gs[1] = {10}, dist[1] = {MPI_DISTRIBUTE_CYCLIC}, darg[1] = {2}, ps[1] = {3};
  MPI_Type_create_darray(3, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
  describe("darray", t, 0);
  MPI_Type_free(&t);
  MPI_Type_create_resized(MPI_INT, 4, 16, &t);
  describe("resized", t, 0);
  MPI_Type_free(&t);
  report("envelopes and contents", 1);
}

static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len, ok = 1;
  MPI_Datatype pre[] = {MPI_INT,     MPI_DOUBLE,           MPI_LONG_DOUBLE,
                        MPI_2INT,    MPI_C_DOUBLE_COMPLEX, MPI_UNSIGNED_LONG_LONG,
                        MPI_INT64_T, MPI_DOUBLE_PRECISION};
  const char* expect[] = {"MPI_INT",     "MPI_DOUBLE",           "MPI_LONG_DOUBLE",
                          "MPI_2INT",    "MPI_C_DOUBLE_COMPLEX", "MPI_UNSIGNED_LONG_LONG",
                          "MPI_INT64_T", "MPI_DOUBLE_PRECISION"};
  for (unsigned i = 0; i < sizeof pre / sizeof pre[0]; i++) {
    MPI_Type_get_name(pre[i], name, &len);
    SAY("rank %d name %s length %d\n", rank, name, len);
    ok = ok && strcmp(name, expect[i]) == 0 && len == (int)strlen(expect[i]);
  }
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_get_name(t, name, &len);
  SAY("rank %d derived name \"%s\" length %d\n", rank, name, len);
  ok = ok && len == 0 && name[0] == 0;
  MPI_Type_set_name(t, "int pair");
  MPI_Type_get_name(t, name, &len);
  SAY("rank %d set name \"%s\" length %d\n", rank, name, len);
  ok = ok && strcmp(name, "int pair") == 0 && len == 8;
  MPI_Type_free(&t);
  report("type names", ok);

  MPI_Datatype m;
  int s;
  struct {
    int cls, bytes;
  } q[] = {{MPI_TYPECLASS_REAL, 4},
           {MPI_TYPECLASS_REAL, 8},
           {MPI_TYPECLASS_INTEGER, 4},
           {MPI_TYPECLASS_INTEGER, 8},
           {MPI_TYPECLASS_COMPLEX, 16}};
  ok = 1;
  for (unsigned i = 0; i < sizeof q / sizeof q[0]; i++) {
    MPI_Type_match_size(q[i].cls, q[i].bytes, &m);
    MPI_Type_size(m, &s);
    SAY("rank %d match_size %d %d -> size %d\n", rank,
        q[i].cls == MPI_TYPECLASS_REAL      ? 1
        : q[i].cls == MPI_TYPECLASS_INTEGER ? 2
                                            : 3,
        q[i].bytes, s);
    ok = ok && s == q[i].bytes;
  }
  report("match_size", ok);
}

/* MPI-1's markers and calls, which Open MPI 4 leaves out of mpi.h unless built for them: there
 * the MPI-2 calls make the same types. */
static void mpi1(void) {
  MPI_Datatype t, c;
  int bl[3] = {1, 4, 1};
  MPI_Aint dp[3] = {-3, 0, 6};
#if HAVE_MPI1
  MPI_Datatype ty[3] = {MPI_LB, MPI_BYTE, MPI_UB};
  MPI_Type_struct(3, bl, dp, ty, &t);
#else
  MPI_Datatype b;
  MPI_Type_contiguous(bl[1], MPI_BYTE, &b);
  MPI_Type_create_resized(b, dp[0], dp[2] - dp[0], &t);
  MPI_Type_free(&b);
#endif
  bounds("{(LB,-3),4*(BYTE,0),(UB,6)}", t, 4, -3, 9, 0, 4);
  MPI_Type_contiguous(3, t, &c);
  bounds("contiguous(3) of it", c, 12, -3, 27, 0, 22);
  MPI_Type_free(&c);
  MPI_Type_vector(3, 4, -5, t, &c);
  bounds("vector(3,4,-5) of it", c, 48, -93, 126, -90, 121);
  MPI_Type_free(&c);
  MPI_Aint ext, lb, ub, a0, a1;
  int x[2];
#if HAVE_MPI1
  MPI_Type_extent(t, &ext);
  MPI_Type_lb(t, &lb);
  MPI_Type_ub(t, &ub);
  MPI_Address(&x[0], &a0);
  MPI_Address(&x[1], &a1);
  MPI_Type_hvector(2, 1, 16, MPI_INT, &c);
#else
  MPI_Type_get_extent(t, &lb, &ext);
  ub = lb + ext;
  MPI_Get_address(&x[0], &a0);
  MPI_Get_address(&x[1], &a1);
  MPI_Type_create_hvector(2, 1, 16, MPI_INT, &c);
#endif
  SAY("rank %d MPI-1 extent %ld lb %ld ub %ld address step %ld\n", rank, (long)ext, (long)lb,
      (long)ub, (long)(a1 - a0));
  bounds("hvector(2,1,16,int)", c, 8, 0, 20, 0, 20);
  MPI_Type_free(&c);
  int hb[2] = {1, 1};
  MPI_Aint hd[2] = {12, 0};
#if HAVE_MPI1
  MPI_Type_hindexed(2, hb, hd, MPI_INT, &c);
#else
  MPI_Type_create_hindexed(2, hb, hd, MPI_INT, &c);
#endif
  bounds("hindexed({1,1},{12,0},int)", c, 8, 0, 16, 0, 16);
  MPI_Type_free(&c);
  MPI_Type_free(&t);
  report("MPI-1 forms", ext == 9 && lb == -3 && ub == 6 && a1 - a0 == 4);
}

int main(int argc, char** argv) {
  /* Whole lines: mpirun tags each write, and a full buffer may end inside a line. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  void (*parts[])(void) = {predefined, constructors, arrays, contents, names, mpi1};
  for (int i = 0; i < 6; i++) {
    printer = i % size;
    parts[i]();
  }
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
