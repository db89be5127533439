/* armci-ofi: the ARMCIX_* extensions that programs written for ARMCI-MPI
 * call: group split/dup, batches of mutexes owned by a library, and explicit
 * progress; and profile counting for layers above ARMCI. */
#ifndef ARMCI_OFI_ARMCIX_H
#define ARMCI_OFI_ARMCIX_H

#include "armci.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the parent group: processes passing the same color form
 * one new group, ordered by key, then by their rank in the parent.  A
 * negative color (MPI_UNDEFINED included) joins no group: *new_group is set
 * to an invalid handle for that process.  Return 0 on success. */
int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/* A batch of `count` mutexes on every process of *pgroup (NULL: the world),
 * independent of ARMCI_Create_mutexes and of other batches, so libraries can
 * own mutexes of their own.  Creation and destruction are collective over
 * the group; `proc` in the lock calls is a rank of that group.  Trylock
 * returns 0 when it took the mutex, non-zero when the mutex is held. */
typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;
armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);

/* Drives this process's outstanding network operations.  Never required
 * for correctness (each node's agent serves remote accesses on its own);
 * useful between long computations to move non-blocking transfers on. */
void ARMCIX_Progress(void);

/* ARMCI_PROFILE for layers above that move node-local data by load and
 * store themselves (the GA layer does not; it calls the vector API):
 * ARMCIX_Profiling() is non-zero
 * when the profile is on; ARMCIX_Profile_note counts one transfer of `bytes`
 * to (PUT, ACC) or from (GET) process `proc` in the vector rows of the table,
 * node-local or remote by where proc lives. */
enum { ARMCIX_PROFILE_PUT = 0, ARMCIX_PROFILE_GET = 1, ARMCIX_PROFILE_ACC = 2 };
int ARMCIX_Profiling(void);
void ARMCIX_Profile_note(int kind, int proc, long bytes);

/* ARMCI_TRACE for layers above: the path prefix their access trace goes to,
 * or NULL when tracing is off.  Valid until ARMCI_Finalize. */
const char *ARMCIX_Trace_prefix(void);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* ARMCI_OFI_ARMCIX_H */
