// The DFT exchange-correlation pattern: for every batch of grid points, get
// the density-matrix blocks D[I,J] of the basis-function blocks significant
// on the batch, compute, and accumulate the result into the XC matrix K[I,J].
// Run twice:
//   distributed: g_D and g_K distributed; every get/acc may cross the network;
//   mirrored:    D copied into a mirrored array (copy in = one merge), K
//                accumulated into a mirrored array (node-local), merged
//                (sparse: only the tiles written), copied out to a
//                distributed K.
// Prints time and network bytes of each (ARMCI_Ofi_stats; for the distributed
// run also the bytes of the patches held on other nodes), and checks both K
// agree.
//   ARMCI_VNODES=2 armcirun -n 4 examples/ga_xc [nbf] [block] [batches]
#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "example_util.hpp"

namespace {

struct Problem {
  int nbf, bs, nb, batches, width;
};

// Blocks significant on batch t: a window of `width` consecutive blocks
// (batches sweep the molecule; neighbouring batches share blocks).
int first_block(const Problem& p, int t) { return (t * 7) % (p.nb - p.width + 1); }

// Bytes of patch [lo, hi] of g held by processes of other nodes.
long off_node_bytes(int g, int* lo, int* hi) {
  int map[64 * 4], procs[64];
  const int n = NGA_Locate_region(g, lo, hi, map, procs);
  long bytes = 0;
  for (int i = 0; i < n; ++i)
    if (!GA_Is_mirrored(g) && GA_Cluster_proc_nodeid(procs[i]) != GA_Cluster_nodeid())
      bytes += 8L * (map[4 * i + 2] - map[4 * i] + 1) * (map[4 * i + 3] - map[4 * i + 1] + 1);
  return bytes;
}

// Processes the batches of this process: K[I,J] += W_t D[I,J] W_t.
// Returns the bytes its gets and accumulates moved to or from other nodes,
// counted from the owners of the patches.
long run(const Problem& p, int g_d, int g_k) {
  const int me = GA_Nodeid(), np = GA_Nnodes();
  long moved = 0;
  const int bs = p.bs;
  std::vector<double> d(static_cast<std::size_t>(bs) * bs), x(d.size()), k(d.size()), w(d.size());
  for (int t = me; t < p.batches; t += np) {
    // The batch's weights (stand-in for basis functions on the grid points).
    for (int i = 0; i < bs; ++i)
      for (int j = 0; j < bs; ++j)
        w[static_cast<std::size_t>(i * bs + j)] = (i == j) * (1.0 + 0.01 * t) + 1e-3 * std::cos(i + j + t);
    const int b0 = first_block(p, t);
    for (int bi = b0; bi < b0 + p.width; ++bi)
      for (int bj = b0; bj < b0 + p.width; ++bj) {
        int lo[2] = {bi * bs, bj * bs}, hi[2] = {bi * bs + bs - 1, bj * bs + bs - 1}, ld[1] = {bs};
        NGA_Get(g_d, lo, hi, d.data(), ld);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bs, bs, bs, 1.0, w.data(), bs, d.data(), bs,
                    0.0, x.data(), bs);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bs, bs, bs, 1.0, x.data(), bs, w.data(), bs,
                    0.0, k.data(), bs);
        double one = 1.0;
        NGA_Acc(g_k, lo, hi, k.data(), ld, &one);
        moved += off_node_bytes(g_d, lo, hi) + off_node_bytes(g_k, lo, hi);
      }
  }
  GA_Sync();
  return moved;
}

}  // namespace

int main(int argc, char** argv) {
  GA_Initialize_args(&argc, &argv);
  Problem p;
  p.nbf = argc > 1 ? std::atoi(argv[1]) : 1024;
  p.bs = argc > 2 ? std::atoi(argv[2]) : 64;
  p.batches = argc > 3 ? std::atoi(argv[3]) : 96;
  p.nb = p.nbf / p.bs;
  p.nbf = p.nb * p.bs;
  p.width = std::min(3, p.nb);
  const int me = GA_Nodeid();
  int dims[2] = {p.nbf, p.nbf};
  char nd[] = "D", nk[] = "K", nk2[] = "K from mirror", ndm[] = "D mirrored", nkm[] = "K mirrored";
  const int g_d = NGA_Create(C_DBL, 2, dims, nd, nullptr);
  const int g_k = NGA_Create(C_DBL, 2, dims, nk, nullptr);
  const int g_k2 = NGA_Create(C_DBL, 2, dims, nk2, nullptr);
  const int mirror = GA_Pgroup_get_mirror();
  const int d_m = NGA_Create_config(C_DBL, 2, dims, ndm, nullptr, mirror);
  const int k_m = NGA_Create_config(C_DBL, 2, dims, nkm, nullptr, mirror);
  // A density matrix with a decaying off-diagonal.
  {
    int lo[2], hi[2];
    NGA_Distribution(g_d, me, lo, hi);
    if (lo[0] >= 0) {
      double* ptr = nullptr;
      int ld[1];
      NGA_Access(g_d, lo, hi, &ptr, ld);
      for (int i = lo[0]; i <= hi[0]; ++i)
        for (int j = lo[1]; j <= hi[1]; ++j)
          ptr[(i - lo[0]) * ld[0] + (j - lo[1])] = std::exp(-0.01 * std::abs(i - j));
      NGA_Release_update(g_d, lo, hi);
    }
  }
  GA_Zero(g_k);
  if (me == 0)
    std::printf(
        "ga_xc: %d basis functions in blocks of %d, %d batches of %dx%d blocks, %d processes on %d node(s)\n",
        p.nbf, p.bs, p.batches, p.width, p.width, GA_Nnodes(), GA_Cluster_nnodes());

  double t_dist, t_in, t_acc, t_merge, t_out;
  long b_dist, b_in, b_acc, b_merge, b_out;
  long counted_dist = 0;
  ex::measure([&] { counted_dist = run(p, g_d, g_k); }, t_dist, b_dist);
  counted_dist = ex::lsum(counted_dist);
  ex::measure([&] { GA_Copy(g_d, d_m); }, t_in, b_in);
  ex::measure(
      [&] {
        GA_Zero(k_m);
        run(p, d_m, k_m);
      },
      t_acc, b_acc);
  ex::measure([&] { GA_Merge_mirrored(k_m); }, t_merge, b_merge);
  long moved = 0, full = 0;
  GA_Merge_mirrored_stats(k_m, &moved, &full);
  moved = ex::lsum(moved);
  full = ex::lsum(full);
  ex::measure([&] { GA_Copy(k_m, g_k2); }, t_out, b_out);

  // Both K must agree.
  double minus = -1.0, one = 1.0, err = 0;
  GA_Add(&one, g_k, &minus, g_k2, g_k2);
  err = std::sqrt(std::max(0.0, GA_Ddot(g_k2, g_k2)));
  if (me == 0) {
    const long mirror_total = b_in + b_acc + b_merge + b_out;
    std::printf(
        "  distributed: get D / acc K          %8.3f s   network %11ld bytes (patch owners on other "
        "nodes: %ld bytes)\n",
        t_dist, b_dist, counted_dist);
    std::printf("  mirrored:    copy D in (merge)      %8.3f s   network %11ld bytes\n", t_in, b_in);
    std::printf("  mirrored:    get D / acc K (local)  %8.3f s   network %11ld bytes\n", t_acc, b_acc);
    std::printf(
        "  mirrored:    merge K (sparse)       %8.3f s   network %11ld bytes (counted %ld, full merge %ld)\n",
        t_merge, b_merge, moved, full);
    std::printf("  mirrored:    copy K out             %8.3f s   network %11ld bytes\n", t_out, b_out);
    std::printf("  mirrored:    total                  %8.3f s   network %11ld bytes\n",
                t_in + t_acc + t_merge + t_out, mirror_total);
    std::printf("  |K_distributed - K_mirrored| = %.3g\n", err);
  }
  GA_Destroy(k_m);
  GA_Destroy(d_m);
  GA_Destroy(g_k2);
  GA_Destroy(g_k);
  GA_Destroy(g_d);
  GA_Terminate();
  return err < 1e-6 ? 0 : 1;
}
