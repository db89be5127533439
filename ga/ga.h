/* armci-ofi: a Global Arrays-compatible layer (libarmci-ga, pkg-config armci-ga).
 *
 * Plain C.  Names, argument lists and conventions follow Global Arrays' C API:
 * indices are 0-based and row-major (last index fastest), ld[] has ndim-1
 * entries (ld[i] is the buffer's extent in dimension i+1), valid array handles
 * are negative, 0 means "creation failed".  Processor groups: the world is -1,
 * the mirror group (one copy of an array per node) is 0.  GA_Nodeid, GA_Nnodes,
 * NGA_Create, GA_Sync, GA_Dgop and GA_Brdcst act on the DEFAULT group.
 *
 * Errors: a bad handle, dimension, patch, type or group makes the call print
 * "call: what is wrong" and abort the job (through ARMCI_Error).
 * See README.md ("Global Arrays layer") for what is implemented.
 */
#ifndef ARMCI_OFI_GA_H
#define ARMCI_OFI_GA_H

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GA_MAX_DIM 7

/* Element types: the MA type codes Global Arrays uses (MT_BASE 1000). */
#define C_INT 1001      /* int */
#define C_LONG 1002     /* long */
#define C_FLOAT 1003    /* float */
#define C_DBL 1004      /* double */
#define C_SCPL 1006     /* single complex: two floats (real, imag) */
#define C_DCPL 1007     /* double complex: two doubles (real, imag) */
#define C_LONGLONG 1016 /* long long */

typedef struct {
  float real, imag;
} SingleComplex;
typedef struct {
  double real, imag;
} DoubleComplex;

/* Non-blocking request; 0 = nothing pending. */
typedef int ga_nbhdl_t;

/* Start-up and shut-down (GA_Initialize initialises ARMCI if needed). */
void GA_Initialize(void);
void GA_Initialize_args(int *argc, char ***argv);
int GA_Initialized(void);
void GA_Terminate(void);
void GA_Error(char *str, int code);

/* Creation.  chunk[i] > 0 is the smallest block extent wanted in dimension i
 * (NULL or <= 0: no preference).  Irregular: block[i] blocks in dimension i,
 * map holds the first index of every block, dimension after dimension. */
int NGA_Create(int type, int ndim, int dims[], char *name, int chunk[]);
int NGA_Create_config(int type, int ndim, int dims[], char *name, int chunk[], int p_handle);
int NGA_Create_irreg(int type, int ndim, int dims[], char *name, int block[], int map[]);
int NGA_Create_irreg_config(int type, int ndim, int dims[], char *name, int block[], int map[], int p_handle);
int GA_Create_handle(void);
void GA_Set_data(int g_a, int ndim, int dims[], int type);
void GA_Set_chunk(int g_a, int chunk[]);
void GA_Set_irreg_distr(int g_a, int map[], int block[]);
void GA_Set_pgroup(int g_a, int p_handle);
void GA_Set_array_name(int g_a, char *name);
int GA_Allocate(int g_a); /* 1 on success, 0 if memory ran out */
int GA_Duplicate(int g_a, char *array_name);
void GA_Destroy(int g_a);
void NGA_Inquire(int g_a, int *type, int *ndim, int dims[]);
int GA_Valid_handle(int g_a);

/* One-sided access to patches [lo, hi] (inclusive). */
void NGA_Put(int g_a, int lo[], int hi[], void *buf, int ld[]);
void NGA_Get(int g_a, int lo[], int hi[], void *buf, int ld[]);
void NGA_Acc(int g_a, int lo[], int hi[], void *buf, int ld[], void *alpha);
void NGA_Strided_put(int g_a, int lo[], int hi[], int skip[], void *buf, int ld[]);
void NGA_Strided_get(int g_a, int lo[], int hi[], int skip[], void *buf, int ld[]);
void NGA_Strided_acc(int g_a, int lo[], int hi[], int skip[], void *buf, int ld[], void *alpha);
void NGA_NbPut(int g_a, int lo[], int hi[], void *buf, int ld[], ga_nbhdl_t *nbhandle);
void NGA_NbGet(int g_a, int lo[], int hi[], void *buf, int ld[], ga_nbhdl_t *nbhandle);
void NGA_NbAcc(int g_a, int lo[], int hi[], void *buf, int ld[], void *alpha, ga_nbhdl_t *nbhandle);
void NGA_NbWait(ga_nbhdl_t *nbhandle);
int NGA_NbTest(ga_nbhdl_t *nbhandle); /* 1: complete, 0: still pending */
long NGA_Read_inc(int g_a, int subscript[], long inc);
void NGA_Gather(int g_a, void *v, int *subsArray[], int n);
void NGA_Scatter(int g_a, void *v, int *subsArray[], int n);
void NGA_Scatter_acc(int g_a, void *v, int *subsArray[], int n, void *alpha);

/* Locality */
void NGA_Distribution(int g_a, int iproc, int lo[], int hi[]);
int NGA_Locate(int g_a, int subscript[]);
int NGA_Locate_region(int g_a, int lo[], int hi[], int map[], int procs[]);
int NGA_Locate_nnodes(int g_a, int lo[], int hi[]);
void NGA_Access(int g_a, int lo[], int hi[], void *ptr, int ld[]);
void NGA_Release(int g_a, int lo[], int hi[]);
void NGA_Release_update(int g_a, int lo[], int hi[]);
int GA_Nodeid(void);
int GA_Nnodes(void);
int GA_Cluster_nnodes(void);
int GA_Cluster_nodeid(void);
int GA_Cluster_nprocs(int node);
int GA_Cluster_procid(int node, int loc_proc);
int GA_Cluster_proc_nodeid(int proc);

/* Collective operations on whole arrays or patches */
void GA_Sync(void);
void GA_Zero(int g_a);
void GA_Fill(int g_a, void *value);
void GA_Scale(int g_a, void *value);
void GA_Add(void *alpha, int g_a, void *beta, int g_b, int g_c);
void GA_Copy(int g_a, int g_b);
void NGA_Copy_patch(char trans, int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]);
double GA_Ddot(int g_a, int g_b);
double NGA_Ddot_patch(int g_a, char t_a, int alo[], int ahi[], int g_b, char t_b, int blo[], int bhi[]);
void GA_Dgemm(char ta, char tb, int m, int n, int k, double alpha, int g_a, int g_b, double beta, int g_c);
void GA_Symmetrize(int g_a);
void GA_Transpose(int g_a, int g_b);
void GA_Print(int g_a);
void GA_Print_distribution(int g_a);
void GA_Dgop(double x[], int n, char *op);
void GA_Igop(int x[], int n, char *op);
void GA_Lgop(long x[], int n, char *op);
void GA_Brdcst(void *buf, int lenbuf, int root);
void GA_Mask_sync(int first, int last);

/* Processor groups.  GA_Pgroup_create takes ranks of the default group and
 * is called by every process of the default group with the same list. */
int GA_Pgroup_create(int *list, int count);
int GA_Pgroup_destroy(int grp);
void GA_Pgroup_set_default(int grp);
int GA_Pgroup_get_default(void);
int GA_Pgroup_get_world(void);
int GA_Pgroup_get_mirror(void);
int GA_Pgroup_nodeid(int grp);
int GA_Pgroup_nnodes(int grp);
void GA_Pgroup_sync(int grp);
void GA_Pgroup_dgop(int grp, double x[], int n, char *op);
void GA_Pgroup_igop(int grp, int x[], int n, char *op);
void GA_Pgroup_lgop(int grp, long x[], int n, char *op);
void GA_Pgroup_brdcst(int grp, void *buf, int lenbuf, int root);
int GA_Pgroup_split(int grp, int num_group);
int GA_Pgroup_split_irreg(int grp, int color);

/* Mirrored arrays (created with p_handle = GA_Pgroup_get_mirror()) */
void GA_Merge_mirrored(int g_a);
void NGA_Merge_distr_patch(int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]);
int GA_Is_mirrored(int g_a);

/* armci-ofi extension.  Merges move only the tiles of a node copy written
 * since the last GA_Zero or merge (put, acc, scatter, read_inc and
 * NGA_Release_update mark them).  After a GA_Merge_mirrored or
 * NGA_Merge_distr_patch of g_a: *moved = bytes this process sent to other
 * nodes, *full = bytes it would have sent had every node written the whole
 * array.  Either pointer may be NULL. */
void GA_Merge_mirrored_stats(int g_a, long *moved, long *full);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* ARMCI_OFI_GA_H */
