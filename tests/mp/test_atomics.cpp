// Atomics and synchronisation objects: ARMCI_Rmw with all four operations,
// mutexes (unequal counts per process, a lock-protected read-modify-write
// counter, destroy and re-create, grants in request order), and
// armci_notify/armci_notify_wait.
// Every process hits the same words at once; results are checked by
// invariants that only hold if each operation was atomic.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "mp_check.hpp"

using mp::left;
using mp::me;
using mp::nproc;
using mp::right;

class Atomics : public mp::MpTest {};

// Fetch-and-add of 1 on one int by everybody, many times: the fetched
// values of all processes together are exactly 0..N-1, each once.
TEST_F(Atomics, FetchAndAddIntUnique) {
  const int P = nproc(), target = P - 1;
  // Many rounds on the target's node, so the processes overlap even when they
  // time-slice one core; fewer from other nodes (a remote Rmw is a round trip:
  // ~0.1 ms with tcp;ofi_rxm, ~10 ms with the sockets provider).
  const int K = ARMCI_Same_node(target) ? 100000 : 300;
  const auto ks = mp::allgather(static_cast<long>(K));
  long N = 0;
  for (long k : ks) N += k;
  mp::Shared<int> a(2);
  a.mine()[0] = a.mine()[1] = 0;
  ARMCI_Barrier();
  std::vector<int> seen(static_cast<std::size_t>(N), 0);
  int bad_fetch = 0;
  for (int k = 0; k < K; ++k) {
    int old = -12345;
    EXPECT_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, a.of(target) + 1, 1, target), 0);
    if (old < 0 || old >= N) ++bad_fetch;
    else ++seen[static_cast<std::size_t>(old)];
  }
  EXPECT_EQ(bad_fetch, 0) << "fetched values outside 0.." << N - 1;
  armci_msg_igop(seen.data(), static_cast<int>(N), mp::op("+"));
  std::vector<int> once(static_cast<std::size_t>(N), 1);
  EXPECT_TRUE(mp::same(seen, once, "how often each value was fetched"));
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_GetValueInt(a.of(target) + 1, target), N);
  EXPECT_EQ(ARMCI_GetValueInt(a.of(target), target), 0) << "the neighbouring int changed";
}

// Long fetch-and-add with per-process increments (me+1) on a counter that
// starts above 2^32, on every process: sorted, the fetched values form one
// chain in which each step is the increment of whoever fetched the lower value.
TEST_F(Atomics, FetchAndAddLongChain) {
  const int P = nproc(), K = armci_domain_count(ARMCI_DOMAIN_SMP) == 1 ? 150 : 40;
  const long start = (5L << 32) + 17;
  mp::Shared<long> a(1);
  *a.mine() = start;
  ARMCI_Barrier();
  std::vector<long> mine;  // (value, increment) pairs per target, flattened
  for (int k = 0; k < K; ++k)
    for (int s = 0; s < P; ++s) {
      const int t = (me() + s) % P;
      long old = 0;
      EXPECT_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, a.of(t), me() + 1, t), 0);
      mine.push_back(t);
      mine.push_back(old);
    }
  const auto all = mp::allgather(mine);  // rank r's pairs at r * 2 * K * P
  ARMCI_Barrier();
  // Check the chain of my own counter.
  std::vector<std::pair<long, int>> chain;  // (fetched value, increment)
  for (int r = 0; r < P; ++r)
    for (int i = 0; i < K * P; ++i) {
      const std::size_t at = static_cast<std::size_t>((r * K * P + i) * 2);
      if (all[at] == me()) chain.push_back({all[at + 1], r + 1});
    }
  std::sort(chain.begin(), chain.end());
  long expect = start;
  int breaks = 0;
  for (auto& [v, inc] : chain) {
    if (v != expect && breaks++ < 3) ADD_FAILURE() << "chain broken: fetched " << v << ", expected " << expect;
    expect = v + inc;
  }
  EXPECT_EQ(static_cast<long>(chain.size()), static_cast<long>(K) * P);
  EXPECT_EQ(*a.mine(), start + static_cast<long>(K) * P * (P + 1) / 2);
  EXPECT_EQ(*a.mine(), expect) << "final value is not the end of the chain";
}

// Swaps: every value ever put in (the initial one and all tokens) comes out
// exactly once, either fetched by somebody or left in the location.
template <typename T>
void swap_chain(int op, T initial, T (*token)(int r, int k)) {
  const int P = nproc(), K = armci_domain_count(ARMCI_DOMAIN_SMP) == 1 ? 200 : 40;
  mp::Shared<T> a(1);
  *a.mine() = initial;
  ARMCI_Barrier();
  const int target = 0;
  std::vector<long> got;
  for (int k = 0; k < K; ++k) {
    T v = token(me(), k);
    EXPECT_EQ(ARMCI_Rmw(op, &v, a.of(target), 0, target), 0);
    got.push_back(static_cast<long>(v));
  }
  const auto all = mp::allgather(got);
  ARMCI_Barrier();
  std::vector<long> out(all.begin(), all.end());
  if constexpr (sizeof(T) == sizeof(int)) out.push_back(ARMCI_GetValueInt(a.of(target), target));
  else out.push_back(ARMCI_GetValueLong(a.of(target), target));
  std::vector<long> in{static_cast<long>(initial)};
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < K; ++k) in.push_back(static_cast<long>(token(r, k)));
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  EXPECT_TRUE(mp::same(out, in, "values swapped out vs values swapped in"));
}

TEST_F(Atomics, SwapInt) {
  swap_chain<int>(ARMCI_SWAP, -1, [](int r, int k) { return r * 100000 + k; });
}

TEST_F(Atomics, SwapLong) {
  swap_chain<long>(ARMCI_SWAP_LONG, -(1L << 40), [](int r, int k) { return (static_cast<long>(r + 1) << 36) + k; });
}

// Mutexes: process p creates p+1 of them.  A counter per (target, mutex) is
// incremented with Get/modify/Put under the lock: no update may be lost.
TEST_F(Atomics, MutexProtectedCounters) {
  // Fewer rounds when the counters are mostly on other nodes (round trips).
  const int P = nproc(), K = armci_domain_count(ARMCI_DOMAIN_SMP) == 1 ? 400 : 40;
  for (int round = 0; round < 2; ++round) {
    const int mine = round == 0 ? me() + 1 : 3 + (me() % 2);  // unequal, then different again
    EXPECT_EQ(ARMCI_Create_mutexes(mine), 0);
    mp::Shared<long> c(8);
    std::fill(c.mine(), c.mine() + 8, 0L);
    ARMCI_Barrier();
    const auto counts = mp::allgather(static_cast<long>(mine));
    std::vector<long> done(static_cast<std::size_t>(P * 8), 0);  // my increments per (target, mutex)
    for (int k = 0; k < K; ++k) {
      const int t = (me() + k) % P;
      const int m = (k / P) % static_cast<int>(counts[static_cast<std::size_t>(t)]);
      ARMCI_Lock(m, t);
      long v = -1;
      EXPECT_EQ(ARMCI_Get(c.of(t) + m, &v, 8, t), 0);
      if (k % 4 == 0) sched_yield();  // let others run inside the critical section
      ++v;
      EXPECT_EQ(ARMCI_Put(&v, c.of(t) + m, 8, t), 0);
      ARMCI_Unlock(m, t);
      ++done[static_cast<std::size_t>(t * 8 + m)];
    }
    armci_msg_lgop(done.data(), P * 8, mp::op("+"));
    ARMCI_Barrier();
    EXPECT_TRUE(mp::same(c.mine(), &done[static_cast<std::size_t>(me() * 8)], 8, "counters under mutexes"))
        << "round " << round;
    ARMCI_Barrier();
    EXPECT_EQ(ARMCI_Destroy_mutexes(), 0);
  }
}

// Mutexes are granted in the order they were asked for (ticket locks; the
// owner node's agent takes tickets for callers on other nodes as their
// requests arrive).  Process 0 holds mutex 0 while the others ask for it one
// after another, 0.4 s apart; each takes a turn number under the
// lock.  An unfair lock hands the turns out in arbitrary order.
TEST_F(Atomics, MutexGrantedInRequestOrder) {
  const int P = nproc();
  if (P < 3) GTEST_SKIP() << "needs at least two waiters";
  const auto gap = std::chrono::milliseconds(400);
  EXPECT_EQ(ARMCI_Create_mutexes(1), 0);
  mp::Shared<int> turn(1);
  turn.mine()[0] = 0;
  ARMCI_Barrier();
  if (me() == 0) ARMCI_Lock(0, 0);
  ARMCI_Barrier();
  std::this_thread::sleep_for(gap * (me() == 0 ? P : me()));
  if (me() != 0) ARMCI_Lock(0, 0);
  int mine = -1;
  EXPECT_EQ(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &mine, turn.of(0), 1, 0), 0);
  ARMCI_Unlock(0, 0);
  const auto turns = mp::allgather(static_cast<long>(mine));
  for (int r = 0; r < P; ++r) EXPECT_EQ(turns[static_cast<std::size_t>(r)], r) << "turn of process " << r;
  ARMCI_Barrier();
  EXPECT_EQ(ARMCI_Destroy_mutexes(), 0);
}

// Ring of notifications: before each notify the sender puts the round's
// value into the receiver's slot; notify_wait returning means it is there.
TEST_F(Atomics, NotifyRing) {
  const int K = 50;
  mp::Shared<int> slot(K + 1);
  std::fill(slot.mine(), slot.mine() + K + 1, 0);
  ARMCI_Barrier();
  int bad = 0;
  for (int k = 1; k <= K; ++k) {
    EXPECT_EQ(ARMCI_PutValueInt(me() * 1000 + k, slot.of(right()) + k, right()), 0);
    EXPECT_EQ(armci_notify(right()), k) << "notices sent to " << right();
    int waited = -1;
    const int received = armci_notify_wait(left(), &waited);
    EXPECT_EQ(waited, k);
    EXPECT_GE(received, k);
    EXPECT_LE(received, K);
    if (slot.mine()[k] != left() * 1000 + k && bad++ < 3)
      ADD_FAILURE() << "round " << k << ": slot holds " << slot.mine()[k] << " after the notice";
  }
  ARMCI_Barrier();
  // A burst: K notices first, then K waits; each wait is for the next one.
  for (int k = 1; k <= K; ++k) EXPECT_EQ(armci_notify(right()), K + k);
  for (int k = 1; k <= K; ++k) {
    int waited = -1;
    const int received = armci_notify_wait(left(), &waited);
    EXPECT_EQ(waited, K + k);
    EXPECT_GE(received, K + k);
    EXPECT_LE(received, 2 * K);
  }
}
