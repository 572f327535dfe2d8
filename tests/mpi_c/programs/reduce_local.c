/* reduce_local.c - MPI_Reduce_local on every kind of predefined type and on derived ones.
 * Tests: SUM PROD MAX MIN on C integers (wrapping unsigned char), floating point (long double
 * too), C and Fortran complex numbers (SUM, PROD); LAND LOR LXOR on int and C _Bool; BAND BOR
 * BXOR on unsigned, MPI_BYTE and int64_t; MAXLOC MINLOC with ties on every C pair type (long
 * double too) and MPI_2INTEGER; Fortran's INTEGER, REAL, LOGICAL; derived types: a vector
 * (gaps untouched), a contiguous of pairs, a resized int; the program's own non-commutative op
 * (on a derived type too); an op not defined on a type fails with MPI_ERR_OP. Each rank then
 * sends a checksum of its results to the next, which compares it with its own.
 * Intended NP: 2 (works for any NP >= 2).
 */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define W MPI_COMM_WORLD
#define N 4
/* Open MPI 4.1 refuses predefined ops on derived types ("not defined for non-intrinsic
 * datatypes"), which MPI allows: there the same reductions run on the base type, piece by
 * piece, and print the same. */
#ifdef OPEN_MPI
#define DERIVED_OPS 0
#else
#define DERIVED_OPS 1
#endif
static int rank, size, fails = 0;
static long checksum = 0;

static void report(const char* what, int ok) {
  printf("rank %d %s %s\n", rank, ok ? "OK" : "FAIL", what);
  if (!ok) fails++;
}

static void ints(const char* what, const int* v, int n, const int* expect) {
  char line[256];
  int at = snprintf(line, sizeof line, "rank %d %s:", rank, what), ok = 1;
  for (int i = 0; i < n; i++) {
    at += snprintf(line + at, sizeof line - at, " %d", v[i]);
    ok = ok && v[i] == expect[i];
    checksum = checksum * 31 + v[i];
  }
  printf("%s\n", line);
  report(what, ok);
}

static void arithmetic(void) {
  int a[N] = {1, -2, 3, 40}, b[N] = {5, 6, -7, 8 + rank};
  MPI_Reduce_local(a, b, N, MPI_INT, MPI_SUM);
  ints("int sum", b, N, (int[]){6, 4, -4, 48 + rank});
  int c[N] = {2, 3, 4, 5};
  MPI_Reduce_local(a, c, N, MPI_INT, MPI_PROD);
  ints("int prod", c, N, (int[]){2, -6, 12, 200});
  int d[N] = {0, 0, 0, 41};
  MPI_Reduce_local(a, d, N, MPI_INT, MPI_MAX);
  ints("int max", d, N, (int[]){1, 0, 3, 41});
  int e[N] = {0, 0, 0, 41};
  MPI_Reduce_local(a, e, N, MPI_INT, MPI_MIN);
  ints("int min", e, N, (int[]){0, -2, 0, 40});

  unsigned char uc[2] = {200, 7}, ucs[2] = {100, 9};
  MPI_Reduce_local(uc, ucs, 2, MPI_UNSIGNED_CHAR, MPI_SUM);
  ints("unsigned char sum (wraps)", (int[]){ucs[0], ucs[1]}, 2, (int[]){44, 16});

  long long ll = 3000000000LL, lls = 4000000000LL + rank;
  MPI_Reduce_local(&ll, &lls, 1, MPI_LONG_LONG, MPI_SUM);
  printf("rank %d long long sum %lld\n", rank, lls);
  report("long long sum", lls == 7000000000LL + rank);

  double x[2] = {1.5, -2.0}, y[2] = {0.25, 4.0};
  MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_PROD);
  float f[2] = {1.5f, -2.0f}, g[2] = {3.0f, -1.0f};
  MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_MIN);
  long double ld[2] = {1.25L, 1e300L}, lds[2] = {2.5L, 1e300L};
  MPI_Reduce_local(ld, lds, 2, MPI_LONG_DOUBLE, MPI_SUM);
  printf("rank %d double prod %.3f %.3f float min %.2f %.2f long double sum %.2Lf %.3Le\n", rank,
         y[0], y[1], g[0], g[1], lds[0], lds[1]);
  report("floating point", y[0] == 0.375 && y[1] == -8.0 && g[0] == 1.5f && g[1] == -2.0f &&
                               lds[0] == 3.75L && lds[1] == 2e300L);

  float complex fc[2] = {1 + 2 * I, 3}, fcs[2] = {2 - I, I};
  MPI_Reduce_local(fc, fcs, 2, MPI_C_FLOAT_COMPLEX, MPI_PROD);
  double complex dc = 1.5 + 2.5 * I, dcs = -0.5 + 1 * I;
  MPI_Reduce_local(&dc, &dcs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM);
  long double complex lc = 2 * I, lcs = 3 + 4 * I;
  MPI_Reduce_local(&lc, &lcs, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD);
  printf(
      "rank %d complex prod %.1f%+.1fi %.1f%+.1fi sum %.1f%+.1fi "
      "long double prod %.1Lf%+.1Lfi\n",
      rank, crealf(fcs[0]), cimagf(fcs[0]), crealf(fcs[1]), cimagf(fcs[1]), creal(dcs), cimag(dcs),
      creall(lcs), cimagl(lcs));
  report("complex",
         fcs[0] == 4 + 3 * I && fcs[1] == 3 * I && dcs == 1 + 3.5 * I && lcs == -8 + 6 * I);

  int fi[2] = {7, -1}, fis[2] = {5, 2};
  MPI_Reduce_local(fi, fis, 2, MPI_INTEGER, MPI_SUM);
  float fr[2] = {1.0f, 9.0f}, frs[2] = {2.0f, 3.0f};
  MPI_Reduce_local(fr, frs, 2, MPI_REAL, MPI_MAX);
  double complex fz = 1 + I, fzs = 2 + 2 * I;
  MPI_Reduce_local(&fz, &fzs, 1, MPI_DOUBLE_COMPLEX, MPI_SUM);
  printf("rank %d fortran integer sum %d %d real max %.1f %.1f double complex sum %.1f%+.1fi\n",
         rank, fis[0], fis[1], frs[0], frs[1], creal(fzs), cimag(fzs));
  report("fortran types",
         fis[0] == 12 && fis[1] == 1 && frs[0] == 2.0f && frs[1] == 9.0f && fzs == 3 + 3 * I);
}

static void logic_and_bits(void) {
  int p[N] = {0, 0, 5, -1}, q[N];
  const int qv[N] = {0, 3, 0, 2};
  for (int i = 0; i < N; i++) q[i] = qv[i];
  MPI_Reduce_local(p, q, N, MPI_INT, MPI_LAND);
  ints("int land", q, N, (int[]){0, 0, 0, 1});
  for (int i = 0; i < N; i++) q[i] = qv[i];
  MPI_Reduce_local(p, q, N, MPI_INT, MPI_LOR);
  ints("int lor", q, N, (int[]){0, 1, 1, 1});
  for (int i = 0; i < N; i++) q[i] = qv[i];
  MPI_Reduce_local(p, q, N, MPI_INT, MPI_LXOR);
  ints("int lxor", q, N, (int[]){0, 1, 1, 0});
  bool bp[2] = {true, false}, bq[2] = {true, true};
  MPI_Reduce_local(bp, bq, 2, MPI_C_BOOL, MPI_LXOR);
  int lg[2] = {1, 0}, lgs[2] = {1, 1};
  MPI_Reduce_local(lg, lgs, 2, MPI_LOGICAL, MPI_LAND);
  ints("bool lxor, logical land", (int[]){bq[0], bq[1], lgs[0], lgs[1]}, 4, (int[]){0, 1, 1, 0});

  unsigned u = 0xF0F0u, us = 0xFF00u;
  MPI_Reduce_local(&u, &us, 1, MPI_UNSIGNED, MPI_BAND);
  unsigned char by[2] = {0x0F, 0x55}, bys[2] = {0xF0, 0xFF};
  MPI_Reduce_local(by, bys, 2, MPI_BYTE, MPI_BOR);
  int64_t i6 = 0x0123456789ABCDEFLL, i6s = -1;
  MPI_Reduce_local(&i6, &i6s, 1, MPI_INT64_T, MPI_BXOR);
  printf("rank %d band %x bor %x %x bxor %llx\n", rank, us, bys[0], bys[1],
         (unsigned long long)i6s);
  report("bitwise",
         us == 0xF000u && bys[0] == 0xFF && bys[1] == 0xFF && i6s == ~0x0123456789ABCDEFLL);
}

static void pairs(void) {
  struct {
    float v;
    int i;
  } fa[3] = {{1, 5}, {2, 5}, {3, 5}}, fb[3] = {{1, 2}, {9, 9}, {0, 1}};
  MPI_Reduce_local(fa, fb, 3, MPI_FLOAT_INT, MPI_MAXLOC);
  struct {
    double v;
    int i;
  } da[2] = {{1, 5}, {-1, 5}}, db[2] = {{1, 2}, {3, 0}};
  MPI_Reduce_local(da, db, 2, MPI_DOUBLE_INT, MPI_MINLOC);
  struct {
    long v;
    int i;
  } la = {7, 3}, lb = {7, 1};
  MPI_Reduce_local(&la, &lb, 1, MPI_LONG_INT, MPI_MAXLOC);
  struct {
    short v;
    int i;
  } sa = {-4, 8}, sb = {2, 1};
  MPI_Reduce_local(&sa, &sb, 1, MPI_SHORT_INT, MPI_MINLOC);
  int ta[2] = {10, 4}, tb[2] = {10, 6};
  MPI_Reduce_local(ta, tb, 1, MPI_2INT, MPI_MINLOC);
  struct {
    long double v;
    int i;
  } xa = {2.5L, 9}, xb = {2.25L, 1};
  MPI_Reduce_local(&xa, &xb, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC);
  int fa2[2] = {3, 7}, fb2[2] = {3, 2};
  MPI_Reduce_local(fa2, fb2, 1, MPI_2INTEGER, MPI_MAXLOC);
  int got[] = {(int)fb[0].v, fb[0].i, (int)fb[1].v, fb[1].i, (int)fb[2].v,    fb[2].i,
               (int)db[0].v, db[0].i, (int)db[1].v, db[1].i, (int)lb.v,       lb.i,
               sb.v,         sb.i,    tb[0],        tb[1],   (int)(4 * xb.v), xb.i,
               fb2[0],       fb2[1]};
  ints("maxloc minloc", got, 20,
       (int[]){1, 2, 9, 9, 3, 5, 1, 2, -1, 5, 7, 1, -4, 8, 10, 4, 10, 9, 3, 2});
}

/* The program's own op, not commutative: inout = 2 * in + inout. */
static void twice_plus(void* in, void* inout, int* len, MPI_Datatype* type) {
  int n = *len;
  if (*type != MPI_INT) {
    int s;
    MPI_Type_size(*type, &s);
    n *= s / (int)sizeof(int);
  }
  for (int i = 0; i < n; i++) ((int*)inout)[i] = 2 * ((int*)in)[i] + ((int*)inout)[i];
}

static void derived(void) {
  MPI_Datatype every_other, two_pairs, spaced, pair_of_ints;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_contiguous(2, MPI_2INT, &two_pairs);
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
  MPI_Type_contiguous(2, MPI_INT, &pair_of_ints);
  MPI_Type_commit(&every_other);
  MPI_Type_commit(&two_pairs);
  MPI_Type_commit(&spaced);
  MPI_Type_commit(&pair_of_ints);
  double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
#if DERIVED_OPS
  MPI_Reduce_local(a, b, 1, every_other, MPI_SUM);
#else
  for (int k = 0; k < 3; k++) MPI_Reduce_local(a + 2 * k, b + 2 * k, 1, MPI_DOUBLE, MPI_SUM);
#endif
  ints("vector sum (gaps untouched)", (int[]){b[0], b[1], b[2], b[3], b[4], b[5]}, 6,
       (int[]){11, 20, 33, 40, 55, 60});
  int p[4] = {5, 1, 2, 2}, q[4] = {5, 0, 2, 1};
#if DERIVED_OPS
  MPI_Reduce_local(p, q, 1, two_pairs, MPI_MINLOC);
#else
  MPI_Reduce_local(p, q, 2, MPI_2INT, MPI_MINLOC);
#endif
  ints("contiguous pairs minloc", q, 4, (int[]){5, 0, 2, 1});
  int s[6] = {1, -1, 9, -1, 4, -1}, t[6] = {3, 0, 3, 0, 3, 0};
#if DERIVED_OPS
  MPI_Reduce_local(s, t, 3, spaced, MPI_MAX);
#else
  for (int k = 0; k < 3; k++) MPI_Reduce_local(s + 2 * k, t + 2 * k, 1, MPI_INT, MPI_MAX);
#endif
  ints("resized int max", t, 6, (int[]){3, 0, 9, 0, 4, 0});

  MPI_Op op;
  MPI_Op_create(twice_plus, 0, &op);
  int u[4] = {1, 2, 3, 4}, v[4] = {10, 10, 10, 10 + rank};
  MPI_Reduce_local(u, v, 4, MPI_INT, op);
  ints("own op on int", v, 4, (int[]){12, 14, 16, 18 + rank});
  MPI_Reduce_local(u, v, 2, pair_of_ints, op);
  ints("own op on a derived type", v, 4, (int[]){14, 18, 22, 26 + rank});
  MPI_Op_free(&op);
  MPI_Type_free(&every_other);
  MPI_Type_free(&two_pairs);
  MPI_Type_free(&spaced);
  MPI_Type_free(&pair_of_ints);
}

static void errors(void) {
  MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  double d = 1, e = 2;
  int cls = 0, i = 1, j = 2;
  MPI_Error_class(MPI_Reduce_local(&d, &e, 1, MPI_DOUBLE, MPI_BAND), &cls);
  int bad_op = cls == MPI_ERR_OP;
  MPI_Error_class(MPI_Reduce_local(&i, &j, 1, MPI_INT, MPI_MAXLOC), &cls);
  bad_op = bad_op && cls == MPI_ERR_OP;
  printf("rank %d band on double and maxloc on int fail with MPI_ERR_OP %d, operands kept %d\n",
         rank, bad_op, e == 2 && j == 2);
  report("undefined ops", bad_op && e == 2 && j == 2);
  MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  /* Whole lines: mpirun tags each write, and a full buffer may end inside a line. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  arithmetic();
  logic_and_bits();
  pairs();
  derived();
  errors();
  /* The next rank computed the same but for its rank's terms: its checksum differs by them. */
  long theirs;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(&checksum, 1, MPI_LONG, next, 1, &theirs, 1, MPI_LONG, prev, 1, W,
               MPI_STATUS_IGNORE);
  printf("rank %d checksum from %d %s\n", rank, prev,
         (theirs == checksum) == (prev == rank) ? "as expected" : "unexpected");
  report("checksums", (theirs == checksum) == (prev == rank));
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  MPI_Finalize();
  return fails ? 1 : 0;
}
