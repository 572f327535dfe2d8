/* attributes.c - attribute caching on communicators and datatypes, and communicator names.
 * Tests: MPI_Comm_create_keyval with counting copy/delete callbacks: set, get, replace (the
 * delete callback sees the old value), MPI_Comm_dup (copy callback; MPI_COMM_DUP_FN copies,
 * MPI_COMM_NULL_COPY_FN does not), MPI_Comm_free (delete callbacks), MPI_Comm_delete_attr;
 * a keyval freed while in use keeps working for the attributes that use it; a delete
 * callback that fails makes the replace, the delete, and a failing copy callback makes the
 * dup return an error (the dup gives MPI_COMM_NULL) and leaves the value; a delete callback
 * that deletes other attributes; the MPI-1 forms (MPI_Keyval_create, MPI_Attr_put/get/delete);
 * predefined attributes of MPI_COMM_WORLD (checked for valid ranges only); setting a
 * predefined attribute and using an unknown keyval fail; MPI_Type_create_keyval and type
 * attributes copied by MPI_Type_dup and deleted by MPI_Type_free; MPI_Comm_set_name /
 * get_name (world and self names, a dup is unnamed, long names are truncated).
 * Intended NP: 4 (works for any NP >= 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define W MPI_COMM_WORLD
static int rank, size, fails = 0;
static int copies = 0, deletes = 0;
static void* last_deleted = NULL;
static int bomb = 1;

static void report(const char* what, int ok) {
  if (ok)
    printf("rank %d OK %s\n", rank, what);
  else {
    printf("rank %d FAIL %s\n", rank, what);
    fails++;
  }
}

/* Copies the value plus one (through the int it points at), counting calls. */
static int count_copy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c;
  (void)k;
  (void)extra;
  copies++;
  *(int*)in += 1;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Comm c, int k, void* val, void* extra) {
  (void)c;
  (void)k;
  (void)extra;
  deletes++;
  last_deleted = val;
  if (val != NULL && val != (void*)1) *(int*)val -= 1;
  return MPI_SUCCESS;
}
static int bomb_copy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c;
  (void)k;
  (void)extra;
  (void)in;
  (void)out;
  *flag = 1;
  return MPI_ERR_OTHER;
}
static int bomb_delete(MPI_Comm c, int k, void* val, void* extra) {
  (void)c;
  (void)k;
  (void)val;
  (void)extra;
  return bomb ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int key_a, key_b, key_c;
static int chain_delete(MPI_Comm c, int k, void* val, void* extra) {
  (void)k;
  (void)val;
  (void)extra;
  MPI_Comm_delete_attr(c, key_a);
  MPI_Comm_delete_attr(c, key_c);
  return MPI_SUCCESS;
}
static int type_copies = 0, type_deletes = 0;
static int type_copy(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
  (void)t;
  (void)k;
  (void)extra;
  type_copies++;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int k, void* val, void* extra) {
  (void)t;
  (void)k;
  (void)val;
  (void)extra;
  type_deletes++;
  return MPI_SUCCESS;
}

static void test_comm_attributes(void) {
  MPI_Comm dup, dup2;
  int key, dupkey, nullkey, flag;
  int value = 10, other = 20;
  void* got;
  MPI_Comm_dup(W, &dup);
  MPI_Comm_create_keyval(count_copy, count_delete, &key, NULL);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dupkey, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nullkey, NULL);

  MPI_Comm_get_attr(dup, key, &got, &flag);
  report("get before set finds nothing", flag == 0);
  MPI_Comm_set_attr(dup, key, &value);
  MPI_Comm_set_attr(dup, dupkey, (void*)&other);
  MPI_Comm_set_attr(dup, nullkey, (void*)&other);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  report("get after set", flag == 1 && got == &value);
  MPI_Comm_get_attr(W, key, &got, &flag);
  report("attribute is the communicator's only", flag == 0);

  MPI_Comm_set_attr(dup, key, &other);
  printf("rank %d replace: deletes %d old value deleted %d\n", rank, deletes,
         last_deleted == &value);
  report("replace runs the delete callback on the old value",
         deletes == 1 && last_deleted == &value && value == 9);
  MPI_Comm_set_attr(dup, key, &value);
  value = 10;
  other = 20;
  deletes = 0;

  MPI_Comm_dup(dup, &dup2);
  printf("rank %d dup: copies %d value %d\n", rank, copies, value);
  report("dup runs the copy callback", copies == 1 && value == 11);
  MPI_Comm_get_attr(dup2, key, &got, &flag);
  report("dup holds the copied value", flag == 1 && got == &value);
  MPI_Comm_get_attr(dup2, dupkey, &got, &flag);
  report("MPI_COMM_DUP_FN copies", flag == 1 && got == &other);
  MPI_Comm_get_attr(dup2, nullkey, &got, &flag);
  report("MPI_COMM_NULL_COPY_FN does not copy", flag == 0);

  /* The keyval freed while two communicators use it stays usable for them. */
  MPI_Comm_free_keyval(&key);
  report("free_keyval sets MPI_KEYVAL_INVALID", key == MPI_KEYVAL_INVALID);
  MPI_Comm_free(&dup2);
  printf("rank %d free of dup: deletes %d value %d\n", rank, deletes, value);
  report("free runs the delete callback", deletes == 1 && value == 10);
  report("free sets MPI_COMM_NULL", dup2 == MPI_COMM_NULL);
  MPI_Comm_free(&dup);
  report("free of the original runs it too", deletes == 2 && value == 9);
  MPI_Comm_free_keyval(&dupkey);
  MPI_Comm_free_keyval(&nullkey);
}

static void test_failing_callbacks(void) {
  MPI_Comm dup, dup2 = W;
  int key, flag, rc;
  void* got;
  MPI_Comm_dup(W, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Comm_create_keyval(bomb_copy, bomb_delete, &key, NULL);
  rc = MPI_Comm_set_attr(dup, key, (void*)1);
  report("first set succeeds", rc == MPI_SUCCESS);
  rc = MPI_Comm_set_attr(dup, key, (void*)2);
  report("replace fails when the delete callback fails", rc != MPI_SUCCESS);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  report("the old value stays", flag == 1 && got == (void*)1);
  rc = MPI_Comm_delete_attr(dup, key);
  report("delete fails when the delete callback fails", rc != MPI_SUCCESS);
  rc = MPI_Comm_dup(dup, &dup2);
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  report("dup fails when a copy callback fails", rc != MPI_SUCCESS && cls == MPI_ERR_OTHER);
  report("a failed dup gives MPI_COMM_NULL", dup2 == MPI_COMM_NULL);
  bomb = 0;
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&key);
}

static void test_delete_in_delete(void) {
  int flag;
  void* got;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_a, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, chain_delete, &key_b, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_c, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, key_a, (void*)1);
  MPI_Comm_set_attr(MPI_COMM_SELF, key_b, (void*)2);
  MPI_Comm_set_attr(MPI_COMM_SELF, key_c, (void*)3);
  MPI_Comm_delete_attr(MPI_COMM_SELF, key_b);
  int left = 0;
  MPI_Comm_get_attr(MPI_COMM_SELF, key_a, &got, &flag);
  left += flag;
  MPI_Comm_get_attr(MPI_COMM_SELF, key_b, &got, &flag);
  left += flag;
  MPI_Comm_get_attr(MPI_COMM_SELF, key_c, &got, &flag);
  left += flag;
  report("a delete callback deletes other attributes", left == 0);
  MPI_Comm_free_keyval(&key_a);
  MPI_Comm_free_keyval(&key_b);
  MPI_Comm_free_keyval(&key_c);
}

static void test_mpi1_forms(void) {
  int key, flag, v = 5;
  int* got;
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, NULL);
  MPI_Attr_put(W, key, &v);
  MPI_Attr_get(W, key, &got, &flag);
  report("MPI_Attr_get finds MPI_Attr_put's value", flag == 1 && got == &v);
  MPI_Attr_delete(W, key);
  MPI_Attr_get(W, key, &got, &flag);
  report("MPI_Attr_delete removes it", flag == 0);
  MPI_Keyval_free(&key);
  report("MPI_Keyval_free", key == MPI_KEYVAL_INVALID);
}

static void test_predefined(void) {
  int *v, flag, rc, key;
  MPI_Comm_get_attr(W, MPI_TAG_UB, &v, &flag);
  report("MPI_TAG_UB at least 32767", flag && *v >= 32767);
  MPI_Comm_get_attr(W, MPI_HOST, &v, &flag);
  report("MPI_HOST valid", flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
  MPI_Comm_get_attr(W, MPI_IO, &v, &flag);
  report("MPI_IO valid",
         flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
  MPI_Comm_get_attr(W, MPI_WTIME_IS_GLOBAL, &v, &flag);
  report("MPI_WTIME_IS_GLOBAL valid", !flag || *v == 0 || *v == 1);
  MPI_Comm_get_attr(W, MPI_UNIVERSE_SIZE, &v, &flag);
  /* Open MPI gives the slots it was offered, which --oversubscribe may make fewer. */
  report("MPI_UNIVERSE_SIZE valid", !flag || *v > 0);
  MPI_Comm_get_attr(W, MPI_APPNUM, &v, &flag);
  report("MPI_APPNUM valid", !flag || *v >= 0);
  MPI_Comm_get_attr(W, MPI_LASTUSEDCODE, &v, &flag);
  report("MPI_LASTUSEDCODE valid", flag && *v >= MPI_ERR_LASTCODE);

  MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
  rc = MPI_Comm_set_attr(W, MPI_TAG_UB, NULL);
  report("setting MPI_TAG_UB fails", rc != MPI_SUCCESS);
  rc = MPI_Comm_delete_attr(W, MPI_TAG_UB);
  report("deleting MPI_TAG_UB fails", rc != MPI_SUCCESS);
  rc = MPI_Comm_get_attr(W, MPI_KEYVAL_INVALID, &v, &flag);
  report("MPI_KEYVAL_INVALID fails", rc != MPI_SUCCESS);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  int stale = key;
  MPI_Comm_free_keyval(&key);
  rc = MPI_Comm_set_attr(W, stale, NULL);
  report("a freed, unused keyval fails", rc != MPI_SUCCESS);
  MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

static void test_type_attributes(void) {
  MPI_Datatype t, d;
  int key, flag;
  void* got;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_create_keyval(type_copy, type_delete, &key, NULL);
  MPI_Type_set_attr(t, key, (void*)&size);
  MPI_Type_get_attr(t, key, &got, &flag);
  report("type attribute set", flag == 1 && got == &size);
  MPI_Type_dup(t, &d);
  MPI_Type_get_attr(d, key, &got, &flag);
  report("MPI_Type_dup copies it", type_copies == 1 && flag == 1 && got == &size);
  MPI_Type_free(&t);
  MPI_Type_free(&d);
  printf("rank %d type attribute deletes %d\n", rank, type_deletes);
  report("MPI_Type_free deletes it", type_deletes == 2);
  MPI_Type_free_keyval(&key);
  report("MPI_Type_free_keyval", key == MPI_KEYVAL_INVALID);
}

static void test_names(void) {
  char name[MPI_MAX_OBJECT_NAME], longname[300];
  int len;
  MPI_Comm dup, dup2;
  MPI_Comm_get_name(W, name, &len);
  report("world is MPI_COMM_WORLD", strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  report("self is MPI_COMM_SELF", strcmp(name, "MPI_COMM_SELF") == 0 && len == 13);
  MPI_Comm_dup(W, &dup);
  MPI_Comm_get_name(dup, name, &len);
  report("a dup has no name", len == 0 && name[0] == '\0');
  MPI_Comm_set_name(dup, "halo exchange");
  MPI_Comm_get_name(dup, name, &len);
  printf("rank %d dup named '%s'\n", rank, name);
  report("set_name then get_name", strcmp(name, "halo exchange") == 0 && len == 13);
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_name(dup2, name, &len);
  report("a dup of a named communicator has no name", len == 0);
  memset(longname, 'n', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  MPI_Comm_set_name(dup2, longname);
  MPI_Comm_get_name(dup2, name, &len);
  report("a long name is truncated",
         len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == MPI_MAX_OBJECT_NAME - 1);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  test_comm_attributes();
  test_failing_callbacks();
  test_delete_in_delete();
  test_mpi1_forms();
  test_predefined();
  test_type_attributes();
  test_names();
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, W);
  printf("rank %d %s\n", rank, all ? "FAIL total" : "OK all");
  fflush(stdout);
  MPI_Finalize();
  return all ? 1 : 0;
}
