/* errhandlers.c - error handlers of the program's, and error classes and codes it adds.
 * Tests: MPI_Comm_create_errhandler and MPI_Comm_set_errhandler on a dup: an erroneous send
 * (rank == size) calls the handler with the communicator and an MPI_ERR_RANK code, and the
 * call returns that code; MPI_Comm_call_errhandler calls it and returns MPI_SUCCESS;
 * MPI_Comm_get_errhandler gives the handler (a handle the caller frees); the handler keeps
 * working after MPI_Errhandler_free while a communicator uses it; a dup inherits it;
 * MPI_Comm_call_errhandler under MPI_ERRORS_RETURN returns MPI_SUCCESS; MPI_Add_error_class /
 * MPI_Add_error_code / MPI_Add_error_string: MPI_Error_class and MPI_Error_string of the new
 * code, MPI_LASTUSEDCODE covers it, and a handler receives it. A token then goes round the
 * ranks of the dup, with no call to the handler.
 * Intended NP: 2 (works for any NP >= 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
static int rank, size, fails = 0;
static int calls = 0, seen_code = -1;
static MPI_Comm seen_comm = MPI_COMM_NULL;

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
static void record(MPI_Comm* comm, int* code, ...) {
  calls++;
  seen_comm = *comm;
  seen_code = *code;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  MPI_Comm dup, dup2;
  MPI_Errhandler eh, got;
  int buf = 0, rc;
  MPI_Comm_dup(W, &dup);
  MPI_Comm_create_errhandler(record, &eh);
  MPI_Comm_set_errhandler(dup, eh);

  rc = MPI_Send(&buf, 1, MPI_INT, size, 0, dup);
  printf("rank %d handler calls %d rank class %d\n", rank, calls,
         error_class(seen_code) == MPI_ERR_RANK);
  report("an error calls the handler",
         calls == 1 && seen_comm == dup && error_class(seen_code) == MPI_ERR_RANK);
  report("and the call returns the code", error_class(rc) == MPI_ERR_RANK);

  rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
  report("MPI_Comm_call_errhandler calls it", calls == 2 && seen_code == MPI_ERR_OTHER);
  report("and returns MPI_SUCCESS", rc == MPI_SUCCESS);

  MPI_Comm_get_errhandler(dup, &got);
  report("MPI_Comm_get_errhandler gives it", got == eh);
  MPI_Errhandler_free(&got);
  MPI_Errhandler_free(&eh);
  report("MPI_Errhandler_free sets MPI_ERRHANDLER_NULL", eh == MPI_ERRHANDLER_NULL);
  MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
  report("a freed handler still serves its communicator", calls == 3);

  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER);
  report("a dup inherits the handler", calls == 4 && seen_comm == dup2);

  MPI_Comm_set_errhandler(dup2, MPI_ERRORS_RETURN);
  rc = MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER);
  report("call_errhandler under MPI_ERRORS_RETURN", rc == MPI_SUCCESS && calls == 4);
  MPI_Comm_get_errhandler(dup2, &got);
  report("get gives MPI_ERRORS_RETURN", got == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&got);
  report("a predefined handle got may be freed", got == MPI_ERRHANDLER_NULL);

  int new_class, new_code, len, *last, flag;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Add_error_class(&new_class);
  MPI_Add_error_code(new_class, &new_code);
  MPI_Add_error_string(new_code, "the reactor is too hot");
  report("new class above MPI_ERR_LASTCODE", new_class > MPI_ERR_LASTCODE);
  report("new code of the new class", error_class(new_code) == new_class);
  MPI_Error_string(new_code, text, &len);
  printf("rank %d new code text: %s\n", rank, text);
  report("MPI_Error_string of the new code",
         strcmp(text, "the reactor is too hot") == 0 && len == (int)strlen(text));
  MPI_Comm_get_attr(W, MPI_LASTUSEDCODE, &last, &flag);
  report("MPI_LASTUSEDCODE covers it", flag && *last >= new_code);
  MPI_Comm_call_errhandler(dup, new_code);
  report("a handler receives the new code", calls == 5 && seen_code == new_code);

  /* A token goes round the ranks of the dup, through its error handler's communicator. */
  int token = 0, ok = 1;
  for (int round = 0; round < 20; round++) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, in = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, next, round, &in, 1, MPI_INT, prev, round, dup,
                 MPI_STATUS_IGNORE);
    ok &= in == token;
    token = in + 1;
  }
  printf("rank %d token after 20 rounds %d\n", rank, token);
  report("communication after the errors", ok && token == 20 && calls == 5);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);

  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, W);
  printf("rank %d %s\n", rank, all ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return all ? 1 : 0;
}
