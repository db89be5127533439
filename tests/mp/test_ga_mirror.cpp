// Mirrored arrays: one copy per node.  The merge check (node n writes
// n + i + j*N), node-local put/get/acc, merge of merged copies, merge into a
// distributed patch, copies both ways, mirrored vs distributed vs serial
// dgemm, and the sparse merge's byte counts.  Node sizes may differ (5
// processes on 2 or 3 virtual nodes).
#include <cmath>

#include "ga_test.hpp"

using gat::GA;
using mp::me;
using mp::nproc;

class GaMirror : public gat::GaTest {};

namespace {

int mirrored(int type, int ndim, int* dims, const char* name) {
  return NGA_Create_config(type, ndim, dims, const_cast<char*>(name), nullptr, GA_Pgroup_get_mirror());
}

// My block of my node's copy (NGA_Distribution takes the node-local rank).
bool my_block(int g, int* lo, int* hi) {
  NGA_Distribution(g, GA_Pgroup_nodeid(GA_Pgroup_get_mirror()), lo, hi);
  return lo[0] >= 0;
}

std::vector<double> get_all(int g, int rows, int cols) {
  std::vector<double> v(static_cast<std::size_t>(rows) * cols);
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  NGA_Get(g, lo, hi, v.data(), ld);
  return v;
}

long total_moved(int g) {
  long moved = 0, full = 0;
  GA_Merge_mirrored_stats(g, &moved, &full);
  return gat::sum_all(moved);
}

// Puts a(i,j) = 1000 i + j on patch [r0:r1, c0:c1] of g (nothing if empty).
void put_pattern(int g, int r0, int r1, int c0, int c1) {
  if (r1 < r0 || c1 < c0) return;
  const int w = c1 - c0 + 1;
  std::vector<double> v(static_cast<std::size_t>(r1 - r0 + 1) * w);
  for (int i = r0; i <= r1; ++i)
    for (int j = c0; j <= c1; ++j) v[static_cast<std::size_t>((i - r0) * w + j - c0)] = i * 1000.0 + j;
  int lo[2] = {r0, c0}, hi[2] = {r1, c1}, ld[1] = {w};
  NGA_Put(g, lo, hi, v.data(), ld);
}

// Elements of the N x N array g that differ from 1000 i + j.
long pattern_mismatches(int g, int N) {
  const auto all = get_all(g, N, N);
  long bad = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) bad += all[static_cast<std::size_t>(i * N + j)] != i * 1000.0 + j;
  return bad;
}

long total_full(int g) {
  long moved = 0, full = 0;
  GA_Merge_mirrored_stats(g, &moved, &full);
  return gat::sum_all(full);
}

}  // namespace

TEST_F(GaMirror, IsMirroredOnlyAcrossNodes) {
  int dims[2] = {8, 8};
  GA g(mirrored(C_DBL, 2, dims, "m"));
  EXPECT_EQ(GA_Is_mirrored(g), gat::nnodes() > 1 ? 1 : 0);
  GA d(NGA_Create(C_DBL, 2, dims, gat::op("d"), nullptr));
  EXPECT_EQ(GA_Is_mirrored(d), 0);
  // Each node's copy is spread over the node's processes only.
  long owned = 0;
  for (int p = 0; p < GA_Pgroup_nnodes(0); ++p) {
    int lo[2], hi[2];
    NGA_Distribution(g, p, lo, hi);
    if (lo[0] >= 0) owned += static_cast<long>(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
  }
  EXPECT_EQ(owned, gat::nnodes() > 1 ? 64 : 64);
}

// The merge check: node n writes a(i,j) = n + i + j*N on its copy; after the
// merge every element is nnodes*(i + j*N) + nnodes*(nnodes-1)/2.
TEST_F(GaMirror, MergeCheck) {
  const int P = gat::nnodes(), n = gat::node();
  for (int N : {7, 130}) {
    int dims[2] = {N, N};
    GA g(mirrored(C_DBL, 2, dims, "merge"));
    int lo[2], hi[2];
    if (my_block(g, lo, hi)) {
      const int cols = hi[1] - lo[1] + 1;
      std::vector<double> v(static_cast<std::size_t>((hi[0] - lo[0] + 1) * cols));
      for (int i = lo[0]; i <= hi[0]; ++i)
        for (int j = lo[1]; j <= hi[1]; ++j)
          v[static_cast<std::size_t>((i - lo[0]) * cols + j - lo[1])] = n + i + j * N;
      int ld[1] = {cols};
      NGA_Put(g, lo, hi, v.data(), ld);
    }
    GA_Merge_mirrored(g);
    const auto all = get_all(g, N, N);
    long bad = 0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        bad += all[static_cast<std::size_t>(i * N + j)] !=
               P * (i + j * static_cast<double>(N)) + P * (P - 1) / 2.0;
    EXPECT_EQ(bad, 0) << "N=" << N << " nnodes=" << P;
  }
}

TEST_F(GaMirror, MergeOtherTypesAndShapes) {
  const int P = gat::nnodes(), n = gat::node();
  int d1[1] = {1001}, d3[3] = {9, 10, 11};
  GA a(mirrored(C_INT, 1, d1, "i1"));
  GA z(mirrored(C_DCPL, 3, d3, "z3"));
  // The node's first process writes the whole copy with accumulates.
  if (gat::local_rank() == 0) {
    std::vector<int> v(1001);
    for (int i = 0; i < 1001; ++i) v[static_cast<std::size_t>(i)] = i + n;
    int lo[1] = {0}, hi[1] = {1000}, one = 1;
    NGA_Acc(a, lo, hi, v.data(), nullptr, &one);
    std::vector<std::complex<double>> w(990, {1.0 + n, -1.0});
    int zl[3] = {0, 0, 0}, zh[3] = {8, 9, 10}, ld[2] = {10, 11};
    std::complex<double> s(1, 0);
    NGA_Acc(z, zl, zh, w.data(), ld, &s);
  }
  GA_Merge_mirrored(a);
  GA_Merge_mirrored(z);
  std::vector<int> v(1001);
  int lo[1] = {0}, hi[1] = {1000};
  NGA_Get(a, lo, hi, v.data(), nullptr);
  long bad = 0;
  for (int i = 0; i < 1001; ++i) bad += v[static_cast<std::size_t>(i)] != P * i + P * (P - 1) / 2;
  EXPECT_EQ(bad, 0);
  std::vector<std::complex<double>> w(990);
  int zl[3] = {0, 0, 0}, zh[3] = {8, 9, 10}, ld[2] = {10, 11};
  NGA_Get(z, zl, zh, w.data(), ld);
  bad = 0;
  for (const auto& x : w) bad += x != std::complex<double>(P + P * (P - 1) / 2.0, -P);
  EXPECT_EQ(bad, 0);
}

// Put, get and accumulate on a mirrored array never leave the node.
TEST_F(GaMirror, AccessStaysOnNode) {
  int dims[2] = {50, 40};
  GA g(mirrored(C_DBL, 2, dims, "local"));
  GA_Zero(g);
  std::vector<double> buf(50 * 40, 1.0);
  int lo[2] = {0, 0}, hi[2] = {49, 39}, ld[1] = {40};
  double one = 1.0;
  long net = gat::remote_bytes();
  NGA_Acc(g, lo, hi, buf.data(), ld, &one);
  net = gat::remote_bytes() - net;
  GA_Sync();
  long got = gat::remote_bytes();
  NGA_Get(g, lo, hi, buf.data(), ld);
  got = gat::remote_bytes() - got;
  long bad = 0;
  for (double y : buf) bad += y != gat::local_size();
  EXPECT_EQ(bad, 0) << "only the node's processes accumulate into its copy";
  GA_Sync();
  std::vector<double> seven(50 * 40, 7.0);
  int sub[2] = {3, 4};
  int* subs[1] = {sub};
  double x = 2;
  long put = gat::remote_bytes();
  NGA_Put(g, lo, hi, seven.data(), ld);
  put = gat::remote_bytes() - put;
  GA_Sync();
  long sca = gat::remote_bytes();
  NGA_Scatter_acc(g, &x, subs, 1, &one);
  sca = gat::remote_bytes() - sca;
  GA_Sync();
  long gat_bytes = gat::remote_bytes();
  NGA_Gather(g, &x, subs, 1);
  gat_bytes = gat::remote_bytes() - gat_bytes;
  EXPECT_EQ(x, 7.0 + 2.0 * gat::local_size());
  if (gat::nic_accumulates()) net = sca = 0;
  EXPECT_EQ(net + got + put + sca + gat_bytes, 0) << "bytes through libfabric";
  // A block of another process of the node, through NGA_Access.
  for (int p = 0; p < GA_Pgroup_nnodes(0); ++p) {
    int plo[2], phi[2];
    NGA_Distribution(g, p, plo, phi);
    if (plo[0] < 0) continue;
    double* ptr = nullptr;
    int pld[1];
    NGA_Access(g, plo, phi, &ptr, pld);
    EXPECT_EQ(ptr[0], plo[0] == 3 && plo[1] == 4 ? x : 7.0);
    NGA_Release(g, plo, phi);
  }
  GA_Sync();
}

// Tiles written by 1, 2, ... all nodes in one merge: from 4 nodes (and 1 MiB)
// the widely written ones are reduce-scattered and gathered while the others add
// up by recursive doubling (ga/merge_schedule.hpp); every element must come
// out as the sum of its writers, on a zero base and then on equal copies
// (where unwritten copies count as the old value).  Bands of 16 rows of an
// N x M array, each written by its own set of nodes.
static void merge_mixed_writers(int N, int M) {
  const int P = gat::nnodes(), n = gat::node();
  const int band = 16;
  int dims[2] = {N, M};
  GA g(mirrored(C_DBL, 2, dims, "mixed"));
  GA_Zero(g);
  // Band b (16 rows, a row of tiles) is written by nodes b, b+1, ... (mod P),
  // 1 + b mod P of them, at phase 2 only every third band, by fewer.
  auto writers = [&](int b, int phase) { return phase == 1 ? 1 + b % P : (b % 3 ? 0 : 1 + (b / 3) % P); };
  auto writes = [&](int b, int phase, int node) { return (node - b % P + P) % P < writers(b, phase); };
  auto value = [&](int i, int j, int node, int phase) { return phase * 1000.0 * (node + 1) + i * M + j; };
  std::vector<double> want(static_cast<std::size_t>(N) * M, 0.0);
  for (int phase = 1; phase <= 2; ++phase) {
    if (gat::local_rank() == 0)
      for (int b = 0; b < N / band; ++b) {
        if (!writes(b, phase, n)) continue;
        std::vector<double> v(static_cast<std::size_t>(band) * M);
        for (int i = 0; i < band; ++i)
          for (int j = 0; j < M; ++j) v[static_cast<std::size_t>(i * M + j)] = value(b * band + i, j, n, phase);
        int lo[2] = {b * band, 0}, hi[2] = {b * band + band - 1, M - 1}, ld[1] = {M};
        NGA_Put(g, lo, hi, v.data(), ld);
      }
    GA_Merge_mirrored(g);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) {
        double& w = want[static_cast<std::size_t>(i * M + j)];
        const int b = i / band;
        double sum = (P - writers(b, phase)) * w;  // copies nobody rewrote keep the old sum (0 at phase 1)
        for (int x = 0; x < P; ++x)
          if (writes(b, phase, x)) sum += value(i, j, x, phase);
        w = writers(b, phase) ? sum : P * w;
      }
    const auto all = get_all(g, N, M);
    long bad = 0;
    for (std::size_t k = 0; k < all.size(); ++k) bad += all[k] != want[k];
    EXPECT_EQ(bad, 0) << "phase " << phase << ", nnodes=" << P;
    long moved = 0, full = 0;
    GA_Merge_mirrored_stats(g, &moved, &full);
    EXPECT_LE(gat::sum_all(moved), gat::sum_all(full));
  }
}

// 1 MiB: big enough for the Scatter route.  Tiles of 1024 x 130 are blocks
// of rows and columns (a merge moves them one by one); tiles of a 4-column
// array span whole rows, so runs of them move as one box.
TEST_F(GaMirror, MergeMixedWriters) {
  SCOPED_TRACE("1024 x 130");
  merge_mixed_writers(1024, 130);
}
TEST_F(GaMirror, MergeMixedWritersWholeRowTiles) {
  for (int rows : {4096, 32768}) {
    SCOPED_TRACE(std::to_string(rows) + " x 4");
    merge_mixed_writers(rows, 4);
  }
}

// After a merge all copies are equal; merging again sums equal copies
// (GA's semantics) without moving a byte.
TEST_F(GaMirror, MergeOfMergedCopies) {
  const int P = gat::nnodes();
  int dims[2] = {40, 41};
  GA g(mirrored(C_DBL, 2, dims, "twice"));
  GA_Zero(g);
  if (gat::local_rank() == 0) {
    std::vector<double> v(40 * 41, 1.0);
    int lo[2] = {0, 0}, hi[2] = {39, 40}, ld[1] = {41};
    NGA_Put(g, lo, hi, v.data(), ld);
  }
  GA_Merge_mirrored(g);
  GA_Merge_mirrored(g);
  EXPECT_EQ(total_moved(g), 0);
  auto all = get_all(g, 40, 41);
  long bad = 0;
  for (double y : all) bad += y != static_cast<double>(P) * P;
  EXPECT_EQ(bad, 0);
  // One node changes one element: the next merge adds its new value to the
  // other copies' old one.
  GA_Sync();
  if (gat::node() == 0 && gat::local_rank() == 0) {
    int sub[2] = {5, 6}, ld[1] = {1};
    double v = 1000;
    NGA_Put(g, sub, sub, &v, ld);
  }
  GA_Merge_mirrored(g);
  all = get_all(g, 40, 41);
  bad = 0;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 41; ++j) {
      const double want = (i == 5 && j == 6) ? 1000.0 + (P - 1.0) * P * P : static_cast<double>(P) * P * P;
      bad += all[static_cast<std::size_t>(i * 41 + j)] != want;
    }
  EXPECT_EQ(bad, 0);
  // Fill: equal copies too.
  double f = 2.5;
  GA_Fill(g, &f);
  GA_Merge_mirrored(g);
  all = get_all(g, 40, 41);
  bad = 0;
  for (double y : all) bad += y != 2.5 * P;
  EXPECT_EQ(bad, 0);
}

TEST_F(GaMirror, MergeDistrPatch) {
  const int P = gat::nnodes(), n = gat::node();
  int dims[2] = {30, 20};
  GA m(mirrored(C_DBL, 2, dims, "m"));
  GA d(NGA_Create(C_DBL, 2, dims, gat::op("d"), nullptr));
  double minus = -1.0;
  GA_Fill(d, &minus);
  GA_Zero(m);
  int lo[2], hi[2];
  if (my_block(m, lo, hi)) {
    const int cols = hi[1] - lo[1] + 1;
    std::vector<double> v(static_cast<std::size_t>((hi[0] - lo[0] + 1) * cols));
    for (int i = lo[0]; i <= hi[0]; ++i)
      for (int j = lo[1]; j <= hi[1]; ++j)
        v[static_cast<std::size_t>((i - lo[0]) * cols + j - lo[1])] = n * 100.0 + i * 20 + j;
    int ld[1] = {cols};
    NGA_Put(m, lo, hi, v.data(), ld);
  }
  int alo[2] = {2, 3}, ahi[2] = {21, 12}, blo[2] = {10, 10}, bhi[2] = {29, 19};
  NGA_Merge_distr_patch(m, alo, ahi, d, blo, bhi);
  const auto all = get_all(d, 30, 20);
  long bad = 0;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 20; ++j) {
      const bool in = i >= 10 && j >= 10;
      const int si = i - 8, sj = j - 7;
      const double want = in ? 100.0 * P * (P - 1) / 2 + P * (si * 20.0 + sj) : -1.0;
      bad += all[static_cast<std::size_t>(i * 20 + j)] != want;
    }
  EXPECT_EQ(bad, 0);
}

TEST_F(GaMirror, CopiesBothWays) {
  const int rows = 33, cols = 27;
  int dims[2] = {rows, cols};
  GA d(NGA_Create(C_DBL, 2, dims, gat::op("d"), nullptr));
  GA m(mirrored(C_DBL, 2, dims, "m"));
  GA m2(mirrored(C_DBL, 2, dims, "m2"));
  GA e(NGA_Create(C_DBL, 2, dims, gat::op("e"), nullptr));
  std::vector<double> v(rows * cols);
  for (int i = 0; i < rows * cols; ++i) v[static_cast<std::size_t>(i)] = 0.5 * i - 7;
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  if (me() == 0) NGA_Put(d, lo, hi, v.data(), ld);
  GA_Sync();
  GA_Copy(d, m);  // distributed -> mirrored: every node copy gets it
  EXPECT_TRUE(mp::same(get_all(m, rows, cols), v, "distributed -> mirrored"));
  GA_Copy(m, m2);  // mirrored -> mirrored
  EXPECT_TRUE(mp::same(get_all(m2, rows, cols), v, "mirrored -> mirrored"));
  GA_Copy(m2, e);  // mirrored -> distributed
  EXPECT_TRUE(mp::same(get_all(e, rows, cols), v, "mirrored -> distributed"));
  // The copies are consistent: a merge of the copied array multiplies by nnodes.
  GA_Merge_mirrored(m2);
  auto all = get_all(m2, rows, cols);
  long bad = 0;
  for (int i = 0; i < rows * cols; ++i)
    bad += all[static_cast<std::size_t>(i)] != v[static_cast<std::size_t>(i)] * gat::nnodes();
  EXPECT_EQ(bad, 0);
  // Patch copy into a mirrored array.
  GA_Zero(m);
  int plo[2] = {1, 1}, phi[2] = {10, 5};
  NGA_Copy_patch('N', d, plo, phi, m, plo, phi);
  all = get_all(m, rows, cols);
  bad = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const bool in = i >= 1 && i <= 10 && j >= 1 && j <= 5;
      bad += all[static_cast<std::size_t>(i * cols + j)] !=
             (in ? v[static_cast<std::size_t>(i * cols + j)] : 0.0);
    }
  EXPECT_EQ(bad, 0) << "copy_patch into mirrored";
}

TEST_F(GaMirror, DgemmMirroredDistributedSerial) {
  const int N = 97, K = 61;
  int adims[2] = {N, K}, bdims[2] = {K, N}, cdims[2] = {N, N};
  GA a(NGA_Create(C_DBL, 2, adims, gat::op("A"), nullptr));
  GA b(NGA_Create(C_DBL, 2, bdims, gat::op("B"), nullptr));
  GA c(NGA_Create(C_DBL, 2, cdims, gat::op("C"), nullptr));
  GA am(mirrored(C_DBL, 2, adims, "Am"));
  GA bm(mirrored(C_DBL, 2, bdims, "Bm"));
  GA cm(mirrored(C_DBL, 2, cdims, "Cm"));
  std::vector<double> va(N * K), vb(K * N);
  for (int i = 0; i < N * K; ++i) {
    va[static_cast<std::size_t>(i)] = std::cos(0.1 * i);
    vb[static_cast<std::size_t>(i)] = std::sin(0.07 * i) + 0.5;
  }
  int lo[2] = {0, 0}, ahi[2] = {N - 1, K - 1}, bhi[2] = {K - 1, N - 1}, ald[1] = {K}, bld[1] = {N};
  if (me() == 0) {
    NGA_Put(a, lo, ahi, va.data(), ald);
    NGA_Put(b, lo, bhi, vb.data(), bld);
  }
  GA_Sync();
  GA_Copy(a, am);
  GA_Copy(b, bm);
  GA_Zero(c);
  GA_Zero(cm);
  GA_Dgemm('N', 'N', N, N, K, 1.0, a, b, 0.0, c);
  GA_Dgemm('N', 'N', N, N, K, 1.0, am, bm, 0.0, cm);
  const auto dc = get_all(c, N, N), mc = get_all(cm, N, N);
  double e1 = 0, e2 = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int l = 0; l < K; ++l)
        s += va[static_cast<std::size_t>(i * K + l)] * vb[static_cast<std::size_t>(l * N + j)];
      e1 = std::max(e1, std::fabs(dc[static_cast<std::size_t>(i * N + j)] - s));
      e2 = std::max(e2, std::fabs(mc[static_cast<std::size_t>(i * N + j)] - s));
    }
  EXPECT_LT(e1, 1e-10) << "distributed dgemm vs serial";
  EXPECT_LT(e2, 1e-10) << "mirrored dgemm vs serial";
  // With beta: C = 2 A B - C on consistent mirrored copies.
  GA_Dgemm('N', 'N', N, N, K, 2.0, am, bm, -1.0, cm);
  const auto m2 = get_all(cm, N, N);
  double e3 = 0;
  for (std::size_t i = 0; i < m2.size(); ++i) e3 = std::max(e3, std::fabs(m2[i] - mc[i]));
  EXPECT_LT(e3, 1e-10) << "2AB - AB";
  // A distributed C from mirrored operands (node-local reads only).
  GA_Dgemm('N', 'N', N, N, K, 1.0, am, bm, 0.0, c);
  const auto dc2 = get_all(c, N, N);
  double e4 = 0;
  for (std::size_t i = 0; i < dc2.size(); ++i) e4 = std::max(e4, std::fabs(dc2[i] - mc[i]));
  EXPECT_LT(e4, 1e-10) << "distributed C from mirrored A, B";
}

// Sparse merge: when each node writes only its 1/nnodes share, the merge
// moves each written tile to the other nodes once (the minimum, (P-1) x the
// array), instead of every tile in every step; with 2 nodes that is 1/2 of
// the full merge.
TEST_F(GaMirror, SparseMergeBytes) {
  const int P = gat::nnodes(), n = gat::node();
  const int N = 512;
  int dims[2] = {N, N};
  GA g(mirrored(C_DBL, 2, dims, "sparse"));
  // Full merge: every node writes its whole copy.
  if (gat::local_rank() == 0) {
    std::vector<double> v(N * N, 1.0 + n);
    int lo[2] = {0, 0}, hi[2] = {N - 1, N - 1}, ld[1] = {N};
    NGA_Put(g, lo, hi, v.data(), ld);
  }
  long rb = gat::remote_bytes();
  GA_Merge_mirrored(g);
  const long full_net = gat::sum_all(gat::remote_bytes() - rb);
  const long full = total_moved(g);
  EXPECT_EQ(full, total_full(g)) << "a merge of all-written copies is the full merge";
  // Sparse: zero, then node n writes rows [n*N/P, (n+1)*N/P) only.
  GA_Zero(g);
  const int r0 = n * N / P, r1 = (n + 1) * N / P - 1;
  const int lr = gat::local_rank(), nl = gat::local_size();
  const int q0 = r0 + (r1 - r0 + 1) * lr / nl, q1 = r0 + (r1 - r0 + 1) * (lr + 1) / nl - 1;
  put_pattern(g, q0, q1, 0, N - 1);
  rb = gat::remote_bytes();
  GA_Merge_mirrored(g);
  const long sparse_net = gat::sum_all(gat::remote_bytes() - rb);
  const long sparse = total_moved(g);
  EXPECT_EQ(pattern_mismatches(g, N), 0) << "sparse merge result";
  const long array_bytes = 8L * N * N;
  if (me() == 0)
    std::printf(
        "[ sparse merge ] nnodes=%d full merge %ld bytes (network %ld), sparse %ld bytes (network %ld), "
        "ratio %.3f, minimum for every node to get every share: %ld\n",
        P, full, full_net, sparse, sparse_net, full ? static_cast<double>(sparse) / full : 0.0,
        (P - 1) * array_bytes);
  if (P == 1) {
    EXPECT_EQ(full, 0);
    EXPECT_EQ(sparse, 0);
    return;
  }
  // Each share must reach the P-1 other nodes: (P-1) * array bytes at least;
  // the sparse merge stays within 10% of that (tiles on share borders).
  EXPECT_GE(sparse, (P - 1) * array_bytes);
  EXPECT_LE(sparse, (P - 1) * array_bytes * 11 / 10);
  // With two nodes that is half the full merge (1/nnodes), plus 10%.
  if (P == 2) {
    EXPECT_LE(sparse, full / P * 11 / 10);
  }
  EXPECT_LT(sparse, full);
  // The counted bytes are what crossed the network (plus small control traffic).
  EXPECT_GE(sparse_net, sparse);
  EXPECT_LE(sparse_net, sparse + sparse / 5 + 65536L * nproc());
  EXPECT_GE(full_net, full);
}

namespace {

// Bytes of patch [r0:r1, c0:c1] of distributed array g (doubles) owned by
// processes on nodes other than `node`.
long off_node_bytes(int g, int r0, int r1, int c0, int c1, int node) {
  if (r1 < r0 || c1 < c0) return 0;
  int lo[2] = {r0, c0}, hi[2] = {r1, c1};
  std::vector<int> map(static_cast<std::size_t>(4 * nproc())), procs(static_cast<std::size_t>(nproc()));
  const int k = NGA_Locate_region(g, lo, hi, map.data(), procs.data());
  long bytes = 0;
  for (int i = 0; i < k; ++i) {
    if (GA_Cluster_proc_nodeid(procs[static_cast<std::size_t>(i)]) == node) continue;
    const int* b = &map[static_cast<std::size_t>(4 * i)];
    bytes += 8L * (b[2] - b[0] + 1) * (b[3] - b[1] + 1);
  }
  return bytes;
}

}  // namespace

// The sparse merge into a distributed array (the "copy out" of the mirrored
// pattern): a written tile goes only to its owner if that is on another
// node, the least any merge can move.  The distributed array is laid out in
// row blocks and node n writes column share n, so every node's share meets
// the other nodes' rows as the whole array does: the sparse merge then moves
// 1/nnodes of the full merge's bytes (plus tiles on share borders).
TEST_F(GaMirror, SparseMergeDistrBytes) {
  const int P = gat::nnodes(), n = gat::node();
  const int N = 512;
  int dims[2] = {N, N};
  GA m(mirrored(C_DBL, 2, dims, "sparse_m"));
  std::vector<int> map;
  for (int p = 0; p < nproc(); ++p) map.push_back(p * N / nproc());
  map.push_back(0);
  int block[2] = {nproc(), 1};
  GA d(NGA_Create_irreg(C_DBL, 2, dims, gat::op("sparse_d"), block, map.data()));
  int lo[2] = {0, 0}, hi[2] = {N - 1, N - 1}, ld[1] = {N};
  if (gat::local_rank() == 0) {
    std::vector<double> v(N * N, 1.0 + n);
    NGA_Put(m, lo, hi, v.data(), ld);
  }
  long rb = gat::remote_bytes();
  NGA_Merge_distr_patch(m, lo, hi, d, lo, hi);
  const long full_net = gat::sum_all(gat::remote_bytes() - rb);
  const long full = total_moved(m);
  EXPECT_EQ(full, total_full(m)) << "a merge of all-written copies is the full merge";
  const long off_node = gat::local_rank() == 0 ? off_node_bytes(d, 0, N - 1, 0, N - 1, n) : 0;
  EXPECT_EQ(full, gat::sum_all(off_node)) << "full merge: every node sends the part other nodes own";
  const double expect_full = P * (P + 1) / 2.0;
  double got = 0;
  int one_lo[2] = {N / 3, N / 5};
  NGA_Get(d, one_lo, one_lo, &got, ld);
  EXPECT_EQ(got, expect_full);

  GA_Zero(m);
  // My node's share: columns [c0, c1]; its processes split the rows.
  const int c0 = n * N / P, c1 = (n + 1) * N / P - 1;
  const int lr = gat::local_rank(), nl = gat::local_size();
  put_pattern(m, N * lr / nl, N * (lr + 1) / nl - 1, c0, c1);
  rb = gat::remote_bytes();
  NGA_Merge_distr_patch(m, lo, hi, d, lo, hi);
  const long sparse_net = gat::sum_all(gat::remote_bytes() - rb);
  const long sparse = total_moved(m);
  EXPECT_EQ(pattern_mismatches(d, N), 0) << "sparse merge into the distributed array";
  // The least any merge can move: the parts of my share that other nodes own.
  const long minimum = gat::sum_all(gat::local_rank() == 0 ? off_node_bytes(d, 0, N - 1, c0, c1, n) : 0);
  if (me() == 0)
    std::printf(
        "[ sparse merge_distr_patch ] nnodes=%d full %ld bytes (network %ld), sparse %ld bytes "
        "(network %ld), ratio %.3f (1/nnodes = %.3f), minimum %ld\n",
        P, full, full_net, sparse, sparse_net, full ? static_cast<double>(sparse) / full : 0.0,
        1.0 / P, minimum);
  if (P == 1) {
    EXPECT_EQ(full, 0);
    EXPECT_EQ(sparse, 0);
    return;
  }
  EXPECT_GE(sparse, minimum);
  // A tile cut by a share border goes from both nodes beside it: at most one
  // strip of tiles (16 x 16 elements here: the tile grid's smallest square of
  // 256) per border on top of the minimum.
  const long borders = (P - 1) * 16L * N * 8;
  EXPECT_LE(sparse, minimum + borders);
  EXPECT_LE(sparse, full / P + borders) << "1/nnodes of the full merge, plus the share borders";
  EXPECT_GE(sparse_net, sparse);
  EXPECT_LE(sparse_net, sparse + sparse / 5 + 65536L * nproc());
  EXPECT_GE(full_net, full);
}

TEST_F(GaMirror, ElementOpsOnMirrored) {
  const int P = gat::nnodes();
  int dims[2] = {20, 20};
  GA a(mirrored(C_DBL, 2, dims, "a"));
  GA b(mirrored(C_DBL, 2, dims, "b"));
  double one = 1.0, two = 2.0;
  GA_Fill(a, &one);
  GA_Fill(b, &two);
  GA_Add(&two, a, &one, b, b);  // b = 2 + 2 = 4 on every node
  EXPECT_DOUBLE_EQ(GA_Ddot(a, b), 4.0 * 400) << "mirrored dot reduces within the node";
  GA_Scale(b, &two);
  GA_Merge_mirrored(b);
  const auto all = get_all(b, 20, 20);
  long bad = 0;
  for (double y : all) bad += y != 8.0 * P;
  EXPECT_EQ(bad, 0);
  // Read_inc on a mirrored counter: each node counts its own increments.
  int d1[1] = {4};
  GA c(mirrored(C_LONG, 1, d1, "c"));
  GA_Zero(c);
  int sub[1] = {1};
  for (int k = 0; k < 5; ++k) NGA_Read_inc(c, sub, 1);
  GA_Sync();
  long v = 0;
  NGA_Get(c, sub, sub, &v, nullptr);
  EXPECT_EQ(v, 5L * gat::local_size());
  GA_Merge_mirrored(c);
  NGA_Get(c, sub, sub, &v, nullptr);
  EXPECT_EQ(v, 5L * nproc());
}
