/* datatypes.c - derived datatypes.
 * Tests: MPI_Type_contiguous, MPI_Type_vector (a column of a row-major
 * matrix), MPI_Type_indexed, MPI_Type_create_struct (struct {int; double;
 * char[3]} with offsetof displacements), commit/free/size/get_extent (values
 * printed); send with one type and receive with another equivalent type
 * signature (vector column -> contiguous ints, contiguous -> vector column,
 * indexed -> contiguous), arrays of structs, MPI_Get_count in derived-type
 * units (whole and partial -> MPI_UNDEFINED); a nonblocking receive and send whose
 * derived type is freed before the wait (MPI keeps it until they complete). Each rank sends to
 * rank+1 and receives from rank-1 (ring, MPI_Sendrecv). Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stddef.h>

#define W MPI_COMM_WORLD
#define R 4
#define C 5
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
typedef struct {
  int i;
  double d;
  char c[3];
} rec_t;

static void show_type(const char* name, MPI_Datatype t, int xsize, MPI_Aint xlb, MPI_Aint xext) {
  int sz;
  MPI_Aint lb, ext;
  MPI_Type_size(t, &sz);
  MPI_Type_get_extent(t, &lb, &ext);
  printf("rank %d type %s size %d lb %ld extent %ld\n", rank, name, sz, (long)lb, (long)ext);
  report(name, sz == xsize && lb == xlb && ext == xext);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Status st;
  int cnt;

  MPI_Datatype contig, column, indexed, rec, pair;
  MPI_Type_contiguous(C, MPI_INT, &contig);
  MPI_Type_vector(R, 1, C, MPI_INT, &column);
  int bl[3] = {2, 1, 3}, dp[3] = {0, 4, 9};
  MPI_Type_indexed(3, bl, dp, MPI_INT, &indexed);
  int sbl[3] = {1, 1, 3};
  MPI_Aint sdp[3] = {offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, c)};
  MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, sbl, sdp, sty, &rec);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&contig);
  MPI_Type_commit(&column);
  MPI_Type_commit(&indexed);
  MPI_Type_commit(&rec);
  MPI_Type_commit(&pair);

  show_type("contiguous(5,int)", contig, 5 * 4, 0, 20);
  show_type("vector(4,1,5,int)", column, 4 * 4, 0, (MPI_Aint)((R - 1) * C + 1) * 4);
  show_type("indexed({2,1,3},{0,4,9},int)", indexed, 6 * 4, 0, 12 * 4);
  show_type("struct{int,double,char[3]}", rec, 15, 0, (MPI_Aint)sizeof(rec_t));

  /* matrix column -> contiguous */
  int mat[R][C], col[R + 1], rmat[R][C];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) mat[r][c] = rank * 1000 + r * 10 + c;
  int ccol = (rank + 2) % C;
  for (int i = 0; i <= R; i++) col[i] = -1;
  MPI_Sendrecv(&mat[0][ccol], 1, column, next, 1, col, R + 1, MPI_INT, prev, 1, W, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  int pcol = (prev + 2) % C, ok = cnt == R && col[R] == -1;
  for (int r = 0; r < R; r++) ok = ok && col[r] == prev * 1000 + r * 10 + pcol;
  printf("rank %d column %d from %d: %d %d %d %d count %d\n", rank, pcol, prev, col[0], col[1],
         col[2], col[3], cnt);
  report("vector send, contiguous recv", ok);

  /* contiguous -> column of a matrix (column 1) */
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) rmat[r][c] = -1;
  int vals[R];
  for (int r = 0; r < R; r++) vals[r] = rank * 100 + r;
  MPI_Sendrecv(vals, R, MPI_INT, next, 2, &rmat[0][1], 1, column, prev, 2, W, &st);
  MPI_Get_count(&st, column, &cnt);
  ok = cnt == 1;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) ok = ok && rmat[r][c] == (c == 1 ? prev * 100 + r : -1);
  printf("rank %d column recv: %d %d %d %d count(column) %d\n", rank, rmat[0][1], rmat[1][1],
         rmat[2][1], rmat[3][1], cnt);
  report("contiguous send, vector recv", ok);

  /* indexed -> contiguous, and 2 contig rows */
  int src[12], dst[8];
  for (int i = 0; i < 12; i++) src[i] = rank * 50 + i;
  for (int i = 0; i < 8; i++) dst[i] = -1;
  MPI_Sendrecv(src, 1, indexed, next, 3, dst, 8, MPI_INT, prev, 3, W, &st);
  MPI_Get_count(&st, MPI_INT, &cnt);
  int pick[6] = {0, 1, 4, 9, 10, 11};
  ok = cnt == 6 && dst[6] == -1 && dst[7] == -1;
  for (int i = 0; i < 6; i++) ok = ok && dst[i] == prev * 50 + pick[i];
  printf("rank %d indexed recv: %d %d %d %d %d %d count %d\n", rank, dst[0], dst[1], dst[2], dst[3],
         dst[4], dst[5], cnt);
  report("indexed send, contiguous recv", ok);
  int rows[2 * C];
  MPI_Sendrecv(&mat[1][0], 2, contig, next, 4, rows, 2 * C, MPI_INT, prev, 4, W, &st);
  MPI_Get_count(&st, contig, &cnt);
  ok = cnt == 2;
  for (int i = 0; i < 2 * C; i++) ok = ok && rows[i] == prev * 1000 + (1 + i / C) * 10 + i % C;
  printf("rank %d contig rows count(contig) %d first %d last %d\n", rank, cnt, rows[0],
         rows[2 * C - 1]);
  report("contiguous type rows", ok);

  /* Get_count in derived units: 6 ints as pairs = 3, 5 ints as pairs = MPI_UNDEFINED */
  int six[6] = {1, 2, 3, 4, 5, 6}, rp[8];
  MPI_Sendrecv(six, 6, MPI_INT, next, 5, rp, 4, pair, prev, 5, W, &st);
  MPI_Get_count(&st, pair, &cnt);
  printf("rank %d 6 ints as pairs count %d\n", rank, cnt);
  report("get_count whole pairs", cnt == 3 && rp[5] == 6);
  MPI_Sendrecv(six, 5, MPI_INT, next, 6, rp, 4, pair, prev, 6, W, &st);
  MPI_Get_count(&st, pair, &cnt);
  int undef = cnt == MPI_UNDEFINED;
  printf("rank %d 5 ints as pairs count_is_undefined %d\n", rank, undef);
  MPI_Get_count(&st, MPI_INT, &cnt);
  printf("rank %d 5 ints as ints count %d\n", rank, cnt);
  report("get_count partial pair undefined", undef && cnt == 5);

  /* array of structs */
  rec_t sr[3], rr[3];
  for (int k = 0; k < 3; k++) {
    sr[k].i = rank * 10 + k;
    sr[k].d = rank + k * 0.5;
    sr[k].c[0] = (char)('a' + rank);
    sr[k].c[1] = (char)('A' + k);
    sr[k].c[2] = '#';
    rr[k].i = -1;
    rr[k].d = -1.0;
    rr[k].c[0] = rr[k].c[1] = rr[k].c[2] = '?';
  }
  MPI_Sendrecv(sr, 3, rec, next, 7, rr, 3, rec, prev, 7, W, &st);
  MPI_Get_count(&st, rec, &cnt);
  ok = cnt == 3;
  for (int k = 0; k < 3; k++) {
    printf("rank %d struct[%d] = {%d, %.2f, %c%c%c}\n", rank, k, rr[k].i, rr[k].d, rr[k].c[0],
           rr[k].c[1], rr[k].c[2]);
    ok = ok && rr[k].i == prev * 10 + k && rr[k].d == prev + k * 0.5 && rr[k].c[0] == 'a' + prev &&
         rr[k].c[1] == 'A' + k && rr[k].c[2] == '#';
  }
  report("struct array", ok);

  /* struct type in a collective */
  rec_t b = {0, 0.0, {'x', 'y', 'z'}};
  if (rank == size - 1) {
    b.i = 4242;
    b.d = 3.25;
    b.c[0] = 'q';
  }
  MPI_Bcast(&b, 1, rec, size - 1, W);
  printf("rank %d bcast struct {%d, %.2f, %c%c%c}\n", rank, b.i, b.d, b.c[0], b.c[1], b.c[2]);
  report("struct bcast", b.i == 4242 && b.d == 3.25 && b.c[0] == 'q');

  /* a type freed while a receive and a send of it are pending */
  {
    int out[10], in[10];
    for (int k = 0; k < 10; k++) {
      out[k] = rank * 100 + k;
      in[k] = -1;
    }
    MPI_Datatype every_other;
    MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request rq[2];
    MPI_Irecv(in, 1, every_other, prev, 8, W, &rq[0]);
    MPI_Isend(out, 1, every_other, next, 8, W, &rq[1]);
    MPI_Type_free(&every_other);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    printf("rank %d freed-type recv %d %d %d %d %d gaps %d %d\n", rank, in[0], in[2], in[4], in[6],
           in[8], in[1], in[9]);
    ok = every_other == MPI_DATATYPE_NULL && in[1] == -1 && in[9] == -1;
    for (int k = 0; k < 5; k++) ok = ok && in[2 * k] == prev * 100 + 2 * k;
    report("type freed before its receive completes", ok);
  }

  MPI_Type_free(&contig);
  MPI_Type_free(&column);
  MPI_Type_free(&indexed);
  MPI_Type_free(&rec);
  MPI_Type_free(&pair);
  report("type_free gives MPI_DATATYPE_NULL",
         contig == MPI_DATATYPE_NULL && column == MPI_DATATYPE_NULL &&
             indexed == MPI_DATATYPE_NULL && rec == MPI_DATATYPE_NULL && pair == MPI_DATATYPE_NULL);
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
