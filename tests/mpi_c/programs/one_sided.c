/* one_sided.c - one-sided communication: windows and every synchronisation mode.
 * Tests: MPI_Win_create and MPI_Win_allocate with their attributes (base, size, displacement
 * unit, flavor), names, groups; fence epochs with MPI_Put, MPI_Get and MPI_Accumulate (sum
 * and replace), a strided (vector) target datatype and a strided origin; passive target with
 * exclusive locks around MPI_Fetch_and_op and MPI_Compare_and_swap from every rank (each
 * applied exactly once: the counter ends at the number of ranks, one CAS wins), shared
 * locks around gets, MPI_Win_lock_all with MPI_Win_flush and MPI_Get_accumulate; post,
 * start, complete and wait in a ring; request forms (MPI_Rput, MPI_Rget) waited for within
 * the epoch and after the unlock that ended it; a rank
 * reading its own window after a barrier; errors returned: a put outside the window
 * (MPI_ERR_RMA_RANGE), an unlock with no lock (MPI_ERR_RMA_SYNC), a bad lock type.
 * Intended NP: 4 (works for any NP >= 2).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
#define N 16
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

static void attributes(void) {
  int buf[N];
  MPI_Win win;
  MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, W, &win);
  void* base = NULL;
  MPI_Aint* wsize = NULL;
  int* unit = NULL;
  int* flavor = NULL;
  int flag = 0, all = 1;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  all &= flag && base == buf;
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
  all &= flag && *wsize == (MPI_Aint)sizeof(buf);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
  all &= flag && *unit == (int)sizeof(int);
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  all &= flag && *flavor == MPI_WIN_FLAVOR_CREATE;
  report("window attributes", all);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Win_set_name(win, "halo");
  MPI_Win_get_name(win, name, &len);
  report("window name", strcmp(name, "halo") == 0 && len == 4);
  MPI_Group group, world;
  int cmp = MPI_UNEQUAL;
  MPI_Win_get_group(win, &group);
  MPI_Comm_group(W, &world);
  MPI_Group_compare(group, world, &cmp);
  report("window group", cmp == MPI_IDENT);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  report("freed window is null", win == MPI_WIN_NULL);
}

static void fence(void) {
  int buf[N];
  for (int i = 0; i < N; i++) buf[i] = -1;
  MPI_Win win;
  MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, W, &win);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int mine[4] = {rank * 10, rank * 10 + 1, rank * 10 + 2, rank * 10 + 3};
  MPI_Win_fence(0, win);
  MPI_Put(mine, 4, MPI_INT, right, 0, 4, MPI_INT, win);
  MPI_Win_fence(0, win);
  int ok = 1;
  for (int i = 0; i < 4; i++) ok &= buf[i] == left * 10 + i;
  report("fence put", ok);

  int got[4] = {0, 0, 0, 0};
  MPI_Get(got, 4, MPI_INT, right, 0, 4, MPI_INT, win);
  int one = rank + 1;
  MPI_Accumulate(&one, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  ok = 1;
  for (int i = 0; i < 4; i++) ok &= got[i] == rank * 10 + i;
  report("fence get", ok);
  if (rank == 0) report("fence accumulate sum", buf[8] == -1 + size * (size + 1) / 2);

  /* A strided target: every other element from 9 on, written by the left neighbour. */
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int three[3] = {rank * 100, rank * 100 + 1, rank * 100 + 2};
  MPI_Put(three, 3, MPI_INT, right, 9, 1, every_other, win);
  MPI_Win_fence(0, win);
  report("fence put to a vector type", buf[9] == left * 100 && buf[10] == -1 &&
                                           buf[11] == left * 100 + 1 && buf[13] == left * 100 + 2);
  /* A strided origin, replaced at the target. */
  int spread[6] = {7, 0, 8, 0, 9, 0};
  MPI_Accumulate(spread, 1, every_other, right, 0, 3, MPI_INT, MPI_REPLACE, win);
  MPI_Win_fence(0, win);
  report("fence accumulate replace from a vector type",
         buf[0] == 7 && buf[1] == 8 && buf[2] == 9 && buf[3] == left * 10 + 3);
  MPI_Type_free(&every_other);
  MPI_Win_free(&win);
}

static void passive(void) {
  int* counter = NULL;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, W, &counter, &win);
  int* flavor = NULL;
  int flag = 0;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  report("allocated window flavor", flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE);
  report("allocated window is zeroed", counter[0] == 0 && counter[3] == 0);
  MPI_Barrier(W);
  /* Every rank adds one to rank 0's counter and tries to swap its slot from 0. */
  int one = 1, old = -1, swapped = -1, zero = 0, me = rank + 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
  MPI_Compare_and_swap(&me, &zero, &swapped, MPI_INT, 0, 1, win);
  MPI_Win_unlock(0, win);
  report("fetch-and-op saw a count below the ranks", old >= 0 && old < size);
  int won = swapped == 0, winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, W);
  report("one compare-and-swap won", winners == 1);
  MPI_Barrier(W);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    report("every fetch-and-op applied once", counter[0] == size);
    report("the winner's value is in place", counter[1] >= 1 && counter[1] <= size);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(W);
  /* Shared locks: everyone reads rank 0's counter at once. */
  int seen = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  report("shared-lock get", seen == size);
  /* lock_all, a get-accumulate on the right neighbour's slot 2, flushed. */
  MPI_Barrier(W);
  const int right = (rank + 1) % size;
  int add = 5, before = -1;
  MPI_Win_lock_all(0, win);
  MPI_Get_accumulate(&add, 1, MPI_INT, &before, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_flush(right, win);
  report("get-accumulate under lock_all saw the old value", before == 0);
  MPI_Win_unlock_all(win);
  MPI_Barrier(W);
  report("own window after a barrier", counter[2] == 5);
  /* Request forms. */
  int value = 40 + rank, back = -1;
  MPI_Request reqs[2];
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Rput(&value, 1, MPI_INT, right, 3, 1, MPI_INT, win, &reqs[0]);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  MPI_Rget(&back, 1, MPI_INT, right, 3, 1, MPI_INT, win, &reqs[1]);
  MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  MPI_Win_unlock(right, win);
  report("rput then rget", back == 40 + rank);
  /* A request waited for after the unlock that completed it. */
  int late = -1;
  MPI_Request after;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Rget(&late, 1, MPI_INT, right, 3, 1, MPI_INT, win, &after);
  MPI_Win_unlock(right, win);
  MPI_Wait(&after, MPI_STATUS_IGNORE);
  report("rget waited for after its unlock", late == 40 + rank && after == MPI_REQUEST_NULL);
  MPI_Win_free(&win);
}

static void pscw(void) {
  int buf[2] = {-1, -1};
  MPI_Win win;
  MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, W, &win);
  MPI_Group world, to, from;
  MPI_Comm_group(W, &world);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Group_incl(world, 1, &right, &to);
  MPI_Group_incl(world, 1, &left, &from);
  MPI_Win_post(from, 0, win);
  MPI_Win_start(to, 0, win);
  int v = 1000 + rank;
  MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  report("post-start-complete-wait ring", buf[1] == 1000 + left && buf[0] == -1);
  MPI_Group_free(&world);
  MPI_Group_free(&to);
  MPI_Group_free(&from);
  MPI_Win_free(&win);
}

static void errors(void) {
  int buf[2];
  MPI_Win win;
  MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, W, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int v = 0, err, cls = MPI_SUCCESS;
  MPI_Win_fence(0, win);
  err = MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
  MPI_Error_class(err, &cls);
  report("put outside the window fails", cls == MPI_ERR_RMA_RANGE);
  MPI_Win_fence(0, win);
  err = MPI_Win_unlock(0, win);
  MPI_Error_class(err, &cls);
  report("unlock without a lock fails", cls == MPI_ERR_RMA_SYNC);
  err = MPI_Win_lock(12345, 0, 0, win);
  MPI_Error_class(err, &cls);
  report("a bad lock type fails", cls == MPI_ERR_LOCKTYPE);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  attributes();
  fence();
  passive();
  pscw();
  errors();
  int total = 0;
  MPI_Reduce(&fails, &total, 1, MPI_INT, MPI_SUM, 0, W);
  if (rank == 0) printf("rank 0 one_sided failures: %d\n", total);
  MPI_Finalize();
  return total != 0;
}
