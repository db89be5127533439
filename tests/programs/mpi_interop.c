/* ARMCI next to MPI in one program (both on the launcher's PMIx server), in
 * plain C: ARMCI_Init after MPI_Init, armci_group_comm for the world and a
 * subgroup, then ARMCI_Init_mpi_comm making the even MPI ranks the ARMCI
 * world.  Prints one PASS/FAIL line per check from MPI rank 0. */
#include <stdio.h>
#include <stdlib.h>

#include "armci.h" /* brings mpi.h and message.h, as both peers' armci.h do */

static int failures = 0;

static void check(int ok, const char *what) {
  int all_ok = 0, rank = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s mpi_interop: %s\n", all_ok ? "PASS" : "FAIL", what);
  if (!all_ok) ++failures;
}

/* Each member puts its rank into its right neighbour's block. */
static int ring_ok(void) {
  int me = armci_msg_me(), n = armci_msg_nproc(), right = (me + 1) % n;
  void **ptr = malloc(sizeof(void *) * (size_t)n);
  int ok = ARMCI_Malloc(ptr, sizeof(int)) == 0;
  ARMCI_PutValueInt(me, ptr[right], right);
  ARMCI_Barrier();
  ok = ok && *(int *)ptr[me] == (me + n - 1) % n;
  ARMCI_Free(ptr[me]);
  free(ptr);
  return ok;
}

int main(int argc, char **argv) {
  int rank, size, cmp;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* 1. ARMCI_Init in an MPI program: same ranks, usable communicators. */
  ARMCI_Init();
  check(armci_msg_me() == rank && armci_msg_nproc() == size, "ARMCI ranks are MPI_COMM_WORLD ranks");
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  MPI_Comm_compare(armci_group_comm(&world), MPI_COMM_WORLD, &cmp);
  check(cmp == MPI_IDENT || cmp == MPI_CONGRUENT, "armci_group_comm(world) is MPI_COMM_WORLD's group");
  int evens[64], ne = 0;
  for (int r = 0; r < size && ne < 64; r += 2) evens[ne++] = r;
  ARMCI_Group g;
  ARMCI_Group_create(ne, evens, &g);
  int ok = 1;
  if (rank % 2 == 0) {
    int gs = -1, gr = -1, ar = -1;
    MPI_Comm c = armci_group_comm(&g);
    MPI_Comm_size(c, &gs);
    MPI_Comm_rank(c, &gr);
    ARMCI_Group_rank(&g, &ar);
    int v = rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    ok = gs == ne && gr == ar && sum == (ne - 1) * ne;
  }
  check(ok, "armci_group_comm(subgroup) has the group's ranks and works");
  ARMCI_Group_free(&g);
  check(ring_ok(), "ARMCI put ring next to MPI");
  /* ARMCI_COLL_MPI=1 across nodes: the barrier above handed its step
   * between nodes to MPI. */
  const char *forced = getenv("ARMCI_COLL_MPI");
  if (forced && forced[0] == '1' && armci_domain_count(ARMCI_DOMAIN_SMP) > 1) {
    long steps = ARMCI_Ofi_stat("coll_mpi_steps");
    armci_msg_lgop(&steps, 1, "+");
    check(steps > 0, "ARMCI_COLL_MPI=1: collective steps between nodes went through MPI");
  }
  ARMCI_Finalize();
  check(!ARMCI_Initialized(), "ARMCI_Finalize ends ARMCI, MPI still runs");

  /* 2. ARMCI_Init_mpi_comm: the even ranks are the whole ARMCI world. */
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &sub);
  ok = 1;
  if (sub != MPI_COMM_NULL) {
    int sr, ss;
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_size(sub, &ss);
    /* GA's contract: non-zero on success. */
    ok = ARMCI_Init_mpi_comm(sub) == 1 && armci_msg_me() == sr && armci_msg_nproc() == ss && ring_ok();
    int x = 1;
    armci_msg_igop(&x, 1, "+");
    ok = ok && x == ss;
    ARMCI_Finalize();
    MPI_Comm_free(&sub);
  }
  check(ok, "ARMCI_Init_mpi_comm makes a sub-communicator the ARMCI world (returns 1)");

  /* 3. GA_Initialize_comm's pattern: ARMCI_Init_mpi_comm then ARMCI_Init,
   * and GA_Terminate's one ARMCI_Finalize.  ARMCI stays up (inits are
   * counted) until MPI_Finalize ends it; the job must then exit cleanly
   * (tests/checks/mpi_check.sh looks at the exit status and for error lines). */
  ok = ARMCI_Init_mpi_comm(MPI_COMM_WORLD) == 1 && ARMCI_Init() == 0 && ring_ok();
  ARMCI_Finalize();
  check(ok && ARMCI_Initialized(), "two inits, one finalize: ARMCI still up before MPI_Finalize");
  MPI_Finalize();
  return failures ? 1 : 0;
}
