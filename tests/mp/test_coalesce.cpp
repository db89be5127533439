// Coalesced small operations (ARMCI_OFI_COALESCE): non-blocking puts,
// accumulates and gets to another node travel in batches.  Each test fails
// if a coalesced operation is lost, applied twice, applied out of issue
// order, or still missing after a fence; one checks the timer sends a batch
// nobody flushes.  On one node (and with ARMCI_OFI_COALESCE=0) the same
// checks hold for the plain paths.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mp_check.hpp"

using mp::me;
using mp::nproc;

namespace {

bool multi_node() { return armci_domain_count(ARMCI_DOMAIN_SMP) > 1; }

// The first process of another node after `origin` (its right neighbour
// on one node).
int target_of(int origin) {
  const int node = armci_domain_id(ARMCI_DOMAIN_SMP, origin);
  for (int k = 1; k < nproc(); ++k)
    if (armci_domain_id(ARMCI_DOMAIN_SMP, (origin + k) % nproc()) != node) return (origin + k) % nproc();
  return (origin + 1) % nproc();
}
int target() { return target_of(me()); }

bool coalescing() {
  const char* v = std::getenv("ARMCI_OFI_COALESCE");
  return multi_node() && !(v && std::string(v) == "0");
}

// Writes complete when sent; fences read (ARMCI_OFI_WRITE_COMPLETION=flush).
bool flush_writes() {
  const char* v = std::getenv("ARMCI_OFI_WRITE_COMPLETION");
  return multi_node() && v && std::string(v) == "flush";
}

// The sockets provider's round trips take milliseconds here: fewer rounds.
int scaled(int n) {
  const char* p = std::getenv("ARMCI_OFI_PROVIDER");
  return multi_node() && p && std::string(p) == "sockets" ? n / 5 : n;
}

constexpr int kWords = 96;  // per origin

}  // namespace

class Coalesce : public mp::MpTest {};

// Random sequences of puts and accumulates to overlapping words, small
// (coalesced) and larger than ARMCI_OFI_COALESCE_MAX (not), non-blocking and
// blocking mixed: the result after a fence is the sequential one only if
// every operation arrived once, in issue order.
TEST_F(Coalesce, PutsAndAccumulatesKeepIssueOrder) {
  const std::size_t per = static_cast<std::size_t>(kWords) * 4;  // room for 2 KiB runs
  mp::Shared<long> a(per * static_cast<std::size_t>(nproc()));
  std::memset(a.mine(), 0, per * static_cast<std::size_t>(nproc()) * sizeof(long));
  ARMCI_Barrier();
  const int t = target();
  long* remote = a.of(t) + per * static_cast<std::size_t>(me());
  std::vector<long> expect(per, 0);
  auto rng = mp::rng(static_cast<uint64_t>(me()) + 11);
  std::vector<std::vector<long>> sources;  // a non-blocking put's source stays untouched until a wait
  const int ops = scaled(3000);
  long one = 1;
  for (int k = 0; k < ops; ++k) {
    const int size_class = static_cast<int>(rng() % 8);
    const int words = size_class == 0   ? 257 + static_cast<int>(rng() % 127)  // above 2 KiB
                      : size_class <= 2 ? 1 + static_cast<int>(rng() % 256)
                                        : 1 + static_cast<int>(rng() % 4);
    const int at = static_cast<int>(rng() % (per - static_cast<std::size_t>(words) + 1));
    const int kind = static_cast<int>(rng() % 4);
    std::vector<long> src(static_cast<std::size_t>(words));
    for (int i = 0; i < words; ++i) src[static_cast<std::size_t>(i)] = static_cast<long>(rng() % 1000) + k * 1000;
    const int bytes = words * static_cast<int>(sizeof(long));
    if (kind == 0) {
      ARMCI_NbPut(src.data(), remote + at, bytes, t, nullptr);
    } else if (kind == 1) {
      ARMCI_Put(src.data(), remote + at, bytes, t);
    } else {
      ARMCI_Acc(ARMCI_ACC_LNG, &one, src.data(), remote + at, bytes, t);
    }
    for (int i = 0; i < words; ++i) {
      long& e = expect[static_cast<std::size_t>(at + i)];
      e = kind < 2 ? src[static_cast<std::size_t>(i)] : e + src[static_cast<std::size_t>(i)];
    }
    sources.push_back(std::move(src));
    if (k % 97 == 0) {
      ARMCI_WaitAll();
      sources.clear();
    }
  }
  ARMCI_Fence(t);
  std::vector<long> back(per);
  ARMCI_Get(remote, back.data(), static_cast<int>(per * sizeof(long)), t);
  EXPECT_TRUE(mp::same(back, expect)) << "remote words after the fence, as read back";
  ARMCI_Barrier();
}

// A get returns what this process put there before it, whether both sit in
// one batch, the get is blocking, or the put is blocking; a get issued
// before a put returns the old value.
TEST_F(Coalesce, GetsSeeEarlierPutsOnly) {
  constexpr int kMax = 400;
  mp::Shared<long> a(static_cast<std::size_t>(kMax) * static_cast<std::size_t>(nproc()));
  std::memset(a.mine(), 0, static_cast<std::size_t>(kMax) * static_cast<std::size_t>(nproc()) * sizeof(long));
  ARMCI_Barrier();
  const int t = target();
  long* remote = a.of(t) + kMax * me();
  const int rounds = scaled(500);
  for (int r = 0; r < rounds; ++r) {
    const int words = 1 + (r * 7) % kMax;  // 8 B to 3.2 KiB: coalesced and not
    std::vector<long> v(static_cast<std::size_t>(words)), old(v.size(), -1), got(v.size(), -1), got2(v.size(), -1);
    for (int i = 0; i < words; ++i) v[static_cast<std::size_t>(i)] = r * 1000L + i + 1;
    const int bytes = words * static_cast<int>(sizeof(long));
    ARMCI_NbGet(remote, old.data(), bytes, t, nullptr);  // before the put: the previous round's
    ARMCI_NbPut(v.data(), remote, bytes, t, nullptr);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGet(remote, got.data(), bytes, t, &h);
    ARMCI_Wait(&h);
    ARMCI_Get(remote, got2.data(), bytes, t);
    ARMCI_WaitAll();
    EXPECT_TRUE(mp::same(got, v)) << "round " << r << ": non-blocking get after a put";
    EXPECT_TRUE(mp::same(got2, v)) << "round " << r << ": blocking get after a put";
    if (r > 0 && old[0] != (r - 1) * 1000L + 1)
      ADD_FAILURE() << "round " << r << ": get issued before the put read " << old[0];
    if (HasFailure()) break;
  }
  ARMCI_Fence(t);
  ARMCI_Barrier();
}

// Data put before a fence is in the target's memory when the barrier after
// that fence returns, for every way of fencing: small puts (coalesced) and
// a 4 KiB put (an RMA write, whose completion mode ARMCI_OFI_WRITE_COMPLETION
// picks).
TEST_F(Coalesce, FenceThenBarrierMakesBatchesVisible) {
  const int t = target();
  constexpr int kBlock = 512;  // longs: 4 KiB, above ARMCI_OFI_COALESCE_MAX
  const std::size_t per = kWords + kBlock;
  mp::Shared<long> a(per * static_cast<std::size_t>(nproc()));
  const int rounds = scaled(60);
  for (int r = 0; r < rounds; ++r) {
    long* mine = a.mine();
    for (std::size_t i = 0; i < per * static_cast<std::size_t>(nproc()); ++i) mine[i] = -1;
    ARMCI_Barrier();
    long* remote = a.of(t) + per * static_cast<std::size_t>(me());
    std::vector<long> v(per);
    for (std::size_t i = 0; i < per; ++i) v[i] = r * 100000L + me() * 10000L + static_cast<long>(i);
    const bool counted = coalescing() && !ARMCI_Same_node(t);
    const long batches0 = counted ? mp::ofi_stat("batches") : 0;
    const bool flushed = flush_writes() && !ARMCI_Same_node(t);
    const long reads0 = flushed ? mp::ofi_stat("flush_reads") : 0;
    // Downwards: no put continues the one before, so each keeps its record
    // and the batch is a batch (upwards they would share one record and
    // leave as one plain write).
    for (int i = kWords - 1; i >= 0; --i)
      ARMCI_NbPut(&v[static_cast<std::size_t>(i)], remote + i, sizeof(long), t, nullptr);
    ARMCI_NbPut(&v[kWords], remote + kWords, kBlock * static_cast<int>(sizeof(long)), t, nullptr);
    ARMCI_WaitAll();
    // A barrier that fences nothing itself: the fence must have done it.
    switch (r % 3) {
      case 0: ARMCI_Fence(t); break;
      case 1: ARMCI_AllFence(); break;
      default: ARMCI_Barrier(); break;
    }
    // Deterministic where the barrier's own messages could overtake a batch
    // the fence forgot: the fence itself sent it.
    if (counted) {
      EXPECT_GT(mp::ofi_stat("batches"), batches0) << "round " << r << ": the fence sent no batch";
    }
    if (flushed) {
      EXPECT_GT(mp::ofi_stat("flush_reads"), reads0) << "round " << r << ": the fence did not flush the write";
    }
    if (r % 3 != 2) armci_msg_barrier();
    // Everything written to me is here now.
    int missing = 0;
    for (int o = 0; o < nproc(); ++o) {
      if (target_of(o) != me()) continue;
      for (std::size_t i = 0; i < per; ++i)
        if (mp::load_acquire(&mine[static_cast<std::size_t>(o) * per + i]) !=
            r * 100000L + o * 10000L + static_cast<long>(i))
          ++missing;
    }
    EXPECT_EQ(missing, 0) << "round " << r << ": words not in place after fence + barrier";
    ARMCI_Barrier();
  }
}

// A batch leaves by itself within ARMCI_OFI_COALESCE_US (default 1 ms) while
// its process makes no call at all: the target sees the data long before
// the origin's next call.
TEST_F(Coalesce, BatchLeavesWithoutFurtherCalls) {
  mp::Shared<long> a(static_cast<std::size_t>(nproc()));
  for (int i = 0; i < nproc(); ++i) a.mine()[i] = 0;
  ARMCI_Barrier();
  const int t = target();
  const long before = coalescing() ? mp::ofi_stat("timer_flushes") : 0;
  long v = 1000 + me();
  ARMCI_NbPut(&v, a.of(t) + me(), sizeof v, t, nullptr);
  // The words of those that target me, awaited without any call; then stay
  // out of the library long enough for the others to see mine.
  int seen = 0, expected = 0;
  for (int o = 0; o < nproc(); ++o) {
    if (target_of(o) != me()) continue;
    ++expected;
    const long* w = a.mine() + o;
    seen += mp::wait_until([&] { return mp::load_acquire(w) == 1000 + o; }, 0.3) ? 1 : 0;
  }
  usleep(400000);
  EXPECT_EQ(seen, expected) << "a batch waited for its process's next call";
  if (coalescing()) {
    EXPECT_GT(mp::ofi_stat("timer_flushes"), before);
  }
  ARMCI_Barrier();
}

// With ARMCI_SET_AGGREGATE_HANDLE, non-blocking operations of any size up to
// half a message travel together until the wait, coalescing on or off.
TEST_F(Coalesce, AggregateHandleGathersItsOperations) {
  constexpr int kPuts = 8, kBytes = 4096;
  mp::Shared<char> a(static_cast<std::size_t>(kPuts) * kBytes * static_cast<std::size_t>(nproc()));
  const int t = target();
  char* remote = a.of(t) + static_cast<std::size_t>(me()) * kPuts * kBytes;
  std::vector<char> src(static_cast<std::size_t>(kPuts) * kBytes), back(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + me());
  const long msgs0 = multi_node() ? mp::ofi_stat("active_messages") + mp::ofi_stat("remote_ops") : 0;
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  ARMCI_SET_AGGREGATE_HANDLE(&h);
  for (int k = 0; k < kPuts; ++k) ARMCI_NbPut(&src[static_cast<std::size_t>(k) * kBytes], remote + k * kBytes, kBytes, t, &h);
  ARMCI_Wait(&h);
  ARMCI_UNSET_AGGREGATE_HANDLE(&h);
  ARMCI_Fence(t);
  if (multi_node() && !ARMCI_Same_node(t)) {
    const long msgs = mp::ofi_stat("active_messages") + mp::ofi_stat("remote_ops") - msgs0;
    EXPECT_LE(msgs, 4) << "messages for " << kPuts << " aggregated puts of " << kBytes << " bytes";
  }
  ARMCI_Get(remote, back.data(), static_cast<int>(back.size()), t);
  EXPECT_TRUE(mp::same(back, src));
  ARMCI_Barrier();
}

// Gets above ARMCI_OFI_COALESCE_MAX issued behind others to the same node
// wait in its batch and travel staged together (ARMCI_OFI_COALESCE_GET_MAX):
// each lands in its own buffer, completes its own handle, sees the put
// issued before it and not the ones after (a large put and a small,
// coalesced one); a window nobody waits on leaves on the timer.
TEST_F(Coalesce, LargerGetsBehindOthersStagedTogether) {
  constexpr int kWin = 12;
  constexpr std::size_t kMaxWords = 4096;  // 32 KiB
  const std::size_t per = kWin * kMaxWords;
  mp::Shared<long> a(per * static_cast<std::size_t>(nproc()));
  const int t = target();
  long* remote = a.of(t) + per * static_cast<std::size_t>(me());
  const std::size_t sizes[] = {384, 1024, 2048, 4096, 300};  // 3, 8, 16, 32 KiB and 2.3 KiB
  const char* prov = std::getenv("ARMCI_OFI_PROVIDER");
  const bool staged = coalescing() && !ARMCI_Same_node(t) && (!prov || std::string(prov) == "tcp;ofi_rxm");
  const long staged0 = staged ? mp::ofi_stat("staged_gets") : 0;
  const long timer0 = staged ? mp::ofi_stat("timer_flushes") : 0;
  const int rounds = scaled(60);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t words = sizes[r % 5];
    const int bytes = static_cast<int>(words * sizeof(long));
    std::vector<long> base(kWin * words), fresh(words);
    for (std::size_t i = 0; i < base.size(); ++i) base[i] = r * 1000000L + static_cast<long>(i);
    for (std::size_t i = 0; i < words; ++i) fresh[i] = -(r * 1000000L + static_cast<long>(i)) - 1;
    ARMCI_Put(base.data(), remote, static_cast<int>(base.size() * sizeof(long)), t);
    ARMCI_Fence(t);
    std::vector<std::vector<long>> got(kWin, std::vector<long>(words, -7));
    long mark = -999 - r;
    std::vector<armci_hdl_t> h(kWin);
    for (int k = 0; k < kWin; ++k) {
      // Halfway, a put into slot 0: get 0 came before it, the last get
      // (of slot 0 again) after.
      if (k == kWin / 2) ARMCI_NbPut(fresh.data(), remote, bytes, t, nullptr);
      // A small put (coalesced) over word 0 of slot 1, whose get waits
      // staged in the batch: the get must still read the old word.
      if (k == 3) ARMCI_NbPut(&mark, remote + words, sizeof mark, t, nullptr);
      const int slot = k == kWin - 1 ? 0 : k;
      armci_hdl_t* hk = nullptr;
      if (k % 2 == 0) {
        ARMCI_INIT_HANDLE(&h[static_cast<std::size_t>(k)]);
        hk = &h[static_cast<std::size_t>(k)];
      }
      ARMCI_NbGet(remote + static_cast<std::size_t>(slot) * words, got[static_cast<std::size_t>(k)].data(), bytes, t, hk);
    }
    if (r % 4 == 3) usleep(5000);  // nobody flushes: the timer does
    std::vector<long> blocking(words, -7);  // behind the window: joins it, its own wait sends it
    ARMCI_Get(remote + words, blocking.data(), bytes, t);
    for (int k = kWin - 2; k >= 0; k -= 2) ARMCI_Wait(&h[static_cast<std::size_t>(k)]);
    ARMCI_WaitAll();
    for (int k = 0; k < kWin; ++k) {
      const std::size_t slot = k == kWin - 1 ? 0 : static_cast<std::size_t>(k);
      const std::vector<long> want =
          k == kWin - 1 ? fresh : std::vector<long>(base.begin() + static_cast<long>(slot * words),
                                                    base.begin() + static_cast<long>((slot + 1) * words));
      EXPECT_TRUE(mp::same(got[static_cast<std::size_t>(k)], want)) << "round " << r << ", get " << k << " of "
                                                                     << bytes << " bytes";
    }
    std::vector<long> later(base.begin() + static_cast<long>(words), base.begin() + static_cast<long>(2 * words));
    later[0] = mark;
    EXPECT_TRUE(mp::same(blocking, later)) << "round " << r << ": blocking get behind the window";
    if (HasFailure()) break;
  }
  if (staged) {
    EXPECT_GT(mp::ofi_stat("staged_gets"), staged0 + rounds) << "gets fetched through staging slots";
    EXPECT_GT(mp::ofi_stat("timer_flushes"), timer0) << "windows the timer sent";
  }
  ARMCI_Fence(t);
  ARMCI_Barrier();
}

// A get that waits in its batch alone leaves as the read it would have
// been (a read serves one get sooner than a staged round), unless the
// batch's records went ahead of it: a read would wait for their reply, the
// staged round does not.  Two or more go staged together.  All land their
// own data.  (A window the timer split is not held to a count.)
TEST_F(Coalesce, LoneWaitingGetIsARead) {
  constexpr std::size_t kWords = 2048;  // 16 KiB: above ARMCI_OFI_STAGE_FROM alone
  mp::Shared<long> a(4 * kWords * static_cast<std::size_t>(nproc()));
  const int t = target();
  long* remote = a.of(t) + 4 * kWords * static_cast<std::size_t>(me());
  long* word = remote + 3 * kWords;  // the small put's, apart from the gets
  const char* prov = std::getenv("ARMCI_OFI_PROVIDER");
  bool staged = coalescing() && !ARMCI_Same_node(t) && (!prov || std::string(prov) == "tcp;ofi_rxm");
  // The counts assume the default sizes: 16 KiB gets wait in batches and
  // a window of them is worth staging.
  for (const char* k : {"ARMCI_OFI_STAGE_FROM", "ARMCI_OFI_STAGE_MAX", "ARMCI_OFI_COALESCE_MAX", "ARMCI_OFI_COALESCE_GET_MAX"})
    if (std::getenv(k)) staged = false;
  constexpr int bytes = static_cast<int>(kWords * sizeof(long));
  struct Case {
    int gets;
    bool put_first;  // two small puts open the batch: their Batch message goes ahead
    long want;       // staged gets, when the timer sent none of it
  };
  for (const Case c : {Case{2, false, 0}, Case{3, false, 2}, Case{1, true, 1}}) {
    std::vector<long> base(3 * kWords);
    for (std::size_t i = 0; i < base.size(); ++i) base[i] = c.gets * 1000000L + static_cast<long>(i);
    ARMCI_Put(base.data(), remote, static_cast<int>(base.size() * sizeof(long)), t);
    ARMCI_Fence(t);
    const long staged0 = mp::ofi_stat("staged_gets"), timer0 = mp::ofi_stat("timer_flushes");
    long mark = 5 + c.gets;
    if (c.put_first) {  // not adjacent: two records, so a message (one would leave as a write)
      ARMCI_NbPut(&mark, word, sizeof mark, t, nullptr);
      ARMCI_NbPut(&mark, word + 2, sizeof mark, t, nullptr);
    }
    std::vector<std::vector<long>> got(static_cast<std::size_t>(c.gets), std::vector<long>(kWords, -7));
    for (int k = 0; k < c.gets; ++k)
      ARMCI_NbGet(remote + static_cast<std::size_t>(k) * kWords, got[static_cast<std::size_t>(k)].data(), bytes, t,
                  nullptr);
    ARMCI_WaitAll();
    for (int k = 0; k < c.gets; ++k) {
      const auto from = base.begin() + static_cast<long>(static_cast<std::size_t>(k) * kWords);
      EXPECT_TRUE(mp::same(got[static_cast<std::size_t>(k)], std::vector<long>(from, from + kWords)))
          << c.gets << " gets, get " << k;
    }
    if (c.put_first) {
      long back[3] = {};
      ARMCI_Get(word, back, sizeof back, t);
      EXPECT_EQ(back[0], mark);
      EXPECT_EQ(back[2], mark);
    }
    // The timer may send a part (a 1 ms gap on a full machine): a lone get
    // stays a read then; only an undisturbed window is held to its count.
    const long got_staged = mp::ofi_stat("staged_gets") - staged0;
    if (staged && c.want == 0) {
      EXPECT_EQ(got_staged, 0) << c.gets << " gets";
    } else if (staged && mp::ofi_stat("timer_flushes") == timer0) {
      EXPECT_EQ(got_staged, c.want) << c.gets << " gets" << (c.put_first ? " behind two puts" : "");
    }
  }
  ARMCI_Barrier();
}

// Many small non-blocking puts and gets cost a few messages, not one each;
// every get lands in its own buffer and completes its own handle.
TEST_F(Coalesce, ManySmallOperationsFewMessages) {
  constexpr int kOps = 256;
  mp::Shared<long> a(static_cast<std::size_t>(kOps) * static_cast<std::size_t>(nproc()));
  const int t = target();
  long* remote = a.of(t) + kOps * me();
  std::vector<long> v(kOps), got(kOps, -1);
  for (int i = 0; i < kOps; ++i) v[static_cast<std::size_t>(i)] = me() * 100000L + i;
  const bool counted = multi_node() && !ARMCI_Same_node(t);
  const long am0 = counted ? mp::ofi_stat("active_messages") : 0, ops0 = counted ? mp::ofi_stat("remote_ops") : 0;
  for (int i = 0; i < kOps; ++i) ARMCI_NbPut(&v[static_cast<std::size_t>(i)], remote + i, sizeof(long), t, nullptr);
  std::vector<armci_hdl_t> h(kOps);
  for (int i = 0; i < kOps; ++i) {
    ARMCI_INIT_HANDLE(&h[static_cast<std::size_t>(i)]);
    ARMCI_NbGet(remote + i, &got[static_cast<std::size_t>(i)], sizeof(long), t, &h[static_cast<std::size_t>(i)]);
  }
  for (int i = kOps - 1; i >= 0; --i) ARMCI_Wait(&h[static_cast<std::size_t>(i)]);
  ARMCI_Fence(t);
  EXPECT_TRUE(mp::same(got, v));
  if (counted && coalescing()) {
    const long msgs = mp::ofi_stat("active_messages") - am0 + mp::ofi_stat("remote_ops") - ops0;
    EXPECT_LE(msgs, 8) << "messages for " << kOps << " puts and " << kOps << " gets of 8 bytes";
    EXPECT_GE(mp::ofi_stat("coalesced"), 2 * kOps - 2);
  }
  ARMCI_Barrier();
}

// Puts to consecutive words share a record (Batch::put): a run of them
// with an overlapping put, a get and an accumulate inside it must still
// apply in issue order, and the whole run travels in a few messages.
TEST_F(Coalesce, ConsecutivePutsShareRecordsInIssueOrder) {
  constexpr int kOps = 600;  // more than one message's worth of one record
  mp::Shared<long> a(static_cast<std::size_t>(kOps) * static_cast<std::size_t>(nproc()));
  const int t = target();
  long* remote = a.of(t) + kOps * me();
  std::vector<long> v(kOps), want(kOps);
  for (int i = 0; i < kOps; ++i) v[static_cast<std::size_t>(i)] = want[static_cast<std::size_t>(i)] = me() * 100000L + i;
  const long again = -7, one = 1;
  long seen = -1;
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  const bool counted = multi_node() && !ARMCI_Same_node(t);
  const long am0 = counted ? mp::ofi_stat("active_messages") : 0, ops0 = counted ? mp::ofi_stat("remote_ops") : 0;
  for (int i = 0; i < kOps; ++i) {
    ARMCI_NbPut(&v[static_cast<std::size_t>(i)], remote + i, sizeof(long), t, nullptr);
    if (i == 100) ARMCI_NbPut(const_cast<long*>(&again), remote + 50, sizeof(long), t, nullptr);
    if (i == 200) ARMCI_NbGet(remote + 150, &seen, sizeof(long), t, &h);
    if (i == 300) ARMCI_Acc(ARMCI_ACC_LNG, const_cast<long*>(&one), &v[299], remote + 299, sizeof(long), t);
  }
  want[50] = again;
  want[299] += v[299];
  ARMCI_Wait(&h);
  EXPECT_EQ(seen, v[150]) << "a get behind a run of puts sees the put to its word";
  ARMCI_Fence(t);
  const long msgs = counted ? mp::ofi_stat("active_messages") - am0 + mp::ofi_stat("remote_ops") - ops0 : 0;
  std::vector<long> got(kOps, -1);
  ARMCI_Get(remote, got.data(), kOps * static_cast<int>(sizeof(long)), t);
  EXPECT_TRUE(mp::same(got, want));
  if (counted && coalescing()) {
    EXPECT_LE(msgs, 12) << "messages for " << kOps << " consecutive puts of 8 bytes";
  }
  ARMCI_Barrier();
  // What the target sees after the barrier is the same.
  const long* mine = a.of(me());
  for (int o = 0; o < nproc(); ++o) {
    if (target_of(o) != me()) continue;
    EXPECT_EQ(mine[kOps * o + 50], again);
    EXPECT_EQ(mine[kOps * o + 299], 2 * (o * 100000L + 299));
    EXPECT_EQ(mine[kOps * o + kOps - 1], o * 100000L + kOps - 1);
  }
  ARMCI_Barrier();
}

// Small strided and vector transfers coalesce too: their pieces keep their
// order with the contiguous operations around them.
TEST_F(Coalesce, SmallStridedAndVectorPieces) {
  constexpr int kRows = 8, kRow = 4;  // 8 rows of 4 longs, every other row
  mp::Shared<long> a(static_cast<std::size_t>(2 * kRows * kRow) * static_cast<std::size_t>(nproc()));
  const int t = target();
  long* remote = a.of(t) + 2 * kRows * kRow * me();
  std::vector<long> expect(2 * kRows * kRow, 0), src(expect.size());
  ARMCI_Put(expect.data(), remote, static_cast<int>(expect.size() * sizeof(long)), t);
  int stride[1] = {2 * kRow * static_cast<int>(sizeof(long))};
  int count[2] = {kRow * static_cast<int>(sizeof(long)), kRows};
  long one = 1;
  const int rounds = scaled(200);
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = r * 1000L + static_cast<long>(i);
    if (r % 3 == 0) {
      ARMCI_NbPutS(src.data(), stride, remote, stride, count, 1, t, nullptr);
      for (int row = 0; row < kRows; ++row)
        for (int i = 0; i < kRow; ++i) expect[static_cast<std::size_t>(2 * row * kRow + i)] = src[static_cast<std::size_t>(2 * row * kRow + i)];
    } else if (r % 3 == 1) {
      ARMCI_AccS(ARMCI_ACC_LNG, &one, src.data(), stride, remote, stride, count, 1, t);
      for (int row = 0; row < kRows; ++row)
        for (int i = 0; i < kRow; ++i) expect[static_cast<std::size_t>(2 * row * kRow + i)] += src[static_cast<std::size_t>(2 * row * kRow + i)];
    } else {
      void* sp[kRows];
      void* dp[kRows];
      for (int row = 0; row < kRows; ++row) {
        sp[row] = &src[static_cast<std::size_t>((2 * row + 1) * kRow)];
        dp[row] = remote + (2 * row + 1) * kRow;
        for (int i = 0; i < kRow; ++i) expect[static_cast<std::size_t>((2 * row + 1) * kRow + i)] = src[static_cast<std::size_t>((2 * row + 1) * kRow + i)];
      }
      armci_giov_t d = {sp, dp, kRows, kRow * static_cast<int>(sizeof(long))};
      ARMCI_PutV(&d, 1, t);
    }
    long w = r;
    ARMCI_NbPut(&w, remote, sizeof w, t, nullptr);  // word 0, after the shape
    expect[0] = r;
  }
  std::vector<long> back(expect.size(), -1);
  ARMCI_GetS(remote, stride, back.data(), stride, count, 1, t);  // strided get of the even rows
  std::vector<long> all(expect.size(), -1);
  ARMCI_Get(remote, all.data(), static_cast<int>(all.size() * sizeof(long)), t);
  EXPECT_TRUE(mp::same(all, expect));
  for (int row = 0; row < kRows; ++row)
    for (int i = 0; i < kRow; ++i)
      EXPECT_EQ(back[static_cast<std::size_t>(2 * row * kRow + i)], expect[static_cast<std::size_t>(2 * row * kRow + i)]);
  ARMCI_Barrier();
}
