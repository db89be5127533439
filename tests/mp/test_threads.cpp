// ARMCI_THREAD_MULTIPLE: several threads of every process call put, get,
// accumulate, Rmw and the non-blocking calls at once, to every process (this
// node and others), and every result is checked.  A handle opened on one
// thread is completed by another's ARMCI_Wait.  Run under ThreadSanitizer by
// the sanitizer check.
#include <atomic>
#include <cstdlib>
#include <string>
#include <cstring>
#include <thread>
#include <vector>

#include "mp_check.hpp"

using mp::me;
using mp::nproc;

namespace {

constexpr int kThreads = 4;
constexpr int kWords = 64;  // per (origin process, thread) region
// The sockets provider's progress thread sleeps between polls (~5 ms a
// round trip here): fewer rounds there, the same concurrency.
int rounds() {
  static const int n = [] {
    const char* p = std::getenv("ARMCI_OFI_PROVIDER");
    const char* f = std::getenv("FI_PROVIDER");
    const bool slow = (p && std::string(p) == "sockets") || (f && std::string(f) == "sockets");
    return slow && armci_domain_count(ARMCI_DOMAIN_SMP) > 1 ? 60 : 300;
  }();
  return n;
}

class ThreadMultiple : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_EQ(ARMCI_Init_thread(ARMCI_THREAD_MULTIPLE), 0); }
  void TearDown() override { ARMCI_Finalize(); }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new ThreadMultiple);

// Where (origin, thread) writes in every process's array.
long* region(long* base, int origin, int t) { return base + (static_cast<long>(origin) * kThreads + t) * kWords; }
long value(int origin, int t, int round, int i) { return ((origin * 100L + t) * 1000L + round) * 100L + i; }

// Every process's (origin, thread) regions, zero everywhere before use.
struct Regions {
  static std::size_t per_proc() { return static_cast<std::size_t>(nproc()) * kThreads * kWords; }
  mp::Shared<long> a{per_proc()};
  Regions() {
    std::memset(a.mine(), 0, per_proc() * sizeof(long));
    ARMCI_Barrier();
  }
};

template <typename F>
void on_threads(F&& f) {
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back([&f, t] { f(t); });
  for (auto& th : ts) th.join();
}

}  // namespace

class Threads : public mp::MpTest {};

TEST_F(Threads, PutGetEveryTargetFromEveryThread) {
  const std::size_t per_proc = static_cast<std::size_t>(nproc()) * kThreads * kWords;
  mp::Shared<long> a(per_proc);
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    std::vector<long> src(kWords), back(kWords);
    for (int round = 0; round < rounds(); ++round) {
      const int p = (me() + t + round) % nproc();
      for (int i = 0; i < kWords; ++i) src[static_cast<std::size_t>(i)] = value(me(), t, round, i);
      long* dst = region(a.of(p), me(), t);
      if (round % 2) {
        if (ARMCI_Put(src.data(), dst, kWords * sizeof(long), p) != 0) ++bad;
      } else {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        if (ARMCI_NbPut(src.data(), dst, kWords * sizeof(long), p, &h) != 0) ++bad;
        ARMCI_Wait(&h);
      }
      ARMCI_Fence(p);
      if (ARMCI_Get(dst, back.data(), kWords * sizeof(long), p) != 0) ++bad;
      if (std::memcmp(back.data(), src.data(), kWords * sizeof(long)) != 0) ++bad;
    }
  });
  EXPECT_EQ(bad.load(), 0) << "put/get mismatches";
  ARMCI_Barrier();
}

// Small non-blocking puts, accumulates and gets from every thread to the
// same targets at once, so threads fill, flush and wait for batches of the
// same node (ARMCI_OFI_COALESCE): each thread's operations keep their
// order (a get sees the same thread's put and accumulate before it) and
// none is lost or applied twice.
TEST_F(Threads, CoalescedOperationsFromEveryThread) {
  Regions r;
  mp::Shared<long>& a = r.a;
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    std::vector<long> src(kWords), got(kWords);
    long one = 1;
    for (int round = 0; round < rounds(); ++round) {
      const int p = (me() + 1 + round % 2) % nproc();
      long* dst = region(a.of(p), me(), t);
      for (int i = 0; i < kWords; ++i) {
        src[static_cast<std::size_t>(i)] = value(me(), t, round, i);
        ARMCI_NbPut(&src[static_cast<std::size_t>(i)], dst + i, sizeof(long), p, nullptr);
      }
      for (int i = 0; i < kWords; i += 3) ARMCI_Acc(ARMCI_ACC_LNG, &one, &one, dst + i, sizeof(long), p);
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      for (int i = 0; i < kWords; ++i) ARMCI_NbGet(dst + i, &got[static_cast<std::size_t>(i)], sizeof(long), p, &h);
      ARMCI_Wait(&h);
      for (int i = 0; i < kWords; ++i)
        if (got[static_cast<std::size_t>(i)] != src[static_cast<std::size_t>(i)] + (i % 3 == 0 ? 1 : 0)) ++bad;
    }
  });
  EXPECT_EQ(bad.load(), 0) << "coalesced put/acc/get mismatches";
  ARMCI_Barrier();
}

// Lone accumulates of 8-32 bytes from every thread, each then read back by
// the same thread (across nodes over tcp: polled messages, one inbox per
// origin and node, so the threads of a process take turns at it and the
// rest leave as AccOne messages or batches).  A get sees its own thread's
// accumulate, and every word ends at the exact sum.
TEST_F(Threads, LoneAccumulatesFromEveryThread) {
  Regions r;
  mp::Shared<long>& a = r.a;
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    const std::vector<long> ones(4, 1);
    std::vector<long> got(4);
    long one = 1;
    for (int round = 0; round < rounds(); ++round) {
      const int p = (me() + 1 + round % 2) % nproc();
      if (p == me()) continue;
      long* dst = region(a.of(p), me(), t);
      const int n = 1 + round % 4, at = (round * 3) % (kWords - 4);
      if (round % 5 == 0) ARMCI_Fence(p);
      ARMCI_Acc(ARMCI_ACC_LNG, &one, const_cast<long*>(ones.data()), dst + at, n * static_cast<int>(sizeof(long)), p);
      ARMCI_Get(dst + at, got.data(), n * static_cast<int>(sizeof(long)), p);
      // What this thread has added to those words of p so far (p alternates
      // between two targets, and only this thread writes this region).
      for (int i = 0; i < n; ++i) {
        long expect = 0;
        for (int r = 0; r <= round; ++r) {
          const int rp = (me() + 1 + r % 2) % nproc(), rn = 1 + r % 4, rat = (r * 3) % (kWords - 4);
          if (rp == p && rp != me() && at + i >= rat && at + i < rat + rn) ++expect;
        }
        if (got[static_cast<std::size_t>(i)] != expect) ++bad;
      }
    }
  });
  EXPECT_EQ(bad.load(), 0) << "gets after a thread's own accumulates";
  ARMCI_Barrier();
}

TEST_F(Threads, StridedAndVectorFromEveryThread) {
  const std::size_t per_proc = static_cast<std::size_t>(nproc()) * kThreads * kWords;
  mp::Shared<long> a(per_proc);
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    // 8 rows of 4 longs, spread every 8 longs over the thread's region.
    std::vector<long> src(32), back(32, 0);
    for (int round = 0; round < rounds() / 4; ++round) {
      const int p = (me() + 1 + t + round) % nproc();
      for (int i = 0; i < 32; ++i) src[static_cast<std::size_t>(i)] = value(me(), t, round, i);
      long* dst = region(a.of(p), me(), t);
      int count[2] = {4 * sizeof(long), 8}, sstride[1] = {4 * sizeof(long)}, dstride[1] = {8 * sizeof(long)};
      if (ARMCI_PutS(src.data(), sstride, dst, dstride, count, 1, p) != 0) ++bad;
      ARMCI_Fence(p);
      void* rp[8];
      void* lp[8];
      for (int r = 0; r < 8; ++r) {
        rp[r] = dst + 8 * r;
        lp[r] = back.data() + 4 * r;
      }
      armci_giov_t d = {rp, lp, 8, 4 * sizeof(long)};
      if (ARMCI_GetV(&d, 1, p) != 0) ++bad;
      if (back != src) ++bad;
    }
  });
  EXPECT_EQ(bad.load(), 0) << "strided/vector mismatches";
  ARMCI_Barrier();
}

// Strided gets big enough to be staged, from every thread at once: the
// threads share the process's staging slots and the agents' slots lent to
// it, a slot one thread's chunk just left is the next thread's, and a
// chunk written back (remote CQ data) may reach the agent's slot again
// before the agent saw its write complete.  Every byte must come back.
TEST_F(Threads, StagedGetsFromEveryThread) {
  constexpr int kRows = 512, kRow = 256, kPitch = 320;  // 128 KiB a get: staged across nodes
  mp::Shared<char> grid(static_cast<std::size_t>(kRows) * kPitch);
  for (int r = 0; r < kRows; ++r)
    for (int b = 0; b < kPitch; ++b) grid.mine()[r * kPitch + b] = static_cast<char>((me() * 7 + r + b) & 0x7f);
  ARMCI_Barrier();
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    std::vector<char> back(static_cast<std::size_t>(kRows) * kRow);
    for (int round = 0; round < rounds() / 30; ++round) {
      const int p = (me() + 1 + t + round) % nproc();
      // Each thread its own slice of the rows, so no two gets look alike.
      const int first = (t * 37 + round) % 64, rows = kRows - 64;
      int count[2] = {kRow, rows}, sstride[1] = {kPitch}, dstride[1] = {kRow};
      std::memset(back.data(), -1, back.size());
      if (ARMCI_GetS(grid.of(p) + first * kPitch, sstride, back.data(), dstride, count, 1, p) != 0) ++bad;
      for (int r = 0; r < rows; ++r)
        for (int b = 0; b < kRow; ++b)
          if (back[static_cast<std::size_t>(r) * kRow + b] != static_cast<char>((p * 7 + first + r + b) & 0x7f)) {
            ++bad;
            r = rows;
            break;
          }
    }
  });
  EXPECT_EQ(bad.load(), 0) << "staged gets with wrong bytes";
  ARMCI_Barrier();
}

// Windows of gets of a few KiB from every thread at once: those behind
// another get to the same node wait in the node's batch and travel staged
// together (ARMCI_OFI_COALESCE_GET_MAX), so threads meet in one batch and
// one flush.  Each get must bring its own bytes, after the same thread's
// put to the same place.
TEST_F(Threads, GetWindowsFromEveryThread) {
  constexpr int kWin = 8;
  constexpr std::size_t kMax = 16384;
  const std::size_t per_thread = kWin * kMax;
  mp::Shared<char> a(per_thread * kThreads * static_cast<std::size_t>(nproc()));
  for (std::size_t i = 0; i < per_thread * kThreads * static_cast<std::size_t>(nproc()); ++i)
    a.mine()[i] = static_cast<char>((me() * 13 + i) & 0x7f);
  ARMCI_Barrier();
  std::atomic<int> bad{0};
  on_threads([&](int t) {
    std::vector<char> got(per_thread), mine(kMax);
    for (int round = 0; round < rounds() / 10; ++round) {
      const int p = (me() + 1 + t + round) % nproc();
      const std::size_t n = 3072 + static_cast<std::size_t>((round * 4099 + t * 1021) % (kMax - 3072 + 1));
      const std::size_t base = (static_cast<std::size_t>(me()) * kThreads + static_cast<std::size_t>(t)) * per_thread;
      char* remote = a.of(p) + base;
      // Slot 0 is this thread's to write: a put, then gets behind it.
      for (std::size_t i = 0; i < n; ++i) mine[i] = static_cast<char>((round + t + i) & 0x7f);
      ARMCI_NbPut(mine.data(), remote, static_cast<int>(n), p, nullptr);
      std::memset(got.data(), -1, got.size());
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      for (int k = 0; k < kWin; ++k)
        ARMCI_NbGet(remote + k * kMax, got.data() + k * kMax, static_cast<int>(n), p, k % 2 ? &h : nullptr);
      ARMCI_Wait(&h);
      ARMCI_WaitAll();
      for (int k = 0; k < kWin; ++k)
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t at = base + static_cast<std::size_t>(k) * kMax + i;
          const char want = k == 0 ? mine[i] : static_cast<char>((p * 13 + at) & 0x7f);
          if (got[static_cast<std::size_t>(k) * kMax + i] != want) {
            ++bad;
            break;
          }
        }
      ARMCI_Fence(p);
      // The next round of this slot reads the original bytes again.
      for (std::size_t i = 0; i < n; ++i) mine[i] = static_cast<char>((p * 13 + base + i) & 0x7f);
      ARMCI_Put(mine.data(), remote, static_cast<int>(n), p);
      ARMCI_Fence(p);
    }
  });
  EXPECT_EQ(bad.load(), 0) << "gets in windows with wrong bytes";
  ARMCI_Barrier();
}

TEST_F(Threads, AccumulateAndRmwSumsAreExact) {
  mp::Shared<long> acc(kWords);
  mp::Shared<int> counter(1);
  mp::Shared<long> lcounter(1);
  for (int i = 0; i < kWords; ++i) acc.mine()[i] = 0;
  counter.mine()[0] = 0;
  lcounter.mine()[0] = 0;
  ARMCI_Barrier();
  std::atomic<long> fetched_sum{0};
  on_threads([&](int t) {
    std::vector<long> ones(kWords, 1);
    long scale = 1;
    for (int round = 0; round < rounds(); ++round) {
      for (int p = 0; p < nproc(); ++p) {
        if ((round + t) % 2)
          ARMCI_Acc(ARMCI_ACC_LNG, &scale, ones.data(), acc.of(p), kWords * sizeof(long), p);
        else
          ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, ones.data(), acc.of(p), kWords * sizeof(long), p, nullptr);
        int old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter.of(p), 1, p);
        fetched_sum += old;
        long lold = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, lcounter.of(p), 2, p);
      }
    }
    (void)t;
  });
  ARMCI_WaitAll();
  ARMCI_Barrier();
  const long each = static_cast<long>(nproc()) * kThreads * rounds();
  for (int i = 0; i < kWords; ++i) EXPECT_EQ(acc.mine()[i], each) << "word " << i;
  EXPECT_EQ(counter.mine()[0], each);
  EXPECT_EQ(lcounter.mine()[0], 2 * each);
  // Every fetch saw a distinct old value: over all processes the fetched
  // values of one counter are 0..each-1, so the grand total is known.
  long total = fetched_sum.load();
  armci_msg_lgop(&total, 1, mp::op("+"));
  EXPECT_EQ(total, static_cast<long>(nproc()) * (each * (each - 1) / 2));
}

// A handle opened on one thread and completed by ARMCI_Wait on another;
// implicit operations of all threads completed by one ARMCI_WaitAll.
TEST_F(Threads, HandlesCompletedByAnotherThread) {
  const std::size_t per_proc = static_cast<std::size_t>(nproc()) * kThreads * kWords;
  mp::Shared<long> a(per_proc);
  std::vector<long> src(static_cast<std::size_t>(kThreads) * kWords);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = me() * 1000000L + static_cast<long>(i);
  const int p = mp::right();
  armci_hdl_t h[kThreads];
  std::atomic<int> posted{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      ARMCI_INIT_HANDLE(&h[t]);
      ARMCI_NbPut(&src[static_cast<std::size_t>(t) * kWords], region(a.of(p), me(), t), kWords * sizeof(long), p, &h[t]);
      ++posted;
      while (posted.load() < kThreads) std::this_thread::yield();
      ARMCI_Wait(&h[(t + 1) % kThreads]);  // a neighbour thread's handle
      ARMCI_NbPut(&src[static_cast<std::size_t>(t) * kWords], region(a.of(p), me(), t) , kWords * sizeof(long), p, nullptr);
    });
  for (auto& th : ts) th.join();
  ARMCI_WaitAll();
  ARMCI_Barrier();
  const int from = mp::left();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kWords; ++i)
      ASSERT_EQ(region(a.mine(), from, t)[i], from * 1000000L + t * kWords + i) << "thread " << t << " word " << i;
}
