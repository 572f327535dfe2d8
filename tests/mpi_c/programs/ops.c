/* ops.c - predefined and user-defined reduction operations.
 * Tests: MPI_SUM/PROD/MAX/MIN on several integer and floating types, LAND/LOR on
 * int, BAND/BOR on unsigned and MPI_BYTE, MAXLOC/MINLOC with MPI_DOUBLE_INT and
 * MPI_2INT including ties (lowest index must win), MPI_Op_create with a
 * commutative op (elementwise max of |x|), a NON-commutative op (2x2 matrix
 * product over a contiguous type of 4 doubles) in Reduce (roots 0 and last) and
 * Allreduce, and a user op over a derived datatype (contiguous of 3 ints).
 * All reference values are computed serially and are exact.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <math.h>

static int rank, size, fails = 0;
#define W MPI_COMM_WORLD

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

static void absmax_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  double *a = in, *b = inout;
  (void)dt;
  for (int i = 0; i < *len; i++) b[i] = fabs(a[i]) > fabs(b[i]) ? fabs(a[i]) : fabs(b[i]);
}
/* inout = in * inout (in comes from lower ranks), 2x2 row-major matrices */
static void matmul2(const double* a, const double* b, double* c) {
  double t[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                 a[2] * b[1] + a[3] * b[3]};
  for (int i = 0; i < 4; i++) c[i] = t[i];
}
static void matmul_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  double *a = in, *b = inout;
  (void)dt;
  for (int k = 0; k < *len; k++) matmul2(a + 4 * k, b + 4 * k, b + 4 * k);
}
/* triple op: (sum, max, bitwise xor) on a contiguous type of 3 ints */
static void triple_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  int *a = in, *b = inout;
  (void)dt;
  for (int k = 0; k < *len; k++) {
    b[3 * k] += a[3 * k];
    if (a[3 * k + 1] > b[3 * k + 1]) b[3 * k + 1] = a[3 * k + 1];
    b[3 * k + 2] ^= a[3 * k + 2];
  }
}
static void mat_of(int r, int k, double* m) {
  m[0] = 1 + (r + k) % 2;
  m[1] = r + 1 + k;
  m[2] = (r + k) % 3 - 1;
  m[3] = 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);

  /* SUM / PROD / MAX / MIN on assorted types */
  long long sll = (long long)(rank + 1) * 1000000007LL, rll;
  MPI_Allreduce(&sll, &rll, 1, MPI_LONG_LONG, MPI_SUM, W);
  long long xll = 0;
  for (int r = 0; r < size; r++) xll += (long long)(r + 1) * 1000000007LL;
  printf("rank %d sum long long %lld\n", rank, rll);
  report("sum long long", rll == xll);
  unsigned long sul = (unsigned long)(rank + 2), rul;
  MPI_Allreduce(&sul, &rul, 1, MPI_UNSIGNED_LONG, MPI_PROD, W);
  unsigned long xul = 1;
  for (int r = 0; r < size; r++) xul *= (unsigned long)(r + 2);
  printf("rank %d prod unsigned long %lu\n", rank, rul);
  report("prod unsigned long", rul == xul);
  short ssh[2] = {(short)(rank * 3 - 5), (short)(7 - rank * rank)}, rsh[2];
  MPI_Allreduce(ssh, rsh, 2, MPI_SHORT, MPI_MAX, W);
  short xsh[2] = {-32768, -32768};
  for (int r = 0; r < size; r++) {
    if (r * 3 - 5 > xsh[0]) xsh[0] = r * 3 - 5;
    if (7 - r * r > xsh[1]) xsh[1] = 7 - r * r;
  }
  printf("rank %d max short %d %d\n", rank, rsh[0], rsh[1]);
  report("max short", rsh[0] == xsh[0] && rsh[1] == xsh[1]);
  float sf[2] = {1.5f * rank - 2.0f, 0.25f * ((rank * 7) % 5)}, rf[2];
  MPI_Allreduce(sf, rf, 2, MPI_FLOAT, MPI_MIN, W);
  float xf[2] = {1e30f, 1e30f};
  for (int r = 0; r < size; r++) {
    if (1.5f * r - 2.0f < xf[0]) xf[0] = 1.5f * r - 2.0f;
    if (0.25f * ((r * 7) % 5) < xf[1]) xf[1] = 0.25f * ((r * 7) % 5);
  }
  printf("rank %d min float %.3f %.3f\n", rank, rf[0], rf[1]);
  report("min float", rf[0] == xf[0] && rf[1] == xf[1]);
  int8_t s8 = (int8_t)(rank - 3), r8;
  uint64_t s64 = (uint64_t)1 << (10 * rank), r64;
  MPI_Allreduce(&s8, &r8, 1, MPI_INT8_T, MPI_SUM, W);
  MPI_Allreduce(&s64, &r64, 1, MPI_UINT64_T, MPI_SUM, W);
  int x8 = 0;
  uint64_t x64 = 0;
  for (int r = 0; r < size; r++) {
    x8 += r - 3;
    x64 += (uint64_t)1 << (10 * r);
  }
  printf("rank %d sum int8 %d sum uint64 %llu\n", rank, r8, (unsigned long long)r64);
  report("sum int8/uint64", r8 == (int8_t)x8 && r64 == x64);
  double sdd = 0.5 * (rank + 1), rdd;
  MPI_Reduce(&sdd, &rdd, 1, MPI_DOUBLE, MPI_PROD, size - 1, W);
  if (rank == size - 1) {
    double x = 1;
    for (int r = 0; r < size; r++) x *= 0.5 * (r + 1);
    printf("rank %d reduce prod double %.6f\n", rank, rdd);
    report("reduce prod double", rdd == x);
  }

  /* logical ops on int */
  int li[3] = {rank % 2, 1, rank == 1 ? 7 : 0}, land[3], lor[3];
  MPI_Allreduce(li, land, 3, MPI_INT, MPI_LAND, W);
  MPI_Allreduce(li, lor, 3, MPI_INT, MPI_LOR, W);
  printf("rank %d land %d %d %d lor %d %d %d\n", rank, land[0], land[1], land[2], lor[0], lor[1],
         lor[2]);
  report("land/lor int",
         land[0] == 0 && land[1] == 1 && land[2] == 0 && lor[0] == 1 && lor[1] == 1 && lor[2] == 1);
  /* bitwise ops on unsigned and MPI_BYTE */
  unsigned bu[2] = {0xF0F0u | (1u << (rank + 16)), ~(1u << rank)}, band[2], bor[2];
  MPI_Allreduce(bu, band, 2, MPI_UNSIGNED, MPI_BAND, W);
  MPI_Allreduce(bu, bor, 2, MPI_UNSIGNED, MPI_BOR, W);
  unsigned xa[2] = {~0u, ~0u}, xo[2] = {0, 0};
  for (int r = 0; r < size; r++) {
    unsigned v[2] = {0xF0F0u | (1u << (r + 16)), ~(1u << r)};
    for (int i = 0; i < 2; i++) {
      xa[i] &= v[i];
      xo[i] |= v[i];
    }
  }
  printf("rank %d band %08x %08x bor %08x %08x\n", rank, band[0], band[1], bor[0], bor[1]);
  report("band/bor unsigned",
         band[0] == xa[0] && band[1] == xa[1] && bor[0] == xo[0] && bor[1] == xo[1]);
  unsigned char by[2] = {(unsigned char)(0x81 | (2 << rank)), (unsigned char)(0xFF ^ (1 << rank))},
                bya[2], byo[2];
  MPI_Allreduce(by, bya, 2, MPI_BYTE, MPI_BAND, W);
  MPI_Allreduce(by, byo, 2, MPI_BYTE, MPI_BOR, W);
  unsigned char ya[2] = {0xFF, 0xFF}, yo[2] = {0, 0};
  for (int r = 0; r < size; r++) {
    unsigned char v[2] = {(unsigned char)(0x81 | (2 << r)), (unsigned char)(0xFF ^ (1 << r))};
    for (int i = 0; i < 2; i++) {
      ya[i] &= v[i];
      yo[i] |= v[i];
    }
  }
  printf("rank %d byte band %02x %02x bor %02x %02x\n", rank, bya[0], bya[1], byo[0], byo[1]);
  report("band/bor byte", bya[0] == ya[0] && bya[1] == ya[1] && byo[0] == yo[0] && byo[1] == yo[1]);

  /* MAXLOC / MINLOC with ties (lowest index wins) */
  struct {
    double v;
    int i;
  } dsi[3], dmax[3], dmin[3];
  struct {
    int v;
    int i;
  } isi[2], imax[2], imin[2];
  for (int k = 0; k < 3; k++) {
    dsi[k].v = (double)((rank + k) % 2) * 2.5 - k;
    dsi[k].i = rank;
  }
  for (int k = 0; k < 2; k++) {
    isi[k].v = k == 0 ? rank / 2 : 5;
    isi[k].i = rank * 10 + k;
  }
  MPI_Allreduce(dsi, dmax, 3, MPI_DOUBLE_INT, MPI_MAXLOC, W);
  MPI_Allreduce(dsi, dmin, 3, MPI_DOUBLE_INT, MPI_MINLOC, W);
  MPI_Allreduce(isi, imax, 2, MPI_2INT, MPI_MAXLOC, W);
  MPI_Allreduce(isi, imin, 2, MPI_2INT, MPI_MINLOC, W);
  int ok = 1;
  for (int k = 0; k < 3; k++) {
    double mx = -1e300, mn = 1e300;
    int ix = -1, in = -1;
    for (int r = 0; r < size; r++) {
      double v = (double)((r + k) % 2) * 2.5 - k;
      if (v > mx) {
        mx = v;
        ix = r;
      }
      if (v < mn) {
        mn = v;
        in = r;
      }
    }
    printf("rank %d double_int[%d] maxloc %.2f@%d minloc %.2f@%d\n", rank, k, dmax[k].v, dmax[k].i,
           dmin[k].v, dmin[k].i);
    ok = ok && dmax[k].v == mx && dmax[k].i == ix && dmin[k].v == mn && dmin[k].i == in;
  }
  report("maxloc/minloc double_int", ok);
  ok = 1;
  for (int k = 0; k < 2; k++) {
    int mx = -1000000, mn = 1000000, ix = -1, in = -1;
    for (int r = 0; r < size; r++) {
      int v = k == 0 ? r / 2 : 5;
      if (v > mx) {
        mx = v;
        ix = r * 10 + k;
      }
      if (v < mn) {
        mn = v;
        in = r * 10 + k;
      }
    }
    printf("rank %d 2int[%d] maxloc %d@%d minloc %d@%d\n", rank, k, imax[k].v, imax[k].i, imin[k].v,
           imin[k].i);
    ok = ok && imax[k].v == mx && imax[k].i == ix && imin[k].v == mn && imin[k].i == in;
  }
  report("maxloc/minloc 2int", ok);

  /* user commutative op: max of |x| */
  MPI_Op absmax, matmul, triple;
  MPI_Op_create(absmax_fn, 1, &absmax);
  double av[3] = {rank % 2 ? -1.0 * rank : rank, 2.5 - rank, -0.5 * rank * rank}, ar[3];
  MPI_Allreduce(av, ar, 3, MPI_DOUBLE, absmax, W);
  double ax[3] = {0, 0, 0};
  for (int r = 0; r < size; r++) {
    double v[3] = {r % 2 ? -1.0 * r : r, 2.5 - r, -0.5 * r * r};
    for (int i = 0; i < 3; i++)
      if (fabs(v[i]) > ax[i]) ax[i] = fabs(v[i]);
  }
  printf("rank %d absmax %.2f %.2f %.2f\n", rank, ar[0], ar[1], ar[2]);
  report("user commutative absmax", ar[0] == ax[0] && ar[1] == ax[1] && ar[2] == ax[2]);

  /* user non-commutative op: ordered 2x2 matrix product, 2 matrices per rank */
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_DOUBLE, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul_fn, 0, &matmul);
  double m[8], mr[8], mx[8];
  mat_of(rank, 0, m);
  mat_of(rank, 1, m + 4);
  for (int k = 0; k < 2; k++) {
    mat_of(0, k, mx + 4 * k);
    for (int r = 1; r < size; r++) {
      double t[4];
      mat_of(r, k, t);
      matmul2(mx + 4 * k, t, mx + 4 * k);
    }
  }
  double rev[4];
  mat_of(size - 1, 0, rev);
  for (int r = size - 2; r >= 0; r--) {
    double t[4];
    mat_of(r, 0, t);
    matmul2(rev, t, rev);
  }
  int differs = rev[0] != mx[0] || rev[1] != mx[1] || rev[2] != mx[2] || rev[3] != mx[3];
  printf("rank %d reversed-order product differs %d\n", rank, differs);
  report("matmul op is order-sensitive", differs);
  int roots[2] = {0, size - 1};
  for (int q = 0; q < 2; q++) {
    for (int i = 0; i < 8; i++) mr[i] = -99;
    MPI_Reduce(m, mr, 2, mat, matmul, roots[q], W);
    if (rank == roots[q]) {
      ok = 1;
      for (int i = 0; i < 8; i++) ok = ok && mr[i] == mx[i];
      printf("rank %d reduce matmul root %d: %g %g %g %g | %g %g %g %g\n", rank, roots[q], mr[0],
             mr[1], mr[2], mr[3], mr[4], mr[5], mr[6], mr[7]);
      report("user non-commutative reduce", ok);
    }
  }
  MPI_Allreduce(m, mr, 2, mat, matmul, W);
  ok = 1;
  for (int i = 0; i < 8; i++) ok = ok && mr[i] == mx[i];
  printf("rank %d allreduce matmul: %g %g %g %g | %g %g %g %g\n", rank, mr[0], mr[1], mr[2], mr[3],
         mr[4], mr[5], mr[6], mr[7]);
  report("user non-commutative allreduce", ok);

  /* user op over derived type: contiguous of 3 ints */
  MPI_Datatype tri;
  MPI_Type_contiguous(3, MPI_INT, &tri);
  MPI_Type_commit(&tri);
  MPI_Op_create(triple_fn, 1, &triple);
  int tv[6], tr[6], tx[6] = {0, -1000000, 0, 0, -1000000, 0};
  for (int k = 0; k < 2; k++) {
    tv[3 * k] = rank + k;
    tv[3 * k + 1] = (rank * 5 + k) % 4;
    tv[3 * k + 2] = 1 << (rank + k);
  }
  for (int r = 0; r < size; r++)
    for (int k = 0; k < 2; k++) {
      tx[3 * k] += r + k;
      if ((r * 5 + k) % 4 > tx[3 * k + 1]) tx[3 * k + 1] = (r * 5 + k) % 4;
      tx[3 * k + 2] ^= 1 << (r + k);
    }
  MPI_Allreduce(tv, tr, 2, tri, triple, W);
  ok = 1;
  for (int i = 0; i < 6; i++) ok = ok && tr[i] == tx[i];
  printf("rank %d triple op: %d %d %d | %d %d %d\n", rank, tr[0], tr[1], tr[2], tr[3], tr[4],
         tr[5]);
  report("user op on derived type", ok);

  MPI_Op_free(&absmax);
  MPI_Op_free(&matmul);
  MPI_Op_free(&triple);
  report("op_free gives MPI_OP_NULL",
         absmax == MPI_OP_NULL && matmul == MPI_OP_NULL && triple == MPI_OP_NULL);
  MPI_Type_free(&mat);
  MPI_Type_free(&tri);
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
