/* A program written for ARMCI-MPI's dialect, in plain C: it includes only
 * armci.h and armcix.h and expects them to bring mpi.h and message.h; it
 * starts with ARMCI_Init_thread, splits and duplicates groups, owns mutex
 * batches, calls ARMCIX_Progress; and it defines functions named `rmw` and
 * `same_node` of its own, which must not replace anything inside the
 * library.  One PASS/FAIL line per check from rank 0. */
#include <stdio.h>
#include <stdlib.h>

#include <armci.h>
#include <armcix.h>

static int failures = 0;

static void check(int ok, const char *what) {
  int all_ok = ok;
  armci_msg_igop(&all_ok, 1, "min"); /* message.h came with armci.h */
  if (armci_msg_me() == 0) printf("%s armcix_dialect: %s\n", all_ok ? "PASS" : "FAIL", what);
  if (!all_ok) ++failures;
}

/* Application functions whose names were once internal to the library:
 * with only the public API exported they stay the application's. */
int rmw(int op, void *ploc, void *prem, long extra, int proc) {
  (void)op, (void)ploc, (void)prem, (void)extra, (void)proc;
  return 4242;
}
int same_node(const char *call, int proc) {
  (void)call, (void)proc;
  return -7;
}

static void **alloc(int bytes) {
  void **p = malloc(sizeof(void *) * (size_t)armci_msg_nproc());
  if (ARMCI_Malloc(p, bytes) != 0) abort();
  return p;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rc = ARMCI_Init_thread(MPI_THREAD_SERIALIZED);
  int me = armci_msg_me(), n = armci_msg_nproc(), wr = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  check(rc == 0 && wr == me && ARMCI_Initialized(), "ARMCI_Init_thread, MPI_COMM_WORLD from armci.h");

  /* The library's Rmw beside an application `rmw`. */
  void **cnt = alloc(sizeof(int));
  *(int *)cnt[me] = 0;
  ARMCI_Barrier();
  int old = -1, r = ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, cnt[0], 1, 0);
  ARMCI_Barrier();
  int total = me == 0 ? *(int *)cnt[0] : n;
  armci_msg_bcast(&total, sizeof total, 0);
  check(r == 0 && old >= 0 && old < n && total == n && rmw(0, 0, 0, 0, 0) == 4242 &&
            same_node("", 0) == -7 && ARMCI_Same_node(me) == 1,
        "ARMCI_Rmw and ARMCI_Same_node unaffected by application symbols rmw/same_node");

  /* Split by parity, ordered by descending world rank (key = -rank). */
  ARMCI_Group world, half, dup;
  ARMCI_Group_get_world(&world);
  int color = me % 2;
  rc = ARMCIX_Group_split(&world, color, -me, &half);
  int hs = -1, hr = -1;
  ARMCI_Group_size(&half, &hs);
  ARMCI_Group_rank(&half, &hr);
  int members = 0;
  for (int p = color; p < n; p += 2) ++members;
  int expect_rank = 0; /* members of my color above me come first */
  for (int p = me + 2; p < n; p += 2) ++expect_rank;
  check(rc == 0 && hs == members && hr == expect_rank && ARMCI_Absolute_id(&half, 0) == (n - 1 - ((n - 1 - color) % 2)),
        "ARMCIX_Group_split: groups by color, ranks by key");

  /* A negative color joins no group. */
  ARMCI_Group none;
  rc = ARMCIX_Group_split(&world, me == 0 ? -1 : 0, 0, &none);
  int ns = -1;
  if (me != 0) ARMCI_Group_size(&none, &ns);
  check(rc == 0 && (me == 0 ? none == -1 : ns == n - 1), "ARMCIX_Group_split: negative color, no group");
  if (me != 0) ARMCI_Group_free(&none);

  rc = ARMCIX_Group_dup(&half, &dup);
  int ds = -1, dr = -1;
  ARMCI_Group_size(&dup, &ds);
  ARMCI_Group_rank(&dup, &dr);
  check(rc == 0 && ds == hs && dr == hr && dup != half, "ARMCIX_Group_dup: same members and ranks, new handle");

  /* Two batches of mutexes on the half group, independent of each other
   * and of ARMCI_Create_mutexes; a counter on group rank 0 under lock. */
  void **hc = malloc(sizeof(void *) * (size_t)hs);
  ARMCI_Malloc_group(hc, sizeof(long), &half);
  *(long *)hc[hr] = 0;
  armcix_mutex_hdl_t a = ARMCIX_Create_mutexes_hdl(2, &half);
  armcix_mutex_hdl_t b = ARMCIX_Create_mutexes_hdl(1, NULL);
  ARMCI_Create_mutexes(1);
  const int owner = ARMCI_Absolute_id(&half, 0);
  for (int i = 0; i < 20; ++i) {
    ARMCIX_Lock_hdl(a, 1, 0);
    long v = 0;
    ARMCI_Get(hc[0], &v, sizeof v, owner);
    ++v;
    ARMCI_Put(&v, hc[0], sizeof v, owner);
    ARMCIX_Unlock_hdl(a, 1, 0);
    ARMCIX_Progress();
  }
  ARMCI_Barrier();
  long got = 0;
  ARMCI_Get(hc[0], &got, sizeof got, owner);
  check(a != NULL && b != NULL && got == 20L * hs, "ARMCIX_Lock_hdl/Unlock_hdl: exclusive counter updates");

  /* Trylock: busy while world rank 0 holds mutex 0 of batch b on rank n-1. */
  if (me == 0) ARMCIX_Lock_hdl(b, 0, n - 1);
  ARMCI_Barrier();
  int busy = me == 0 ? 1 : ARMCIX_Trylock_hdl(b, 0, n - 1);
  ARMCI_Barrier();
  if (me == 0) ARMCIX_Unlock_hdl(b, 0, n - 1);
  ARMCI_Barrier();
  int took = -1;
  if (me == n - 1) {
    took = ARMCIX_Trylock_hdl(b, 0, n - 1);
    if (took == 0) ARMCIX_Unlock_hdl(b, 0, n - 1);
  }
  armci_msg_bcast(&took, sizeof took, n - 1);
  /* The batches are independent of ARMCI's own mutexes. */
  ARMCI_Lock(0, 0);
  ARMCIX_Lock_hdl(b, 0, 0);
  ARMCIX_Unlock_hdl(b, 0, 0);
  ARMCI_Unlock(0, 0);
  check(busy != 0 && took == 0, "ARMCIX_Trylock_hdl: busy while held, taken when free");

  check(ARMCIX_Destroy_mutexes_hdl(a) == 0 && ARMCIX_Destroy_mutexes_hdl(b) == 0 && ARMCI_Destroy_mutexes() == 0,
        "ARMCIX_Destroy_mutexes_hdl");
  ARMCI_Free_group(hc[hr], &half);
  free(hc);
  ARMCI_Group_free(&dup);
  ARMCI_Group_free(&half);
  ARMCI_Free(cnt[me]);
  free(cnt);
  ARMCI_Finalize();
  MPI_Finalize();
  return failures ? 1 : 0;
}
