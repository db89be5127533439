// Processor groups and locality: Group_create with disjoint lists (odd/even,
// singletons) and with one list shared by all, create_child, rank/size/
// Absolute_id, default and world groups, group collectives and scopes,
// Malloc_group with RMA inside a group, Group_free, and the armci_domain_*
// calls checked against each other and against ARMCI_Same_node.
#include <algorithm>
#include <cstring>

#include "mp_check.hpp"

using mp::me;
using mp::nproc;

namespace {

std::vector<int> parity_list() {
  std::vector<int> v;
  for (int r = me() % 2; r < nproc(); r += 2) v.push_back(r);
  return v;
}

// Members of `members` (world ranks, group order) that share my node, and
// the first member of each node (the node masters of the group).
std::vector<int> on_my_node(const std::vector<int>& members) {
  std::vector<int> v;
  for (int w : members)
    if (ARMCI_Same_node(w)) v.push_back(w);
  return v;
}
std::vector<int> masters_of(const std::vector<int>& members) {
  std::vector<int> v, seen;
  for (int w : members) {
    const int d = armci_domain_id(ARMCI_DOMAIN_SMP, w);
    if (std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    v.push_back(w);
  }
  return v;
}
long sum_sq_plus1(const std::vector<int>& ranks) {
  long s = 0;
  for (int w : ranks) s += static_cast<long>(w) * w + 1;
  return s;
}

}  // namespace

class Groups : public mp::MpTest {};

TEST_F(Groups, OddEvenRankSizeAbsolute) {
  const auto list = parity_list();
  const int n = static_cast<int>(list.size());
  ARMCI_Group g;
  ARMCI_Group_create(n, const_cast<int*>(list.data()), &g);
  int rank = -1, size = -1;
  EXPECT_EQ(ARMCI_Group_rank(&g, &rank), 0);
  ARMCI_Group_size(&g, &size);
  EXPECT_EQ(size, n);
  EXPECT_EQ(rank, me() / 2);
  for (int i = 0; i < n; ++i) EXPECT_EQ(ARMCI_Absolute_id(&g, i), list[static_cast<std::size_t>(i)]);
  armci_msg_group_barrier(&g);
  // Reductions stay inside the group.
  int xi = me() * me() + 1;
  long xl = me() * me() + 1;
  long long xll = static_cast<long long>(me()) * me() + 1;
  float xf = static_cast<float>(me() * me() + 1);
  double xd = me() * me() + 1;
  armci_msg_group_igop(&xi, 1, mp::op("+"), &g);
  armci_msg_group_lgop(&xl, 1, mp::op("+"), &g);
  armci_msg_group_llgop(&xll, 1, mp::op("+"), &g);
  armci_msg_group_fgop(&xf, 1, mp::op("+"), &g);
  armci_msg_group_dgop(&xd, 1, mp::op("+"), &g);
  const long want = sum_sq_plus1(list);
  EXPECT_EQ(xi, want);
  EXPECT_EQ(xl, want);
  EXPECT_EQ(xll, want);
  EXPECT_EQ(xf, static_cast<float>(want));
  EXPECT_EQ(xd, static_cast<double>(want));
  int mx = me();
  armci_msg_group_igop(&mx, 1, mp::op("max"), &g);
  EXPECT_EQ(mx, list.back());
  // Scopes of a group: my node's members, and one master per node.
  double sn = me() * me() + 1, sm = me() * me() + 1;
  armci_msg_group_gop_scope(SCOPE_NODE, &sn, 1, mp::op("+"), ARMCI_DOUBLE, &g);
  EXPECT_EQ(sn, static_cast<double>(sum_sq_plus1(on_my_node(list))));
  armci_msg_group_gop_scope(SCOPE_MASTERS, &sm, 1, mp::op("+"), ARMCI_DOUBLE, &g);
  const auto masters = masters_of(list);
  const bool master = std::find(masters.begin(), masters.end(), me()) != masters.end();
  EXPECT_EQ(sm, master ? static_cast<double>(sum_sq_plus1(masters)) : me() * me() + 1.0)
      << (master ? "master" : "non-master (must be left alone)");
  long sa = me();
  armci_msg_group_gop_scope(SCOPE_ALL, &sa, 1, mp::op("min"), ARMCI_LONG, &g);
  EXPECT_EQ(sa, list.front());
  // Broadcasts: root given as a WORLD rank.
  std::vector<int> buf(30000);
  const int root = list.back();
  for (int i = 0; i < 30000; ++i) buf[static_cast<std::size_t>(i)] = me() == root ? i * 3 + root : -1;
  armci_msg_group_bcast_scope(SCOPE_ALL, buf.data(), 30000 * 4, root, &g);
  int bad = 0;
  for (int i = 0; i < 30000; ++i) bad += buf[static_cast<std::size_t>(i)] != i * 3 + root;
  EXPECT_EQ(bad, 0) << "group broadcast from world rank " << root;
  const int node_root = on_my_node(list).front();
  long nb = me() == node_root ? 4242L + node_root : -1L;
  armci_msg_group_bcast_scope(SCOPE_NODE, &nb, 8, node_root, &g);
  EXPECT_EQ(nb, 4242L + node_root);
  long cb = me() == node_root ? 777L * node_root : -1L;
  armci_grp_clus_brdcst(&cb, 8, node_root, static_cast<int>(on_my_node(list).size()), &g);
  EXPECT_EQ(cb, 777L * node_root);
  // Addresses by group rank.
  std::vector<void*> addr(static_cast<std::size_t>(n), nullptr);
  addr[static_cast<std::size_t>(rank)] = reinterpret_cast<void*>(static_cast<uintptr_t>(0x1000 + me()));
  armci_exchange_address_grp(addr.data(), n, &g);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(addr[static_cast<std::size_t>(i)]),
              static_cast<uintptr_t>(0x1000 + list[static_cast<std::size_t>(i)]));
  ARMCI_Group_free(&g);
}

// One list for everybody (reversed world order), RMA on a group allocation.
TEST_F(Groups, SameListEverywhereWithMallocGroup) {
  const int P = nproc();
  std::vector<int> list;
  for (int r = P - 1; r >= 0; --r) list.push_back(r);
  ARMCI_Group g;
  ARMCI_Group_create(P, list.data(), &g);
  int rank = -1;
  EXPECT_EQ(ARMCI_Group_rank(&g, &rank), 0);
  EXPECT_EQ(rank, P - 1 - me());
  std::vector<void*> p(static_cast<std::size_t>(P), nullptr);
  const int n = 256;
  EXPECT_EQ(ARMCI_Malloc_group(p.data(), n * 8, &g), 0);
  auto* mine = static_cast<long*>(p[static_cast<std::size_t>(rank)]);
  std::fill(mine, mine + n, -1L);
  armci_msg_group_barrier(&g);
  const int to = (rank + 1) % P, from = (rank + P - 1) % P;
  const int to_world = ARMCI_Absolute_id(&g, to);
  EXPECT_EQ(to_world, P - 1 - to);
  std::vector<long> src(n);
  for (int i = 0; i < n; ++i) src[static_cast<std::size_t>(i)] = 100000L * me() + i;
  EXPECT_EQ(ARMCI_Put(src.data(), p[static_cast<std::size_t>(to)], n * 8, to_world), 0);
  ARMCI_GroupFence(&g);
  armci_msg_group_barrier(&g);
  std::vector<long> want(n);
  for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = 100000L * ARMCI_Absolute_id(&g, from) + i;
  EXPECT_TRUE(mp::same(mine, want.data(), static_cast<std::size_t>(n), "group block"));
  armci_msg_group_barrier(&g);
  EXPECT_EQ(ARMCI_Free_group(mine, &g), 0);
  ARMCI_Group_free(&g);
}

// Children of the odd/even groups (lists in parent ranks), and of the world.
TEST_F(Groups, CreateChild) {
  const auto list = parity_list();
  const int gs = static_cast<int>(list.size());
  ARMCI_Group parent, child, wchild;
  ARMCI_Group_create(gs, const_cast<int*>(list.data()), &parent);
  int prank = -1;
  ARMCI_Group_rank(&parent, &prank);
  // Child: parent ranks gs-1 .. 1 (parent rank 0 stays out unless alone).
  std::vector<int> clist;
  for (int i = gs - 1; i >= (gs > 1 ? 1 : 0); --i) clist.push_back(i);
  ARMCI_Group_create_child(static_cast<int>(clist.size()), clist.data(), &child, &parent);
  const bool member = gs == 1 || prank >= 1;
  if (member) {
    int crank = -1, csize = -1;
    EXPECT_EQ(ARMCI_Group_rank(&child, &crank), 0);
    ARMCI_Group_size(&child, &csize);
    EXPECT_EQ(csize, static_cast<int>(clist.size()));
    EXPECT_EQ(crank, gs == 1 ? 0 : gs - 1 - prank);
    for (int c = 0; c < csize; ++c)
      EXPECT_EQ(ARMCI_Absolute_id(&child, c), ARMCI_Absolute_id(&parent, clist[static_cast<std::size_t>(c)]));
    int x = me();
    armci_msg_group_igop(&x, 1, mp::op("+"), &child);
    int want = 0;
    for (int c : clist) want += list[static_cast<std::size_t>(c)];
    EXPECT_EQ(x, want);
  }
  ARMCI_Group w;
  ARMCI_Group_get_world(&w);
  int all[1] = {0};
  ARMCI_Group_create_child(1, all, &wchild, &w);  // world rank 0 alone
  if (me() == 0) {
    int s = -1;
    ARMCI_Group_size(&wchild, &s);
    EXPECT_EQ(s, 1);
    EXPECT_EQ(ARMCI_Absolute_id(&wchild, 0), 0);
    armci_msg_group_barrier(&wchild);
  }
  ARMCI_Group_free(&wchild);
  ARMCI_Group_free(&child);
  ARMCI_Group_free(&parent);
}

// The default group is what Malloc and the plain collectives act on.
TEST_F(Groups, DefaultGroup) {
  ARMCI_Group w, d, g;
  ARMCI_Group_get_world(&w);
  ARMCI_Group_get_default(&d);
  EXPECT_EQ(d, w);
  const auto list = parity_list();
  const int gs = static_cast<int>(list.size());
  ARMCI_Group_create(gs, const_cast<int*>(list.data()), &g);
  ARMCI_Group_set_default(&g);
  ARMCI_Group_get_default(&d);
  EXPECT_EQ(d, g);
  int x = me() + 1;
  armci_msg_igop(&x, 1, mp::op("+"));  // over the group only
  int want = 0;
  for (int r : list) want += r + 1;
  EXPECT_EQ(x, want);
  std::vector<void*> p(static_cast<std::size_t>(gs), nullptr);
  EXPECT_EQ(ARMCI_Malloc(p.data(), 64), 0);  // indexed by group rank
  int rank = -1;
  ARMCI_Group_rank(&g, &rank);
  *static_cast<int*>(p[static_cast<std::size_t>(rank)]) = me();
  ARMCI_Barrier();  // the group's barrier
  const int next = (rank + 1) % gs;
  EXPECT_EQ(ARMCI_GetValueInt(p[static_cast<std::size_t>(next)], ARMCI_Absolute_id(&g, next)),
            list[static_cast<std::size_t>(next)]);
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Free(p[static_cast<std::size_t>(rank)]), 0);
  ARMCI_Group_set_default(&w);
  ARMCI_Group_get_default(&d);
  EXPECT_EQ(d, w);
  ARMCI_Group_free(&g);
  int y = 1;
  armci_msg_igop(&y, 1, mp::op("+"));
  EXPECT_EQ(y, nproc());
}

// Many groups created and freed, singletons included; reductions in each.
TEST_F(Groups, CreateFreeMany) {
  for (int k = 0; k < 60; ++k) {
    ARMCI_Group g;
    std::vector<int> list;
    if (k % 3 == 0) list = {me()};  // everybody alone
    else if (k % 3 == 1) list = parity_list();
    else for (int r = 0; r < nproc(); ++r) list.push_back((r + k) % nproc());
    ARMCI_Group_create(static_cast<int>(list.size()), list.data(), &g);
    long x = k * 100 + me();
    armci_msg_group_lgop(&x, 1, mp::op("+"), &g);
    long want = 0;
    for (int r : list) want += k * 100 + r;
    EXPECT_EQ(x, want) << "group " << k;
    ARMCI_Group_free(&g);
  }
}

// Domains partition the processes; every view agrees with ARMCI_Same_node.
TEST_F(Groups, Domains) {
  const int P = nproc(), nd = armci_domain_count(ARMCI_DOMAIN_SMP);
  EXPECT_GE(nd, 1);
  EXPECT_LE(nd, P);
  const int mine = armci_domain_my_id(ARMCI_DOMAIN_SMP);
  EXPECT_EQ(mine, armci_domain_id(ARMCI_DOMAIN_SMP, me()));
  std::vector<int> seen(static_cast<std::size_t>(P), 0);
  int total = 0;
  for (int d = 0; d < nd; ++d) {
    const int np = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
    EXPECT_GE(np, 1) << "domain " << d;
    total += np;
    for (int i = 0; i < np; ++i) {
      const int w = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, i);
      EXPECT_TRUE(w >= 0 && w < P) << "domain " << d << " local " << i << " is " << w;
      if (w < 0 || w >= P) continue;
      ++seen[static_cast<std::size_t>(w)];
      EXPECT_EQ(armci_domain_id(ARMCI_DOMAIN_SMP, w), d);
    }
  }
  EXPECT_EQ(total, P);
  // -1 is this process's own domain (GA's tests call ga_cluster_nprocs(-1)).
  EXPECT_EQ(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1), armci_domain_nprocs(ARMCI_DOMAIN_SMP, mine));
  EXPECT_EQ(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, -1, 0), armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mine, 0));
  EXPECT_TRUE(mp::same(seen, std::vector<int>(static_cast<std::size_t>(P), 1), "each process in one domain"));
  for (int p = 0; p < P; ++p) {
    const int same = armci_domain_id(ARMCI_DOMAIN_SMP, p) == mine;
    EXPECT_EQ(armci_domain_same_id(ARMCI_DOMAIN_SMP, p), same) << p;
    EXPECT_EQ(ARMCI_Same_node(p), same) << p;
    EXPECT_EQ(armci_sameclusnode(p), same) << p;
  }
  // Everybody sees the same map of processes to domains.
  std::vector<long> map(static_cast<std::size_t>(P)), lo, hi;
  for (int p = 0; p < P; ++p) map[static_cast<std::size_t>(p)] = armci_domain_id(ARMCI_DOMAIN_SMP, p);
  lo = hi = map;
  armci_msg_lgop(lo.data(), P, mp::op("min"));
  armci_msg_lgop(hi.data(), P, mp::op("max"));
  EXPECT_TRUE(mp::same(lo, map, "domain map (min over ranks)"));
  EXPECT_TRUE(mp::same(hi, map, "domain map (max over ranks)"));
  int count_lo = nd, count_hi = nd;
  armci_msg_igop(&count_lo, 1, mp::op("min"));
  armci_msg_igop(&count_hi, 1, mp::op("max"));
  EXPECT_EQ(count_lo, nd);
  EXPECT_EQ(count_hi, nd);
  // Same node really means shared memory: a store is seen by a direct load.
  mp::Shared<int> a(1);
  *a.mine() = 31 * me() + 5;
  ARMCI_Barrier();
  for (int p = 0; p < P; ++p)
    if (ARMCI_Same_node(p)) {
      EXPECT_EQ(mp::load_acquire(a.of(p)), 31 * p + 5);
    }
}
