// Inter-node specifics: one NIC registration per heap segment, segment keys
// exchanged within the allocating group only (and fetched on demand), big
// transfers, strided shapes with more pieces than the provider's iov limit.
// Runs with small heap segments (ARMCI_SHM_SEGMENT=8M in suite.list) so the
// heap grows during the test.
#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "mp_test.hpp"

using mp::me;
using mp::nproc;

// Every C++ allocation of this process, the runtime's included (the library
// resolves operator new to this program's definition).
static std::atomic<long> g_news{0};
// This operator new is malloc underneath, so free is its matching release.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

bool multi_node() { return armci_domain_count(ARMCI_DOMAIN_SMP) > 1; }

// The first process of another node from `start` on (cyclically), -1 if none.
int other_node_from(int start) {
  const int n = armci_msg_nproc();
  for (int k = 0; k < n; ++k)
    if (!ARMCI_Same_node((start + k) % n)) return (start + k) % n;
  return -1;
}

// The sockets provider needs ~5 ms per round trip on this kind of machine
// (its progress thread sleeps); scale the heavy loops down for it so the
// suite stays within CI time.  The invariants checked are the same.
bool slow_provider() {
  const char* p = std::getenv("ARMCI_OFI_PROVIDER");
  return multi_node() && p && std::string(p) == "sockets";
}

// Whether transfers above ARMCI_OFI_STAGE_FROM go through another node's
// staging slots in this run: staging on and, for accumulates, not NIC
// atomics; with ARMCI_OFI_STAGE_MAX set (other than `most`, a size the
// test knows leaves a run) an agent may have no slots to lend.
bool stages(bool accumulates, const char* most = nullptr) {
  auto env = [](const char* k) {
    const char* v = std::getenv(k);
    return std::string(v ? v : "");
  };
  const char* max = std::getenv("ARMCI_OFI_STAGE_MAX");
  return env("ARMCI_OFI_STAGE_FROM") != "0" && !(accumulates && env("ARMCI_OFI_ATOMICS") == "1") &&
         (!max || (most && std::string(max) == most));
}

}  // namespace

class Internode : public mp::MpTest {};

TEST_F(Internode, OneRegistrationPerSegmentNotPerMalloc) {
  const long regs0 = mp::ofi_stat("node_registrations"), segs0 = mp::ofi_stat("node_segments");
  ASSERT_GE(regs0, 0);
  std::vector<std::vector<void*>> live;
  const int allocations = slow_provider() ? 200 : 1000;
  for (int i = 0; i < allocations; ++i) {
    std::vector<void*> p(static_cast<std::size_t>(nproc()));
    ASSERT_EQ(ARMCI_Malloc(p.data(), 4096 + 64 * (i % 7)), 0);
    live.push_back(std::move(p));
    if (live.size() > 20) {  // keep some alive so the heap really grows
      ASSERT_EQ(ARMCI_Free(live.front()[static_cast<std::size_t>(me())]), 0);
      live.erase(live.begin());
    }
  }
  const long regs1 = mp::ofi_stat("node_registrations"), segs1 = mp::ofi_stat("node_segments");
  for (auto& p : live) ASSERT_EQ(ARMCI_Free(p[static_cast<std::size_t>(me())]), 0);
  if (multi_node()) {
    // Exactly one registration per segment of this node's heap and NIC in use.
    const long nics = mp::ofi_stat("node_nics");
    EXPECT_GE(nics, 1);
    EXPECT_EQ(regs1, segs1 * nics);
    EXPECT_EQ(regs1 - regs0, (segs1 - segs0) * nics);
  } else {
    EXPECT_EQ(regs1, 0);  // one node: nothing registered with a NIC
  }
  EXPECT_LT(segs1, 10) << "1000 small allocations should fit a few segments";
  // The key table grows with nodes x segments, not processes x allocations.
  const long keys = mp::ofi_stat("key_table_entries");
  EXPECT_LE(keys, static_cast<long>(armci_domain_count(ARMCI_DOMAIN_SMP)) * 16);
}

TEST_F(Internode, GrowthBySegmentsAndBigTransfers) {
  // 64 MiB per process (larger than one segment): a dedicated segment.
  const std::size_t n = (slow_provider() ? (16u << 20) : (64u << 20)) / sizeof(long);
  mp::Shared<long> a(n);
  for (std::size_t i = 0; i < n; ++i) a.mine()[i] = -1;
  std::vector<long> src(n), back(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<long>(i) * 3 + me();
  ARMCI_Barrier();
  const int peer = (me() + 1) % nproc();
  ASSERT_EQ(ARMCI_Put(src.data(), a.of(peer), static_cast<int>(n * sizeof(long)), peer), 0);
  ARMCI_Fence(peer);
  ASSERT_EQ(ARMCI_Get(a.of(peer), back.data(), static_cast<int>(n * sizeof(long)), peer), 0);
  EXPECT_EQ(back, src);
  ARMCI_Barrier();
  const int left = (me() + nproc() - 1) % nproc();
  bool ok = true;
  for (std::size_t i = 0; i < n && ok; ++i) ok = a.mine()[i] == static_cast<long>(i) * 3 + left;
  EXPECT_TRUE(ok);
  // 64 MiB accumulate: everyone adds 1 into rank 0's block.
  std::vector<long> ones(n, 1);
  long scale = 2;
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &scale, ones.data(), a.of(0), static_cast<int>(n * sizeof(long)), 0), 0);
  ARMCI_Barrier();
  if (me() == 0) {
    ok = true;
    for (std::size_t i = 0; i < n && ok; ++i)
      ok = a.mine()[i] == static_cast<long>(i) * 3 + left + 2L * nproc();
    EXPECT_TRUE(ok);
  }
}

// ARMCI_Malloc resolves each block's remote key once; the address check
// hands it to the transport, so no operation searches the key table.  With
// ARMCI_CHECKS=0 there is no look-up to carry it: every remote operation
// searches once (the fallback stays correct).
TEST_F(Internode, KeysResolvedAtMallocNotPerOperation) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing goes through libfabric";
  // Rows and pieces of 4 KiB go as RMA (smaller ones are packed into active
  // messages, which carry addresses, not keys).
  const int rows = 4, width = 4096, stride = 5000;
  mp::Shared<char> a(static_cast<std::size_t>(rows) * stride + 16384);
  const int peer = other_node_from(0);
  long v = me() + 1, back = 0, scale = 1;
  std::vector<char> src(static_cast<std::size_t>(rows) * width, static_cast<char>(me() + 1));
  int count[2] = {width, rows}, sst[1] = {width}, dst[1] = {stride};
  char* base = a.of(peer);
  char* tail = base + static_cast<std::ptrdiff_t>(rows) * stride;
  char* mine = tail + 12288 + 8 * me();  // a word no other process writes
  armci_giov_t iov{};
  void* srcs[2] = {src.data(), src.data() + 4096};
  void* dsts[2] = {tail + 8192, tail};
  iov.src_ptr_array = srcs;
  iov.dst_ptr_array = dsts;
  iov.ptr_array_len = 2;
  iov.bytes = 4096;
  auto round = [&] {
    ASSERT_EQ(ARMCI_Put(&v, mine, sizeof v, peer), 0);
    ASSERT_EQ(ARMCI_Get(mine, &back, sizeof back, peer), 0);
    ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &scale, &v, base + 16, sizeof v, peer), 0);
    ASSERT_EQ(ARMCI_PutS(src.data(), sst, base + 64, dst, count, 1, peer), 0);
    ASSERT_EQ(ARMCI_GetS(base + 64, dst, src.data(), sst, count, 1, peer), 0);
    ASSERT_EQ(ARMCI_PutV(&iov, 1, peer), 0);
    long old = 0;
    ASSERT_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, base + 24, 1, peer), 0);
  };
  round();  // warm: connections, first-time look-ups
  ARMCI_Barrier();
  const long before = mp::ofi_stat("key_searches");
  for (int i = 0; i < 20; ++i) round();
  ARMCI_Fence(peer);
  const long searches = mp::ofi_stat("key_searches") - before;
  const char* checks = std::getenv("ARMCI_CHECKS");
  if (checks && std::string(checks) == "0") EXPECT_GT(searches, 0);
  else EXPECT_EQ(searches, 0) << "operations searched the key table although ARMCI_Malloc resolved the keys";
  EXPECT_EQ(back, me() + 1);
  ARMCI_Barrier();
}

TEST_F(Internode, StridedBeyondIovLimit) {
  // 40 rows of 16 KiB with gaps: large pieces go out in iovec batches
  // (not staged: ARMCI_OFI_STAGE_PIECES_BELOW), far more pieces than any
  // provider's rma_iov_limit.
  const int rows = 40, width = 16384, stride = 17000;
  mp::Shared<char> a(static_cast<std::size_t>(rows) * stride);
  std::memset(a.mine(), 0, static_cast<std::size_t>(rows) * stride);
  std::vector<char> src(static_cast<std::size_t>(rows) * width);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>((i * 7 + static_cast<std::size_t>(me())) & 0x7f);
  ARMCI_Barrier();
  const int peer = (me() + 1) % nproc();
  int count[2] = {width, rows}, sst[1] = {width}, dst[1] = {stride};
  ASSERT_EQ(ARMCI_PutS(src.data(), sst, a.of(peer), dst, count, 1, peer), 0);
  ARMCI_Fence(peer);
  std::vector<char> back(src.size(), 0);
  ASSERT_EQ(ARMCI_GetS(a.of(peer), dst, back.data(), sst, count, 1, peer), 0);
  EXPECT_EQ(back, src);
  // Many tiny pieces (packed into active messages): 2000 pieces of 8 bytes.
  int c2[2] = {8, 2000}, s2[1] = {16}, d2[1] = {24};
  std::vector<char> small(2000 * 16);
  for (std::size_t i = 0; i < small.size(); ++i) small[i] = static_cast<char>(i % 101);
  mp::Shared<char> b(2000 * 24);
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_PutS(small.data(), s2, b.of(peer), d2, c2, 1, peer), 0);
  std::vector<char> small_back(small.size(), 0);
  ASSERT_EQ(ARMCI_GetS(b.of(peer), d2, small_back.data(), s2, c2, 1, peer), 0);
  for (int r = 0; r < 2000; ++r)
    ASSERT_EQ(std::memcmp(&small_back[static_cast<std::size_t>(r) * 16], &small[static_cast<std::size_t>(r) * 16], 8), 0) << "piece " << r;
}

TEST_F(Internode, GroupAllocationKeysStayInGroup) {
  if (nproc() < 3) GTEST_SKIP() << "needs a group that leaves processes out";
  // Group of the first half; the others are outside and never see its keys.
  std::vector<int> members;
  for (int i = 0; i < (nproc() + 1) / 2; ++i) members.push_back(i);
  ARMCI_Group g;
  ARMCI_Group_create(static_cast<int>(members.size()), members.data(), &g);
  const bool member = me() < static_cast<int>(members.size());
  const long keys_before = mp::ofi_stat("key_table_entries");
  const long segs_before = mp::ofi_stat("node_segments");
  std::vector<void*> p(members.size(), nullptr);
  if (member) {
    // Bigger than ARMCI_SHM_SEGMENT in the suite: a fresh segment on node 0.
    ASSERT_EQ(ARMCI_Malloc_group(p.data(), 8u << 20, &g), 0);
  }
  long grew = me() == 0 && mp::ofi_stat("node_segments") > segs_before;
  armci_msg_bcast(&grew, sizeof grew, 0);
  ARMCI_Barrier();
  if (!member) {
    EXPECT_EQ(mp::ofi_stat("key_table_entries"), keys_before);
  }
  // The group's first member tells everyone its address.  Outsiders may not
  // address group memory (test_errors shows the refusal); with ARMCI_CHECKS=0
  // an outsider on another node still reaches it by asking that node's agent
  // for the segment once.
  void* target_addr = member && me() == 0 ? p[0] : nullptr;
  armci_msg_bcast(&target_addr, sizeof target_addr, 0);
  long value = 1000 + me();
  const char* checks = std::getenv("ARMCI_CHECKS");
  const bool unchecked = checks && std::string(checks) == "0";
  if (unchecked && me() == nproc() - 1) {
    const long queries = mp::ofi_stat("segment_queries");
    ASSERT_EQ(ARMCI_Put(&value, target_addr, sizeof value, 0), 0);
    // Another node learns the outsider's way to a new segment by asking once.
    if (!ARMCI_Same_node(0) && grew) {
      EXPECT_EQ(mp::ofi_stat("segment_queries"), queries + 1);
    }
    ARMCI_Fence(0);
    long back = ARMCI_GetValueLong(target_addr, 0);
    EXPECT_EQ(back, value);
  }
  ARMCI_Barrier();
  if (unchecked && me() == 0) {
    long v;
    std::memcpy(&v, target_addr, sizeof v);
    EXPECT_EQ(v, 1000 + nproc() - 1);
  }
  ARMCI_Barrier();
  if (member) {
    ASSERT_EQ(ARMCI_Free_group(p[static_cast<std::size_t>(me())], &g), 0);
  }
  ARMCI_Group_free(&g);
}

TEST_F(Internode, RmwLongTakesIncrementsBeyondInt) {
  mp::Shared<long> a(1);
  a.mine()[0] = 0;
  ARMCI_Barrier();
  const long inc = 5000000000L + me();  // > INT_MAX
  long old = -1;
  ASSERT_EQ(ARMCI_Rmw_long(ARMCI_FETCH_AND_ADD_LONG, &old, a.of(0), inc, 0), 0);
  EXPECT_GE(old, 0);
  ARMCI_Barrier();
  if (me() == 0) {
    long want = 0;
    for (int p = 0; p < nproc(); ++p) want += 5000000000L + p;
    EXPECT_EQ(a.mine()[0], want);
  }
}

// Signals to other nodes ask for no answer (transports/ofi/am_protocol.hpp
// kQuietSignal).  The flag of a Put_flag is part of a put, so the fence
// after it sends one Flush and returns once the flag is in place; the
// messages of a barrier are awaited by their receivers, so a fence after
// a barrier has nothing to flush (GA_Sync is a fence and a barrier: it would
// otherwise pay a round trip for the barrier before).  Quiet signals need a
// provider that keeps one sender's messages in order (FI_ORDER_SAS): every
// one the suite runs does (tcp;ofi_rxm, sockets, udp;ofi_rxd).
TEST_F(Internode, FenceFlushesFlagsButNotMessages) {
  if (!multi_node()) GTEST_SKIP() << "one node: signals are stores";
  const int n = nproc();
  mp::Shared<int> a(2 * static_cast<std::size_t>(n));  // per sender: data, flag
  for (int i = 0; i < 2 * n; ++i) a.mine()[i] = -1;
  ARMCI_Barrier();
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  // am_flush is reported once there is one.
  auto flushes = [] { return std::max(0L, ARMCI_Ofi_stat("am_flush")); };
  armci_msg_barrier();
  long f0 = flushes();
  ARMCI_AllFence();
  EXPECT_EQ(flushes() - f0, 0) << "a fence flushed the messages of a barrier";
  int* slot = a.of(peer) + 2 * me();
  for (int v = 1; v <= 10; ++v) {
    int data = 1000 * me() + v;
    ASSERT_EQ(ARMCI_Put_flag(&data, slot, sizeof data, slot + 1, v, peer), 0);
  }
  EXPECT_GT(mp::ofi_stat("quiet_signals"), 0) << "every signal asked for an answer";
  f0 = flushes();
  ARMCI_Fence(peer);
  EXPECT_EQ(flushes() - f0, 1) << "the fence after a Put_flag did not send one Flush";
  // Now read back by RMA from here: the flag and its data are the last ones.
  int back[2] = {0, 0};
  ASSERT_EQ(ARMCI_Get(slot, back, sizeof back, peer), 0);
  EXPECT_EQ(back[0], 1000 * me() + 10);
  EXPECT_EQ(back[1], 10);
  ARMCI_Barrier();
  for (int s = 0; s < n; ++s) {
    if (other_node_from(s + 1) != me()) continue;
    EXPECT_EQ(a.mine()[2 * s], 1000 * s + 10) << "data from process " << s;
    EXPECT_EQ(a.mine()[2 * s + 1], 10) << "flag from process " << s;
  }
  ARMCI_Barrier();
}

// Notices are unanswered too, but one sender never has more messages on
// their way to an agent than the receives it posted for that sender (a
// window of at most 24, am_protocol.hpp kWindowMax, one place of it kept
// for the Flush): 2000 notices in a row take at least 2000/24 Flushes, and
// every notice arrives.
TEST_F(Internode, NoticesBeyondTheWindowAreFlushed) {
  if (!multi_node()) GTEST_SKIP() << "one node: signals are stores";
  auto flushes = [] { return std::max(0L, ARMCI_Ofi_stat("am_flush")); };
  const int n = slow_provider() ? 300 : 2000;
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  const long f0 = flushes();
  for (int i = 0; i < n; ++i) ASSERT_GE(armci_notify(peer), 0);
  EXPECT_GE(flushes() - f0, n / 24) << n << " notices in a row to process " << peer;
  for (int s = 0; s < nproc(); ++s) {
    if (s == me() || other_node_from(s + 1) != me()) continue;
    int got = 0;
    for (int i = 0; i < n; ++i) got = armci_notify_wait(s, nullptr);
    EXPECT_EQ(got, n) << "notices from process " << s;
  }
  armci_msg_barrier();
}

TEST_F(Internode, PackedGetRepliesCountAsRemoteBytes) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing crosses a network";
  mp::Shared<char> a(1u << 20);
  ARMCI_Barrier();
  // The first process of another node; 64 pieces of 512 B travel packed.
  const int peer = other_node_from(0);
  std::vector<char> local(64 * 4096);
  std::vector<void*> src(64), dst(64);
  for (int i = 0; i < 64; ++i) {
    src[static_cast<std::size_t>(i)] = a.of(peer) + i * 4096;
    dst[static_cast<std::size_t>(i)] = local.data() + i * 4096;
  }
  armci_giov_t d{src.data(), dst.data(), 64, 512};
  const long before = mp::ofi_stat("remote_bytes");
  ASSERT_EQ(ARMCI_GetV(&d, 1, peer), 0);
  EXPECT_GE(mp::ofi_stat("remote_bytes") - before, 64 * 512);
  ARMCI_Barrier();
}

// Accumulates and packed strided puts big enough to be staged
// (ARMCI_OFI_STAGE_FROM, 12 KiB by default): written into the agent's slots
// by RMA, applied on its notice.  Every process sends to every process of
// the other nodes at once, so slots are reused and notices race; the sums
// and rows must come out exact, and the staged path must have been taken.
TEST_F(Internode, StagedAccumulatesAndPutsAreExact) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const std::size_t n = (slow_provider() ? 32u << 10 : 128u << 10);  // doubles: 256 KiB / 1 MiB
  const int rows = slow_provider() ? 256 : 1024;
  constexpr int kRow = 256;
  const std::size_t region = static_cast<std::size_t>(rows) * nproc() * kRow;
  mp::Shared<double> sum(n);
  mp::Shared<char> grid(region);
  std::memset(sum.mine(), 0, n * sizeof(double));
  std::memset(grid.mine(), 0, region);
  std::vector<double> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<double>(i % 7 + 1);
  std::vector<char> mine(static_cast<std::size_t>(rows) * kRow);
  for (int r = 0; r < rows; ++r) std::memset(mine.data() + r * kRow, (me() * 31 + r) & 0x7f, kRow);
  const long staged_before = std::max(0L, ARMCI_Ofi_stat("am_staged"));
  ARMCI_Barrier();
  const double scale = me() + 1;
  for (int k = 1; k < nproc(); ++k) {
    const int p = (me() + k) % nproc();
    if (ARMCI_Same_node(p)) continue;
    ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&scale), src.data(), sum.of(p),
                        static_cast<int>(n * sizeof(double)), p), 0);
    // My rows: every nproc()-th row of the target's grid, starting at mine.
    int src_stride[1] = {kRow}, dst_stride[1] = {kRow * nproc()}, count[2] = {kRow, rows};
    ASSERT_EQ(ARMCI_PutS(mine.data(), src_stride, grid.of(p) + me() * kRow, dst_stride, count, 1, p), 0);
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  double senders = 0;
  for (int s = 0; s < nproc(); ++s)
    if (!ARMCI_Same_node(s)) senders += s + 1;
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(sum.mine()[i], senders * static_cast<double>(i % 7 + 1)) << "element " << i;
  for (int s = 0; s < nproc(); ++s) {
    for (int r = 0; r < rows; ++r) {
      const char* row = grid.mine() + (static_cast<std::size_t>(r) * nproc() + s) * kRow;
      const char want = ARMCI_Same_node(s) ? 0 : static_cast<char>((s * 31 + r) & 0x7f);
      for (int b = 0; b < kRow; ++b) ASSERT_EQ(row[b], want) << "sender " << s << " row " << r << " byte " << b;
    }
  }
  if (stages(true)) {
    EXPECT_GT(ARMCI_Ofi_stat("am_staged"), staged_before) << "nothing went through the staging slots";
  }
  ARMCI_Barrier();
}

// Strided and vector gets of small rows big enough to be staged: the
// target's agent gathers them into this process's slot there, which is
// then read by RMA, or (remote CQ data, ARMCI_OFI_STAGE_CQ_DATA) written
// back into a slot of this process.  Every process reads from every
// process of the other nodes at once (slots reused, replies racing); rows
// must come back exact and the staged path, the way chosen, taken.
TEST_F(Internode, StagedGetsAreExact) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int rows = slow_provider() ? 512 : 4096;  // 128 KiB / 1 MiB per source
  constexpr int kRow = 256, kGap = 64;               // rows kGap bytes apart at both ends
  const std::size_t pitch = kRow + kGap, region = static_cast<std::size_t>(rows) * pitch;
  mp::Shared<char> grid(region);
  std::memset(grid.mine(), 0, region);
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < kRow; ++b) grid.mine()[r * pitch + b] = static_cast<char>((me() * 7 + r + b) & 0x7f);
  auto want_at = [&](int p, std::size_t off) {
    const std::size_t r = off / pitch, b = off % pitch;
    return b < kRow ? static_cast<char>((p * 7 + static_cast<int>(r + b)) & 0x7f) : char{0};
  };
  const long staged_before = std::max(0L, ARMCI_Ofi_stat("am_staged_get"));
  const long written_before = ARMCI_Ofi_stat("written_back");
  ARMCI_Barrier();
  std::vector<char> out(region), outv(region);
  for (int k = 1; k < nproc(); ++k) {
    const int p = (me() + k) % nproc();
    if (ARMCI_Same_node(p)) continue;
    std::memset(out.data(), -1, region);
    std::memset(outv.data(), -1, region);
    int stride[1] = {static_cast<int>(pitch)}, count[2] = {kRow, rows};
    ASSERT_EQ(ARMCI_GetS(grid.of(p), stride, out.data(), stride, count, 1, p), 0);
    // The same rows as one vector, every second row first, then the rest.
    std::vector<void*> src, dst;
    for (int pass = 0; pass < 2; ++pass)
      for (int r = pass; r < rows; r += 2) {
        src.push_back(grid.of(p) + r * pitch);
        dst.push_back(outv.data() + r * pitch);
      }
    // And one piece longer than an active message among them (the vector
    // still averages small pieces, so it is staged too).
    constexpr int kBig = 32 << 10;
    std::vector<char> big(kBig, -1);
    void* big_src[1] = {grid.of(p)};
    void* big_dst[1] = {big.data()};
    armci_giov_t d[2] = {{src.data(), dst.data(), rows, kRow}, {big_src, big_dst, 1, kBig}};
    ASSERT_EQ(ARMCI_GetV(d, 2, p), 0);
    for (std::size_t off = 0; off < kBig; ++off) ASSERT_EQ(big[off], want_at(p, off)) << "long piece, byte " << off;
    for (int r = 0; r < rows; ++r) {
      for (int b = 0; b < kRow; ++b) {
        const char want = want_at(p, r * pitch + b);
        ASSERT_EQ(out[r * pitch + b], want) << "strided, from " << p << " row " << r << " byte " << b;
        ASSERT_EQ(outv[r * pitch + b], want) << "vector, from " << p << " row " << r << " byte " << b;
      }
      for (int b = kRow; b < static_cast<int>(pitch); ++b) {
        ASSERT_EQ(out[r * pitch + b], -1) << "strided get wrote between rows, row " << r;
        ASSERT_EQ(outv[r * pitch + b], -1) << "vector get wrote between rows, row " << r;
      }
    }
  }
  if (stages(false)) {
    EXPECT_GT(ARMCI_Ofi_stat("am_staged_get"), staged_before) << "nothing went through the staging slots";
    // Every provider here carries remote CQ data.
    const char* cq_data = std::getenv("ARMCI_OFI_STAGE_CQ_DATA");
    if (cq_data && std::string(cq_data) == "0")
      EXPECT_EQ(ARMCI_Ofi_stat("written_back"), written_before) << "written back with ARMCI_OFI_STAGE_CQ_DATA=0";
    else
      EXPECT_GT(ARMCI_Ofi_stat("written_back"), written_before) << "no staged get was written back";
  }
  ARMCI_Barrier();
}

// Rows of a few KiB in a transfer of at least ARMCI_OFI_STAGE_FROM bytes are
// staged like small ones (ARMCI_OFI_STAGE_PIECES_BELOW, 16 KiB by default);
// from that size on rows go as RMA iovec batches.  Every process writes its
// own rows into a process of another node and reads them back: the rows
// must land exact, between them nothing, and each width must have taken
// its path.
TEST_F(Internode, FewKiBRowsOfLargeTransfersAreStaged) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  const std::size_t total = slow_provider() ? 128u << 10 : 512u << 10;
  constexpr int kGap = 512;
  const std::size_t slice = total + (total / 4096) * kGap;  // the most any width below needs
  mp::Shared<char> grid(slice * static_cast<std::size_t>(nproc()));
  // Staging as the defaults have it (no knob of the rule set in the environment).
  bool defaults = true;
  for (const char* k : {"ARMCI_OFI_STAGE_FROM", "ARMCI_OFI_STAGE_PIECES_BELOW", "ARMCI_OFI_STAGE_MAX",
                        "ARMCI_OFI_PACK_BELOW", "ARMCI_OFI_STAGE_SLOT"})
    if (std::getenv(k)) defaults = false;
  ARMCI_Barrier();
  for (int width : {4096, 8192, 32768}) {
    SCOPED_TRACE(width);
    const int rows = static_cast<int>(total / static_cast<std::size_t>(width)), pitch = width + kGap;
    std::vector<char> src(total), back(static_cast<std::size_t>(rows) * pitch, -1);
    for (std::size_t i = 0; i < total; ++i) src[i] = static_cast<char>((i / 7 + static_cast<std::size_t>(me() * 13 + width)) & 0x7f);
    char* dst = grid.of(peer) + static_cast<std::size_t>(me()) * slice;
    const long put_staged = std::max(0L, ARMCI_Ofi_stat("am_staged"));
    const long get_staged = std::max(0L, ARMCI_Ofi_stat("am_staged_get_strided"));
    std::memset(grid.mine(), 0, slice * static_cast<std::size_t>(nproc()));
    ARMCI_Barrier();
    int count[2] = {width, rows}, dense[1] = {width}, spread[1] = {pitch};
    ASSERT_EQ(ARMCI_PutS(src.data(), dense, dst, spread, count, 1, peer), 0);
    ARMCI_Fence(peer);
    std::vector<char> whole(back.size());  // the rows and the gaps between them, as they landed
    ASSERT_EQ(ARMCI_Get(dst, whole.data(), static_cast<int>(whole.size()), peer), 0);
    ASSERT_EQ(ARMCI_GetS(dst, spread, back.data(), spread, count, 1, peer), 0);
    for (int r = 0; r < rows; ++r) {
      const char* row = whole.data() + static_cast<std::size_t>(r) * pitch;
      ASSERT_EQ(std::memcmp(row, src.data() + static_cast<std::size_t>(r) * width, static_cast<std::size_t>(width)), 0)
          << "put, row " << r << " to " << peer;
      for (int b = width; b < pitch; ++b) ASSERT_EQ(row[b], 0) << "put wrote between rows, row " << r;
      ASSERT_EQ(std::memcmp(back.data() + static_cast<std::size_t>(r) * pitch, src.data() + static_cast<std::size_t>(r) * width,
                            static_cast<std::size_t>(width)), 0) << "get, row " << r << " from " << peer;
      for (int b = width; b < pitch; ++b) ASSERT_EQ(back[static_cast<std::size_t>(r) * pitch + b], -1) << "get wrote between rows, row " << r;
    }
    if (defaults) {
      const bool staged = width < 16384;
      EXPECT_EQ(ARMCI_Ofi_stat("am_staged") > put_staged, staged) << "strided put of " << rows << " rows";
      EXPECT_EQ(ARMCI_Ofi_stat("am_staged_get_strided") > get_staged, staged) << "strided get of " << rows << " rows";
    }
    ARMCI_Barrier();  // before the next width clears the slices
  }
  ARMCI_Barrier();
}

// Strided puts, accumulates and gets of small rows whose messages name the
// rows by shape (AccStrided, PutStrided, StagedGetStrided) instead of a
// piece table: one to three levels, different strides at the two ends,
// transfers of several slots so messages start inside a level.  Each
// process writes its slice at a process of another node, accumulates onto
// it, reads it back whole (rows and gaps as they landed) and strided into
// a third layout; the offsets are worked out here with nested loops, not
// with the runtime's walk.
TEST_F(Internode, StridedShapesAreStagedExactly) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  struct Case {
    std::vector<int> count, src, dst;  // count[0] bytes, strides in bytes (multiples of 8)
  };
  const int rows = slow_provider() ? 512 : 4096;
  const std::vector<Case> cases = {
      {{256, rows}, {320}, {512}},                          // 1 MiB of 256 B rows: four slots
      {{96, 7, 300}, {128, 1000}, {104, 800}},              // two levels
      {{64, 3, 5, 420}, {72, 232, 1200}, {80, 256, 1304}},  // three levels
  };
  // Byte offsets of every piece for these strides.
  auto offsets = [](const std::vector<int>& count, const std::vector<int>& stride) {
    std::vector<std::size_t> out{0};
    for (std::size_t l = 1; l < count.size(); ++l) {
      std::vector<std::size_t> next;
      for (int i = 0; i < count[l]; ++i)
        for (std::size_t o : out) next.push_back(o + static_cast<std::size_t>(i) * static_cast<std::size_t>(stride[l - 1]));
      out.swap(next);
    }
    return out;
  };
  auto extent = [&](const Case& c, const std::vector<int>& stride) {
    const std::vector<std::size_t> o = offsets(c.count, stride);
    return *std::max_element(o.begin(), o.end()) + static_cast<std::size_t>(c.count[0]);
  };
  std::size_t slice = 0;
  for (const Case& c : cases) slice = std::max(slice, extent(c, c.dst));
  mp::Shared<char> grid(slice * static_cast<std::size_t>(nproc()));
  bool defaults = true;
  for (const char* k : {"ARMCI_OFI_STAGE_FROM", "ARMCI_OFI_STAGE_MAX", "ARMCI_OFI_PACK_BELOW", "ARMCI_OFI_ATOMICS"})
    if (std::getenv(k)) defaults = false;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    SCOPED_TRACE(ci);
    const int levels = static_cast<int>(c.count.size()) - 1;
    const std::size_t row = static_cast<std::size_t>(c.count[0]);
    const std::vector<std::size_t> so = offsets(c.count, c.src), dof = offsets(c.count, c.dst);
    // Source: doubles that name their piece and place in it; gaps hold NaN bytes.
    std::vector<double> src(extent(c, c.src) / 8 + 1, std::nan(""));
    for (std::size_t k = 0; k < so.size(); ++k)
      for (std::size_t b = 0; b < row; b += 8) src[(so[k] + b) / 8] = static_cast<double>(me() * 100000 + k * 8 + b / 8);
    std::memset(grid.mine(), 0, slice * static_cast<std::size_t>(nproc()));
    const long puts = std::max(0L, ARMCI_Ofi_stat("am_put_strided"));
    const long accs = std::max(0L, ARMCI_Ofi_stat("am_acc_strided"));
    const long gets = std::max(0L, ARMCI_Ofi_stat("am_staged_get_strided"));
    ARMCI_Barrier();
    char* dst = grid.of(peer) + static_cast<std::size_t>(me()) * slice;
    std::vector<int> count = c.count, ss = c.src, ds = c.dst;
    ASSERT_EQ(ARMCI_PutS(src.data(), ss.data(), dst, ds.data(), count.data(), levels, peer), 0);
    double two = 2;
    ASSERT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &two, src.data(), ss.data(), dst, ds.data(), count.data(), levels, peer), 0);
    ARMCI_Fence(peer);
    const std::size_t dext = extent(c, c.dst);
    std::vector<char> whole(dext);
    ASSERT_EQ(ARMCI_Get(dst, whole.data(), static_cast<int>(dext), peer), 0);
    std::vector<char> want(dext, 0);
    for (std::size_t k = 0; k < dof.size(); ++k)
      for (std::size_t b = 0; b < row; b += 8) {
        const double v = 3 * src[(so[k] + b) / 8];
        std::memcpy(want.data() + dof[k] + b, &v, 8);
      }
    for (std::size_t i = 0; i < dext; ++i) ASSERT_EQ(whole[i], want[i]) << "byte " << i << " at " << peer;
    // Back into the source's layout, over a buffer of -1 bytes.
    std::vector<char> back(src.size() * 8, -1);
    ASSERT_EQ(ARMCI_GetS(dst, ds.data(), back.data(), ss.data(), count.data(), levels, peer), 0);
    std::vector<char> expect(back.size(), -1);
    for (std::size_t k = 0; k < so.size(); ++k) std::memcpy(expect.data() + so[k], want.data() + dof[k], row);
    for (std::size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], expect[i]) << "get, byte " << i << " from " << peer;
    if (defaults) {
      EXPECT_GT(ARMCI_Ofi_stat("am_put_strided"), puts) << "put not staged by shape";
      EXPECT_GT(ARMCI_Ofi_stat("am_acc_strided"), accs) << "accumulate not staged by shape";
      EXPECT_GT(ARMCI_Ofi_stat("am_staged_get_strided"), gets) << "get not staged by shape";
    }
    ARMCI_Barrier();  // before the next case clears the grid
  }
}

// Staged operations and small ones (active messages) to the same bytes,
// with no fence between them, land in the order they were issued: a
// staged write that announces itself by remote CQ data is applied outside
// the message stream, so the order has to come from the provider's
// ordering or from the initiator.  The final rows tell any swap apart.
TEST_F(Internode, StagedAndSmallOperationsKeepTheirOrder) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  // Rows 0..R-1 take two staged operations with small ones on their last
  // rows (the staged ones' last chunks) in between; rows R+8..R+263 a
  // small put, then a staged one.
  const int R = slow_provider() ? 1024 : 4096, total = R + 264;
  constexpr int kRow = 256, kPitch = 512, kD = kRow / 8;  // doubles per row
  const std::size_t slice = static_cast<std::size_t>(total) * kPitch;
  mp::Shared<char> grid(slice * static_cast<std::size_t>(nproc()));
  std::memset(grid.mine(), 0, slice * static_cast<std::size_t>(nproc()));
  auto rows_of = [&](double base, double step) {
    std::vector<double> v(slice / 8);
    for (int r = 0; r < total; ++r)
      for (int k = 0; k < kD; ++k) v[static_cast<std::size_t>(r) * kPitch / 8 + k] = base + step * r;
    return v;
  };
  std::vector<double> a = rows_of(1, 1), b = rows_of(1000, 1), d = rows_of(-5, 0), e = rows_of(7000, 1),
                      inc = rows_of(1, 0);
  char* dst = grid.of(peer) + static_cast<std::size_t>(me()) * slice;
  auto row = [](std::vector<double>& v, int r) { return v.data() + static_cast<std::size_t>(r) * kPitch / 8; };
  int stride[1] = {kPitch}, all[2] = {kRow, R}, four[2] = {kRow, 4}, many[2] = {kRow, 256};
  double one = 1;
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_PutS(a.data(), stride, dst, stride, all, 1, peer), 0);                          // staged
  ASSERT_EQ(ARMCI_PutS(row(b, R - 4), stride, dst + (R - 4) * kPitch, stride, four, 1, peer), 0);  // small
  ASSERT_EQ(ARMCI_AccS(ARMCI_ACC_DBL, &one, inc.data(), stride, dst, stride, all, 1, peer), 0);   // staged
  ASSERT_EQ(ARMCI_PutS(row(d, R + 8), stride, dst + (R + 8) * kPitch, stride, four, 1, peer), 0);  // small
  ASSERT_EQ(ARMCI_PutS(row(e, R + 8), stride, dst + (R + 8) * kPitch, stride, many, 1, peer), 0);  // staged
  ARMCI_Fence(peer);
  std::vector<double> got(slice / 8);
  ASSERT_EQ(ARMCI_Get(dst, got.data(), static_cast<int>(slice), peer), 0);
  for (int r = 0; r < total; ++r) {
    const double want = r < R - 4 ? 1 + r + 1 : r < R ? 1000 + r + 1 : r < R + 8 ? 0 : 7000 + r;
    for (int k = 0; k < kD; ++k)
      ASSERT_EQ(got[static_cast<std::size_t>(r) * kPitch / 8 + k], want) << "row " << r << " at " << peer;
  }
  ARMCI_Barrier();
}

// A contiguous staged accumulate sends its data from the caller's buffer:
// the buffer is the caller's again when ARMCI_Acc returns, so overwriting
// it at once must not change what lands.
TEST_F(Internode, StagedAccumulateSourceIsFreeOnReturn) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int peer = other_node_from(me() + 1);
  ASSERT_GE(peer, 0);
  const std::size_t n = slow_provider() ? 32u << 10 : 256u << 10;  // doubles
  mp::Shared<double> sum(n * static_cast<std::size_t>(nproc()));
  std::memset(sum.mine(), 0, n * nproc() * sizeof(double));
  std::vector<double> src(n);
  const long staged = std::max(0L, ARMCI_Ofi_stat("am_staged"));
  ARMCI_Barrier();
  double* dst = sum.of(peer) + static_cast<std::size_t>(me()) * n;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<double>(i % 1000 + round);
    double scale = 1;
    ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &scale, src.data(), dst, static_cast<int>(n * sizeof(double)), peer), 0);
    std::fill(src.begin(), src.end(), 1e9);  // the caller's again
  }
  ARMCI_Fence(peer);
  std::vector<double> got(n);
  ASSERT_EQ(ARMCI_Get(dst, got.data(), static_cast<int>(n * sizeof(double)), peer), 0);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<double>(3 * (i % 1000) + 3)) << "element " << i;
  if (stages(true)) {
    EXPECT_GT(ARMCI_Ofi_stat("am_staged"), staged) << "the accumulate was not staged";
  }
  ARMCI_Barrier();
}

// ARMCI's promise for ARMCI_Malloc_local memory: usable for RMA as it is.
// With FI_MR_LOCAL (ARMCI_OFI_MR_LOCAL=1 in suite.list) every local buffer
// must be registered; pool buffers of every size class are, so no transfer
// from or into them goes through a bounce copy, while plain malloc memory
// does (which shows the counter counts).
TEST_F(Internode, MallocLocalBuffersNeedNoBounceCopy) {
  if (!multi_node()) GTEST_SKIP() << "one node: no network transfers";
  const int peer = other_node_from(0);
  ASSERT_GE(peer, 0);
  const std::size_t max = 512 * 1024;
  std::vector<void*> remote(static_cast<std::size_t>(nproc()));
  ASSERT_EQ(ARMCI_Malloc(remote.data(), static_cast<armci_size_t>(max) * nproc()), 0);
  // Each process writes its own part of the peer's block.
  char* target = static_cast<char*>(remote[static_cast<std::size_t>(peer)]) + static_cast<std::size_t>(me()) * max;
  for (std::size_t bytes : {std::size_t{256}, std::size_t{4096}, std::size_t{40000}, max}) {
    SCOPED_TRACE(bytes);
    auto* src = static_cast<unsigned char*>(ARMCI_Malloc_local(bytes));
    auto* back = static_cast<unsigned char*>(ARMCI_Malloc_local(bytes));
    ASSERT_NE(src, nullptr);
    ASSERT_NE(back, nullptr);
    for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + me());
    const long before = mp::ofi_stat("bounce_copies");
    ASSERT_EQ(ARMCI_Put(src, target, static_cast<int>(bytes), peer), 0);
    ARMCI_Fence(peer);
    ASSERT_EQ(ARMCI_Get(target, back, static_cast<int>(bytes), peer), 0);
    EXPECT_EQ(mp::ofi_stat("bounce_copies"), before) << "a transfer from ARMCI_Malloc_local memory was copied";
    EXPECT_EQ(std::memcmp(src, back, bytes), 0);
    ARMCI_Free_local(back);
    ARMCI_Free_local(src);
    ARMCI_Barrier();  // every rank done with `target` before the next size
  }
  // Unregistered memory: bounced exactly when the provider demands local
  // registration.
  std::vector<char> plain(max, 'x');
  const long before = mp::ofi_stat("bounce_copies");
  ASSERT_EQ(ARMCI_Put(plain.data(), target, static_cast<int>(plain.size()), peer), 0);
  ARMCI_Fence(peer);
  const char* mr_local = std::getenv("ARMCI_OFI_MR_LOCAL");
  if (mr_local && std::string(mr_local) == "1") {
    EXPECT_GT(mp::ofi_stat("bounce_copies"), before) << "malloc memory sent without registration";
  }
  ARMCI_Barrier();
  ASSERT_EQ(ARMCI_Free(remote[static_cast<std::size_t>(me())]), 0);
}

// Put, get and accumulate in every shape allocate nothing once warm: the
// router, the address check and the transports reuse their buffers.
TEST_F(Internode, NoHeapAllocationOnPutGetAccPaths) {
  mp::Shared<double> a(4096);
  std::vector<double> buf(4096, 1.0);
  const double one = 1.0;
  const int peer = (me() + 1) % nproc();
  int count[2] = {64 * sizeof(double), 16}, stride[1] = {128 * sizeof(double)};
  void* lp[4];
  void* rp[4];
  for (int i = 0; i < 4; ++i) {
    lp[i] = &buf[static_cast<std::size_t>(i) * 300];
    rp[i] = a.of(peer) + i * 512;
  }
  armci_giov_t d = {lp, rp, 4, 64 * sizeof(double)};
  armci_giov_t g = {rp, lp, 4, 64 * sizeof(double)};
  auto round = [&] {
    ARMCI_Put(buf.data(), a.of(peer), 8, peer);
    ARMCI_Get(a.of(peer), buf.data(), 8, peer);
    ARMCI_Put(buf.data(), a.of(peer), 16384, peer);
    ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&one), buf.data(), a.of(peer) + 1024, 64 * sizeof(double), peer);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPut(buf.data(), a.of(peer) + 8, 1024, peer, &h);
    ARMCI_Wait(&h);
    ARMCI_NbGet(a.of(peer) + 8, buf.data() + 8, 1024, peer, nullptr);
    ARMCI_WaitAll();
    ARMCI_PutS(buf.data(), stride, a.of(peer), stride, count, 1, peer);
    ARMCI_GetS(a.of(peer), stride, buf.data(), stride, count, 1, peer);
    ARMCI_AccS(ARMCI_ACC_DBL, const_cast<double*>(&one), buf.data(), stride, a.of(peer), stride, count, 1, peer);
    ARMCI_PutV(&d, 1, peer);
    ARMCI_GetV(&g, 1, peer);
    ARMCI_AccV(ARMCI_ACC_DBL, const_cast<double*>(&one), &d, 1, peer);
    long old = 0;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.of(peer) + 2048, 1, peer);
    ARMCI_Fence(peer);
  };
  for (int i = 0; i < 3; ++i) round();  // warm: buffers, connections, token table
  const long before = g_news.load();
  for (int i = 0; i < 50; ++i) round();
  const long during = g_news.load() - before;
  EXPECT_EQ(during, 0) << "operator new calls in 50 rounds of put/get/acc in every shape ("
                       << (multi_node() && !ARMCI_Same_node(peer) ? "to another node" : "on one node") << ")";
  ARMCI_Barrier();
}

// Lone packed transfers to another node with nothing of ours in flight
// there: a strided put or get of rows of 1-16 words (messages of up to
// 9 KiB), a vector put, a coalesced batch of a put, an accumulate and a get
// (over tcp each is written into the agent's inbox, ARMCI_OFI_POLLED_AM, and
// the gets' data comes back written into an answer area).
// Each is followed by what must not pass it: an accumulate on its words (a
// message the agent may meet in the same pass), a put over them (an RMA
// write) or a get that must see it; then the round's words must hold the
// sequential result.
TEST_F(Internode, LonePackedTransfersKeepIssueOrder) {
  const int rounds = slow_provider() ? 40 : 300;
  constexpr int kRows = 64, kMaxRow = 16, kSpan = 2 * kRows * kMaxRow + 8;  // longs per origin
  mp::Shared<long> w(static_cast<std::size_t>(kSpan * nproc()));
  for (int i = 0; i < kSpan * nproc(); ++i) w.mine()[i] = i;
  ARMCI_Barrier();
  const int t = mp::other_node();
  long* remote = w.of(t) + kSpan * me();
  std::vector<long> expect(kSpan);
  for (int i = 0; i < kSpan; ++i) expect[static_cast<std::size_t>(i)] = kSpan * me() + i;
  auto at_ = [&](int i) -> long& { return expect[static_cast<std::size_t>(i)]; };
  const long polled0 = std::max(0L, ARMCI_Ofi_stat("polled_ams"));
  const long answers0 = std::max(0L, ARMCI_Ofi_stat("rma_answers"));
  for (int r = 0; r < rounds && !HasFailure(); ++r) {
    // n rows of k words, every other row's place: row i at at + 2 k i.
    const int n = 1 + (r * 7) % kRows, k = 1 + (r / 12) % kMaxRow, at = (r * 3) % 8;
    std::vector<long> v(static_cast<std::size_t>(n * k)), got(v.size());
    for (int i = 0; i < n * k; ++i) v[static_cast<std::size_t>(i)] = 1000L * r + i;
    auto place = [&](int e) { return at + 2 * k * (e / k) + e % k; };  // element e of v
    const int row = k * static_cast<int>(sizeof(long));
    int stride[1] = {2 * row}, lstride[1] = {row}, count[2] = {row, n};
    ARMCI_Fence(t);
    switch (r % 4) {
      case 0:
        ASSERT_EQ(ARMCI_PutS(v.data(), lstride, remote + at, stride, count, 1, t), 0);
        for (int e = 0; e < n * k; ++e) at_(place(e)) = v[static_cast<std::size_t>(e)];
        break;
      case 1:
        ASSERT_EQ(ARMCI_GetS(remote + at, stride, got.data(), lstride, count, 1, t), 0);
        for (int e = 0; e < n * k; ++e)
          ASSERT_EQ(got[static_cast<std::size_t>(e)], at_(place(e))) << "round " << r << ", element " << e;
        break;
      case 2: {
        std::vector<void*> src(static_cast<std::size_t>(n)), dst(src.size());
        for (int i = 0; i < n; ++i) {
          src[static_cast<std::size_t>(i)] = &v[static_cast<std::size_t>(i * k)];
          dst[static_cast<std::size_t>(i)] = remote + at + 2 * k * i;
        }
        armci_giov_t d{src.data(), dst.data(), n, row};
        ASSERT_EQ(ARMCI_PutV(&d, 1, t), 0);
        for (int e = 0; e < n * k; ++e) at_(place(e)) = v[static_cast<std::size_t>(e)];
        break;
      }
      default: {
        long one = 5, scale = 2, read = 0;
        ASSERT_EQ(ARMCI_NbPut(&v[0], remote + at, sizeof(long), t, nullptr), 0);
        ASSERT_EQ(ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, &one, remote + at + 2, sizeof(long), t, nullptr), 0);
        ASSERT_EQ(ARMCI_NbGet(remote + at + 2, &read, sizeof(long), t, nullptr), 0);
        ARMCI_WaitAll();
        at_(at) = v[0];
        at_(at + 2) += 10;
        ASSERT_EQ(read, at_(at + 2)) << "round " << r << ": a get after an accumulate in one batch";
        break;
      }
    }
    switch ((r / 4) % 3) {
      case 0: {
        long one = 1, scale = 3;
        ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &scale, &one, remote + at, sizeof one, t), 0);
        at_(at) += 3;
        break;
      }
      case 1: {
        long x = -r;
        ASSERT_EQ(ARMCI_Put(&x, remote + at + 2, sizeof x, t), 0);
        at_(at + 2) = x;
        break;
      }
      default: {
        long y = 0;
        ASSERT_EQ(ARMCI_Get(remote + at, &y, sizeof y, t), 0);
        ASSERT_EQ(y, at_(at)) << "round " << r << ": a get after a packed transfer";
        break;
      }
    }
    // Later rounds overwrite these words: check them now.
    std::vector<long> now(static_cast<std::size_t>(2 * k * n + 3));
    ASSERT_EQ(ARMCI_Get(remote + at, now.data(), static_cast<int>(now.size() * sizeof(long)), t), 0);
    for (int i = 0; i < static_cast<int>(now.size()); ++i)
      ASSERT_EQ(now[static_cast<std::size_t>(i)], at_(at + i)) << "round " << r << ", word " << at + i;
  }
  ARMCI_Fence(t);
  std::vector<long> back(kSpan);
  ASSERT_EQ(ARMCI_Get(remote, back.data(), static_cast<int>(kSpan * sizeof(long)), t), 0);
  for (int i = 0; i < kSpan; ++i)
    if (back[static_cast<std::size_t>(i)] != at_(i)) {
      ADD_FAILURE() << "word " << i << " after " << rounds << " rounds differs from the sequential result";
      break;
    }
  const long polled = std::max(0L, ARMCI_Ofi_stat("polled_ams")) - polled0;
  const long answers = std::max(0L, ARMCI_Ofi_stat("rma_answers")) - answers0;
  if (mp::polled_expected()) {
    EXPECT_GE(polled, rounds / 2L) << "transfers written into the agent's inbox";
    EXPECT_GE(answers, rounds / 4L) << "gets (strided, in a batch) whose data the agent wrote back by RMA";
  }
  ARMCI_Barrier();
}

// A sender of small requests only holds an inbox at the target's agent, no
// staging slots: with room for one run of slots there (the suite runs this
// with ARMCI_OFI_STAGE_MAX=512K), the first staged accumulate still gets
// them after other senders' polled accumulates, and everyone else's staged
// accumulate falls back to messages; every sum must come out exact.
TEST_F(Internode, SmallRequestSendersLeaveSlotsToStagedTransfers) {
  if (!multi_node()) GTEST_SKIP() << "one node: nothing is staged";
  const int t = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, armci_domain_count(ARMCI_DOMAIN_SMP) - 1, 0);
  const auto off_t_node = [&](int p) {
    return armci_domain_id(ARMCI_DOMAIN_SMP, p) != armci_domain_id(ARMCI_DOMAIN_SMP, t);
  };
  int big = -1;  // the last process on another node than t's
  for (int p = 0; p < nproc(); ++p)
    if (off_t_node(p)) big = p;
  const bool sender = off_t_node(me());
  constexpr int kSmall = 8, kRounds = 40;
  constexpr std::size_t kBig = 8192;  // doubles: 64 KiB, above ARMCI_OFI_STAGE_FROM
  mp::Shared<double> sum(kSmall + kBig);
  std::memset(sum.mine(), 0, (kSmall + kBig) * sizeof(double));
  std::vector<double> src(kBig);
  for (std::size_t i = 0; i < kBig; ++i) src[i] = static_cast<double>(i % 5 + 1);
  ARMCI_Barrier();
  const double one = 1;
  const long polled0 = std::max(0L, ARMCI_Ofi_stat("polled_ams"));
  if (sender && me() != big) {
    for (int r = 0; r < kRounds; ++r) {  // each fenced: a lone message is polled
      ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&one), src.data(), sum.of(t),
                          static_cast<int>(kSmall * sizeof(double)), t), 0);
      ARMCI_Fence(t);
    }
  }
  const long polled = std::max(0L, ARMCI_Ofi_stat("polled_ams")) - polled0;
  if (sender && me() != big && mp::polled_expected()) {
    EXPECT_GE(polled, kRounds / 2L) << "small accumulates written into the agent's inbox";
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  const long staged0 = std::max(0L, ARMCI_Ofi_stat("am_staged"));
  if (me() == big) {
    ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&one), src.data(), sum.of(t) + kSmall,
                        static_cast<int>(kBig * sizeof(double)), t), 0);
  }
  const long staged = std::max(0L, ARMCI_Ofi_stat("am_staged")) - staged0;
  if (me() == big && stages(true, "512K")) {
    EXPECT_GT(staged, 0) << "the first staged transfer found no slots: senders of small requests took them";
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  if (sender && me() != big) {  // slots taken: these go as messages (or staged, with room for more)
    ASSERT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&one), src.data(), sum.of(t) + kSmall,
                        static_cast<int>(kBig * sizeof(double)), t), 0);
  }
  ARMCI_AllFence();
  ARMCI_Barrier();
  if (me() == t) {
    int senders = 0;
    for (int p = 0; p < nproc(); ++p) senders += off_t_node(p);
    for (int i = 0; i < kSmall; ++i) {
      ASSERT_EQ(sum.mine()[i], (senders - 1) * kRounds * src[static_cast<std::size_t>(i)]) << "word " << i;
    }
    for (std::size_t i = 0; i < kBig; ++i) {
      ASSERT_EQ(sum.mine()[kSmall + i], senders * src[i]) << "word " << kSmall + i;
    }
  }
  ARMCI_Barrier();
}
