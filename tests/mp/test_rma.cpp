// Contiguous one-sided operations: Put/Get/Acc, single values, non-blocking
// calls with explicit and implicit handles, Put_flag, location consistency,
// per-target ordering, Fence/AllFence as remote completion, zero-byte
// transfers and ARMCI_Copy.  Each rank checks only its own memory directly;
// other ranks' memory is read with ARMCI_Get (valid across nodes too).
#include <algorithm>
#include <cstring>

#include "mp_check.hpp"

using mp::left;
using mp::me;
using mp::nproc;
using mp::right;

class Rma : public mp::MpTest {};

namespace {

// Byte b of what origin o writes in round k: differs per origin, round and
// offset, so a byte from the wrong sender, round or place is caught.
unsigned char pat(int o, int k, std::size_t b) {
  return static_cast<unsigned char>((o * 131 + k * 31 + b * 7 + (b >> 8) * 13 + 1) & 0xff);
}

std::vector<unsigned char> pattern(int o, int k, std::size_t n) {
  std::vector<unsigned char> v(n);
  for (std::size_t b = 0; b < n; ++b) v[b] = pat(o, k, b);
  return v;
}

}  // namespace

// Odd sizes at unaligned offsets, up to 1 MiB; bytes around the target patch
// must stay untouched.
TEST_F(Rma, PutGetSizes) {
  const std::size_t kMax = (1u << 20) + 64;
  mp::Shared<unsigned char> a(kMax);
  const int sizes[] = {1, 3, 8, 1000, 4099, 65536 + 5, 1 << 20};
  for (int k = 0; k < 7; ++k) {
    const std::size_t n = static_cast<std::size_t>(sizes[k]), off = static_cast<std::size_t>(k + 1);
    std::memset(a.mine(), 0xEE, kMax);
    ARMCI_Barrier();
    auto src = pattern(me(), k, n);
    EXPECT_EQ(ARMCI_Put(src.data(), a.of(right()) + off, static_cast<int>(n), right()), 0);
    ARMCI_Barrier();
    std::vector<unsigned char> got(a.mine(), a.mine() + kMax), want(kMax, 0xEE);
    auto from_left = pattern(left(), k, n);
    std::copy(from_left.begin(), from_left.end(), want.begin() + static_cast<long>(off));
    EXPECT_TRUE(mp::same(got, want, "my block after the left neighbour's put")) << "size " << n;
    std::vector<unsigned char> back(n + 2, 0x11);
    EXPECT_EQ(ARMCI_Get(a.of(right()) + off, back.data() + 1, static_cast<int>(n), right()), 0);
    EXPECT_EQ(back[0], 0x11);
    EXPECT_EQ(back[n + 1], 0x11) << "Get wrote past the end, size " << n;
    EXPECT_TRUE(mp::same(back.data() + 1, src.data(), n, "get of my put")) << "size " << n;
    ARMCI_Barrier();
  }
}

TEST_F(Rma, AccumulateContiguous) {
  const int n = 3000;  // 12 KB of int, 24 KB of double: several accumulate stripes
  mp::Shared<int> ai(n);
  mp::Shared<double> ad(n);
  for (int i = 0; i < n; ++i) {
    ai.mine()[i] = i - 50;
    ad.mine()[i] = 0.5 * i;
  }
  ARMCI_Barrier();
  std::vector<int> si(n);
  std::vector<double> sd(n);
  for (int i = 0; i < n; ++i) {
    si[static_cast<std::size_t>(i)] = me() * 1000 + i % 97;
    sd[static_cast<std::size_t>(i)] = me() + 0.25 * (i % 13);
  }
  int s3 = 3, sm1 = -1;
  double d4 = 4.0, dh = -0.5;
  EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_INT, &s3, si.data(), ai.of(right()), n * 4, right()), 0);
  EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_INT, &sm1, si.data(), ai.of(right()), n * 4, right()), 0);
  EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &d4, sd.data(), ad.of(right()), n * 8, right()), 0);
  EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_DBL, &dh, sd.data(), ad.of(right()), n * 8, right()), 0);
  ARMCI_Barrier();
  std::vector<int> wi(n);
  std::vector<double> wd(n);
  for (int i = 0; i < n; ++i) {
    wi[static_cast<std::size_t>(i)] = i - 50 + 2 * (left() * 1000 + i % 97);
    wd[static_cast<std::size_t>(i)] = 0.5 * i + 3.5 * (left() + 0.25 * (i % 13));
  }
  EXPECT_TRUE(mp::same(ai.mine(), wi.data(), n, "int acc"));
  EXPECT_TRUE(mp::same(ad.mine(), wd.data(), n, "double acc"));
}

TEST_F(Rma, SingleValues) {
  mp::Shared<double> a(4);  // slots: int, long, float, double (8-byte aligned)
  auto vi = [](int r, int k) { return -7 - 1000 * r - k; };
  auto vl = [](int r, int k) { return (3L << 40) + r + 10L * k; };
  auto vf = [](int r, int k) { return 0.25f + static_cast<float>(r + 100 * k); };
  auto vd = [](int r, int k) { return -1e15 - r * 0.5 - k; };
  for (int k = 0; k < 3; ++k) {  // blocking, Nb with handle, Nb with NULL
    std::memset(a.mine(), 0, 4 * sizeof(double));
    ARMCI_Barrier();
    double* t = a.of(right());
    const int p = right();
    if (k == 0) {
      EXPECT_EQ(ARMCI_PutValueInt(vi(me(), k), t, p), 0);
      EXPECT_EQ(ARMCI_PutValueLong(vl(me(), k), t + 1, p), 0);
      EXPECT_EQ(ARMCI_PutValueFloat(vf(me(), k), t + 2, p), 0);
      EXPECT_EQ(ARMCI_PutValueDouble(vd(me(), k), t + 3, p), 0);
    } else {
      armci_hdl_t h[4];
      for (auto& x : h) ARMCI_INIT_HANDLE(&x);
      armci_hdl_t* hp[4] = {&h[0], &h[1], &h[2], &h[3]};
      if (k == 2) std::fill(hp, hp + 4, nullptr);
      EXPECT_EQ(ARMCI_NbPutValueInt(vi(me(), k), t, p, hp[0]), 0);
      EXPECT_EQ(ARMCI_NbPutValueLong(vl(me(), k), t + 1, p, hp[1]), 0);
      EXPECT_EQ(ARMCI_NbPutValueFloat(vf(me(), k), t + 2, p, hp[2]), 0);
      EXPECT_EQ(ARMCI_NbPutValueDouble(vd(me(), k), t + 3, p, hp[3]), 0);
      if (k == 1)
        for (auto& x : h) EXPECT_EQ(ARMCI_Wait(&x), 0);
      else
        EXPECT_EQ(ARMCI_WaitAll(), 0);
    }
    ARMCI_Barrier();
    const double* m = a.mine();
    int gi;
    long gl;
    float gf;
    std::memcpy(&gi, m, sizeof gi);
    std::memcpy(&gl, m + 1, sizeof gl);
    std::memcpy(&gf, m + 2, sizeof gf);
    EXPECT_EQ(gi, vi(left(), k)) << "round " << k;
    EXPECT_EQ(gl, vl(left(), k)) << "round " << k;
    EXPECT_EQ(gf, vf(left(), k)) << "round " << k;
    EXPECT_EQ(m[3], vd(left(), k)) << "round " << k;
    EXPECT_EQ(ARMCI_GetValueInt(t, p), vi(me(), k));
    EXPECT_EQ(ARMCI_GetValueLong(t + 1, p), vl(me(), k));
    EXPECT_EQ(ARMCI_GetValueFloat(t + 2, p), vf(me(), k));
    EXPECT_EQ(ARMCI_GetValueDouble(t + 3, p), vd(me(), k));
    if (ARMCI_Same_node(p)) {  // same memory seen through the shared mapping
      std::memcpy(&gi, t, sizeof gi);
      EXPECT_EQ(gi, vi(me(), k));
    }
    ARMCI_Barrier();
  }
}

// Non-blocking calls with explicit handles to every process: Wait, Test,
// handle reuse, aggregation, and local completion (source reusable).
TEST_F(Rma, NonBlockingExplicitHandles) {
  const int P = nproc(), n = 512;
  mp::Shared<long> a(static_cast<std::size_t>(P * n));
  std::fill(a.mine(), a.mine() + P * n, -1L);
  ARMCI_Barrier();
  auto val = [](int o, int t, int i, int k) { return 1000000L * o + 10000L * t + i + 7L * k; };
  std::vector<std::vector<long>> src(static_cast<std::size_t>(P), std::vector<long>(n));
  std::vector<armci_hdl_t> h(static_cast<std::size_t>(P));
  for (int t = 0; t < P; ++t) {
    auto& s = src[static_cast<std::size_t>(t)];
    for (int i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = val(me(), t, i, 0);
    ARMCI_INIT_HANDLE(&h[static_cast<std::size_t>(t)]);
    EXPECT_EQ(ARMCI_NbPut(s.data(), a.of(t) + me() * n, n * 8, t, &h[static_cast<std::size_t>(t)]), 0);
  }
  for (int t = 0; t < P; ++t) {
    armci_hdl_t& x = h[static_cast<std::size_t>(t)];
    if (t % 2) {
      EXPECT_TRUE(mp::wait_until([&] { return ARMCI_Test(&x) == 0; })) << "Test never reported completion";
    } else {
      EXPECT_EQ(ARMCI_Wait(&x), 0);
    }
    // Locally complete: overwriting the source must not change what arrives.
    std::fill(src[static_cast<std::size_t>(t)].begin(), src[static_cast<std::size_t>(t)].end(), -2L);
  }
  ARMCI_Barrier();
  for (int o = 0; o < P; ++o) {
    std::vector<long> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(o, me(), i, 0);
    EXPECT_TRUE(mp::same(a.mine() + o * n, want.data(), static_cast<std::size_t>(n), "NbPut slot"))
        << "from " << o;
  }
  // NbGet of what I wrote everywhere, all in flight at once; handles reused.
  std::vector<std::vector<long>> got(static_cast<std::size_t>(P), std::vector<long>(n, 0));
  for (int t = 0; t < P; ++t) {
    ARMCI_INIT_HANDLE(&h[static_cast<std::size_t>(t)]);
    EXPECT_EQ(ARMCI_NbGet(a.of(t) + me() * n, got[static_cast<std::size_t>(t)].data(), n * 8, t,
                          &h[static_cast<std::size_t>(t)]),
              0);
  }
  for (int t = 0; t < P; ++t) {
    EXPECT_EQ(ARMCI_Wait(&h[static_cast<std::size_t>(t)]), 0);
    std::vector<long> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(me(), t, i, 0);
    EXPECT_TRUE(mp::same(got[static_cast<std::size_t>(t)], want, "NbGet")) << "from " << t;
  }
  // A handle with nothing pending: Test and Wait return 0 at once.
  armci_hdl_t idle;
  ARMCI_INIT_HANDLE(&idle);
  EXPECT_EQ(ARMCI_Test(&idle), 0);
  EXPECT_EQ(ARMCI_Wait(&idle), 0);
  ARMCI_Barrier();
  // NbAcc with handles, then an aggregate handle carrying several puts.
  std::vector<long> ones(n, 1);
  long three = 3;
  for (int t = 0; t < P; ++t) {
    armci_hdl_t x;
    ARMCI_INIT_HANDLE(&x);
    EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_LNG, &three, ones.data(), a.of(t) + me() * n, n * 8, t, &x), 0);
    EXPECT_EQ(ARMCI_Wait(&x), 0);
  }
  ARMCI_Barrier();
  for (int o = 0; o < P; ++o) {
    std::vector<long> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(o, me(), i, 0) + 3;
    EXPECT_TRUE(mp::same(a.mine() + o * n, want.data(), static_cast<std::size_t>(n), "NbAcc slot"))
        << "from " << o;
  }
  ARMCI_Barrier();
  armci_hdl_t agg;
  ARMCI_INIT_HANDLE(&agg);
  ARMCI_SET_AGGREGATE_HANDLE(&agg);
  std::vector<long> pieces(n);
  for (int i = 0; i < n; ++i) pieces[static_cast<std::size_t>(i)] = val(me(), right(), i, 5);
  for (int c = 0; c < 8; ++c)  // 8 pieces of n/8 longs on one handle
    EXPECT_EQ(ARMCI_NbPut(pieces.data() + c * n / 8, a.of(right()) + me() * n + c * n / 8, n, right(), &agg), 0);
  EXPECT_EQ(ARMCI_Wait(&agg), 0);
  ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
  ARMCI_Barrier();
  std::vector<long> want(n);
  for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(left(), me(), i, 5);
  EXPECT_TRUE(mp::same(a.mine() + left() * n, want.data(), static_cast<std::size_t>(n), "aggregate"));
}

// NULL handles: completed by ARMCI_WaitProc (per target) or ARMCI_WaitAll.
TEST_F(Rma, NonBlockingImplicitHandles) {
  const int P = nproc(), n = 300;
  mp::Shared<int> a(static_cast<std::size_t>(P * n));
  std::fill(a.mine(), a.mine() + P * n, 0);
  ARMCI_Barrier();
  auto val = [](int o, int t, int i) { return 100000 * o + 1000 * t + i; };
  std::vector<int> src(static_cast<std::size_t>(P * n));
  for (int t = 0; t < P; ++t)
    for (int i = 0; i < n; ++i) src[static_cast<std::size_t>(t * n + i)] = val(me(), t, i);
  for (int t = 0; t < P; ++t)
    EXPECT_EQ(ARMCI_NbPut(&src[static_cast<std::size_t>(t * n)], a.of(t) + me() * n, n * 4, t, nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  std::fill(src.begin(), src.end(), -9);  // source reusable after WaitAll
  ARMCI_Barrier();
  for (int o = 0; o < P; ++o) {
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(o, me(), i);
    EXPECT_TRUE(mp::same(a.mine() + o * n, want.data(), static_cast<std::size_t>(n), "implicit NbPut"))
        << "from " << o;
  }
  std::vector<int> got(static_cast<std::size_t>(P * n), -1);
  for (int t = 0; t < P; ++t)
    EXPECT_EQ(ARMCI_NbGet(a.of(t) + me() * n, &got[static_cast<std::size_t>(t * n)], n * 4, t, nullptr), 0);
  for (int t = 0; t < P; ++t) {
    EXPECT_EQ(ARMCI_WaitProc(t), 0);
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(me(), t, i);
    EXPECT_TRUE(mp::same(&got[static_cast<std::size_t>(t * n)], want.data(), static_cast<std::size_t>(n),
                         "implicit NbGet after WaitProc"))
        << "from " << t;
  }
  ARMCI_Barrier();  // everyone checked and read before the accumulates change the slots
  std::vector<int> inc(n);
  for (int i = 0; i < n; ++i) inc[static_cast<std::size_t>(i)] = i % 5 - 2;
  int two = 2;
  for (int t = 0; t < P; ++t)
    EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_INT, &two, inc.data(), a.of(t) + me() * n, n * 4, t, nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  ARMCI_Barrier();
  for (int o = 0; o < P; ++o) {
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = val(o, me(), i) + 2 * (i % 5 - 2);
    EXPECT_TRUE(mp::same(a.mine() + o * n, want.data(), static_cast<std::size_t>(n), "implicit NbAcc"))
        << "from " << o;
  }
}

// The receiver waits only on the flag, then the data must be there.
TEST_F(Rma, PutFlag) {
  const std::size_t kMax = 70000;
  mp::Shared<unsigned char> data(kMax);
  mp::Shared<int> flag(1);
  *flag.mine() = 0;
  ARMCI_Barrier();
  for (int k = 0; k < 20; ++k) {
    const std::size_t n = 1 + (static_cast<std::size_t>(k) * 977 * 31) % (kMax - 1);
    auto src = pattern(me(), k, n);
    EXPECT_EQ(ARMCI_Put_flag(src.data(), data.of(right()), static_cast<int>(n), flag.of(right()), k + 1,
                             right()),
              0);
    const bool arrived = mp::wait_until([&] { return mp::load_acquire(flag.mine()) == k + 1; });
    EXPECT_TRUE(arrived) << "flag value " << k + 1 << " never arrived; flag is " << *flag.mine();
    if (arrived) {
      auto want = pattern(left(), k, n);
      EXPECT_TRUE(mp::same(data.mine(), want.data(), n, "data when the flag arrived")) << "round " << k;
    }
    ARMCI_Barrier();  // nobody overwrites my data before I checked it
  }
}

// A process sees its own earlier puts and accs when it reads the same
// place, without fences: random places and sizes, against a local mirror.
TEST_F(Rma, LocationConsistency) {
  const int P = nproc();
  const int S = 8192;  // my slice in every process's block (bytes)
  const int NI = 512;  // my int slice for accumulates
  mp::Shared<unsigned char> a(static_cast<std::size_t>(P * S));
  mp::Shared<int> ai(static_cast<std::size_t>(P * NI));
  std::memset(a.mine(), 0, static_cast<std::size_t>(P * S));
  std::fill(ai.mine(), ai.mine() + P * NI, 0);
  ARMCI_Barrier();
  std::vector<std::vector<unsigned char>> mirror(static_cast<std::size_t>(P), std::vector<unsigned char>(S, 0));
  std::vector<std::vector<int>> imirror(static_cast<std::size_t>(P), std::vector<int>(NI, 0));
  auto g = mp::rng(static_cast<uint64_t>(me()) + 101);
  int bad = 0;
  for (int it = 0; it < 400 && bad < 3; ++it) {
    const int t = static_cast<int>(g() % static_cast<uint64_t>(P));
    const int off = static_cast<int>(g() % S), n = 1 + static_cast<int>(g() % static_cast<uint64_t>(S - off));
    std::vector<unsigned char> src(static_cast<std::size_t>(n));
    for (auto& b : src) b = static_cast<unsigned char>(g());
    unsigned char* dst = a.of(t) + me() * S + off;
    if (it % 3 == 0) {
      armci_hdl_t h;
      ARMCI_INIT_HANDLE(&h);
      EXPECT_EQ(ARMCI_NbPut(src.data(), dst, n, t, &h), 0);
      EXPECT_EQ(ARMCI_Wait(&h), 0);
    } else {
      EXPECT_EQ(ARMCI_Put(src.data(), dst, n, t), 0);
    }
    std::copy(src.begin(), src.end(), mirror[static_cast<std::size_t>(t)].begin() + off);
    std::vector<unsigned char> back(static_cast<std::size_t>(n), 0);
    EXPECT_EQ(ARMCI_Get(dst, back.data(), n, t), 0);
    if (!mp::same(back, src)) ++bad;
    EXPECT_TRUE(mp::same(back, src, "get right after put")) << "iteration " << it << " target " << t << " off "
                                                             << off << " bytes " << n;
    // Accumulate then read back the same ints.
    const int io = static_cast<int>(g() % NI), in = 1 + static_cast<int>(g() % static_cast<uint64_t>(NI - io));
    std::vector<int> inc(static_cast<std::size_t>(in));
    for (auto& v : inc) v = static_cast<int>(g() % 200) - 100;
    int scale = 1 + static_cast<int>(g() % 3);
    EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_INT, &scale, inc.data(), ai.of(t) + me() * NI + io, in * 4, t), 0);
    auto& im = imirror[static_cast<std::size_t>(t)];
    for (int i = 0; i < in; ++i) im[static_cast<std::size_t>(io + i)] += scale * inc[static_cast<std::size_t>(i)];
    std::vector<int> iback(static_cast<std::size_t>(in));
    EXPECT_EQ(ARMCI_Get(ai.of(t) + me() * NI + io, iback.data(), in * 4, t), 0);
    if (!mp::same(iback.data(), &im[static_cast<std::size_t>(io)], static_cast<std::size_t>(in))) ++bad;
    EXPECT_TRUE(mp::same(iback.data(), &im[static_cast<std::size_t>(io)], static_cast<std::size_t>(in),
                         "get right after acc"))
        << "iteration " << it << " target " << t;
  }
  // The whole slices match the mirrors at the end too.
  for (int t = 0; t < P; ++t) {
    std::vector<unsigned char> all(static_cast<std::size_t>(S));
    EXPECT_EQ(ARMCI_Get(a.of(t) + me() * S, all.data(), S, t), 0);
    EXPECT_TRUE(mp::same(all, mirror[static_cast<std::size_t>(t)], "final slice")) << "target " << t;
  }
}

// A sequence of overlapping puts (blocking and implicit non-blocking) from
// one origin to one place; after Fence the last writer of each byte wins.
// The target regenerates the sequence from (origin, round) and checks its
// own memory after a message-only barrier, so only the Fence (or AllFence)
// can have made the data complete.
TEST_F(Rma, OrderingLastWinsAfterFence) {
  const int P = nproc(), S = 4096;
  mp::Shared<unsigned char> a(static_cast<std::size_t>(P * S));
  std::memset(a.mine(), 0, static_cast<std::size_t>(P * S));
  ARMCI_Barrier();
  auto sequence = [&](int origin, int round, std::vector<unsigned char>* model, int target, unsigned char* dst) {
    auto g = mp::rng(static_cast<uint64_t>(origin * 1000 + round));
    for (int j = 0; j < 60; ++j) {
      const int off = static_cast<int>(g() % S), n = 1 + static_cast<int>(g() % static_cast<uint64_t>(S - off));
      std::vector<unsigned char> v(static_cast<std::size_t>(n), static_cast<unsigned char>(j * 4 + round + 1));
      if (model) std::copy(v.begin(), v.end(), model->begin() + off);
      if (dst) {
        if (j % 2) {
          EXPECT_EQ(ARMCI_NbPut(v.data(), dst + off, n, target, nullptr), 0);
          EXPECT_EQ(ARMCI_WaitProc(target), 0);  // v dies at the end of the block
        } else {
          EXPECT_EQ(ARMCI_Put(v.data(), dst + off, n, target), 0);
        }
      }
    }
  };
  for (int round = 0; round < 2 * P; ++round) {
    const int t = (me() + round) % P;
    sequence(me(), round, nullptr, t, a.of(t) + me() * S);
    if (round % 2) ARMCI_AllFence();
    else ARMCI_Fence(t);
    armci_msg_barrier();
    const int o = (me() - round % P + P) % P;  // who targeted me this round
    std::vector<unsigned char> got(a.mine() + o * S, a.mine() + (o + 1) * S);
    ARMCI_Barrier();  // read before anyone starts the next round
    // o wrote this slot in every round r with r % P == round % P: replay them.
    std::vector<unsigned char> want(static_cast<std::size_t>(S), 0);
    for (int r = round % P; r <= round; r += P) sequence(o, r, &want, 0, nullptr);
    EXPECT_TRUE(mp::same(got, want, "slot after the fenced sequence")) << "round " << round << " origin " << o;
  }
}

// Fence alone (no barrier) makes a put visible: the target learns of it
// by a message sent after the Fence.
TEST_F(Rma, FenceBeforeMessage) {
  const int n = 20000;
  mp::Shared<long> a(n);
  std::fill(a.mine(), a.mine() + n, 0L);
  ARMCI_Barrier();
  for (int k = 1; k <= 6; ++k) {
    std::vector<long> src(n);
    for (int i = 0; i < n; ++i) src[static_cast<std::size_t>(i)] = me() * 1000000L + k * 10000L + i;
    EXPECT_EQ(ARMCI_NbPut(src.data(), a.of(right()), n * 8, right(), nullptr), 0);
    EXPECT_EQ(ARMCI_WaitAll(), 0);
    if (k % 2) ARMCI_Fence(right());
    else ARMCI_AllFence();
    int token = k, got = 0, len = -1;
    // Even ranks send first, odd ranks receive first: no cycle of senders.
    if (me() % 2 == 0) armci_msg_snd(77, &token, 4, right());
    armci_msg_rcv(77, &got, 4, &len, left());
    if (me() % 2 == 1) armci_msg_snd(77, &token, 4, right());
    EXPECT_EQ(got, k);
    EXPECT_EQ(len, 4);
    std::vector<long> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = left() * 1000000L + k * 10000L + i;
    EXPECT_TRUE(mp::same(a.mine(), want.data(), static_cast<std::size_t>(n), "data after Fence + message"))
        << "round " << k;
    ARMCI_Barrier();
  }
}

TEST_F(Rma, ZeroBytes) {
  mp::Shared<int> a(16);
  for (int i = 0; i < 16; ++i) a.mine()[i] = 100 + i;
  ARMCI_Barrier();
  int src[16], dst[16];
  for (int i = 0; i < 16; ++i) {
    src[i] = -1;
    dst[i] = -2;
  }
  int one = 1;
  const int t = right();
  EXPECT_EQ(ARMCI_Put(src, a.of(t), 0, t), 0);
  EXPECT_EQ(ARMCI_Get(a.of(t), dst, 0, t), 0);
  EXPECT_EQ(ARMCI_Acc(ARMCI_ACC_INT, &one, src, a.of(t), 0, t), 0);
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_NbPut(src, a.of(t), 0, t, &h), 0);
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_NbGet(a.of(t), dst, 0, t, &h), 0);
  EXPECT_EQ(ARMCI_Test(&h), 0);
  EXPECT_EQ(ARMCI_NbAcc(ARMCI_ACC_INT, &one, src, a.of(t), 0, t, nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  EXPECT_EQ(ARMCI_Put_flag(src, a.of(t), 0, a.of(t) + 15, 4242, t), 0);  // only the flag moves
  ARMCI_Barrier();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(dst[i], -2);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(a.mine()[i], 100 + i) << "element " << i;
  EXPECT_EQ(a.mine()[15], 4242) << "the flag of a zero-byte Put_flag";
}

TEST_F(Rma, Copy) {
  mp::Shared<unsigned char> a(5000);
  for (int n : {0, 1, 7, 4096, 5000}) {
    auto src = pattern(me(), n, static_cast<std::size_t>(n));
    std::memset(a.mine(), 0x5A, 5000);
    ARMCI_Copy(src.data(), a.mine(), n);  // local buffer into ARMCI memory
    std::vector<unsigned char> want(5000, 0x5A);
    std::copy(src.begin(), src.end(), want.begin());
    EXPECT_TRUE(mp::same(a.mine(), want.data(), 5000, "ARMCI_Copy")) << n << " bytes";
    std::vector<unsigned char> back(5001, 0x33);
    ARMCI_Copy(a.mine(), back.data(), n);  // and back out
    EXPECT_TRUE(mp::same(back.data(), src.data(), static_cast<std::size_t>(n), "ARMCI_Copy back"));
    EXPECT_EQ(back[static_cast<std::size_t>(n)], 0x33) << "ARMCI_Copy wrote past " << n << " bytes";
  }
}
