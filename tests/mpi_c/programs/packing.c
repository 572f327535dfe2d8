/* packing.c - MPI_Pack / MPI_Unpack, external32, and counting elements.
 * Tests: MPI_Pack of a struct array and a matrix column into one buffer sent as MPI_PACKED
 * and unpacked by the next rank; MPI_Pack_size at least what MPI_Pack wrote; a pack that does
 * not fit fails with MPI_ERRORS_RETURN; MPI_Pack_external ("external32": big-endian, long in
 * 4 bytes as MPI 3.1's table 13.2 has it) printed byte by byte, MPI_Unpack_external back, of
 * a vector type too (MPI_Pack_external_size is an upper bound: checked, not printed);
 * MPI_Get_elements (_x) of whole and partial items of derived types after a receive;
 * MPI_Status_set_elements (_x) then MPI_Get_count / MPI_Get_elements.
 * Intended NP: 2 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define W MPI_COMM_WORLD
static int rank, size, next, prev, fails = 0;

static void report(const char* what, int ok) {
  printf("rank %d %s %s\n", rank, ok ? "OK" : "FAIL", what);
  if (!ok) fails++;
}

typedef struct {
  int i;
  double d;
  char c[3];
} rec_t;

static void pack_unpack(void) {
  rec_t recs[2];
  int mat[4][3];
  for (int k = 0; k < 2; k++) {
    recs[k].i = 100 * rank + k;
    recs[k].d = rank + 0.25 * k;
    memcpy(recs[k].c, k ? "xyz" : "abc", 3);
  }
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) mat[r][c] = 1000 * rank + 10 * r + c;
  MPI_Datatype rec, column;
  int bl[3] = {1, 1, 3};
  MPI_Aint dp[3] = {offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, c)};
  MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, bl, dp, ty, &rec);
  MPI_Type_vector(4, 1, 3, MPI_INT, &column);
  MPI_Type_commit(&rec);
  MPI_Type_commit(&column);

  char buf[256];
  int pos = 0, room1, room2;
  MPI_Pack(recs, 2, rec, buf, sizeof buf, &pos, W);
  int after_recs = pos;
  MPI_Pack(&mat[0][1], 1, column, buf, sizeof buf, &pos, W);
  MPI_Pack_size(2, rec, W, &room1);
  MPI_Pack_size(1, column, W, &room2);
  printf("rank %d packed %d bytes, %d of them records\n", rank, pos, after_recs);
  report("pack_size covers what was packed", room1 >= after_recs && room2 >= pos - after_recs);

  char in[256];
  MPI_Status st;
  int n;
  MPI_Sendrecv(buf, pos, MPI_PACKED, next, 1, in, sizeof in, MPI_PACKED, prev, 1, W, &st);
  MPI_Get_count(&st, MPI_PACKED, &n);
  rec_t got[2];
  int col[4], at = 0;
  MPI_Unpack(in, n, &at, got, 2, rec, W);
  MPI_Unpack(in, n, &at, col, 4, MPI_INT, W);
  printf("rank %d unpacked {%d %.2f %.3s} {%d %.2f %.3s} column %d %d %d %d at %d of %d\n", rank,
         got[0].i, got[0].d, got[0].c, got[1].i, got[1].d, got[1].c, col[0], col[1], col[2], col[3],
         at, n);
  int ok = at == n && got[1].i == 100 * prev + 1 && got[1].d == prev + 0.25 &&
           memcmp(got[1].c, "xyz", 3) == 0 && col[3] == 1000 * prev + 31;
  report("pack, send as MPI_PACKED, unpack", ok);

  /* Unpacking the packed records into a struct type again, out of the same bytes. */
  rec_t again[2];
  at = 0;
  MPI_Unpack(in, n, &at, again, 2, rec, W);
  report("unpack into the struct type", again[0].i == 100 * prev && again[1].d == prev + 0.25);

  MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  int small = 0;
  const int err = MPI_Pack(recs, 2, rec, buf, 8, &small, W);
  printf("rank %d pack into 8 bytes fails %d, position %d\n", rank, err != MPI_SUCCESS, small);
  report("pack overflow", err != MPI_SUCCESS && small == 0);
  MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&rec);
  MPI_Type_free(&column);
}

static void external32(void) {
  int i = 0x01020304 + rank;
  short s = -2;
  double d = 1.5;
  long l = -3;
  char c = 'A';
  unsigned char out[64];
  MPI_Aint pos = 0, sz;
  MPI_Pack_external("external32", &i, 1, MPI_INT, out, sizeof out, &pos);
  MPI_Pack_external("external32", &s, 1, MPI_SHORT, out, sizeof out, &pos);
  MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &pos);
  MPI_Pack_external("external32", &l, 1, MPI_LONG, out, sizeof out, &pos);
  MPI_Pack_external("external32", &c, 1, MPI_CHAR, out, sizeof out, &pos);
  char hex[200];
  int at = 0;
  for (MPI_Aint k = 0; k < pos; k++) at += snprintf(hex + at, sizeof hex - at, "%02x", out[k]);
  printf("rank %d external32 %ld bytes: %s\n", rank, (long)pos, hex);
  const int bytes = (int)pos;
  MPI_Pack_external_size("external32", 1, MPI_LONG, &sz);
  /* An upper bound (Open MPI's is 8). */
  report("external32 long is 4 bytes", sz >= 4 && pos == 4 + 2 + 8 + 4 + 1);

  /* Every other int of six, and the same bytes back in place. */
  int v[6] = {1, 2, 3, 4, 5, 6}, back[6] = {0};
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  unsigned char vb[16];
  pos = 0;
  MPI_Pack_external_size("external32", 1, every_other, &sz);
  MPI_Pack_external("external32", v, 1, every_other, vb, sizeof vb, &pos);
  at = 0;
  for (MPI_Aint k = 0; k < pos; k++) at += snprintf(hex + at, sizeof hex - at, "%02x", vb[k]);
  printf("rank %d external32 vector size %ld: %s\n", rank, (long)sz, hex);
  MPI_Aint rpos = 0;
  MPI_Unpack_external("external32", vb, pos, &rpos, back, 1, every_other);
  printf("rank %d external32 back %d %d %d %d %d %d\n", rank, back[0], back[1], back[2], back[3],
         back[4], back[5]);
  report("external32 vector round trip",
         rpos == 12 && back[0] == 1 && back[1] == 0 && back[2] == 3 && back[4] == 5);
  MPI_Type_free(&every_other);

  /* Big-endian bytes from the other rank, read back as numbers. */
  unsigned char in[64];
  MPI_Status st;
  MPI_Sendrecv(out, bytes, MPI_BYTE, next, 2, in, sizeof in, MPI_BYTE, prev, 2, W, &st);
  int ri;
  short rs;
  double rd;
  long rl;
  char rc;
  MPI_Aint p = 0;
  MPI_Unpack_external("external32", in, bytes, &p, &ri, 1, MPI_INT);
  MPI_Unpack_external("external32", in, bytes, &p, &rs, 1, MPI_SHORT);
  MPI_Unpack_external("external32", in, bytes, &p, &rd, 1, MPI_DOUBLE);
  MPI_Unpack_external("external32", in, bytes, &p, &rl, 1, MPI_LONG);
  MPI_Unpack_external("external32", in, bytes, &p, &rc, 1, MPI_CHAR);
  printf("rank %d external32 from %d: %x %d %.2f %ld %c\n", rank, prev, ri, rs, rd, rl, rc);
  report("external32 unpack",
         ri == 0x01020304 + prev && rs == -2 && rd == 1.5 && rl == -3 && rc == 'A' && p == bytes);
}

static void elements(void) {
  MPI_Datatype pair, rec;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int five[5] = {1, 2, 3, 4, 5}, got[6];
  MPI_Status st;
  int count, elems;
  MPI_Count elems_x;
  MPI_Sendrecv(five, 5, MPI_INT, next, 3, got, 3, pair, prev, 3, W, &st);
  MPI_Get_count(&st, pair, &count);
  MPI_Get_elements(&st, pair, &elems);
  MPI_Get_elements_x(&st, pair, &elems_x);
  printf("rank %d 5 ints as pairs: count undefined %d, elements %d %lld\n", rank,
         count == MPI_UNDEFINED, elems, (long long)elems_x);
  report("get_elements of a partial pair", count == MPI_UNDEFINED && elems == 5 && elems_x == 5);

  /* {int, double}: an int, a double and an int are three elements, 1.5 items. */
  struct {
    int i;
    double d;
  } two[2], recv[2];
  int bl[2] = {1, 1};
  MPI_Aint dp[2] = {0, 8};
  MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, bl, dp, ty, &rec);
  MPI_Type_commit(&rec);
  two[0].i = 7;
  two[0].d = 2.5;
  two[1].i = 9;
  two[1].d = 0;
  MPI_Datatype part;
  int pbl[3] = {1, 1, 1};
  MPI_Aint pdp[3] = {0, 8, 16};
  MPI_Datatype pty[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(3, pbl, pdp, pty, &part);
  MPI_Type_commit(&part);
  MPI_Sendrecv(two, 1, part, next, 4, recv, 2, rec, prev, 4, W, &st);
  MPI_Get_count(&st, rec, &count);
  MPI_Get_elements(&st, rec, &elems);
  printf(
      "rank %d int,double,int as {int,double}: count undefined %d, elements %d, "
      "got %d %.1f %d\n",
      rank, count == MPI_UNDEFINED, elems, recv[0].i, recv[0].d, recv[1].i);
  report("get_elements of a struct", count == MPI_UNDEFINED && elems == 3 && recv[1].i == 9);

  MPI_Status made;
  MPI_Status_set_elements(&made, MPI_INT, 7);
  MPI_Get_count(&made, MPI_INT, &count);
  MPI_Get_elements(&made, MPI_INT, &elems);
  int ok = count == 7 && elems == 7;
  const int ints = count;
  MPI_Status_set_elements_x(&made, pair, 3);
  MPI_Get_count(&made, pair, &count);
  MPI_Get_elements_x(&made, pair, &elems_x);
  printf(
      "rank %d set_elements: 7 ints count %d; 3 elements of pairs count undefined %d "
      "elements %lld\n",
      rank, ints, count == MPI_UNDEFINED, (long long)elems_x);
  ok = ok && count == MPI_UNDEFINED && elems_x == 3;
  MPI_Status_set_elements(&made, rec, 4);
  MPI_Get_count(&made, rec, &count);
  MPI_Get_elements(&made, rec, &elems);
  printf("rank %d set_elements: 4 elements of {int,double} count %d elements %d\n", rank, count,
         elems);
  report("status_set_elements", ok && count == 2 && elems == 4);
  MPI_Type_free(&pair);
  MPI_Type_free(&rec);
  MPI_Type_free(&part);
}

int main(int argc, char** argv) {
  /* Whole lines: mpirun tags each write, and a full buffer may end inside a line. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  pack_unpack();
  external32();
  elements();
  printf("rank %d %s\n", rank, fails ? "FAIL total" : "OK all");
  MPI_Finalize();
  return fails ? 1 : 0;
}
