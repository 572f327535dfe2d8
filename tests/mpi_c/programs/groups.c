/*
 * Groups and the communicators made from them: group algebra and rank translation, a
 * communicator of a group (MPI_Comm_create, by every rank; MPI_Comm_create_group, by its
 * members only), an intercommunicator between the two halves of the world with messages both
 * ways, its split, its merge, and a duplicate of it. Meant for NP=5 (halves of 2 and 3).
 */
#include <mpi.h>
#include <stdio.h>

static int fails = 0;

static void Expect(int rank, const char* what, int got, int want) {
  printf("rank %d %s %d\n", rank, what, got);
  if (got != want) {
    printf("rank %d FAIL %s: want %d\n", rank, what, want);
    ++fails;
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Group algebra on the world's group. */
  MPI_Group world, evens, odds, both, none, firsts, lasts;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int even_ranks[3] = {0, 2, 4}, n = 0, result = 0;
  MPI_Group_incl(world, 3, even_ranks, &evens);
  MPI_Group_excl(world, 3, even_ranks, &odds);
  MPI_Group_union(odds, evens, &both);
  MPI_Group_intersection(odds, evens, &none);
  int range_first[1][3] = {{0, 3, 1}}, range_last[1][3] = {{4, 2, -1}};
  MPI_Group_range_incl(world, 1, range_first, &firsts);
  MPI_Group_range_excl(world, 1, range_last, &lasts);
  MPI_Group_size(both, &n);
  Expect(rank, "union size", n, size);
  MPI_Group_compare(both, world, &result);
  Expect(rank, "union vs world is similar", result, MPI_SIMILAR);
  MPI_Group_compare(none, MPI_GROUP_EMPTY, &result);
  Expect(rank, "intersection is empty", result, MPI_IDENT);
  MPI_Group_size(firsts, &n);
  Expect(rank, "range_incl size", n, 4);
  MPI_Group_size(lasts, &n);
  Expect(rank, "range_excl size", n, 2);
  int in_odds = 0;
  MPI_Group_rank(odds, &in_odds);
  Expect(rank, "rank in odds", in_odds, rank % 2 ? rank / 2 : MPI_UNDEFINED);
  int from[2] = {0, 1}, to[2];
  MPI_Group_translate_ranks(odds, 2, from, both, to);
  Expect(rank, "odd 0 in union", to[0], 0);
  Expect(rank, "odd 1 in union", to[1], 1);
  MPI_Group_translate_ranks(evens, 2, from, odds, to);
  Expect(rank, "even 0 in odds", to[0], MPI_UNDEFINED);

  /* A communicator of the even ranks, by all and by members only. */
  MPI_Comm even_comm, even_group_comm = MPI_COMM_NULL;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
  if (rank % 2 == 0) {
    MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &even_group_comm);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even_comm);
    Expect(rank, "even sum", sum, 6);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even_group_comm);
    Expect(rank, "even sum by create_group", sum, 6);
    MPI_Comm_free(&even_comm);
    MPI_Comm_free(&even_group_comm);
  } else {
    Expect(rank, "odd rank gets no even comm", even_comm == MPI_COMM_NULL, 1);
  }

  /* An intercommunicator of the halves {0,1} and {2,3,4}. */
  int left = rank < 2;
  MPI_Comm half, inter, merged, inter_dup, inter_split;
  MPI_Comm_split(MPI_COMM_WORLD, left, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? 2 : 0, 9, &inter);
  int is_inter = 0, local = 0, remote = 0, local_rank = 0;
  MPI_Comm_test_inter(inter, &is_inter);
  MPI_Comm_size(inter, &local);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &local_rank);
  Expect(rank, "is inter", is_inter, 1);
  Expect(rank, "local size", local, left ? 2 : 3);
  Expect(rank, "remote size", remote, left ? 3 : 2);
  if (local_rank < 2) {
    int got = -1;
    MPI_Status st;
    MPI_Sendrecv(&rank, 1, MPI_INT, local_rank, 3, &got, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st);
    Expect(rank, "got from the other half", got, left ? rank + 2 : rank - 2);
    Expect(rank, "source in the remote group", st.MPI_SOURCE, local_rank);
  }
  MPI_Barrier(inter);
  MPI_Comm_dup(inter, &inter_dup);
  MPI_Comm_remote_size(inter_dup, &remote);
  Expect(rank, "dup remote size", remote, left ? 3 : 2);
  MPI_Comm_split(inter, local_rank % 2, local_rank, &inter_split);
  MPI_Comm_remote_size(inter_split, &remote);
  Expect(rank, "split remote size", remote, left ? (local_rank == 0 ? 2 : 1) : 1);
  MPI_Intercomm_merge(inter, left, &merged);
  int merged_rank = 0;
  MPI_Comm_rank(merged, &merged_rank);
  Expect(rank, "merged rank (low group first)", merged_rank, left ? rank + 3 : rank - 2);

  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter_split);
  MPI_Comm_free(&inter_dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Group* groups[] = {&world, &evens, &odds, &both, &none, &firsts, &lasts};
  for (int i = 0; i < 7; ++i) MPI_Group_free(groups[i]);
  Expect(rank, "freed group is null", world == MPI_GROUP_NULL, 1);
  printf("rank %d %s\n", rank, fails ? "FAIL" : "OK");
  MPI_Finalize();
  return 0;
}
