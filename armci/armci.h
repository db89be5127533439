/* armci-ofi: the ARMCI one-sided communication interface.
 *
 * Plain C, usable from C, C++ and (through wrappers) Fortran.  Names,
 * argument lists and constant values are those of the armci.h that Global
 * Arrays 5.9 is written against, so GA configured with --with-armci=PREFIX
 * builds and runs unchanged; the calls that only ARMCI-MPI's dialect has
 * (ARMCI_Init_thread*, the PARMCI_ profiling names, armcix.h) are here too,
 * with GA's types and values where the two dialects differ.  Process ids are
 * ranks in the ARMCI world unless a call says otherwise.  README.md describes
 * the semantics and the ARMCI_* environment knobs.
 */
#ifndef ARMCI_OFI_ARMCI_H
#define ARMCI_OFI_ARMCI_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "armci_ofi_config.h"

/* Both peers' armci.h include mpi.h: programs use MPI_COMM_WORLD or call
 * ARMCI_Init_mpi_comm after including only armci.h. */
#if ARMCI_OFI_HAVE_MPI
#include <mpi.h>
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ARMCI_OFI 1
#define ARMCI_OFI_VERSION ARMCI_OFI_PACKAGE_VERSION

typedef long armci_size_t;
typedef int armci_hdl_t;    /* non-blocking request; 0 = nothing pending */
typedef int ARMCI_Group;    /* processor group handle */
typedef int armci_domain_t;

/* One vector transfer: ptr_array_len pieces of `bytes` bytes each (GA's
 * field order; ARMCI-MPI puts `bytes` first). */
typedef struct {
  void **src_ptr_array;
  void **dst_ptr_array;
  int ptr_array_len;
  int bytes;
} armci_giov_t;

#define ARMCI_MAX_STRIDE_LEVEL 8
#define ARMCI_DOMAIN_SMP 0

/* Error codes GA's ARMCI defines for its callers (FAIL itself is left
 * alone when the program already has one, as GoogleTest does). */
#ifndef FAIL
#define FAIL -1
#endif
#define FAIL2 -2
#define FAIL3 -3
#define FAIL4 -4
#define FAIL5 -5
#define FAIL6 -6
#define FAIL7 -7
#define FAIL8 -8

/* ARMCI_Rmw operations */
#define ARMCI_SWAP 10
#define ARMCI_SWAP_LONG 11
#define ARMCI_FETCH_AND_ADD 12
#define ARMCI_FETCH_AND_ADD_LONG 13

/* Accumulate element types: dst += scale * src */
#define ARMCI_ACC_OFF 36
#define ARMCI_ACC_INT (ARMCI_ACC_OFF + 1) /* int */
#define ARMCI_ACC_DBL (ARMCI_ACC_OFF + 2) /* double */
#define ARMCI_ACC_FLT (ARMCI_ACC_OFF + 3) /* float */
#define ARMCI_ACC_CPL (ARMCI_ACC_OFF + 4) /* float complex (two floats) */
#define ARMCI_ACC_DCP (ARMCI_ACC_OFF + 5) /* double complex (two doubles) */
#define ARMCI_ACC_LNG (ARMCI_ACC_OFF + 6) /* long */

/* Start-up and shut-down (reference counted: N inits need N finalizes).
 * The ARMCI_Init* calls return 0 on success, except ARMCI_Init_mpi_comm,
 * which returns 1 (GA's GA_Initialize_comm goes on only for non-zero).
 * ARMCI_Init_thread takes an MPI thread level (MPI_THREAD_SINGLE ..
 * MPI_THREAD_MULTIPLE, or the ARMCI_THREAD_* values below without MPI);
 * the plain calls use the level MPI was initialised with, if it was. */
#define ARMCI_THREAD_SINGLE 0
#define ARMCI_THREAD_FUNNELED 1
#define ARMCI_THREAD_SERIALIZED 2
#define ARMCI_THREAD_MULTIPLE 3
int ARMCI_Init(void);
int ARMCI_Init_args(int *argc, char ***argv);
int ARMCI_Init_thread(int armci_requested);
#if ARMCI_OFI_HAVE_MPI
int ARMCI_Init_mpi_comm(MPI_Comm comm);
int ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
/* An MPI communicator whose ranks are the group's ranks (world included);
 * valid until the group is freed.  Needs MPI to be initialised. */
MPI_Comm armci_group_comm(ARMCI_Group *group);
#endif
int ARMCI_Initialized(void);
void ARMCI_Finalize(void);
void ARMCI_Cleanup(void);
void ARMCI_Error(const char *msg, int code);

/* Memory: collective over the world (or the default group / given group).
 * ptr_arr[i] receives process i's address; processes of the same node may
 * dereference each other's addresses directly. */
int ARMCI_Malloc(void *ptr_arr[], armci_size_t bytes);
int ARMCI_Free(void *ptr);
int ARMCI_Malloc_group(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group);
int ARMCI_Free_group(void *ptr, ARMCI_Group *group);
int ARMCI_Malloc_memdev(void *ptr_arr[], armci_size_t bytes, const char *device);
int ARMCI_Malloc_group_memdev(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group,
                              const char *device);
int ARMCI_Free_memdev(void *ptr);
int ARMCI_Free_group_memdev(void *ptr, ARMCI_Group *group);
/* Local memory the NIC can reach: usable as the local side of any transfer
 * without a copy. */
void *ARMCI_Malloc_local(armci_size_t bytes);
int ARMCI_Free_local(void *ptr);
void ARMCI_Set_shm_limit(unsigned long shmemlimit);
int ARMCI_Uses_shm(void);
int ARMCI_Uses_shm_grp(ARMCI_Group *group);

/* Non-collective memory: ARMCI_Memget allocates on the caller (memflg 0);
 * the meminfo travels to other processes by any means, and armci_addr is
 * then a valid ARMCI address of process cpid.  ARMCI_Memat gives a pointer
 * usable directly on the creator's (virtual) node and as the remote address
 * of transfers elsewhere; only the creator releases it (ARMCI_Memctl). */
typedef struct armci_meminfo_ds {
  char *armci_addr;  /* the creator's address, valid in ARMCI transfers */
  char *addr;        /* the same memory as seen on the creator's node */
  size_t size;       /* bytes */
  int cpid;          /* ARMCI rank of the creator */
  long idlist[128];  /* unused: kept for GA's layout */
} armci_meminfo_t;
void ARMCI_Memget(size_t bytes, armci_meminfo_t *meminfo, int memflg);
void *ARMCI_Memat(armci_meminfo_t *meminfo, long offset);
void ARMCI_Memdt(armci_meminfo_t *meminfo, long offset);
void ARMCI_Memctl(armci_meminfo_t *meminfo);

/* Contiguous transfers.  Put and Acc return when the source buffer may be
 * reused; Get returns with the data in place. */
int ARMCI_Put(void *src, void *dst, int bytes, int proc);
int ARMCI_Get(void *src, void *dst, int bytes, int proc);
int ARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc);
int ARMCI_Put_flag(void *src, void *dst, int bytes, int *flag, int value, int proc);
void ARMCI_Copy(void *src, void *dst, int n);
/* GA's deprecated local put (a plain copy). */
#define ARMCI_Put1(_s, _d, _b, _p) memcpy(_d, _s, _b), 0

/* Strided transfers: count[0] contiguous bytes, count[i] blocks at level i,
 * stride_arr[i] the byte stride of level i+1; stride_levels 0..8. */
int ARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
               int dst_stride_arr[], int count[], int stride_levels, int proc);
int ARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                    int count[], int stride_levels, int *flag, int val, int proc);
int ARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr,
                        int dst_stride_arr[], int count[], int stride_levels, int *flag,
                        int val, int proc);

/* Vector transfers */
int ARMCI_PutV(armci_giov_t darr[], int len, int proc);
int ARMCI_GetV(armci_giov_t darr[], int len, int proc);
int ARMCI_AccV(int op, void *scale, armci_giov_t darr[], int len, int proc);

/* Single values */
int ARMCI_PutValueInt(int src, void *dst, int proc);
int ARMCI_PutValueLong(long src, void *dst, int proc);
int ARMCI_PutValueFloat(float src, void *dst, int proc);
int ARMCI_PutValueDouble(double src, void *dst, int proc);
int ARMCI_GetValueInt(void *src, int proc);
long ARMCI_GetValueLong(void *src, int proc);
float ARMCI_GetValueFloat(void *src, int proc);
double ARMCI_GetValueDouble(void *src, int proc);

/* Non-blocking variants: a NULL handle makes the operation implicit
 * (completed by ARMCI_WaitAll / ARMCI_WaitProc). */
#define ARMCI_INIT_HANDLE(hdl) ((void)(*(hdl) = 0))
int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *nb_handle);
int ARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                 int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                 int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                 int dst_stride_arr[], int count[], int stride_levels, int proc,
                 armci_hdl_t *nb_handle);
int ARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbAccV(int op, void *scale, armci_giov_t darr[], int len, int proc,
                 armci_hdl_t *nb_handle);
int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *nb_handle);
int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *nb_handle);
int ARMCI_Wait(armci_hdl_t *nb_handle);
int ARMCI_Test(armci_hdl_t *nb_handle); /* 0: complete, non-zero: pending */
int ARMCI_WaitProc(int proc);
int ARMCI_WaitAll(void);
void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);
void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);

/* Completion and synchronisation.  Fence(proc): earlier puts/accs to proc
 * are complete at proc.  Barrier = AllFence + barrier over the default group.
 * Ordering holds per target NODE: operations from one process to any
 * processes of one (virtual) node take effect in issue order, and a call
 * addressed to proc may reach memory of any process on proc's node (the
 * node's heap is one address space).  Fence(proc) completes everything sent
 * to proc's node. */
void ARMCI_Fence(int proc);
void ARMCI_AllFence(void);
void ARMCI_GroupFence(ARMCI_Group *group);
void ARMCI_Barrier(void);

/* Atomics and mutexes */
int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);
int ARMCI_Create_mutexes(int num);
int ARMCI_Destroy_mutexes(void);
void ARMCI_Lock(int mutex, int proc);
void ARMCI_Unlock(int mutex, int proc);

/* Notification, ordered after the caller's earlier puts to proc's node:
 * armci_notify(proc) returns the number of notices sent to proc so far;
 * armci_notify_wait(proc, &v) waits for one more notice from proc than it
 * waited for before, stores that count in *v and returns how many arrived. */
int armci_notify(int proc);
int armci_notify_wait(int proc, int *pval);

/* Direct local access epochs (memory is coherent: these order accesses). */
void ARMCI_Access_begin(void *ptr);
void ARMCI_Access_end(void *ptr);

/* Local strided gather (read: region -> buf) and scatter (write: buf ->
 * region); GA redeclares both `extern void`. */
void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* Locality: a domain is a (virtual) shared-memory node; a domain id of -1
 * means the caller's own (as GA's ARMCI allowed). */
int ARMCI_Same_node(int proc);
int armci_sameclusnode(int proc);
int armci_domain_nprocs(armci_domain_t domain, int id);
int armci_domain_id(armci_domain_t domain, int glob_proc_id);
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
int armci_domain_my_id(armci_domain_t domain);
int armci_domain_count(armci_domain_t domain);
int armci_domain_same_id(armci_domain_t domain, int proc);

/* Processor groups.  Group_create is collective over the default group; each
 * process passes the members of the group it joins (lists may differ between
 * processes as long as they are disjoint), as ranks of the default group. */
void ARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out);
void ARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent);
void ARMCI_Group_free(ARMCI_Group *group);
int ARMCI_Group_rank(ARMCI_Group *group, int *rank);
void ARMCI_Group_size(ARMCI_Group *group, int *size);
void ARMCI_Group_set_default(ARMCI_Group *group);
void ARMCI_Group_get_default(ARMCI_Group *group_out);
void ARMCI_Group_get_world(ARMCI_Group *group_out);
int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);

/* GA's assertion helpers: print the caller's message, then end the job with
 * the code.  mp_group_name is the process-group name GA's ARMCI exported
 * (here always NULL). */
void derr_printf(const char *format, ...);
int dassertp_fail(const char *cond_string, const char *file, const char *func,
                  unsigned int line, int code);
extern char *mp_group_name;
#undef dassertp
#define dassertp(_enable, _cond, _plist)                            \
  do {                                                              \
    if ((_enable) && !(_cond)) {                                    \
      derr_printf _plist;                                           \
      dassertp_fail(#_cond, __FILE__, __func__, __LINE__, 1);       \
    }                                                               \
  } while (0)
#undef dassertc
#define dassertc(_enable, _cond, _plist, _code)                     \
  do {                                                              \
    if ((_enable) && !(_cond)) {                                    \
      derr_printf _plist;                                           \
      dassertp_fail(#_cond, __FILE__, __func__, __LINE__, _code);   \
    }                                                               \
  } while (0)
#undef dassert
#define dassert(_enable, _cond) dassertp((_enable), (_cond), (""))
#undef dassert1
#define dassert1(_enable, _cond, _ival) \
  dassertp((_enable), (_cond), ("%d: error ival=%d\n", armci_msg_me(), (int)(_ival)))
#define armci_die(_msg, _code) \
  dassertc(1, 0, ("%d:%s: %d\n", armci_msg_me(), (_msg), (_code)), _code)
#define armci_die2(_msg, _code1, _code2) \
  dassertc(1, 0, ("%d:%s: (%d,%d)\n", armci_msg_me(), (_msg), (_code1), (_code2)), _code1)

/* armci-ofi extensions */
/* ARMCI_Rmw with a long increment (FETCH_AND_ADD_LONG beyond the int range). */
int ARMCI_Rmw_long(int op, void *ploc, void *prem, long extra, int proc);
/* Counters of this process's runtime (registrations, key table, operations);
 * returns the number of bytes written to buf (a text report). */
int ARMCI_Ofi_stats(char *buf, int buflen);
/* One counter of that report by name (e.g. "remote_bytes"); -1 if unknown. */
long ARMCI_Ofi_stat(const char *name);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* As in ARMCI-MPI, armci.h brings the message-passing calls and the
 * profiling names with it. */
#include "message.h"
#include "parmci.h"

#endif /* ARMCI_OFI_ARMCI_H */
