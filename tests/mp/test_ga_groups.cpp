// Processor groups: world/mirror/default handles, create/split/split_irreg/
// destroy, group sync/gop/broadcast, arrays on groups, a subgroup as the
// default group (GA_Nodeid, NGA_Create, GA_Sync, GA_Dgop, GA_Brdcst follow
// it), and copies between arrays on nested groups called by the smaller one.
#include <algorithm>

#include "ga_test.hpp"

using gat::GA;
using mp::me;
using mp::nproc;

class GaGroups : public gat::GaTest {};

namespace {

// The group GA_Pgroup_split(world, n) puts me in: [i*P/n, (i+1)*P/n).
std::vector<int> split_members(int n) {
  const int P = nproc();
  for (int i = 0; i < n; ++i) {
    const int a = i * P / n, b = (i + 1) * P / n;
    if (me() >= a && me() < b) {
      std::vector<int> v;
      for (int k = a; k < b; ++k) v.push_back(k);
      return v;
    }
  }
  return {};
}

}  // namespace

TEST_F(GaGroups, WorldMirrorDefault) {
  EXPECT_EQ(GA_Pgroup_get_world(), -1);
  EXPECT_EQ(GA_Pgroup_get_mirror(), 0);
  EXPECT_EQ(GA_Pgroup_get_default(), -1);
  EXPECT_EQ(GA_Pgroup_nodeid(-1), me());
  EXPECT_EQ(GA_Pgroup_nnodes(-1), nproc());
  EXPECT_EQ(GA_Pgroup_nodeid(0), gat::local_rank());
  EXPECT_EQ(GA_Pgroup_nnodes(0), gat::local_size());
  GA_Pgroup_sync(-1);
  GA_Pgroup_sync(0);
  double x = 1.0;
  GA_Pgroup_dgop(0, &x, 1, gat::op("+"));
  EXPECT_EQ(x, gat::local_size()) << "the mirror group reduces over my node";
  long y = me();
  GA_Pgroup_lgop(-1, &y, 1, gat::op("max"));
  EXPECT_EQ(y, nproc() - 1);
  int b = me() == GA_Cluster_procid(gat::node(), 0) ? 4242 + gat::node() : -1;
  GA_Pgroup_brdcst(0, &b, sizeof b, 0);
  EXPECT_EQ(b, 4242 + gat::node());
}

TEST_F(GaGroups, EvenRanksGroupWithArray) {
  std::vector<int> even;
  for (int r = 0; r < nproc(); r += 2) even.push_back(r);
  const int g = GA_Pgroup_create(even.data(), static_cast<int>(even.size()));
  EXPECT_GT(g, 0);
  const bool member = me() % 2 == 0;
  EXPECT_EQ(GA_Pgroup_nodeid(g), member ? me() / 2 : -1);
  EXPECT_EQ(GA_Pgroup_nnodes(g), static_cast<int>(even.size()));
  if (member) {
    int s = me();
    GA_Pgroup_igop(g, &s, 1, gat::op("+"));
    int want = 0;
    for (int r : even) want += r;
    EXPECT_EQ(s, want);
    long root_val = GA_Pgroup_nodeid(g) == static_cast<int>(even.size()) - 1 ? 99 : 0;
    GA_Pgroup_brdcst(g, &root_val, sizeof root_val, static_cast<int>(even.size()) - 1);
    EXPECT_EQ(root_val, 99);
    GA_Pgroup_sync(g);
    int dims[2] = {25, 6};
    int a = NGA_Create_config(C_INT, 2, dims, gat::op("on evens"), nullptr, g);
    EXPECT_LT(a, 0);
    int owners = 0;
    for (int p = 0; p < static_cast<int>(even.size()); ++p) {
      int lo[2], hi[2];
      NGA_Distribution(a, p, lo, hi);
      owners += lo[0] >= 0;
    }
    EXPECT_GE(owners, 1);
    std::vector<int> v(25 * 6);
    for (int i = 0; i < 150; ++i) v[static_cast<std::size_t>(i)] = i;
    int lo[2] = {0, 0}, hi[2] = {24, 5}, ld[1] = {6};
    if (GA_Pgroup_nodeid(g) == 0) NGA_Put(a, lo, hi, v.data(), ld);
    GA_Pgroup_sync(g);
    std::vector<int> back(150, -1);
    NGA_Get(a, lo, hi, back.data(), ld);
    EXPECT_TRUE(mp::same(back, v, "array on a group"));
    GA_Destroy(a);
  }
  EXPECT_EQ(GA_Pgroup_destroy(g), 1);
}

TEST_F(GaGroups, SplitAndSplitIrreg) {
  const int n = std::min(2, nproc());
  const int g = GA_Pgroup_split(-1, n);
  const auto want = split_members(n);
  EXPECT_EQ(GA_Pgroup_nnodes(g), static_cast<int>(want.size()));
  EXPECT_EQ(GA_Pgroup_nodeid(g), me() - want.front());
  int s = 1;
  GA_Pgroup_igop(g, &s, 1, gat::op("+"));
  EXPECT_EQ(s, static_cast<int>(want.size()));
  const int color = me() % 3;
  const int h = GA_Pgroup_split_irreg(-1, color);
  int count = 0, rank = 0;
  for (int r = 0; r < nproc(); ++r)
    if (r % 3 == color) {
      if (r < me()) ++rank;
      ++count;
    }
  EXPECT_EQ(GA_Pgroup_nnodes(h), count);
  EXPECT_EQ(GA_Pgroup_nodeid(h), rank);
  long c = color;
  GA_Pgroup_lgop(h, &c, 1, gat::op("max"));
  EXPECT_EQ(c, color) << "a colour group holds only its colour";
  // Split of a split.
  const int hh = GA_Pgroup_split(g, std::min(2, GA_Pgroup_nnodes(g)));
  int one = 1;
  GA_Pgroup_igop(hh, &one, 1, gat::op("+"));
  EXPECT_EQ(one, GA_Pgroup_nnodes(hh));
  GA_Pgroup_destroy(hh);
  GA_Pgroup_destroy(h);
  GA_Pgroup_destroy(g);
}

TEST_F(GaGroups, SubgroupAsDefault) {
  const int n = std::min(2, nproc());
  const int g = GA_Pgroup_split(-1, n);
  const auto members = split_members(n);
  GA_Pgroup_set_default(g);
  EXPECT_EQ(GA_Pgroup_get_default(), g);
  EXPECT_EQ(GA_Nodeid(), me() - members.front());
  EXPECT_EQ(GA_Nnodes(), static_cast<int>(members.size()));
  double x = 1.0;
  GA_Dgop(&x, 1, gat::op("+"));
  EXPECT_EQ(x, static_cast<double>(members.size()));
  long root = GA_Nodeid() == 0 ? 1000 + members.front() : -1;
  GA_Brdcst(&root, sizeof root, 0);
  EXPECT_EQ(root, 1000 + members.front());
  GA_Sync();
  {
    // NGA_Create lives on the default group: its processes are the subgroup.
    int dims[1] = {40};
    GA a(NGA_Create(C_DBL, 1, dims, gat::op("sub"), nullptr));
    int lo[1], hi[1];
    long owned = 0;
    for (int p = 0; p < GA_Nnodes(); ++p) {
      NGA_Distribution(a, p, lo, hi);
      if (lo[0] >= 0) owned += hi[0] - lo[0] + 1;
    }
    EXPECT_EQ(owned, 40);
    double v = 1.0 + members.front();
    GA_Fill(a, &v);
    std::vector<double> all(40);
    int l0[1] = {0}, l1[1] = {39};
    NGA_Get(a, l0, l1, all.data(), nullptr);
    long bad = 0;
    for (double y : all) bad += y != v;
    EXPECT_EQ(bad, 0);
    // A group made inside the default group: ranks are default-group ranks.
    int first = 0;
    const int inner = GA_Pgroup_create(&first, 1);
    EXPECT_EQ(GA_Pgroup_nodeid(inner), GA_Nodeid() == 0 ? 0 : -1);
    GA_Pgroup_destroy(inner);
  }
  GA_Pgroup_set_default(-1);
  EXPECT_EQ(GA_Nnodes(), nproc());
  GA_Pgroup_destroy(g);
}

TEST_F(GaGroups, CopyBetweenNestedGroups) {
  const int n = std::min(2, nproc());
  int dims[2] = {20, 17};
  GA x(NGA_Create(C_DBL, 2, dims, gat::op("X"), nullptr));
  GA_Zero(x);
  const int g = GA_Pgroup_split(-1, n);
  const auto members = split_members(n);
  const int sub_id = members.front();
  std::vector<double> all(20 * 17);
  int lo[2] = {0, 0}, hi[2] = {19, 16}, ld[1] = {17};
  for (int i = 0; i < 20 * 17; ++i) all[static_cast<std::size_t>(i)] = i;
  if (me() == 0) NGA_Put(x, lo, hi, all.data(), ld);
  GA_Sync();
  {
    GA y(NGA_Create_config(C_DBL, 2, dims, gat::op("Y"), nullptr, g));
    // Called by the subgroup only: world array -> subgroup array.
    GA_Copy(x, y);
    std::vector<double> got(all.size(), -1);
    NGA_Get(y, lo, hi, got.data(), ld);
    EXPECT_TRUE(mp::same(got, all, "world -> subgroup copy"));
    GA_Sync();  // every subgroup has read X before one of them rewrites it
    // Subgroup array -> world array, by the subgroup holding rank 0 only.
    double v = 5.0 + sub_id;
    GA_Fill(y, &v);
    if (sub_id == 0) GA_Copy(y, x);
    // And a patch copy back, by every subgroup into its own Y.
    int plo[2] = {2, 3}, phi[2] = {6, 9};
    GA_Sync();
    NGA_Copy_patch('N', x, plo, phi, y, plo, phi);
    std::vector<double> p(5 * 7);
    int pld[1] = {7};
    NGA_Get(y, plo, phi, p.data(), pld);
    long bad = 0;
    for (double q : p) bad += q != 5.0;
    EXPECT_EQ(bad, 0) << "patch copied from the world array";
    GA_Pgroup_sync(g);
  }
  NGA_Get(x, lo, hi, all.data(), ld);
  long bad = 0;
  for (double q : all) bad += q != 5.0;
  EXPECT_EQ(bad, 0) << "subgroup -> world copy by the smaller group";
  GA_Sync();
  GA_Pgroup_destroy(g);
}

// A mirrored array made while a subgroup is the default: one copy per node
// of the subgroup, merged over the subgroup only.
TEST_F(GaGroups, MirroredOnSubgroup) {
  const int n = std::min(2, nproc());
  const int g = GA_Pgroup_split(-1, n);
  const auto members = split_members(n);
  GA_Pgroup_set_default(g);
  std::vector<int> nodes;  // cluster nodes of my subgroup
  int my_local = 0;
  for (int w : members) {
    const int nd = GA_Cluster_proc_nodeid(w);
    if (std::find(nodes.begin(), nodes.end(), nd) == nodes.end()) nodes.push_back(nd);
    if (nd == gat::node() && w < me()) ++my_local;
  }
  const int cnt = static_cast<int>(nodes.size());
  int node_sum = 0;
  for (int nd : nodes) node_sum += nd;
  {
    const int N = 20;
    int dims[2] = {N, N};
    GA a(NGA_Create_config(C_DBL, 2, dims, gat::op("sub mirror"), nullptr, GA_Pgroup_get_mirror()));
    EXPECT_EQ(GA_Is_mirrored(a), cnt > 1 ? 1 : 0);
    int lo[2], hi[2];
    NGA_Distribution(a, my_local, lo, hi);
    if (lo[0] >= 0) {
      const int cols = hi[1] - lo[1] + 1;
      std::vector<double> v(static_cast<std::size_t>((hi[0] - lo[0] + 1) * cols));
      for (int i = lo[0]; i <= hi[0]; ++i)
        for (int j = lo[1]; j <= hi[1]; ++j)
          v[static_cast<std::size_t>((i - lo[0]) * cols + j - lo[1])] = gat::node() + i + j * N;
      int ld[1] = {cols};
      NGA_Put(a, lo, hi, v.data(), ld);
    }
    GA_Merge_mirrored(a);
    std::vector<double> all(N * N);
    int alo[2] = {0, 0}, ahi[2] = {N - 1, N - 1}, ald[1] = {N};
    NGA_Get(a, alo, ahi, all.data(), ald);
    long bad = 0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        bad += all[static_cast<std::size_t>(i * N + j)] != cnt * (i + j * static_cast<double>(N)) + node_sum;
    EXPECT_EQ(bad, 0) << "subgroup of " << members.size() << " processes on " << cnt << " node(s)";
  }
  GA_Pgroup_set_default(-1);
  GA_Pgroup_destroy(g);
}
