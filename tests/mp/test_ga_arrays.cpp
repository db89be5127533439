// GA arrays: creation paths, handles, inquiry, regular/chunked/irregular
// distributions and the locality calls, every type in 1..7 dimensions with
// checked put/get/acc, direct access to this node's blocks, cluster ids.
#include <algorithm>
#include <map>
#include <memory>

#include "ga_test.hpp"

using gat::GA;
using mp::me;
using mp::nproc;

class GaArrays : public gat::GaTest {};

namespace {

// Every element is in exactly one process's block; processes without a
// block report lo=-1, hi=-2.
void expect_partition(int g, int ndim, const int* dims, int nprocs) {
  long total = 1;
  for (int d = 0; d < ndim; ++d) total *= dims[d];
  std::vector<int> hits(static_cast<std::size_t>(total), 0);
  for (int p = 0; p < nprocs; ++p) {
    int lo[GA_MAX_DIM], hi[GA_MAX_DIM];
    NGA_Distribution(g, p, lo, hi);
    if (lo[0] < 0) {
      for (int d = 0; d < ndim; ++d) EXPECT_TRUE(lo[d] == -1 && hi[d] == -2) << "process " << p;
      continue;
    }
    int idx[GA_MAX_DIM];
    std::copy(lo, lo + ndim, idx);
    for (;;) {
      ++hits[static_cast<std::size_t>(gat::linear(ndim, dims, idx))];
      EXPECT_EQ(NGA_Locate(g, idx), p);
      int d = ndim - 1;
      for (; d >= 0; --d) {
        if (++idx[d] <= hi[d]) break;
        idx[d] = lo[d];
      }
      if (d < 0) break;
    }
  }
  long bad = 0;
  for (int h : hits) bad += h != 1;
  EXPECT_EQ(bad, 0) << "elements not owned exactly once";
}

}  // namespace

TEST_F(GaArrays, CreateInquireDuplicateDestroy) {
  int dims[2] = {17, 23};
  int g = NGA_Create(C_DBL, 2, dims, gat::op("a"), nullptr);
  EXPECT_LT(g, 0);
  EXPECT_EQ(GA_Valid_handle(g), 1);
  EXPECT_EQ(GA_Valid_handle(0), 0);
  int type = 0, ndim = 0, d2[GA_MAX_DIM] = {};
  NGA_Inquire(g, &type, &ndim, d2);
  EXPECT_EQ(type, C_DBL);
  EXPECT_EQ(ndim, 2);
  EXPECT_EQ(d2[0], 17);
  EXPECT_EQ(d2[1], 23);
  int h = GA_Duplicate(g, gat::op("b"));
  EXPECT_LT(h, 0);
  EXPECT_NE(h, g);
  for (int p = 0; p < GA_Nnodes(); ++p) {
    int lo1[2], hi1[2], lo2[2], hi2[2];
    NGA_Distribution(g, p, lo1, hi1);
    NGA_Distribution(h, p, lo2, hi2);
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(lo1[d], lo2[d]);
      EXPECT_EQ(hi1[d], hi2[d]);
    }
  }
  GA_Destroy(h);
  EXPECT_EQ(GA_Valid_handle(h), 0);
  // The handle/set/allocate path.
  int k = GA_Create_handle();
  EXPECT_LT(k, 0);
  int dk[3] = {5, 6, 7}, chunk[3] = {-1, 6, -1};
  GA_Set_data(k, 3, dk, C_INT);
  GA_Set_chunk(k, chunk);
  GA_Set_array_name(k, gat::op("made by handle"));
  GA_Set_pgroup(k, GA_Pgroup_get_world());
  EXPECT_EQ(GA_Allocate(k), 1);
  for (int p = 0; p < GA_Nnodes(); ++p) {
    int lo[3], hi[3];
    NGA_Distribution(k, p, lo, hi);
    if (lo[0] >= 0) {
      EXPECT_TRUE(lo[1] == 0 && hi[1] == 5) << "chunk[1]=6 keeps dimension 1 whole";
    }
  }
  expect_partition(k, 3, dk, GA_Nnodes());
  GA_Destroy(k);
  GA_Destroy(g);
  EXPECT_EQ(GA_Valid_handle(g), 0);
}

TEST_F(GaArrays, RegularDistributionsPartition) {
  const std::vector<std::vector<int>> shapes = {
      {10}, {1}, {7, 13}, {1025, 3}, {4, 5, 6}, {2, 3, 2, 3}, {2, 2, 2, 2, 2, 2, 3}, {3, 1, 9}};
  for (const auto& s : shapes) {
    std::vector<int> dims = s;
    GA g(NGA_Create(C_FLOAT, static_cast<int>(dims.size()), dims.data(), gat::op("p"), nullptr));
    expect_partition(g, static_cast<int>(dims.size()), dims.data(), GA_Nnodes());
  }
  // Blocks of a 2-d array are balanced: no block more than one row/column
  // larger than the ceiling split of its dimension.
  int dims[2] = {1025, 1025};
  GA g(NGA_Create(C_DBL, 2, dims, gat::op("big"), nullptr));
  long mine = 0;
  int lo[2], hi[2];
  NGA_Distribution(g, GA_Nodeid(), lo, hi);
  if (lo[0] >= 0) mine = static_cast<long>(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
  long most = mine;
  GA_Lgop(&most, 1, gat::op("max"));
  EXPECT_LE(most, 1025L * 1025 / nproc() * 2 + 2048) << "a block is far above the average";
}

TEST_F(GaArrays, IrregularDistributionAndLocate) {
  const int P = nproc();
  const int b0 = std::max(1, P / 2), b1 = P >= 2 ? 2 : 1;
  int dims[2] = {20, 9};
  std::vector<int> map;
  for (int i = 0; i < b0; ++i) map.push_back(i * 20 / b0);
  for (int i = 0; i < b1; ++i) map.push_back(i * 9 / b1 + (i ? 1 : 0));
  int block[2] = {b0, b1};
  GA g(NGA_Create_irreg(C_LONG, 2, dims, gat::op("irr"), block, map.data()));
  for (int p = 0; p < P; ++p) {
    int lo[2], hi[2];
    NGA_Distribution(g, p, lo, hi);
    if (p >= b0 * b1) {
      EXPECT_EQ(lo[0], -1);
      EXPECT_EQ(hi[0], -2);
      continue;
    }
    const int i = p / b1, j = p % b1;
    EXPECT_EQ(lo[0], map[static_cast<std::size_t>(i)]);
    EXPECT_EQ(hi[0], i + 1 < b0 ? map[static_cast<std::size_t>(i) + 1] - 1 : 19);
    EXPECT_EQ(lo[1], map[static_cast<std::size_t>(b0 + j)]);
    EXPECT_EQ(hi[1], j + 1 < b1 ? map[static_cast<std::size_t>(b0 + j) + 1] - 1 : 8);
  }
  expect_partition(g, 2, dims, P);
  int plo[2] = {1, 2}, phi[2] = {18, 7};
  std::vector<int> rmap(static_cast<std::size_t>(4 * P)), procs(static_cast<std::size_t>(P));
  const int n = NGA_Locate_region(g, plo, phi, rmap.data(), procs.data());
  EXPECT_EQ(n, NGA_Locate_nnodes(g, plo, phi));
  long covered = 0;
  for (int r = 0; r < n; ++r) {
    const int* m = &rmap[static_cast<std::size_t>(4 * r)];
    int lo[2], hi[2];
    NGA_Distribution(g, procs[static_cast<std::size_t>(r)], lo, hi);
    EXPECT_TRUE(m[0] >= std::max(lo[0], plo[0]) && m[2] <= std::min(hi[0], phi[0]));
    covered += static_cast<long>(m[2] - m[0] + 1) * (m[3] - m[1] + 1);
  }
  EXPECT_EQ(covered, 18L * 6);
  // Irregular array on the same map, created through the handle path.
  int k = GA_Create_handle();
  GA_Set_data(k, 2, dims, C_INT);
  GA_Set_irreg_distr(k, map.data(), block);
  EXPECT_EQ(GA_Allocate(k), 1);
  for (int p = 0; p < P; ++p) {
    int lo1[2], hi1[2], lo2[2], hi2[2];
    NGA_Distribution(g, p, lo1, hi1);
    NGA_Distribution(k, p, lo2, hi2);
    EXPECT_EQ(lo1[0], lo2[0]);
    EXPECT_EQ(hi1[1], hi2[1]);
  }
  GA_Destroy(k);
}

namespace {

// One array of type T and ndim dimensions: the last rank puts a pattern,
// everybody reads an interior patch, then accumulates 2 everywhere, then
// checks.  The steps of several arrays share their syncs.
struct Roundtrip {
  virtual ~Roundtrip() = default;
  virtual void put() = 0;
  virtual void get() = 0;
  virtual void acc() = 0;
  virtual void check() = 0;
};

template <typename T>
class RoundtripOf : public Roundtrip {
 public:
  RoundtripOf(int type, int ndim) : type_(type), ndim_(ndim) {
    static const int kDims[7][7] = {
        {37}, {9, 7}, {5, 4, 3}, {3, 3, 3, 2}, {2, 3, 2, 2, 3}, {2, 2, 2, 2, 2, 3}, {2, 2, 2, 2, 2, 2, 3}};
    total_ = 1;
    for (int d = 0; d < ndim; ++d) {
      dims_[d] = kDims[ndim - 1][d];
      lo_[d] = 0;
      hi_[d] = dims_[d] - 1;
      total_ *= dims_[d];
    }
    g_ = NGA_Create(type, ndim, dims_, gat::op("rt"), nullptr);
    all_.resize(static_cast<std::size_t>(total_));
    for (long i = 0; i < total_; ++i) all_[static_cast<std::size_t>(i)] = gat::pattern<T>(i, ndim);
    ld_ = gat::tight_ld(ndim, lo_, hi_);
  }
  ~RoundtripOf() override { GA_Destroy(g_); }
  void put() override {
    if (me() == nproc() - 1) NGA_Put(g_, lo_, hi_, all_.data(), ld_.data());
  }
  void get() override {
    int plo[GA_MAX_DIM], phi[GA_MAX_DIM];
    long pn = 1;
    for (int d = 0; d < ndim_; ++d) {
      plo[d] = dims_[d] > 2 ? 1 : 0;
      phi[d] = dims_[d] - 1;
      pn *= phi[d] - plo[d] + 1;
    }
    std::vector<T> part(static_cast<std::size_t>(pn));
    auto pld = gat::tight_ld(ndim_, plo, phi);
    NGA_Get(g_, plo, phi, part.data(), pld.data());
    long bad = 0, k = 0;
    int idx[GA_MAX_DIM];
    std::copy(plo, plo + ndim_, idx);
    for (;; ++k) {
      bad +=
          part[static_cast<std::size_t>(k)] != all_[static_cast<std::size_t>(gat::linear(ndim_, dims_, idx))];
      int d = ndim_ - 1;
      for (; d >= 0; --d) {
        if (++idx[d] <= phi[d]) break;
        idx[d] = plo[d];
      }
      if (d < 0) break;
    }
    EXPECT_EQ(bad, 0) << "get, type " << type_ << " ndim " << ndim_;
  }
  void acc() override {
    std::vector<T> ones(static_cast<std::size_t>(total_), T(1));
    T two = T(2);
    NGA_Acc(g_, lo_, hi_, ones.data(), ld_.data(), &two);
  }
  void check() override {
    std::vector<T> back(static_cast<std::size_t>(total_));
    NGA_Get(g_, lo_, hi_, back.data(), ld_.data());
    long bad = 0;
    for (long i = 0; i < total_; ++i)
      bad += back[static_cast<std::size_t>(i)] != all_[static_cast<std::size_t>(i)] + T(2 * nproc());
    EXPECT_EQ(bad, 0) << "acc, type " << type_ << " ndim " << ndim_;
  }

 private:
  int type_, ndim_, g_ = 0;
  int dims_[GA_MAX_DIM], lo_[GA_MAX_DIM], hi_[GA_MAX_DIM];
  long total_ = 0;
  std::vector<T> all_;
  std::vector<int> ld_;
};

std::unique_ptr<Roundtrip> roundtrip(int type, int ndim) {
  switch (type) {
    case C_INT:
      return std::make_unique<RoundtripOf<int>>(type, ndim);
    case C_LONG:
      return std::make_unique<RoundtripOf<long>>(type, ndim);
    case C_LONGLONG:
      return std::make_unique<RoundtripOf<long long>>(type, ndim);
    case C_FLOAT:
      return std::make_unique<RoundtripOf<float>>(type, ndim);
    case C_DBL:
      return std::make_unique<RoundtripOf<double>>(type, ndim);
    case C_SCPL:
      return std::make_unique<RoundtripOf<std::complex<float>>>(type, ndim);
    default:
      return std::make_unique<RoundtripOf<std::complex<double>>>(type, ndim);
  }
}

}  // namespace

// Every type, every number of dimensions: three types per dimension count,
// rotating, so each type meets three dimension counts and all of 1..7 are
// covered by several types.
TEST_F(GaArrays, EveryTypeEveryRank) {
  const int types[7] = {C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL, C_DCPL};
  std::vector<std::unique_ptr<Roundtrip>> rts;
  for (int nd = 1; nd <= 7; ++nd)
    for (int k = 0; k < 3; ++k) rts.push_back(roundtrip(types[(3 * nd + k) % 7], nd));
  for (auto& r : rts) r->put();
  GA_Sync();
  for (auto& r : rts) r->get();
  GA_Sync();
  for (auto& r : rts) r->acc();
  GA_Sync();
  for (auto& r : rts) r->check();
  GA_Sync();
  while (!rts.empty()) rts.pop_back();  // destroyed in reverse creation order
}

// Direct pointers: my block, and the block of another process of my node.
TEST_F(GaArrays, AccessOwnAndNodeBlocks) {
  int dims[2] = {31, 29};
  GA g(NGA_Create(C_DBL, 2, dims, gat::op("acc"), nullptr));
  int lo[2], hi[2];
  NGA_Distribution(g, GA_Nodeid(), lo, hi);
  if (lo[0] >= 0) {
    double* p = nullptr;
    int ld[1];
    NGA_Access(g, lo, hi, &p, ld);
    ASSERT_NE(p, nullptr);
    for (int i = lo[0]; i <= hi[0]; ++i)
      for (int j = lo[1]; j <= hi[1]; ++j) p[(i - lo[0]) * ld[0] + (j - lo[1])] = i * 1000.0 + j;
    NGA_Release_update(g, lo, hi);
  }
  GA_Sync();
  // Every block of my node, read through NGA_Access.
  const auto peers = mp::node_peers();
  for (int w : peers) {
    int plo[2], phi[2];
    NGA_Distribution(g, w, plo, phi);
    if (plo[0] < 0) continue;
    int sub_lo[2] = {phi[0], plo[1]}, sub_hi[2] = {phi[0], phi[1]};
    double* p = nullptr;
    int ld[1];
    NGA_Access(g, sub_lo, sub_hi, &p, ld);
    long bad = 0;
    for (int j = plo[1]; j <= phi[1]; ++j) bad += p[j - plo[1]] != phi[0] * 1000.0 + j;
    NGA_Release(g, sub_lo, sub_hi);
    EXPECT_EQ(bad, 0) << "block of process " << w;
  }
  // The same values through NGA_Get from anywhere.
  std::vector<double> all(31 * 29);
  int alo[2] = {0, 0}, ahi[2] = {30, 28}, ld[1] = {29};
  NGA_Get(g, alo, ahi, all.data(), ld);
  long bad = 0;
  for (int i = 0; i < 31; ++i)
    for (int j = 0; j < 29; ++j) bad += all[static_cast<std::size_t>(i * 29 + j)] != i * 1000.0 + j;
  EXPECT_EQ(bad, 0);
}

TEST_F(GaArrays, NodeidsAndCluster) {
  EXPECT_EQ(GA_Nodeid(), me());
  EXPECT_EQ(GA_Nnodes(), nproc());
  EXPECT_EQ(GA_Cluster_nnodes(), armci_domain_count(ARMCI_DOMAIN_SMP));
  EXPECT_EQ(GA_Cluster_nodeid(), armci_domain_my_id(ARMCI_DOMAIN_SMP));
  int counted = 0;
  for (int n = 0; n < GA_Cluster_nnodes(); ++n) {
    counted += GA_Cluster_nprocs(n);
    for (int i = 0; i < GA_Cluster_nprocs(n); ++i)
      EXPECT_EQ(GA_Cluster_proc_nodeid(GA_Cluster_procid(n, i)), n);
  }
  EXPECT_EQ(counted, nproc());
  EXPECT_EQ(GA_Cluster_procid(gat::node(), gat::local_rank()), me());
}

TEST_F(GaArrays, PrintSmall) {
  int dims[2] = {3, 4};
  GA g(NGA_Create(C_INT, 2, dims, gat::op("printed"), nullptr));
  int one = 7;
  GA_Fill(g, &one);
  GA_Print(g);
  GA_Print_distribution(g);
  SUCCEED();
}
