/* armci-ofi: the profiling interface.  Every ARMCI_* call (and armci_msg_*,
 * armci_notify*) is defined as PARMCI_* (parmci_*), and the ARMCI_ name is a
 * weak alias of it: a profiling library defines ARMCI_Put, measures, and
 * calls PARMCI_Put.  The library's own layers call each other through the
 * PARMCI_ names, so a tool sees each user call once. */
#ifndef ARMCI_OFI_PARMCI_H
#define ARMCI_OFI_PARMCI_H

#include "armci.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

int PARMCI_Init(void);
int PARMCI_Init_args(int *argc, char ***argv);
int PARMCI_Init_thread(int armci_requested);
#if ARMCI_OFI_HAVE_MPI
int PARMCI_Init_mpi_comm(MPI_Comm comm);
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
#endif
int PARMCI_Initialized(void);
void PARMCI_Finalize(void);
void PARMCI_Cleanup(void);
void PARMCI_Error(const char *msg, int code);

int PARMCI_Malloc(void *ptr_arr[], armci_size_t bytes);
int PARMCI_Free(void *ptr);
int PARMCI_Malloc_group(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group);
int PARMCI_Free_group(void *ptr, ARMCI_Group *group);
int PARMCI_Malloc_memdev(void *ptr_arr[], armci_size_t bytes, const char *device);
int PARMCI_Malloc_group_memdev(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group,
                               const char *device);
int PARMCI_Free_memdev(void *ptr);
int PARMCI_Free_group_memdev(void *ptr, ARMCI_Group *group);
void *PARMCI_Malloc_local(armci_size_t bytes);
int PARMCI_Free_local(void *ptr);
void PARMCI_Set_shm_limit(unsigned long shmemlimit);
int PARMCI_Uses_shm(void);
int PARMCI_Uses_shm_grp(ARMCI_Group *group);
void PARMCI_Memget(size_t bytes, armci_meminfo_t *meminfo, int memflg);
void *PARMCI_Memat(armci_meminfo_t *meminfo, long offset);
void PARMCI_Memdt(armci_meminfo_t *meminfo, long offset);
void PARMCI_Memctl(armci_meminfo_t *meminfo);

int PARMCI_Put(void *src, void *dst, int bytes, int proc);
int PARMCI_Get(void *src, void *dst, int bytes, int proc);
int PARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc);
int PARMCI_Put_flag(void *src, void *dst, int bytes, int *flag, int value, int proc);
void PARMCI_Copy(void *src, void *dst, int n);
int PARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                int count[], int stride_levels, int proc);
int PARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                int count[], int stride_levels, int proc);
int PARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                int dst_stride_arr[], int count[], int stride_levels, int proc);
int PARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                     int count[], int stride_levels, int *flag, int val, int proc);
int PARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr,
                         int dst_stride_arr[], int count[], int stride_levels, int *flag,
                         int val, int proc);
int PARMCI_PutV(armci_giov_t darr[], int len, int proc);
int PARMCI_GetV(armci_giov_t darr[], int len, int proc);
int PARMCI_AccV(int op, void *scale, armci_giov_t darr[], int len, int proc);
int PARMCI_PutValueInt(int src, void *dst, int proc);
int PARMCI_PutValueLong(long src, void *dst, int proc);
int PARMCI_PutValueFloat(float src, void *dst, int proc);
int PARMCI_PutValueDouble(double src, void *dst, int proc);
int PARMCI_GetValueInt(void *src, int proc);
long PARMCI_GetValueLong(void *src, int proc);
float PARMCI_GetValueFloat(void *src, int proc);
double PARMCI_GetValueDouble(void *src, int proc);

int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc,
                 armci_hdl_t *nb_handle);
int PARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                  int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                  int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                  int dst_stride_arr[], int count[], int stride_levels, int proc,
                  armci_hdl_t *nb_handle);
int PARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbAccV(int op, void *scale, armci_giov_t darr[], int len, int proc,
                  armci_hdl_t *nb_handle);
int PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *nb_handle);
int PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *nb_handle);
int PARMCI_Wait(armci_hdl_t *nb_handle);
int PARMCI_Test(armci_hdl_t *nb_handle);
int PARMCI_WaitProc(int proc);
int PARMCI_WaitAll(void);
void PARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);
void PARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);

void PARMCI_Fence(int proc);
void PARMCI_AllFence(void);
void PARMCI_GroupFence(ARMCI_Group *group);
void PARMCI_Barrier(void);
int PARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);
int PARMCI_Rmw_long(int op, void *ploc, void *prem, long extra, int proc);
int PARMCI_Create_mutexes(int num);
int PARMCI_Destroy_mutexes(void);
void PARMCI_Lock(int mutex, int proc);
void PARMCI_Unlock(int mutex, int proc);
int parmci_notify(int proc);
int parmci_notify_wait(int proc, int *pval);
void PARMCI_Access_begin(void *ptr);
void PARMCI_Access_end(void *ptr);

int PARMCI_Same_node(int proc);
void PARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out);
void PARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out,
                               ARMCI_Group *group_parent);
void PARMCI_Group_free(ARMCI_Group *group);
int PARMCI_Group_rank(ARMCI_Group *group, int *rank);
void PARMCI_Group_size(ARMCI_Group *group, int *size);
void PARMCI_Group_set_default(ARMCI_Group *group);
void PARMCI_Group_get_default(ARMCI_Group *group_out);
void PARMCI_Group_get_world(ARMCI_Group *group_out);
int PARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
int PARMCI_Ofi_stats(char *buf, int buflen);
long PARMCI_Ofi_stat(const char *name);

int parmci_msg_me(void);
int parmci_msg_nproc(void);
void parmci_msg_abort(int code);
void parmci_msg_init(int *argc, char ***argv);
#if ARMCI_OFI_HAVE_MPI
void parmci_msg_init_comm(MPI_Comm comm);
#endif
void parmci_msg_finalize(void);
void parmci_msg_snd(int tag, void *buffer, int len, int to);
void parmci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
int parmci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);
void parmci_msg_barrier(void);
void parmci_msg_group_barrier(ARMCI_Group *group);
void parmci_msg_bcast(void *buffer, int len, int root);
void parmci_msg_brdcst(void *buffer, int len, int root);
void parmci_msg_bcast_scope(int scope, void *buffer, int len, int root);
void parmci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);
void parmci_msg_clus_brdcst(void *buf, int len);
void parmci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void parmci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type,
                                ARMCI_Group *group);
void parmci_msg_reduce(void *x, int n, char *op, int type);
void parmci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);
void parmci_msg_igop(int *x, int n, char *op);
void parmci_msg_lgop(long *x, int n, char *op);
void parmci_msg_llgop(long long *x, int n, char *op);
void parmci_msg_fgop(float *x, int n, char *op);
void parmci_msg_dgop(double *x, int n, char *op);
void parmci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
void parmci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
void parmci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
void parmci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
void parmci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);
void parmci_msg_clus_igop(int *x, int n, char *op);
void parmci_msg_clus_lgop(long *x, int n, char *op);
void parmci_msg_clus_llgop(long long *x, int n, char *op);
void parmci_msg_clus_fgop(float *x, int n, char *op);
void parmci_msg_clus_dgop(double *x, int n, char *op);
void parmci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);
void parmci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* ARMCI_OFI_PARMCI_H */
