// Vector (I/O-vector) transfers: PutV/GetV/AccV and NbPutV/NbGetV/NbAccV
// with several descriptors of several pieces each, pieces placed in random
// order at both ends, checked against a model by the origin (contiguous Get
// of the target region) and by the target (its own memory).
#include <algorithm>
#include <cstring>

#include "mp_check.hpp"

using mp::left;
using mp::me;
using mp::nproc;
using mp::right;

namespace {

constexpr std::size_t kRegion = 128 * 1024;  // target region per process

struct VCase {
  std::vector<int> bytes;                      // per descriptor
  std::vector<std::vector<std::size_t>> loc;   // local offsets per descriptor
  std::vector<std::vector<std::size_t>> rem;   // remote offsets per descriptor
  std::size_t loc_span = 0, rem_span = 0;
  std::vector<unsigned char> src, bg;          // local source data, target background
};

// Places every piece at non-overlapping offsets, in a shuffled order.
std::size_t place(std::mt19937_64& g, const std::vector<int>& bytes,
                  std::vector<std::vector<std::size_t>>& off, int elem) {
  std::vector<std::pair<std::size_t, std::size_t>> all;  // (descriptor, piece)
  for (std::size_t d = 0; d < off.size(); ++d)
    for (std::size_t j = 0; j < off[d].size(); ++j) all.push_back({d, j});
  std::shuffle(all.begin(), all.end(), g);
  std::size_t cur = 0;
  for (auto [d, j] : all) {
    cur += static_cast<std::size_t>(elem) * (g() % 4);
    off[d][j] = cur;
    cur += static_cast<std::size_t>(bytes[d]);
  }
  return cur;
}

VCase make_vcase(int origin, int iter, int elem) {
  auto g = mp::rng(static_cast<uint64_t>(origin * 4099 + iter * 17 + elem));
  VCase c;
  const int nd = 1 + static_cast<int>(g() % 5);
  for (int d = 0; d < nd; ++d) {
    const int len = (g() % 6 == 0) ? 0 : 1 + static_cast<int>(g() % 12);  // sometimes no pieces
    c.bytes.push_back(elem * (1 + static_cast<int>(g() % (elem == 1 ? 700 : 90))));
    c.loc.emplace_back(static_cast<std::size_t>(len));
    c.rem.emplace_back(static_cast<std::size_t>(len));
  }
  c.loc_span = place(g, c.bytes, c.loc, elem);
  c.rem_span = place(g, c.bytes, c.rem, elem);
  c.src.resize(c.loc_span + 1);
  for (auto& b : c.src) b = static_cast<unsigned char>(g());
  c.bg.resize(c.rem_span + 1);
  for (auto& b : c.bg) b = static_cast<unsigned char>(g() | 0x80);
  return c;
}

// Descriptors with pointers into `local` and `remote`; src/dst per direction.
struct Giov {
  std::vector<std::vector<void*>> lp, rp;
  std::vector<armci_giov_t> d;
  Giov(const VCase& c, unsigned char* local, unsigned char* remote, bool get) {
    for (std::size_t i = 0; i < c.bytes.size(); ++i) {
      lp.emplace_back();
      rp.emplace_back();
      for (std::size_t j = 0; j < c.loc[i].size(); ++j) {
        lp.back().push_back(local + c.loc[i][j]);
        rp.back().push_back(remote + c.rem[i][j]);
      }
    }
    for (std::size_t i = 0; i < c.bytes.size(); ++i) {
      auto& l = lp[i];
      auto& r = rp[i];
      d.push_back({get ? r.data() : l.data(), get ? l.data() : r.data(), static_cast<int>(l.size()), c.bytes[i]});
    }
  }
};

std::vector<unsigned char> expected_put(const VCase& c) {
  std::vector<unsigned char> m = c.bg;
  for (std::size_t i = 0; i < c.bytes.size(); ++i)
    for (std::size_t j = 0; j < c.loc[i].size(); ++j)
      std::memcpy(&m[c.rem[i][j]], &c.src[c.loc[i][j]], static_cast<std::size_t>(c.bytes[i]));
  return m;
}

}  // namespace

class Vector : public mp::MpTest {};

TEST_F(Vector, PutVGetV) {
  mp::Shared<unsigned char> a(kRegion);
  for (int iter = 0; iter < 24; ++iter) {
    const int mode = iter % 3;  // blocking, explicit handle, implicit handle
    VCase c = make_vcase(me(), iter, 1);
    unsigned char* tgt = a.of(right());
    EXPECT_EQ(ARMCI_Put(c.bg.data(), tgt, static_cast<int>(c.bg.size()), right()), 0);
    Giov gv(c, c.src.data(), tgt, false);
    const int len = static_cast<int>(gv.d.size());
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) EXPECT_EQ(ARMCI_PutV(gv.d.data(), len, right()), 0);
    else EXPECT_EQ(ARMCI_NbPutV(gv.d.data(), len, right(), mode == 1 ? &h : nullptr), 0);
    if (mode == 1) { EXPECT_EQ(ARMCI_Wait(&h), 0); }
    if (mode == 2) { EXPECT_EQ(ARMCI_WaitProc(right()), 0); }
    const auto want = expected_put(c);
    std::vector<unsigned char> got(want.size());
    EXPECT_EQ(ARMCI_Get(tgt, got.data(), static_cast<int>(got.size()), right()), 0);
    EXPECT_TRUE(mp::same(got, want, "region after PutV")) << "iteration " << iter;
    // GetV the same remote pieces into a fresh local layout.
    VCase back = c;
    auto g = mp::rng(static_cast<uint64_t>(iter));
    back.loc_span = place(g, c.bytes, back.loc, 1);
    std::vector<unsigned char> local(back.loc_span + 1, 0x3C), lwant = local;
    for (std::size_t i = 0; i < c.bytes.size(); ++i)
      for (std::size_t j = 0; j < c.loc[i].size(); ++j)
        std::memcpy(&lwant[back.loc[i][j]], &want[c.rem[i][j]], static_cast<std::size_t>(c.bytes[i]));
    Giov gg(back, local.data(), tgt, true);
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) EXPECT_EQ(ARMCI_GetV(gg.d.data(), len, right()), 0);
    else EXPECT_EQ(ARMCI_NbGetV(gg.d.data(), len, right(), mode == 1 ? &h : nullptr), 0);
    if (mode == 1) { EXPECT_EQ(ARMCI_Wait(&h), 0); }
    if (mode == 2) { EXPECT_EQ(ARMCI_WaitAll(), 0); }
    EXPECT_TRUE(mp::same(local, lwant, "GetV")) << "iteration " << iter;
    ARMCI_Barrier();
    const VCase lc = make_vcase(left(), iter, 1);
    const auto lw = expected_put(lc);
    EXPECT_TRUE(mp::same(a.mine(), lw.data(), lw.size(), "region in the target's memory"))
        << "iteration " << iter << " from " << left();
    ARMCI_Barrier();
  }
}

// AccV of doubles (even iterations) or longs onto a background; one
// descriptor repeats a remote piece, so both of its contributions must land.
namespace {

struct AccCase {
  VCase c;
  bool dbl;
  std::vector<unsigned char> bg, src, want;
};

AccCase make_acc(int origin, int iter, double ds, long ls) {
  AccCase a;
  a.dbl = iter % 2 == 0;
  a.c = make_vcase(origin, iter, 8);
  VCase& c = a.c;
  const std::size_t ne = c.rem_span / 8;
  a.bg.resize(ne * 8);
  a.src.resize(c.loc_span);
  for (std::size_t i = 0; i < ne; ++i) {
    if (a.dbl) { double v = static_cast<double>(i % 77) - 20; std::memcpy(&a.bg[i * 8], &v, 8); }
    else { long v = (1L << 35) + static_cast<long>(i); std::memcpy(&a.bg[i * 8], &v, 8); }
  }
  for (std::size_t i = 0; i < c.loc_span / 8; ++i) {
    if (a.dbl) { double v = static_cast<double>((i + static_cast<std::size_t>(origin)) % 19) - 9; std::memcpy(&a.src[i * 8], &v, 8); }
    else { long v = static_cast<long>((i + static_cast<std::size_t>(origin)) % 23) - 11; std::memcpy(&a.src[i * 8], &v, 8); }
  }
  for (std::size_t i = 0; i < c.bytes.size(); ++i)
    if (!c.loc[i].empty()) {
      c.loc[i].push_back(c.loc[i][0]);
      c.rem[i].push_back(c.rem[i][0]);
      break;
    }
  a.want = a.bg;
  for (std::size_t i = 0; i < c.bytes.size(); ++i)
    for (std::size_t j = 0; j < c.loc[i].size(); ++j)
      for (std::size_t e = 0; e < static_cast<std::size_t>(c.bytes[i]) / 8; ++e) {
        const std::size_t so = c.loc[i][j] + 8 * e, d = c.rem[i][j] + 8 * e;
        if (a.dbl) {
          double x, y;
          std::memcpy(&x, &a.src[so], 8);
          std::memcpy(&y, &a.want[d], 8);
          y += ds * x;
          std::memcpy(&a.want[d], &y, 8);
        } else {
          long x, y;
          std::memcpy(&x, &a.src[so], 8);
          std::memcpy(&y, &a.want[d], 8);
          y += ls * x;
          std::memcpy(&a.want[d], &y, 8);
        }
      }
  return a;
}

}  // namespace

TEST_F(Vector, AccV) {
  mp::Shared<unsigned char> a(kRegion);
  double ds = 0.25;  // exact on these small integers
  long ls = -3;
  for (int iter = 0; iter < 12; ++iter) {
    const int mode = iter % 3;
    AccCase ac = make_acc(me(), iter, ds, ls);
    unsigned char* tgt = a.of(right());
    EXPECT_EQ(ARMCI_Put(ac.bg.data(), tgt, static_cast<int>(ac.bg.size()), right()), 0);
    Giov gv(ac.c, ac.src.data(), tgt, false);
    const int len = static_cast<int>(gv.d.size());
    const int op = ac.dbl ? ARMCI_ACC_DBL : ARMCI_ACC_LNG;
    void* scale = ac.dbl ? static_cast<void*>(&ds) : static_cast<void*>(&ls);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) EXPECT_EQ(ARMCI_AccV(op, scale, gv.d.data(), len, right()), 0);
    else EXPECT_EQ(ARMCI_NbAccV(op, scale, gv.d.data(), len, right(), mode == 1 ? &h : nullptr), 0);
    if (mode == 1) { EXPECT_EQ(ARMCI_Wait(&h), 0); }
    if (mode == 2) { EXPECT_EQ(ARMCI_WaitAll(), 0); }
    std::vector<unsigned char> got(ac.want.size());
    EXPECT_EQ(ARMCI_Get(tgt, got.data(), static_cast<int>(got.size()), right()), 0);
    EXPECT_TRUE(mp::same(got, ac.want, "region after AccV")) << "iteration " << iter << (ac.dbl ? " double" : " long");
    ARMCI_Barrier();
    const AccCase lc = make_acc(left(), iter, ds, ls);
    EXPECT_TRUE(mp::same(a.mine(), lc.want.data(), lc.want.size(), "AccV region in the target's memory"))
        << "iteration " << iter << " from " << left();
    ARMCI_Barrier();
  }
}

// Empty requests: no descriptors, descriptors without pieces or bytes.
TEST_F(Vector, Empty) {
  mp::Shared<int> a(4);
  for (int i = 0; i < 4; ++i) a.mine()[i] = 7 + i;
  ARMCI_Barrier();
  int x = -1;
  void* lp[1] = {&x};
  void* rp[1] = {a.of(right())};
  armci_giov_t d[2] = {{lp, rp, 0, 4}, {lp, rp, 1, 0}};
  int one = 1;
  EXPECT_EQ(ARMCI_PutV(d, 0, right()), 0);
  EXPECT_EQ(ARMCI_PutV(d, 2, right()), 0);
  EXPECT_EQ(ARMCI_AccV(ARMCI_ACC_INT, &one, d, 2, right()), 0);
  EXPECT_EQ(ARMCI_NbPutV(d, 2, right(), nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  armci_giov_t g[2] = {{rp, lp, 0, 4}, {rp, lp, 1, 0}};
  EXPECT_EQ(ARMCI_GetV(g, 2, right()), 0);
  EXPECT_EQ(x, -1);
  ARMCI_Barrier();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.mine()[i], 7 + i);
}

// Pieces that lie end to end on both sides (a GA merge's tiles) are joined
// into one transfer: to another node a put or get of them then goes as RMA
// from the caller's buffer, with no active message to pack or stage it.
// Two descriptors of different piece sizes continue each other, and the
// last piece breaks the run on the remote side only.
TEST_F(Vector, PiecesEndToEndJoin) {
  constexpr int kA = 64, kB = 48, kBytesA = 1024, kBytesB = 2048;
  constexpr std::size_t kGap = 512, kSpan = kA * kBytesA + kB * kBytesB;
  mp::Shared<double> a((kSpan + kGap + kBytesB) / sizeof(double));
  const int to = right();
  auto* tgt = reinterpret_cast<char*>(a.of(to));
  std::vector<double> src(a.size()), back(a.size(), -1.0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>((i * 7 + static_cast<std::size_t>(me())) % 101);
  auto* s = reinterpret_cast<char*>(src.data());
  std::vector<void*> la, ra, lb, rb;
  for (int i = 0; i < kA; ++i) {
    la.push_back(s + i * kBytesA);
    ra.push_back(tgt + i * kBytesA);
  }
  for (int i = 0; i < kB; ++i) {
    const std::size_t off = kA * kBytesA + static_cast<std::size_t>(i) * kBytesB + (i == kB - 1 ? kGap : 0);
    lb.push_back(s + kA * kBytesA + i * kBytesB);
    rb.push_back(tgt + off);
  }
  // Where each local byte of src lands in the target region.
  auto remote_of = [&](std::size_t l) { return l < kSpan - kBytesB ? l : l + kGap; };
  std::vector<double> zero(a.size(), 0.0);
  ASSERT_EQ(ARMCI_Put(zero.data(), tgt, static_cast<int>(a.size() * sizeof(double)), to), 0);
  const bool remote = !ARMCI_Same_node(to);
  const long am0 = ARMCI_Ofi_stat("active_messages"), ops0 = ARMCI_Ofi_stat("remote_ops");
  armci_giov_t put[2] = {{la.data(), ra.data(), kA, kBytesA}, {lb.data(), rb.data(), kB, kBytesB}};
  ASSERT_EQ(ARMCI_PutV(put, 2, to), 0);
  if (remote) {
    EXPECT_EQ(ARMCI_Ofi_stat("active_messages"), am0) << "the joined pieces went packed or staged";
    EXPECT_LE(ARMCI_Ofi_stat("remote_ops") - ops0, 4) << "one write per run expected, not one per piece";
  }
  std::vector<double> region(a.size());
  ASSERT_EQ(ARMCI_Get(tgt, region.data(), static_cast<int>(region.size() * sizeof(double)), to), 0);
  std::vector<double> want(a.size(), 0.0);
  for (std::size_t l = 0; l < kSpan; l += sizeof(double)) want[remote_of(l) / 8] = src[l / 8];
  EXPECT_TRUE(mp::same(region, want, "region after PutV of end-to-end pieces"));

  // GetV the same pieces back, then AccV them twice with scale 0.5.
  auto* b = reinterpret_cast<char*>(back.data());
  for (int i = 0; i < kA; ++i) la[static_cast<std::size_t>(i)] = b + i * kBytesA;
  for (int i = 0; i < kB; ++i) lb[static_cast<std::size_t>(i)] = b + kA * kBytesA + i * kBytesB;
  armci_giov_t get[2] = {{ra.data(), la.data(), kA, kBytesA}, {rb.data(), lb.data(), kB, kBytesB}};
  const long am1 = ARMCI_Ofi_stat("active_messages");
  ASSERT_EQ(ARMCI_GetV(get, 2, to), 0);
  if (remote) {
    EXPECT_EQ(ARMCI_Ofi_stat("active_messages"), am1) << "the joined pieces went packed or staged";
  }
  EXPECT_TRUE(mp::same(back.data(), src.data(), kSpan / sizeof(double), "GetV of end-to-end pieces"));
  armci_giov_t acc[2] = {{la.data(), ra.data(), kA, kBytesA}, {lb.data(), rb.data(), kB, kBytesB}};
  double half = 0.5;
  ASSERT_EQ(ARMCI_AccV(ARMCI_ACC_DBL, &half, acc, 2, to), 0);
  ASSERT_EQ(ARMCI_AccV(ARMCI_ACC_DBL, &half, acc, 2, to), 0);
  ASSERT_EQ(ARMCI_Get(tgt, region.data(), static_cast<int>(region.size() * sizeof(double)), to), 0);
  for (double& w : want) w *= 2;
  EXPECT_TRUE(mp::same(region, want, "region after AccV of end-to-end pieces"));
  ARMCI_Barrier();
}
