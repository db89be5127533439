// ARMCI memory: collective Malloc with unequal and zero sizes, reading every
// block back (by Get, and by direct loads where ARMCI_Same_node allows),
// malloc/free cycles that must not grow the heap, Malloc_local, the memdev
// and group variants, ARMCI_Set_shm_limit, Uses_shm and start-up calls.
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "mp_check.hpp"

using mp::me;
using mp::nproc;

namespace {

unsigned char byte_of(int r, std::size_t i) { return static_cast<unsigned char>(r * 37 + i * 11 + (i >> 9)); }

// A process's pointer is NULL exactly when it asked for 0 bytes.
void check_null_iff_zero(const std::vector<void*>& ptrs, const std::vector<long>& sizes, const char* what) {
  const int n = static_cast<int>(ptrs.size());
  for (int r = 0; r < n; ++r) {
    const auto sz = static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
    EXPECT_EQ(ptrs[static_cast<std::size_t>(r)] == nullptr, sz == 0)
        << what << ": block of " << r << " (" << sz << " bytes) at " << ptrs[static_cast<std::size_t>(r)];
  }
  ARMCI_Barrier();
}

}  // namespace

class Memory : public mp::MpTest {};

TEST_F(Memory, UnequalAndZeroSizes) {
  const int P = nproc();
  auto size_of = [](int r) { return r % 3 == 1 ? 0L : 1000L + 4093L * r; };
  std::vector<long> sizes(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) sizes[static_cast<std::size_t>(r)] = size_of(r);
  std::vector<void*> p(static_cast<std::size_t>(P), reinterpret_cast<void*>(1));
  EXPECT_EQ(ARMCI_Malloc(p.data(), size_of(me())), 0);
  check_null_iff_zero(p, sizes, "ARMCI_Malloc");
  // Blocks of one node never overlap (they share one address space).
  for (int r = 0; r < P; ++r)
    for (int q = r + 1; q < P; ++q) {
      auto* a = static_cast<char*>(p[static_cast<std::size_t>(r)]);
      auto* b = static_cast<char*>(p[static_cast<std::size_t>(q)]);
      if (!a || !b || !ARMCI_Same_node(r) || !ARMCI_Same_node(q)) continue;
      EXPECT_TRUE(a + size_of(r) <= b || b + size_of(q) <= a) << "blocks of " << r << " and " << q << " overlap";
    }
  auto* mine = static_cast<unsigned char*>(p[static_cast<std::size_t>(me())]);
  ARMCI_Access_begin(mine);
  for (long i = 0; i < size_of(me()); ++i) mine[i] = byte_of(me(), static_cast<std::size_t>(i));
  ARMCI_Access_end(mine);
  ARMCI_Barrier();
  for (int r = 0; r < P; ++r) {
    const auto sz = static_cast<std::size_t>(size_of(r));
    if (!sz) continue;
    auto* block = static_cast<unsigned char*>(p[static_cast<std::size_t>(r)]);
    std::vector<unsigned char> want(sz), got(sz, 0);
    for (std::size_t i = 0; i < sz; ++i) want[i] = byte_of(r, i);
    EXPECT_EQ(ARMCI_Get(block, got.data(), static_cast<int>(sz), r), 0);
    EXPECT_TRUE(mp::same(got, want, "block read with ARMCI_Get")) << "owner " << r;
    // An interior pointer names the same memory.
    std::vector<unsigned char> part(sz / 3, 0);
    EXPECT_EQ(ARMCI_Get(block + sz / 2, part.data(), static_cast<int>(sz / 3), r), 0);
    EXPECT_TRUE(mp::same(part.data(), want.data() + sz / 2, sz / 3, "interior pointer")) << "owner " << r;
    if (ARMCI_Same_node(r)) {
      EXPECT_TRUE(mp::same(block, want.data(), sz, "direct load")) << "owner " << r;
    }
  }
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Free(mine), 0);
  // All zero: every pointer NULL, and Free(NULL) is the matching free.
  std::vector<void*> z(static_cast<std::size_t>(P), reinterpret_cast<void*>(1));
  EXPECT_EQ(ARMCI_Malloc(z.data(), 0), 0);
  check_null_iff_zero(z, std::vector<long>(static_cast<std::size_t>(P), 0), "all-zero ARMCI_Malloc");
  EXPECT_EQ(ARMCI_Free(nullptr), 0);
}

// Processes on one node write each other's blocks with plain stores.
TEST_F(Memory, SameNodeDirectStores) {
  mp::Shared<long> a(static_cast<std::size_t>(nproc()));
  std::fill(a.mine(), a.mine() + nproc(), -1L);
  ARMCI_Barrier();
  for (int p = 0; p < nproc(); ++p)
    if (ARMCI_Same_node(p)) a.of(p)[me()] = 1000L * me() + p;
  ARMCI_Barrier();
  for (int q = 0; q < nproc(); ++q)
    EXPECT_EQ(a.mine()[q], ARMCI_Same_node(q) ? 1000L * q + me() : -1L) << "slot of " << q;
}

// 10,000 cycles on one node.  Across nodes every cycle costs several
// network round trips, so 300 cycles of blocks up to 4 MiB: not reusing
// freed space would still need several more 256 MiB segments.
TEST_F(Memory, MallocFreeCyclesDoNotGrowTheHeap) {
  const int P = nproc();
  const bool one_node = armci_domain_count(ARMCI_DOMAIN_SMP) == 1;
  const int cycles = one_node ? 10000 : 300;
  const long max_size = one_node ? (1L << 18) : (4L << 20);
  const long segs = mp::ofi_stat("node_segments"), live = mp::ofi_stat("live_allocations");
  std::vector<void*> p(static_cast<std::size_t>(P));
  int failures = 0;
  for (int k = 0; k < cycles; ++k) {
    const long sz = 1 + (static_cast<long>(k) * 7919 + me() * 104729) % max_size;
    if (ARMCI_Malloc(p.data(), sz) != 0) ++failures;
    if (k % 997 == 0) {  // now and then prove the block is usable
      auto* b = static_cast<char*>(p[static_cast<std::size_t>(me())]);
      b[0] = 1;
      b[sz - 1] = 2;
    }
    if (ARMCI_Free(p[static_cast<std::size_t>(me())]) != 0) ++failures;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(mp::ofi_stat("node_segments"), segs) << "the heap grew over " << cycles << " malloc/free cycles";
  EXPECT_EQ(mp::ofi_stat("live_allocations"), live);
}

// An allocation larger than a segment grows the heap once; freed and asked
// for again, it reuses the space.
TEST_F(Memory, HeapGrowsThenReuses) {
  const long big = 300L << 20;  // more than a default (256 MiB) segment
  const long segs0 = mp::ofi_stat("node_segments");
  long segs[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    std::vector<void*> p(static_cast<std::size_t>(nproc()));
    EXPECT_EQ(ARMCI_Malloc(p.data(), me() == 0 ? big : 64), 0);
    if (me() == 0 && p[0]) {
      auto* b = static_cast<char*>(p[0]);
      b[0] = 'a';
      b[big - 1] = 'z';
    }
    ARMCI_Barrier();
    char first = 0, last = 0;
    EXPECT_EQ(ARMCI_Get(p[0], &first, 1, 0), 0);
    EXPECT_EQ(ARMCI_Get(static_cast<char*>(p[0]) + big - 1, &last, 1, 0), 0);
    EXPECT_EQ(first, 'a');
    EXPECT_EQ(last, 'z');
    segs[k] = mp::ofi_stat("node_segments");
    ARMCI_Barrier();
    EXPECT_EQ(ARMCI_Free(p[static_cast<std::size_t>(me())]), 0);
  }
  if (ARMCI_Same_node(0)) {
    EXPECT_GT(segs[0], segs0) << "300 MiB fitted in the existing segments";
  }
  EXPECT_EQ(segs[1], segs[0]) << "the freed space was not reused";
}

TEST_F(Memory, MallocLocal) {
  std::vector<unsigned char*> bufs;
  for (int k = 0; k < 20; ++k) {
    const long n = 1 + k * 5003L;
    auto* b = static_cast<unsigned char*>(ARMCI_Malloc_local(n));
    EXPECT_NE(b, nullptr) << n << " bytes";
    if (!b) continue;
    for (long i = 0; i < n; ++i) b[i] = byte_of(k, static_cast<std::size_t>(i));
    for (auto* o : bufs) EXPECT_NE(o, b);
    bufs.push_back(b);
  }
  for (std::size_t k = 0; k < bufs.size(); ++k) {
    const long n = 1 + static_cast<long>(k) * 5003L;
    std::vector<unsigned char> want(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = byte_of(static_cast<int>(k), static_cast<std::size_t>(i));
    EXPECT_TRUE(mp::same(bufs[k], want.data(), want.size(), "local buffer kept its data")) << k;
  }
  // Local memory works as the local side of RMA.
  mp::Shared<unsigned char> a(1000);
  if (!bufs.empty() && bufs.back()) {
    EXPECT_EQ(ARMCI_Put(bufs.back(), a.of(mp::right()), 1000, mp::right()), 0);
    ARMCI_Fence(mp::right());
    EXPECT_EQ(ARMCI_Get(a.of(mp::right()), bufs.back() + 1000, 1000, mp::right()), 0);
    EXPECT_TRUE(mp::same(bufs.back() + 1000, bufs.back(), 1000, "round trip through local memory"));
  }
  for (auto* b : bufs) EXPECT_EQ(ARMCI_Free_local(b), 0);
}

namespace {
long minor_faults() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}
}  // namespace

// GA asks for large scratch on every GA_Dgemm and frees it at the end: the
// second and later requests of a size reuse the block, pages and all.
TEST_F(Memory, MallocLocalReusesBlocksWithoutNewPageFaults) {
  const std::size_t n = 24u << 20;
  auto* first = static_cast<unsigned char*>(ARMCI_Malloc_local(static_cast<armci_size_t>(n)));
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, n);  // every page present from now on
  ASSERT_EQ(ARMCI_Free_local(first), 0);
  const long hits0 = mp::ofi_stat("local_pool_hits");
  const long faults0 = minor_faults();
  for (int k = 0; k < 20; ++k) {
    auto* b = static_cast<unsigned char*>(ARMCI_Malloc_local(static_cast<armci_size_t>(n - 4096 * k)));
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b, first) << "a block of the same size class was carved anew";
    for (std::size_t i = 0; i + 4096 * k < n; i += 4096) b[i] = static_cast<unsigned char>(k);
    ASSERT_EQ(ARMCI_Free_local(b), 0);
  }
  const long faults = minor_faults() - faults0;
  EXPECT_EQ(mp::ofi_stat("local_pool_hits") - hits0, 20);
  // Touching 6144 pages 20 times: with fresh pages that is 100k+ faults.
  EXPECT_LT(faults, 200) << "reused blocks faulted their pages in again";
  // Small scratch comes from slabs and is reused the same way.
  void* s1 = ARMCI_Malloc_local(3000);
  ASSERT_EQ(ARMCI_Free_local(s1), 0);
  void* s2 = ARMCI_Malloc_local(2900);
  EXPECT_EQ(s1, s2);
  ASSERT_EQ(ARMCI_Free_local(s2), 0);
}

// Idle blocks beyond ARMCI_LOCAL_CACHE (default 256 MiB) go back to the node.
TEST_F(Memory, MallocLocalCacheIsBounded) {
  std::vector<void*> held;
  for (int k = 0; k < 8; ++k) {  // 8 distinct size classes of 40-54 MiB: 376 MiB
    void* b = ARMCI_Malloc_local(static_cast<armci_size_t>((40u << 20) + k * (2u << 20)));
    ASSERT_NE(b, nullptr);
    held.push_back(b);
  }
  const long returned0 = mp::ofi_stat("local_pool_returned");
  for (void* b : held) ASSERT_EQ(ARMCI_Free_local(b), 0);
  EXPECT_LE(mp::ofi_stat("local_pool_cached_bytes"), 256L << 20);
  EXPECT_GT(mp::ofi_stat("local_pool_returned") - returned0, 0);
  EXPECT_EQ(mp::ofi_stat("local_blocks_live"), 0);
}

TEST_F(Memory, MemdevAndGroupVariants) {
  const int P = nproc();
  std::vector<void*> p(static_cast<std::size_t>(P));
  EXPECT_EQ(ARMCI_Malloc_memdev(p.data(), 4096, "host"), 0);
  auto* mine = static_cast<int*>(p[static_cast<std::size_t>(me())]);
  for (int i = 0; i < 1024; ++i) mine[i] = me() * 5000 + i;
  ARMCI_Barrier();
  std::vector<int> got(1024), want(1024);
  for (int i = 0; i < 1024; ++i) want[static_cast<std::size_t>(i)] = mp::right() * 5000 + i;
  EXPECT_EQ(ARMCI_Get(p[static_cast<std::size_t>(mp::right())], got.data(), 4096, mp::right()), 0);
  EXPECT_TRUE(mp::same(got, want, "memdev block"));
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Free_memdev(mine), 0);
  // Group allocation on a group of every other process, indexed by group rank.
  std::vector<int> list;
  for (int r = me() % 2; r < P; r += 2) list.push_back(r);
  ARMCI_Group g;
  ARMCI_Group_create(static_cast<int>(list.size()), list.data(), &g);
  int gr = -1, gs = -1;
  EXPECT_EQ(ARMCI_Group_rank(&g, &gr), 0);
  ARMCI_Group_size(&g, &gs);
  EXPECT_EQ(gs, static_cast<int>(list.size()));
  EXPECT_EQ(gr, me() / 2);
  for (int dev = 0; dev < 2; ++dev) {
    std::vector<void*> q(static_cast<std::size_t>(gs), nullptr);
    const long sz = 800 + 8L * gr;
    EXPECT_EQ(dev ? ARMCI_Malloc_group_memdev(q.data(), sz, &g, "host") : ARMCI_Malloc_group(q.data(), sz, &g), 0);
    for (int i = 0; i < gs; ++i) EXPECT_NE(q[static_cast<std::size_t>(i)], nullptr) << "group rank " << i;
    const int next = (gr + 1) % gs, prev = (gr + gs - 1) % gs;
    const int next_world = ARMCI_Absolute_id(&g, next);
    EXPECT_EQ(next_world, list[static_cast<std::size_t>(next)]);
    std::vector<long> src(100);
    for (int i = 0; i < 100; ++i) src[static_cast<std::size_t>(i)] = me() * 1000L + i + dev;
    EXPECT_EQ(ARMCI_Put(src.data(), q[static_cast<std::size_t>(next)], 800, next_world), 0);
    ARMCI_GroupFence(&g);
    armci_msg_group_barrier(&g);
    std::vector<long> want2(100);
    for (int i = 0; i < 100; ++i) want2[static_cast<std::size_t>(i)] = list[static_cast<std::size_t>(prev)] * 1000L + i + dev;
    EXPECT_TRUE(mp::same(static_cast<long*>(q[static_cast<std::size_t>(gr)]), want2.data(), 100, "group block"));
    armci_msg_group_barrier(&g);
    EXPECT_EQ(dev ? ARMCI_Free_group_memdev(q[static_cast<std::size_t>(gr)], &g)
                  : ARMCI_Free_group(q[static_cast<std::size_t>(gr)], &g),
              0);
  }
  EXPECT_EQ(ARMCI_Uses_shm_grp(&g), 1);
  ARMCI_Group_free(&g);
}

// Above the limit the allocation fails everywhere (only rank 0 asks for
// much; the others' nodes must give their parts back); below it works.
TEST_F(Memory, ShmLimit) {
  const int P = nproc();
  const long limit = 64L << 20;
  // The limit caps heap growth, so the failing request must exceed what the
  // existing segments hold: more than the largest default segment.
  const long huge = 1L << 30;
  ARMCI_Set_shm_limit(static_cast<unsigned long>(limit));
  std::vector<void*> p(static_cast<std::size_t>(P), reinterpret_cast<void*>(1));
  const int rc = ARMCI_Malloc(p.data(), me() == 0 ? huge : 1024);
  EXPECT_NE(rc, 0) << "an allocation of 1 GiB above a 64 MiB limit succeeded";
  const auto all_rc = mp::allgather(rc != 0 ? 1L : 0L);
  for (int r = 0; r < P; ++r) EXPECT_EQ(all_rc[static_cast<std::size_t>(r)], 1) << "rank " << r << " did not fail";
  if (rc == 0) {
    EXPECT_EQ(ARMCI_Free(p[static_cast<std::size_t>(me())]), 0);
  }
  const long live = mp::ofi_stat("live_allocations");
  std::vector<void*> ok(static_cast<std::size_t>(P));
  EXPECT_EQ(ARMCI_Malloc(ok.data(), 1 << 20), 0) << "a 1 MiB allocation under the limit failed";
  if (ok[static_cast<std::size_t>(me())]) static_cast<char*>(ok[static_cast<std::size_t>(me())])[(1 << 20) - 1] = 1;
  EXPECT_EQ(mp::ofi_stat("live_allocations"), live + 1);
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Free(ok[static_cast<std::size_t>(me())]), 0);
  ARMCI_Barrier();
  ARMCI_Set_shm_limit(0);  // back to the default (physical memory)
}

TEST_F(Memory, UsesShmAndLifecycle) {
  // This library keeps all ARMCI memory in a shared node heap.
  EXPECT_EQ(ARMCI_Uses_shm(), 1);
  ARMCI_Group w;
  ARMCI_Group_get_world(&w);
  EXPECT_EQ(ARMCI_Uses_shm_grp(&w), 1);
  int argc = 1;
  char arg0[] = "test_memory";
  char* argv_[] = {arg0, nullptr};
  char** argv = argv_;
  EXPECT_EQ(ARMCI_Init_args(&argc, &argv), 0);  // nested: reference counted
  EXPECT_EQ(ARMCI_Initialized(), 1);
  ARMCI_Finalize();
  EXPECT_EQ(ARMCI_Initialized(), 1);
  ARMCI_Cleanup();  // only orders memory; ARMCI stays usable
  mp::Shared<int> a(1);
  *a.mine() = me();
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_GetValueInt(a.of(mp::right()), mp::right()), mp::right());
}

// ARMCI_Ofi_stat reads the same counters as the ARMCI_Ofi_stats report.
TEST_F(Memory, StatByNameMatchesReport) {
  char buf[2048];
  ARMCI_Ofi_stats(buf, sizeof buf);
  const std::string report = std::string(" ") + buf;
  for (const char* name : {"node_segments", "live_allocations", "key_table_entries"}) {
    const auto at = report.find(std::string(" ") + name + "=");
    ASSERT_NE(at, std::string::npos) << name << " missing from: " << report;
    EXPECT_EQ(ARMCI_Ofi_stat(name), std::strtol(report.c_str() + at + std::strlen(name) + 2, nullptr, 10)) << name;
  }
  EXPECT_EQ(ARMCI_Ofi_stat("no_such_counter"), -1);
  EXPECT_EQ(ARMCI_Ofi_stat("node"), -1) << "a prefix of a name is not a name";
  EXPECT_EQ(ARMCI_Ofi_stat(""), -1);
}
