/* armci-ofi: ARMCI's message-passing and collective calls (message.h).
 * Plain calls act on the default group; *_scope calls narrow it to the
 * caller's node (SCOPE_NODE) or to one process per node (SCOPE_MASTERS);
 * group_* calls take an explicit group. */
#ifndef ARMCI_OFI_MESSAGE_H
#define ARMCI_OFI_MESSAGE_H

#include "armci.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of reductions */
#define ARMCI_INT -99
#define ARMCI_LONG -101
#define ARMCI_LONG_LONG -102
#define ARMCI_FLOAT -306
#define ARMCI_DOUBLE -307

/* Scopes */
#define SCOPE_ALL 333
#define SCOPE_NODE 337
#define SCOPE_MASTERS 339

/* Reduction op strings (matched by prefix): "+", "*", "max", "min",
 * "absmax", "absmin", "or", "&&"/"land", "||"/"lor", "&"/"band", "|"/"bor". */

int armci_msg_me(void);
int armci_msg_nproc(void);
void armci_msg_abort(int code);
void armci_msg_init(int *argc, char ***argv);
#if ARMCI_OFI_HAVE_MPI
/* Uses comm's processes (MPI is already initialised by the caller). */
void armci_msg_init_comm(MPI_Comm comm);
#endif
void armci_msg_finalize(void);
double armci_timer(void);

void armci_msg_snd(int tag, void *buffer, int len, int to);
void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

void armci_msg_barrier(void);
void armci_msg_group_barrier(ARMCI_Group *group);

void armci_msg_bcast(void *buffer, int len, int root);
void armci_msg_brdcst(void *buffer, int len, int root);
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
/* root is a world rank (as Global Arrays passes it) */
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);
void armci_msg_clus_brdcst(void *buf, int len);
void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *group);

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type,
                               ARMCI_Group *group);
void armci_msg_reduce(void *x, int n, char *op, int type);
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_igop(int *x, int n, char *op);
void armci_msg_lgop(long *x, int n, char *op);
void armci_msg_llgop(long long *x, int n, char *op);
void armci_msg_fgop(float *x, int n, char *op);
void armci_msg_dgop(double *x, int n, char *op);
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);
void armci_msg_clus_igop(int *x, int n, char *op);
void armci_msg_clus_lgop(long *x, int n, char *op);
void armci_msg_clus_llgop(long long *x, int n, char *op);
void armci_msg_clus_fgop(float *x, int n, char *op);
void armci_msg_clus_dgop(double *x, int n, char *op);

/* Selection: x holds a value of `type` followed by n bytes in all of a
 * record; the record of the process holding the min/max value (op "min" or
 * "max"; ties go to the lowest rank) among contributing processes is copied
 * to every process. */
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);
#define armci_msg_sel(x, n, op, type, contribute) \
  armci_msg_sel_scope(SCOPE_ALL, (x), (n), (op), (type), (contribute))

void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

void armci_exchange_address(void *ptr_ar[], int n);
void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* ARMCI_OFI_MESSAGE_H */
