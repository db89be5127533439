/* A DFT-like Global Arrays kernel, written against GA's own C API so that
 * the same source runs on GA over armci-ofi and on GA over its own runtime
 * (perf/ga_compare.sh builds both).  Per SCF iteration:
 *   - exchange-correlation: batches of grid points taken from a shared
 *     counter (NGA_Read_inc, as NWChem's nxtval); for each batch, get the
 *     density blocks D[I,J] significant on it, transform them locally, and
 *     accumulate into the Fock-like matrix K[I,J];
 *   - a GA_Dgemm of the full matrices (C = K * D), whose scratch GA takes
 *     from ARMCI_Malloc_local on every call.
 * Prints the time of each phase (max over processes), RESULT lines, and a
 * checksum that must agree between runtimes.
 *   mpirun -n 4 ga_dft_kernel [nbf] [block] [batches] [iterations]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "ga.h"
#include "macdecls.h"

static void matmul(int n, const double *a, const double *b, double *c) {
  for (int i = 0; i < n * n; ++i) c[i] = 0.0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  GA_Initialize();
  MA_init(C_DBL, 1000000, 1000000);
  const int nbf = argc > 1 ? atoi(argv[1]) : 1024;
  const int bs = argc > 2 ? atoi(argv[2]) : 32;
  const int batches = argc > 3 ? atoi(argv[3]) : 96;
  const int iterations = argc > 4 ? atoi(argv[4]) : 3;
  const int nb = nbf / bs, width = nb < 6 ? nb : 6;
  const int me = GA_Nodeid();
  int dims[2] = {nbf, nbf};
  int g_d = NGA_Create(C_DBL, 2, dims, "D", NULL);
  int g_k = NGA_Create(C_DBL, 2, dims, "K", NULL);
  int g_c = NGA_Create(C_DBL, 2, dims, "C", NULL);
  int one_dim = 1;
  int g_cnt = NGA_Create(C_INT, 1, &one_dim, "counter", NULL);
  if (!g_d || !g_k || !g_c || !g_cnt) GA_Error("ga_dft_kernel: create failed", 0);

  /* D: a smooth symmetric matrix, written by each owner into its block. */
  int lo[2], hi[2], ld;
  NGA_Distribution(g_d, me, lo, hi);
  if (lo[0] >= 0) {
    const int rows = hi[0] - lo[0] + 1, cols = hi[1] - lo[1] + 1;
    double *blk = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const int gi = lo[0] + i, gj = lo[1] + j;
        blk[i * cols + j] = 1.0 / (1.0 + fabs((double)(gi - gj))) + 1e-3 * cos(gi + gj);
      }
    ld = cols;
    NGA_Put(g_d, lo, hi, blk, &ld);
    free(blk);
  }
  GA_Sync();

  double *d = malloc(sizeof(double) * (size_t)bs * (size_t)bs);
  double *w = malloc(sizeof(double) * (size_t)bs * (size_t)bs);
  double *x = malloc(sizeof(double) * (size_t)bs * (size_t)bs);
  double *k = malloc(sizeof(double) * (size_t)bs * (size_t)bs);
  double t_xc = 0, t_gemm = 0, t0;
  double checksum = 0;
  for (int it = 0; it < iterations; ++it) {
    GA_Zero(g_k);
    int zero = 0, sub0 = 0;
    if (me == 0) NGA_Put(g_cnt, &sub0, &sub0, &zero, &one_dim);
    GA_Sync();
    t0 = MPI_Wtime();
    for (;;) {
      const long t = NGA_Read_inc(g_cnt, &sub0, 1);
      if (t >= batches) break;
      for (int i = 0; i < bs; ++i)
        for (int j = 0; j < bs; ++j) w[i * bs + j] = (i == j) * (1.0 + 0.01 * (double)t) + 1e-3 * cos(i + j + (double)t);
      const int b0 = (int)((t * 7) % (nb - width + 1));
      for (int bi = b0; bi < b0 + width; ++bi)
        for (int bj = b0; bj < b0 + width; ++bj) {
          lo[0] = bi * bs;
          lo[1] = bj * bs;
          hi[0] = lo[0] + bs - 1;
          hi[1] = lo[1] + bs - 1;
          ld = bs;
          NGA_Get(g_d, lo, hi, d, &ld);
          matmul(bs, w, d, x);
          matmul(bs, x, w, k);
          double alpha = 1.0;
          NGA_Acc(g_k, lo, hi, k, &ld, &alpha);
        }
    }
    GA_Sync();
    t_xc += MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    GA_Dgemm('N', 'N', nbf, nbf, nbf, 1.0, g_k, g_d, 0.0, g_c);
    GA_Sync();
    t_gemm += MPI_Wtime() - t0;
    checksum += GA_Ddot(g_c, g_c) / ((double)nbf * nbf);
  }
  double times[2] = {t_xc, t_gemm};
  GA_Dgop(times, 2, "max");
  if (me == 0) {
    printf("ga_dft_kernel: nbf %d, block %d, %d batches x %d blocks, %d iterations, %d processes\n", nbf, bs,
           batches, width * width, iterations, GA_Nnodes());
    printf("RESULT ga_dft_kernel xc_time %.4f s\n", times[0]);
    printf("RESULT ga_dft_kernel dgemm_time %.4f s\n", times[1]);
    printf("RESULT ga_dft_kernel total_time %.4f s\n", times[0] + times[1]);
    printf("ga_dft_kernel checksum %.10e\n", checksum);
  }
  free(d);
  free(w);
  free(x);
  free(k);
  GA_Destroy(g_cnt);
  GA_Destroy(g_c);
  GA_Destroy(g_k);
  GA_Destroy(g_d);
  GA_Terminate();
  MPI_Finalize();
  return 0;
}
