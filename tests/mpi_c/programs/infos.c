/* infos.c - info objects.
 * Tests: MPI_Info_create / set / get / get_valuelen / get_nkeys / get_nthkey (keys in the order
 * first set; setting a key again keeps its place and replaces its value), MPI_Info_get cutting
 * a value to valuelen characters, MPI_Info_delete, MPI_Info_dup (an independent copy),
 * MPI_Info_free (sets MPI_INFO_NULL), MPI_INFO_ENV (exists and may be read and duplicated),
 * MPI_Comm_set_info / MPI_Comm_get_info (gives a new info the caller frees); and, with
 * MPI_ERRORS_RETURN, the error classes of a key of MPI_MAX_INFO_KEY characters
 * (MPI_ERR_INFO_KEY), an empty key (MPI_ERR_INFO_KEY), a value of MPI_MAX_INFO_VAL characters
 * (MPI_ERR_INFO_VALUE), deleting an absent key (MPI_ERR_INFO_NOKEY), a negative n for
 * MPI_Info_get_nthkey (MPI_ERR_ARG), and that n == nkeys fails. Then rank 0's info travels
 * key by key in broadcasts and every rank rebuilds it in the same order.
 * Intended NP: 2 (works for any NP >= 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
static int rank, size, fails = 0;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}
static int error_class(int rc) {
  int c = -1;
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  MPI_Error_class(rc, &c);
  return c;
}

static void test_basics(void) {
  MPI_Info info, dup;
  char value[MPI_MAX_INFO_VAL], key[MPI_MAX_INFO_KEY];
  int flag, nkeys, len;
  MPI_Info_create(&info);
  MPI_Info_get_nkeys(info, &nkeys);
  report("a new info is empty", nkeys == 0);
  MPI_Info_set(info, "wdir", "/tmp/run");
  MPI_Info_set(info, "host", "node7");
  MPI_Info_set(info, "file", "input.dat");
  MPI_Info_set(info, "host", "node8");
  MPI_Info_get_nkeys(info, &nkeys);
  printf("rank %d nkeys %d\n", rank, nkeys);
  report("three keys", nkeys == 3);
  const char* order[] = {"wdir", "host", "file"};
  int in_order = 1;
  for (int i = 0; i < nkeys && i < 3; i++) {
    MPI_Info_get_nthkey(info, i, key);
    printf("rank %d key %d: %s\n", rank, i, key);
    in_order &= strcmp(key, order[i]) == 0;
  }
  report("keys in the order first set", in_order);
  MPI_Info_get(info, "host", MPI_MAX_INFO_VAL - 1, value, &flag);
  report("a key set again has the new value", flag && strcmp(value, "node8") == 0);
  MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL - 1, value, &flag);
  report("an absent key is not found", flag == 0);
  MPI_Info_get_valuelen(info, "wdir", &len, &flag);
  report("get_valuelen", flag && len == 8);
  char small[8];
  memset(small, 'X', sizeof small);
  MPI_Info_get(info, "file", 5, small, &flag);
  printf("rank %d value cut to 5: %s\n", rank, small);
  report("a value is cut to valuelen", flag && strcmp(small, "input") == 0);

  MPI_Info_dup(info, &dup);
  MPI_Info_delete(info, "wdir");
  MPI_Info_set(info, "extra", "1");
  MPI_Info_get_nkeys(dup, &nkeys);
  MPI_Info_get(dup, "wdir", MPI_MAX_INFO_VAL - 1, value, &flag);
  report("a dup does not change with the original",
         nkeys == 3 && flag && strcmp(value, "/tmp/run") == 0);
  MPI_Info_get_nthkey(info, 0, key);
  report("delete removes the key", strcmp(key, "host") == 0);
  MPI_Info_free(&info);
  MPI_Info_free(&dup);
  report("free sets MPI_INFO_NULL", info == MPI_INFO_NULL && dup == MPI_INFO_NULL);
}

static void test_env_and_comm(void) {
  MPI_Info env, used, hints;
  int nkeys = -1, rc;
  MPI_Comm dup;
  rc = MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys);
  report("MPI_INFO_ENV may be read", rc == MPI_SUCCESS && nkeys >= 0);
  rc = MPI_Info_dup(MPI_INFO_ENV, &env);
  report("MPI_INFO_ENV may be duplicated", rc == MPI_SUCCESS);
  MPI_Info_free(&env);

  MPI_Comm_dup(W, &dup);
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "nicsim_test_hint", "true");
  rc = MPI_Comm_set_info(dup, hints);
  report("MPI_Comm_set_info", rc == MPI_SUCCESS);
  MPI_Info_free(&hints);
  rc = MPI_Comm_get_info(dup, &used);
  report("MPI_Comm_get_info gives an info", rc == MPI_SUCCESS && used != MPI_INFO_NULL);
  rc = MPI_Info_get_nkeys(used, &nkeys);
  report("which may be read", rc == MPI_SUCCESS);
  MPI_Info_free(&used);
  MPI_Comm_free(&dup);
}

static void test_errors(void) {
  MPI_Info info;
  char longkey[MPI_MAX_INFO_KEY + 1], longvalue[MPI_MAX_INFO_VAL + 1];
  char key[MPI_MAX_INFO_KEY];
  int nkeys, rc;
  MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  MPI_Info_create(&info);
  MPI_Info_set(info, "a", "1");
  memset(longkey, 'k', MPI_MAX_INFO_KEY);
  longkey[MPI_MAX_INFO_KEY] = '\0';
  rc = MPI_Info_set(info, longkey, "v");
  report("key of MPI_MAX_INFO_KEY chars: MPI_ERR_INFO_KEY", error_class(rc) == MPI_ERR_INFO_KEY);
  longkey[MPI_MAX_INFO_KEY - 1] = '\0';
  rc = MPI_Info_set(info, longkey, "v");
  report("key of MPI_MAX_INFO_KEY-1 chars is fine", rc == MPI_SUCCESS);
  rc = MPI_Info_set(info, "", "v");
  report("empty key: MPI_ERR_INFO_KEY", error_class(rc) == MPI_ERR_INFO_KEY);
  memset(longvalue, 'v', MPI_MAX_INFO_VAL);
  longvalue[MPI_MAX_INFO_VAL] = '\0';
  rc = MPI_Info_set(info, "b", longvalue);
  report("value of MPI_MAX_INFO_VAL chars: MPI_ERR_INFO_VALUE",
         error_class(rc) == MPI_ERR_INFO_VALUE);
  rc = MPI_Info_delete(info, "absent");
  report("deleting an absent key: MPI_ERR_INFO_NOKEY", error_class(rc) == MPI_ERR_INFO_NOKEY);
  rc = MPI_Info_get_nthkey(info, -1, key);
  report("nthkey -1: MPI_ERR_ARG", error_class(rc) == MPI_ERR_ARG);
  MPI_Info_get_nkeys(info, &nkeys);
  rc = MPI_Info_get_nthkey(info, nkeys, key);
  report("nthkey nkeys fails", rc != MPI_SUCCESS);
  MPI_Info_get_nkeys(info, &nkeys);
  report("failed calls changed nothing", nkeys == 2);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  test_basics();
  test_env_and_comm();
  test_errors();

  /* Rank 0's info travels key by key in broadcasts; each rank rebuilds it in order. */
  MPI_Info mine, copy;
  char key[MPI_MAX_INFO_KEY], value[32];
  int nkeys = 0, flag, same = 1;
  MPI_Info_create(&mine);
  for (int i = 0; i < 16; i++) {
    snprintf(key, sizeof key, "key%02d", (i * 7) % 16);
    snprintf(value, sizeof value, "value %d", i * i);
    MPI_Info_set(mine, key, value);
  }
  MPI_Info_create(&copy);
  MPI_Info_get_nkeys(mine, &nkeys);
  MPI_Bcast(&nkeys, 1, MPI_INT, 0, W);
  for (int i = 0; i < nkeys; i++) {
    if (rank == 0) {
      MPI_Info_get_nthkey(mine, i, key);
      MPI_Info_get(mine, key, sizeof value - 1, value, &flag);
    }
    MPI_Bcast(key, sizeof key, MPI_CHAR, 0, W);
    MPI_Bcast(value, sizeof value, MPI_CHAR, 0, W);
    MPI_Info_set(copy, key, value);
  }
  for (int i = 0; i < nkeys; i++) {
    char k1[MPI_MAX_INFO_KEY], k2[MPI_MAX_INFO_KEY], v1[32], v2[32];
    MPI_Info_get_nthkey(mine, i, k1);
    MPI_Info_get_nthkey(copy, i, k2);
    MPI_Info_get(mine, k1, sizeof v1 - 1, v1, &flag);
    MPI_Info_get(copy, k2, sizeof v2 - 1, v2, &flag);
    same &= strcmp(k1, k2) == 0 && strcmp(v1, v2) == 0;
  }
  MPI_Info_get_nthkey(copy, nkeys - 1, key);
  printf("rank %d rebuilt %d keys, last %s\n", rank, nkeys, key);
  report("the broadcast info matches, in order", nkeys == 16 && same);
  MPI_Info_free(&mine);
  MPI_Info_free(&copy);

  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, W);
  printf("rank %d %s\n", rank, all ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return all ? 1 : 0;
}
