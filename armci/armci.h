/* armci-ofi: the ARMCI one-sided communication interface.
 *
 * Plain C, usable from C, C++ and (through wrappers) Fortran.  Names,
 * argument lists and constant values follow the ARMCI that Global Arrays is
 * written against, so GA configured with --with-armci=PREFIX builds and runs
 * unchanged.  Process ids are ranks in the ARMCI world unless a call says
 * otherwise.  See README.md for semantics and the ARMCI_* environment knobs.
 */
#ifndef ARMCI_OFI_ARMCI_H
#define ARMCI_OFI_ARMCI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARMCI_OFI 1
#define ARMCI_OFI_VERSION "0.1.0"

typedef long armci_size_t;
typedef int armci_hdl_t;    /* non-blocking request; 0 = nothing pending */
typedef int ARMCI_Group;    /* processor group handle */
typedef int armci_domain_t;

/* One vector transfer: ptr_array_len pieces of `bytes` bytes each. */
typedef struct {
  void **src_ptr_array;
  void **dst_ptr_array;
  int ptr_array_len;
  int bytes;
} armci_giov_t;

#define ARMCI_MAX_STRIDE_LEVEL 8
#define ARMCI_DOMAIN_SMP 0

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

/* Start-up and shut-down (reference counted: N inits need N finalizes). */
int ARMCI_Init(void);
int ARMCI_Init_args(int *argc, char ***argv);
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
void *ARMCI_Malloc_local(armci_size_t bytes);
int ARMCI_Free_local(void *ptr);
void ARMCI_Set_shm_limit(unsigned long shmemlimit);
int ARMCI_Uses_shm(void);
int ARMCI_Uses_shm_grp(ARMCI_Group *group);

/* Contiguous transfers.  Put and Acc return when the source buffer may be
 * reused; Get returns with the data in place. */
int ARMCI_Put(void *src, void *dst, int bytes, int proc);
int ARMCI_Get(void *src, void *dst, int bytes, int proc);
int ARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc);
int ARMCI_Put_flag(void *src, void *dst, int bytes, int *flag, int value, int proc);
void ARMCI_Copy(void *src, void *dst, int n);

/* Strided transfers: count[0] contiguous bytes, count[i] blocks at level i,
 * stride_arr[i] the byte stride of level i+1; stride_levels 0..8. */
int ARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc);
int ARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
               int dst_stride_arr[], int count[], int stride_levels, int proc);
int ARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                    int count[], int stride_levels, int *flag, int value, int proc);
int ARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr,
                        int dst_stride_arr[], int count[], int stride_levels, int *flag,
                        int value, int proc);

/* Vector transfers */
int ARMCI_PutV(armci_giov_t darr[], int len, int proc);
int ARMCI_GetV(armci_giov_t darr[], int len, int proc);
int ARMCI_AccV(int optype, void *scale, armci_giov_t darr[], int len, int proc);

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
int ARMCI_NbAccV(int optype, void *scale, armci_giov_t darr[], int len, int proc,
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

/* Local strided gather/scatter between a strided region and a buffer. */
int armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
int armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* Locality: a domain is a (virtual) shared-memory node. */
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

#endif /* ARMCI_OFI_ARMCI_H */
