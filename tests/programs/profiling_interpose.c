/* The PARMCI_ profiling interface as a tool uses it: this program defines
 * ARMCI_Put, ARMCI_AllFence, ARMCI_Barrier and armci_msg_barrier itself,
 * counts the calls and forwards them to the PARMCI_/parmci_ names.  Built
 * twice: against libarmci.so (dynamic interposition) and against the static
 * archive (where only the library's weak ARMCI_ names let this link).  The
 * library's own calls between layers must not reach the tool: a barrier
 * fences internally without calling ARMCI_AllFence.  PASS/FAIL per check
 * from rank 0. */
#include <stdio.h>
#include <stdlib.h>

#include <armci.h>

static int n_put, n_allfence, n_barrier, n_msg_barrier;

int ARMCI_Put(void *src, void *dst, int bytes, int proc) {
  ++n_put;
  return PARMCI_Put(src, dst, bytes, proc);
}
void ARMCI_AllFence(void) {
  ++n_allfence;
  PARMCI_AllFence();
}
void ARMCI_Barrier(void) {
  ++n_barrier;
  PARMCI_Barrier();
}
void armci_msg_barrier(void) {
  ++n_msg_barrier;
  parmci_msg_barrier();
}

static int failures = 0;
static void check(int ok, const char *what) {
  parmci_msg_igop(&ok, 1, "min");
  if (armci_msg_me() == 0) printf("%s profiling: %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

int main(void) {
  ARMCI_Init();
  int me = armci_msg_me(), n = armci_msg_nproc(), right = (me + 1) % n;
  void **p = malloc(sizeof(void *) * (size_t)n);
  ARMCI_Malloc(p, 4 * sizeof(int));
  int v[4] = {me, me + 1, me + 2, me + 3};
  for (int i = 0; i < 3; ++i) ARMCI_Put(v, p[right], sizeof v, right);
  ARMCI_PutValueInt(7, (int *)p[right] + 3, right); /* not a call of ARMCI_Put */
  ARMCI_Barrier();
  const int *mine = (const int *)p[me];
  const int left = (me + n - 1) % n;
  check(mine[0] == left && mine[2] == left + 2 && mine[3] == 7, "data moved by PARMCI_Put through the tool's ARMCI_Put");
  check(n_put == 3, "the tool saw each ARMCI_Put call once, and no other call as one");
  check(n_barrier == 1 && n_allfence == 0 && n_msg_barrier == 0,
        "ARMCI_Barrier seen once; its internal fence and barrier did not reach the tool");
  armci_msg_barrier();
  ARMCI_AllFence();
  check(n_msg_barrier == 1 && n_allfence == 1, "armci_msg_barrier and ARMCI_AllFence seen when called");
  ARMCI_Free(p[me]);
  free(p);
  ARMCI_Finalize();
  return failures ? 1 : 0;
}
