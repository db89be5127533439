// Matrix multiply C = A B (N x N, default 1025) two ways:
//   distributed: GA_Dgemm on distributed arrays (every process computes its
//                block of C, fetching panels of A and B over the network);
//   mirrored:    A and B copied into mirrored arrays (one copy per node);
//                each node computes its row band of C from its own copies,
//                its processes splitting the band by columns, writes it into
//                its zeroed copy of C, and GA_Merge_mirrored sums the copies.
// Prints compute and merge times, network bytes, and the difference of the
// two results; --csv FILE appends them as one row (perf/bench_all.sh plots
// the rows of several process counts).
//   ARMCI_VNODES=2 armcirun -n 4 examples/ga_matmul [N] [--csv FILE]
#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "example_util.hpp"

namespace {

void fill(int g, int n, double salt) {
  int lo[2], hi[2];
  NGA_Distribution(g, GA_Nodeid(), lo, hi);
  if (lo[0] < 0) return;
  double* p = nullptr;
  int ld[1];
  NGA_Access(g, lo, hi, &p, ld);
  for (int i = lo[0]; i <= hi[0]; ++i)
    for (int j = lo[1]; j <= hi[1]; ++j)
      p[(i - lo[0]) * ld[0] + (j - lo[1])] = std::sin(salt + 1e-3 * (i * n + j));
  NGA_Release_update(g, lo, hi);
}

}  // namespace

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  int n = 1025;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--csv" && i + 1 < argc) csv = argv[++i];
    else n = std::atoi(argv[i]);
  }
  if (n < 1) GA_Error(const_cast<char*>("ga_matmul: usage: ga_matmul [N] [--csv FILE]"), n);
  const int me = GA_Nodeid(), nproc = GA_Nnodes();
  const int nnodes = GA_Cluster_nnodes(), node = GA_Cluster_nodeid();
  int dims[2] = {n, n};
  char na[] = "A", nb[] = "B", nc[] = "C", nam[] = "Am", nbm[] = "Bm", ncm[] = "Cm";
  const int a = NGA_Create(C_DBL, 2, dims, na, nullptr);
  const int b = NGA_Create(C_DBL, 2, dims, nb, nullptr);
  const int c = NGA_Create(C_DBL, 2, dims, nc, nullptr);
  const int mirror = GA_Pgroup_get_mirror();
  const int am = NGA_Create_config(C_DBL, 2, dims, nam, nullptr, mirror);
  const int bm = NGA_Create_config(C_DBL, 2, dims, nbm, nullptr, mirror);
  const int cm = NGA_Create_config(C_DBL, 2, dims, ncm, nullptr, mirror);
  fill(a, n, 0.3);
  fill(b, n, 1.7);
  if (me == 0)
    std::printf("ga_matmul: C = A B, %d x %d doubles, %d processes on %d node(s)%s\n", n, n, nproc, nnodes,
                GA_Is_mirrored(cm) ? "" : " (one node: mirrored arrays are plain arrays)");

  double t_dist = 0, t_copy = 0, t_comp = 0, t_merge = 0, t_lib = 0;
  long b_dist = 0, b_copy = 0, b_comp = 0, b_merge = 0, b_lib = 0;
  ex::measure([&] { GA_Dgemm('N', 'N', n, n, n, 1.0, a, b, 0.0, c); }, t_dist, b_dist);
  ex::measure(
      [&] {
        GA_Copy(a, am);
        GA_Copy(b, bm);
      },
      t_copy, b_copy);

  // Mirrored, step by step: my piece of my node's band of C.
  const int nl = GA_Pgroup_nnodes(mirror), j = GA_Pgroup_nodeid(mirror);
  const int r0 = n * node / nnodes, r1 = n * (node + 1) / nnodes - 1;
  const int c0 = n * j / nl, c1 = n * (j + 1) / nl - 1;
  const int rows = r1 - r0 + 1, cols = c1 - c0 + 1;
  std::vector<double> ab(static_cast<std::size_t>(rows) * n), bb(static_cast<std::size_t>(n) * cols),
      cb(static_cast<std::size_t>(rows) * cols);
  ex::measure(
      [&] {
        GA_Zero(cm);
        if (rows > 0 && cols > 0) {
          int alo[2] = {r0, 0}, ahi[2] = {r1, n - 1}, ald[1] = {n};
          int blo[2] = {0, c0}, bhi[2] = {n - 1, c1}, bld[1] = {cols};
          NGA_Get(am, alo, ahi, ab.data(), ald);  // node-local reads
          NGA_Get(bm, blo, bhi, bb.data(), bld);
          cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, cols, n, 1.0, ab.data(), n, bb.data(),
                      cols, 0.0, cb.data(), cols);
          int clo[2] = {r0, c0}, chi[2] = {r1, c1}, cld[1] = {cols};
          NGA_Put(cm, clo, chi, cb.data(), cld);
        }
        GA_Sync();
      },
      t_comp, b_comp);
  ex::measure([&] { GA_Merge_mirrored(cm); }, t_merge, b_merge);
  long moved = 0, full = 0;
  GA_Merge_mirrored_stats(cm, &moved, &full);
  moved = ex::lsum(moved);
  full = ex::lsum(full);

  // Check: the mirrored C equals the distributed C.
  int lo[2], hi[2];
  NGA_Distribution(c, me, lo, hi);
  double err = 0;
  if (lo[0] >= 0) {
    const int w = hi[1] - lo[1] + 1;
    std::vector<double> x(static_cast<std::size_t>(hi[0] - lo[0] + 1) * w), y(x.size());
    int ld[1] = {w};
    NGA_Get(c, lo, hi, x.data(), ld);
    NGA_Get(cm, lo, hi, y.data(), ld);
    for (std::size_t i = 0; i < x.size(); ++i) err = std::max(err, std::fabs(x[i] - y[i]));
  }
  err = ex::dmax(err);

  // The library's own mirrored path, for comparison.
  ex::measure([&] { GA_Dgemm('N', 'N', n, n, n, 1.0, am, bm, 0.0, cm); }, t_lib, b_lib);

  if (me == 0) {
    const double gf = 2.0 * n * n * static_cast<double>(n) * 1e-9;
    std::printf("  distributed GA_Dgemm        : %8.3f s  (%6.2f GFLOP/s)  network %10ld bytes\n", t_dist,
                gf / t_dist, b_dist);
    std::printf("  mirrored: copy A,B in       : %8.3f s                    network %10ld bytes\n", t_copy,
                b_copy);
    std::printf("  mirrored: compute node bands: %8.3f s  (%6.2f GFLOP/s)  network %10ld bytes\n", t_comp,
                gf / t_comp, b_comp);
    std::printf(
        "  mirrored: merge C           : %8.3f s                    network %10ld bytes "
        "(merge counted %ld, a full merge %ld)\n",
        t_merge, b_merge, moved, full);
    std::printf("  mirrored: compute + merge   : %8.3f s\n", t_comp + t_merge);
    std::printf("  mirrored GA_Dgemm (library) : %8.3f s                    network %10ld bytes\n", t_lib,
                b_lib);
    std::printf("  max |C_distributed - C_mirrored| = %.3g\n", err);
    if (FILE* f = csv.empty() ? nullptr : std::fopen(csv.c_str(), "a")) {
      // procs,nodes,n,distributed_s,copy_s,compute_s,merge_s,library_mirrored_s,max_err
      std::fprintf(f, "%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.3g\n", nproc, nnodes, n, t_dist, t_copy, t_comp, t_merge,
                   t_lib, err);
      std::fclose(f);
    }
  }
  GA_Destroy(cm);
  GA_Destroy(bm);
  GA_Destroy(am);
  GA_Destroy(c);
  GA_Destroy(b);
  GA_Destroy(a);
  GA_Terminate();
  return err < 1e-8 ? 0 : 1;
}
