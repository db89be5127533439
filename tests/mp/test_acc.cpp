// Concurrent accumulates: all processes accumulate into one overlapping
// patch on one target, and every process into every other, many times, for
// all six types (ACC_INT, LNG, FLT, DBL, CPL, DCP), contiguous and strided.
// Element updates must be atomic, so the sums are exact: sources are small
// integers and scales are small integers or powers of two (complex scales
// for CPL/DCP), so every partial sum is exactly representable and the order
// in which processes' contributions land does not matter.
#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mp_check.hpp"

using mp::me;
using mp::nproc;

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

template <typename T> constexpr int op_of();
template <> constexpr int op_of<int>() { return ARMCI_ACC_INT; }
template <> constexpr int op_of<long>() { return ARMCI_ACC_LNG; }
template <> constexpr int op_of<float>() { return ARMCI_ACC_FLT; }
template <> constexpr int op_of<double>() { return ARMCI_ACC_DBL; }
template <> constexpr int op_of<cfloat>() { return ARMCI_ACC_CPL; }
template <> constexpr int op_of<cdouble>() { return ARMCI_ACC_DCP; }

template <typename T>
constexpr bool is_complex() {
  return std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>;
}

// Small integers (real and imaginary parts in -5..5).
template <typename T>
T val(int r, int i) {
  const int re = (r * 7 + i * 3) % 11 - 5, im = (r * 5 + i) % 7 - 3;
  if constexpr (is_complex<T>()) return T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>(im));
  else return static_cast<T>(re);
}

template <typename T>
T init(int i) {
  if constexpr (is_complex<T>()) return T(static_cast<typename T::value_type>(i % 13), static_cast<typename T::value_type>(-(i % 5)));
  else return static_cast<T>(i % 13 + (std::is_same_v<T, long> ? (1L << 33) : 0));
}

// T(R) * scale * v, computed once (not by repeating the additions).
template <typename T>
T times(int R, T scale, T v) {
  return static_cast<T>(R) * (scale * v);
}

constexpr int kN = 1200;       // elements per process (DCP: 19 KB, several 4 KiB stripes)
constexpr int kL = kN - 100;   // patch length; origin r starts at off(r)
int off(int r) { return (r * 37) % 100; }

// Origins' patches, applied R times each, onto the initial contents.
template <typename T>
std::vector<T> expected_patch(T scale, int R) {
  std::vector<T> w(kN);
  for (int i = 0; i < kN; ++i) w[static_cast<std::size_t>(i)] = init<T>(i);
  for (int r = 0; r < nproc(); ++r)
    for (int j = 0; j < kL; ++j) w[static_cast<std::size_t>(off(r) + j)] += times(R, scale, val<T>(r, j));
  return w;
}

// One accumulate of my patch into `dst` on `proc`, by one of four calls.
template <typename T>
void acc_patch(int how, T* scale, std::vector<T>& src, T* dst, int proc) {
  const int bytes = kL * static_cast<int>(sizeof(T));
  int cnt[2] = {10 * static_cast<int>(sizeof(T)), kL / 10};
  int st[1] = {10 * static_cast<int>(sizeof(T))};
  switch (how % 4) {
    case 0: EXPECT_EQ(ARMCI_Acc(op_of<T>(), scale, src.data(), dst, bytes, proc), 0); break;
    case 1: EXPECT_EQ(ARMCI_NbAcc(op_of<T>(), scale, src.data(), dst, bytes, proc, nullptr), 0); break;
    case 2: EXPECT_EQ(ARMCI_AccS(op_of<T>(), scale, src.data(), st, dst, st, cnt, 1, proc), 0); break;
    default: {
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      EXPECT_EQ(ARMCI_NbAccS(op_of<T>(), scale, src.data(), st, dst, st, cnt, 1, proc, &h), 0);
      EXPECT_EQ(ARMCI_Wait(&h), 0);
    }
  }
}

// Everybody hammers one patch on `target`; everybody then checks it.
template <typename T>
void one_target(int target, T scale, int R) {
  mp::Shared<T> a(kN);
  for (int i = 0; i < kN; ++i) a.mine()[i] = init<T>(i);
  ARMCI_Barrier();
  std::vector<T> src(kL);
  for (int j = 0; j < kL; ++j) src[static_cast<std::size_t>(j)] = val<T>(me(), j);
  for (int k = 0; k < R; ++k) acc_patch(k + me(), &scale, src, a.of(target) + off(me()), target);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  ARMCI_Barrier();
  const auto want = expected_patch(scale, R);
  std::vector<T> got(kN);
  EXPECT_EQ(ARMCI_Get(a.of(target), got.data(), kN * static_cast<int>(sizeof(T)), target), 0);
  EXPECT_TRUE(mp::same(got, want, "patch on the target")) << "target " << target;
}

// Every process accumulates into every process (starting at a different
// target each, so all targets are hit at once); targets check themselves.
template <typename T>
void all_targets(T scale, int R) {
  const int P = nproc();
  mp::Shared<T> a(kN);
  for (int i = 0; i < kN; ++i) a.mine()[i] = init<T>(i);
  ARMCI_Barrier();
  std::vector<T> src(kL);
  for (int j = 0; j < kL; ++j) src[static_cast<std::size_t>(j)] = val<T>(me(), j);
  for (int k = 0; k < R; ++k)
    for (int s = 1; s <= P; ++s) {
      const int t = (me() + s + k) % P;
      acc_patch(k + s, &scale, src, a.of(t) + off(me()), t);
    }
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  ARMCI_Barrier();
  const auto want = expected_patch(scale, R);
  EXPECT_TRUE(mp::same(a.mine(), want.data(), want.size(), "my block after everyone's accumulates"));
}

// Overlapping 2-D sub-blocks (column-major, leading dimension kLd) of one
// matrix on `target`, each origin with its own size and local leading dimension.
template <typename T>
void strided_blocks(int target, T scale, int R) {
  constexpr int kLd = 61, kCols = 40;
  mp::Shared<T> a(kLd * kCols);
  for (int i = 0; i < kLd * kCols; ++i) a.mine()[i] = init<T>(i);
  ARMCI_Barrier();
  auto shape = [](int r, int* r0, int* nr, int* c0, int* nc) {
    *r0 = (r * 7) % 20;
    *nr = 30 + r % 5;
    *c0 = (r * 3) % 10;
    *nc = 25 + r % 4;
  };
  int r0, nr, c0, nc;
  shape(me(), &r0, &nr, &c0, &nc);
  const int lds = nr + 3;  // local leading dimension
  std::vector<T> src(static_cast<std::size_t>(lds * nc), T(99));
  for (int c = 0; c < nc; ++c)
    for (int r = 0; r < nr; ++r) src[static_cast<std::size_t>(c * lds + r)] = val<T>(me(), c * nr + r);
  const int es = static_cast<int>(sizeof(T));
  int cnt[2] = {nr * es, nc}, ss[1] = {lds * es}, ds[1] = {kLd * es};
  T* dst = a.of(target) + c0 * kLd + r0;
  for (int k = 0; k < R; ++k) {
    if (k % 2) {
      EXPECT_EQ(ARMCI_AccS(op_of<T>(), &scale, src.data(), ss, dst, ds, cnt, 1, target), 0);
    } else {
      EXPECT_EQ(ARMCI_NbAccS(op_of<T>(), &scale, src.data(), ss, dst, ds, cnt, 1, target, nullptr), 0);
    }
  }
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  ARMCI_Barrier();
  std::vector<T> want(kLd * kCols);
  for (int i = 0; i < kLd * kCols; ++i) want[static_cast<std::size_t>(i)] = init<T>(i);
  for (int p = 0; p < nproc(); ++p) {
    int pr0, pnr, pc0, pnc;
    shape(p, &pr0, &pnr, &pc0, &pnc);
    for (int c = 0; c < pnc; ++c)
      for (int r = 0; r < pnr; ++r)
        want[static_cast<std::size_t>((pc0 + c) * kLd + pr0 + r)] += times(R, scale, val<T>(p, c * pnr + r));
  }
  std::vector<T> got(want.size());
  EXPECT_EQ(ARMCI_Get(a.of(target), got.data(), static_cast<int>(got.size()) * es, target), 0);
  EXPECT_TRUE(mp::same(got, want, "matrix on the target")) << "target " << target;
}

// Many accumulates of one patch onto rank 0 by everybody at once: the best
// chance for two unsynchronised read-modify-writes to collide.  Origins on
// rank 0's node repeat it R times; others (each one a message) fewer.
int hot_reps(int r, int R) {
  return armci_domain_id(ARMCI_DOMAIN_SMP, r) == armci_domain_id(ARMCI_DOMAIN_SMP, 0) ? R : R / 50;
}

template <typename T>
void hot_spot(T scale, int R) {
  constexpr int kHot = 1000;  // long updates: a preemption mid-update loses data too
  mp::Shared<T> a(kHot);
  for (int i = 0; i < kHot; ++i) a.mine()[i] = init<T>(i);
  ARMCI_Barrier();
  std::vector<T> src(kHot);
  for (int i = 0; i < kHot; ++i) src[static_cast<std::size_t>(i)] = val<T>(me(), i);
  for (int k = 0; k < hot_reps(me(), R); ++k)
    EXPECT_EQ(ARMCI_Acc(op_of<T>(), &scale, src.data(), a.of(0), kHot * static_cast<int>(sizeof(T)), 0), 0);
  ARMCI_Barrier();
  if (me() != 0) return;
  std::vector<T> want(kHot);
  for (int i = 0; i < kHot; ++i) {
    want[static_cast<std::size_t>(i)] = init<T>(i);
    for (int r = 0; r < nproc(); ++r) want[static_cast<std::size_t>(i)] += times(hot_reps(r, R), scale, val<T>(r, i));
  }
  EXPECT_TRUE(mp::same(a.mine(), want.data(), want.size(), "hot spot on rank 0"));
}

}  // namespace

class Acc : public mp::MpTest {};

TEST_F(Acc, AllIntoOnePatch) {
  const int R = 300, P = nproc();
  { SCOPED_TRACE("INT"); one_target<int>(0, 3, R); }
  { SCOPED_TRACE("LNG"); one_target<long>(1 % P, -2L, R); }
  { SCOPED_TRACE("FLT"); one_target<float>(2 % P, 0.5f, R); }
  { SCOPED_TRACE("DBL"); one_target<double>(3 % P, -0.25, R); }
  { SCOPED_TRACE("CPL"); one_target<cfloat>(4 % P, cfloat(0.5f, -1.5f), R); }
  { SCOPED_TRACE("DCP"); one_target<cdouble>(P - 1, cdouble(-2.0, 0.25), R); }
}

// Scale 1 takes the library's plain-add path: check it too.
TEST_F(Acc, AllIntoOnePatchUnitScale) {
  const int R = 100, P = nproc();
  { SCOPED_TRACE("INT"); one_target<int>(P - 1, 1, R); }
  { SCOPED_TRACE("LNG"); one_target<long>(0, 1L, R); }
  { SCOPED_TRACE("FLT"); one_target<float>(1 % P, 1.0f, R); }
  { SCOPED_TRACE("DBL"); one_target<double>(2 % P, 1.0, R); }
  { SCOPED_TRACE("CPL"); one_target<cfloat>(3 % P, cfloat(1.0f, 0.0f), R); }
  { SCOPED_TRACE("DCP"); one_target<cdouble>(4 % P, cdouble(1.0, 0.0), R); }
}

TEST_F(Acc, EveryoneIntoEveryone) {
  const int R = 60;
  { SCOPED_TRACE("INT"); all_targets<int>(-5, R); }
  { SCOPED_TRACE("LNG"); all_targets<long>(7L, R); }
  { SCOPED_TRACE("FLT"); all_targets<float>(-0.75f, R); }
  { SCOPED_TRACE("DBL"); all_targets<double>(2.5, R); }
  { SCOPED_TRACE("CPL"); all_targets<cfloat>(cfloat(0.0f, 1.0f), R); }
  { SCOPED_TRACE("DCP"); all_targets<cdouble>(cdouble(1.5, -0.5), R); }
}

TEST_F(Acc, StridedOverlappingBlocks) {
  const int R = 150, P = nproc();
  { SCOPED_TRACE("INT"); strided_blocks<int>(0, 2, R); }
  { SCOPED_TRACE("LNG"); strided_blocks<long>(P - 1, -3L, R); }
  { SCOPED_TRACE("FLT"); strided_blocks<float>(1 % P, 0.25f, R); }
  { SCOPED_TRACE("DBL"); strided_blocks<double>(2 % P, -4.0, R); }
  { SCOPED_TRACE("CPL"); strided_blocks<cfloat>(3 % P, cfloat(-1.0f, 2.0f), R); }
  { SCOPED_TRACE("DCP"); strided_blocks<cdouble>(4 % P, cdouble(0.5, 0.5), R); }
}

// One element at a time (GA's NGA_Acc of one element, a counter updated by
// hand) from everybody into everybody: each is applied exactly once.
// Across nodes a lone accumulate leaves as an AccOne message (its header
// and data within the provider's inject size; over tcp written into the
// agent's inbox, ARMCI_OFI_POLLED_AM): one right after a fence
// (nothing in flight to that node), one right after a put (it joins a
// batch, which the fence then sends as a batch of one), the rest as they
// come (usually coalesced behind an unanswered one).
TEST_F(Acc, SingleElements) {
  const int P = nproc(), R = 300;
  mp::Shared<long> lw(static_cast<std::size_t>(P));
  mp::Shared<double> dw(static_cast<std::size_t>(P));
  mp::Shared<long> scratch(static_cast<std::size_t>(P));  // a word per origin: puts never overlap
  for (int i = 0; i < P; ++i) {
    lw.mine()[i] = 1L << 40;
    dw.mine()[i] = 0.5;
  }
  ARMCI_Barrier();
  const bool multi = armci_domain_count(ARMCI_DOMAIN_SMP) > 1;
  const char* native = std::getenv("ARMCI_OFI_ATOMICS");
  const bool counted = multi && !(native && std::string(native) == "1") && !std::getenv("ARMCI_OFI_INJECT");
  auto lone = [] { return std::max(0L, ARMCI_Ofi_stat("am_acc_one")); };
  const long one0 = counted ? lone() : 0;
  long lscale = 3, src = me() + 1;
  double dscale = 0.25, dsrc = 2.0 * (me() + 1);
  for (int k = 0; k < R; ++k) {
    const int t = (me() + 1 + k) % P;
    if (k % 3 == 0) {
      EXPECT_EQ(ARMCI_Put(&src, scratch.of(t) + me(), sizeof src, t), 0);
      EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &lscale, &src, lw.of(t) + me(), sizeof src, t), 0);
      ARMCI_Fence(t);
    } else {
      if (k % 3 == 1) ARMCI_Fence(t);
      EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_LNG, &lscale, &src, lw.of(t) + me(), sizeof src, t), 0);
    }
    EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &dscale, &dsrc, dw.of(t) + me(), sizeof dsrc, t), 0);
  }
  ARMCI_AllFence();
  if (counted) {
    EXPECT_GT(lone() - one0, 0) << "no accumulate left as an AccOne";
  }
  ARMCI_Barrier();
  for (int r = 0; r < P; ++r) {
    long times = 0;  // how many of r's R accumulates came here
    for (int k = 0; k < R; ++k) times += (r + 1 + k) % P == me();
    EXPECT_EQ(lw.mine()[r], (1L << 40) + times * 3 * (r + 1)) << "long word of origin " << r;
    EXPECT_EQ(dw.mine()[r], 0.5 + times * 0.5 * (r + 1)) << "double word of origin " << r;
  }
}

// Long enough (tens of ms per process) that on a busy machine, where the
// processes time-slice one core, preemptions fall inside updates too.
TEST_F(Acc, HotSpot) {
  { SCOPED_TRACE("INT"); hot_spot<int>(3, 40000); }
  { SCOPED_TRACE("DCP"); hot_spot<cdouble>(cdouble(1.0, -1.0), 10000); }
}

namespace {

// Lone accumulates of 4 bytes to 2 KiB, each after a fence (nothing in flight
// to the target) or, now and then, after a flag set on its first word (a
// quiet signal, not yet answered), each followed by what must not pass it:
// a put of the same words (an RMA write), a strided put over them (packed:
// a message the agent may meet in the same pass as the accumulate), or a
// get (which must return the accumulated words).  The words after all rounds are the
// sequential result only if every accumulate was applied once, in issue
// order.
template <typename T>
void lone_then_conflicting(int rounds) {
  constexpr int kMaxN = static_cast<int>(2048 / sizeof(T));
  constexpr int kSpan = 3 * kMaxN;  // elements per origin
  mp::Shared<T> w(static_cast<std::size_t>(kSpan * nproc()));
  for (int i = 0; i < kSpan * nproc(); ++i) w.mine()[i] = init<T>(i);
  ARMCI_Barrier();
  const int t = mp::other_node();
  T* remote = w.of(t) + kSpan * me();
  std::vector<T> expect(kSpan);
  for (int i = 0; i < kSpan; ++i) expect[static_cast<std::size_t>(i)] = init<T>(kSpan * me() + i);
  const T scale = is_complex<T>() ? val<T>(3, 1) : static_cast<T>(2);
  for (int r = 0; r < rounds; ++r) {
    // Mostly up to 32 bytes, now and then up to 2 KiB (polled over tcp).
    const int n = r % 7 == 6 ? 1 + (r * 131) % kMaxN : 1 + r % 4, at = (r * 5) % (kSpan - 2 * kMaxN);
    const int bytes = n * static_cast<int>(sizeof(T));
    std::vector<T> src(static_cast<std::size_t>(n)), v(src.size()), got(src.size());
    for (int i = 0; i < n; ++i) {
      src[static_cast<std::size_t>(i)] = val<T>(r, i);
      v[static_cast<std::size_t>(i)] = val<T>(r + 1, i + 2);
    }
    ARMCI_Fence(t);
    if constexpr (std::is_same_v<T, int>) {
      // A quiet signal before it (the agent may not have handled it when
      // the accumulate arrives): a word put, then a flag set on the word
      // the accumulate adds to.
      if (r % 5 == 4) {
        int word = r, flag = 1000 + r;
        ASSERT_EQ(ARMCI_Put_flag(&word, remote + kSpan - 1, sizeof word, remote + at, flag, t), 0);
        expect[kSpan - 1] = word;
        expect[static_cast<std::size_t>(at)] = flag;
      }
    }
    T s = scale;
    ASSERT_EQ(ARMCI_Acc(op_of<T>(), &s, src.data(), remote + at, bytes, t), 0);
    for (int i = 0; i < n; ++i) expect[static_cast<std::size_t>(at + i)] += scale * src[static_cast<std::size_t>(i)];
    switch (r % 4) {
      case 1:
        ASSERT_EQ(ARMCI_Put(v.data(), remote + at, bytes, t), 0);
        for (int i = 0; i < n; ++i) expect[static_cast<std::size_t>(at + i)] = v[static_cast<std::size_t>(i)];
        break;
      case 2: {  // every other word from `at`: n rows of one element
        int stride[1] = {static_cast<int>(2 * sizeof(T))}, lsrc[1] = {static_cast<int>(sizeof(T))};
        int count[2] = {static_cast<int>(sizeof(T)), n};
        ASSERT_EQ(ARMCI_PutS(v.data(), lsrc, remote + at, stride, count, 1, t), 0);
        for (int i = 0; i < n; ++i) expect[static_cast<std::size_t>(at + 2 * i)] = v[static_cast<std::size_t>(i)];
        break;
      }
      case 3:
        ASSERT_EQ(ARMCI_Get(remote + at, got.data(), bytes, t), 0);
        for (int i = 0; i < n; ++i)
          if (got[static_cast<std::size_t>(i)] != expect[static_cast<std::size_t>(at + i)]) {
            ADD_FAILURE() << "round " << r << ": a get after the accumulate read element " << at + i
                          << " other than the sequential result";
            break;
          }
        break;
      default: break;
    }
    if (::testing::Test::HasFailure()) break;
  }
  ARMCI_Fence(t);
  std::vector<T> back(kSpan);
  ASSERT_EQ(ARMCI_Get(remote, back.data(), static_cast<int>(kSpan * sizeof(T)), t), 0);
  for (int i = 0; i < kSpan; ++i)
    if (back[static_cast<std::size_t>(i)] != expect[static_cast<std::size_t>(i)]) {
      ADD_FAILURE() << "element " << i << " after " << rounds << " rounds differs from the sequential result";
      break;
    }
  ARMCI_Barrier();
}

}  // namespace

// Across nodes over tcp these are polled messages (ARMCI_OFI_POLLED_AM): one
// write into the agent's inbox, answered by a write back; over other
// providers and inside a node the same checks hold for AccOne and Acc
// messages and load/store.
TEST_F(Acc, LoneSmallAccumulatesKeepIssueOrder) {
  const char* p = std::getenv("ARMCI_OFI_PROVIDER");
  const int rounds = armci_domain_count(ARMCI_DOMAIN_SMP) > 1 && p && std::string(p) == "sockets" ? 40 : 200;
  const long polled0 = std::max(0L, ARMCI_Ofi_stat("polled_ams"));
  { SCOPED_TRACE("INT"); lone_then_conflicting<int>(rounds); }
  { SCOPED_TRACE("LNG"); lone_then_conflicting<long>(rounds); }
  { SCOPED_TRACE("FLT"); lone_then_conflicting<float>(rounds); }
  { SCOPED_TRACE("DBL"); lone_then_conflicting<double>(rounds); }
  { SCOPED_TRACE("CPL"); lone_then_conflicting<cfloat>(rounds); }
  { SCOPED_TRACE("DCP"); lone_then_conflicting<cdouble>(rounds); }
  const long polled = std::max(0L, ARMCI_Ofi_stat("polled_ams")) - polled0;
  const std::string prov = p ? p : "", off = std::getenv("ARMCI_OFI_POLLED_AM") ? std::getenv("ARMCI_OFI_POLLED_AM") : "";
  if (mp::polled_expected()) {
    EXPECT_GE(polled, 6L * rounds * 9 / 10) << "accumulates written into the agent's inbox";
  } else if (armci_domain_count(ARMCI_DOMAIN_SMP) == 1 || off == "0" || (!prov.empty() && prov.rfind("tcp", 0) != 0)) {
    EXPECT_EQ(polled, 0) << "polled messages where there can be none";
  }
}
