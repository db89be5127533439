// Strided transfers: random patches of 0..8 stride levels with random counts
// and strides that are not multiples of each other, for PutS/GetS/AccS and
// their Nb variants, every process against its right neighbour.  Expected
// contents come from a reference model that places every chunk at
// base + sum(idx_k * stride[k-1]) computed directly (not incrementally, as
// the library's walker does).  Both sides check: the origin reads the patch
// back with a contiguous Get, the target checks its own memory.
#include <algorithm>
#include <cstring>

#include "mp_check.hpp"

using mp::left;
using mp::me;
using mp::nproc;
using mp::right;

namespace {

constexpr std::size_t kBuf = 512 * 1024;  // ARMCI block per process
constexpr std::size_t kGuard = 24;        // bytes checked around each patch

struct Shape {
  int levels = 0;
  int count[ARMCI_MAX_STRIDE_LEVEL + 1] = {};
  int ss[ARMCI_MAX_STRIDE_LEVEL] = {};  // source strides
  int ds[ARMCI_MAX_STRIDE_LEVEL] = {};  // destination strides
  std::size_t chunks() const {
    std::size_t n = 1;
    for (int i = 1; i <= levels; ++i) n *= static_cast<std::size_t>(count[i]);
    return n;
  }
  std::size_t extent(const int* st) const {
    std::size_t e = static_cast<std::size_t>(count[0]);
    for (int i = 1; i <= levels; ++i) e += static_cast<std::size_t>(count[i] - 1) * static_cast<std::size_t>(st[i - 1]);
    return e;
  }
};

// Strides: each level's stride is the previous level's span plus a random
// gap of whole elements (sometimes 0, so contiguous levels occur too).
void random_strides(std::mt19937_64& g, const Shape& s, int elem, int* st) {
  long span = s.count[0];
  for (int i = 0; i < s.levels; ++i) {
    const long gap = g() % 4 == 0 ? 0 : elem * static_cast<long>(1 + g() % 5);
    st[i] = static_cast<int>(span + gap);
    span = static_cast<long>(st[i]) * s.count[i + 1];
  }
}

// A random shape of `levels` levels whose extents fit `room` bytes; count[0]
// and all strides are whole multiples of `elem`.
Shape random_shape(std::mt19937_64& g, int levels, int elem, std::size_t room) {
  for (;;) {
    Shape s;
    s.levels = levels;
    s.count[0] = elem * static_cast<int>(1 + g() % (levels <= 2 ? 40 : 6));
    const uint64_t cmax = levels <= 2 ? 12 : levels <= 5 ? 4 : 3;
    for (int i = 1; i <= levels; ++i) s.count[i] = static_cast<int>(1 + g() % cmax);
    random_strides(g, s, elem, s.ss);
    random_strides(g, s, elem, s.ds);
    if (s.extent(s.ss) <= room && s.extent(s.ds) <= room && s.chunks() <= 4000) return s;
  }
}

// f(src_offset, dst_offset) for each chunk, offsets by explicit sums.
template <typename F>
void each_chunk(const Shape& s, const int* src_st, const int* dst_st, F&& f) {
  const std::size_t n = s.chunks();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t rest = c, so = 0, d = 0;
    for (int l = 1; l <= s.levels; ++l) {
      const std::size_t idx = rest % static_cast<std::size_t>(s.count[l]);
      rest /= static_cast<std::size_t>(s.count[l]);
      so += idx * static_cast<std::size_t>(src_st[l - 1]);
      d += idx * static_cast<std::size_t>(dst_st[l - 1]);
    }
    f(so, d);
  }
}

// Everything one (origin, iteration) case needs, from a seed both the
// origin and the target can compute.
struct Case {
  Shape s;
  std::size_t dst_off;              // patch start in the target's block
  std::vector<unsigned char> src;   // source region (src extent)
  std::vector<unsigned char> bg;    // target background, patch + guards
};

Case make_case(int origin, int iter, int levels) {
  auto g = mp::rng(static_cast<uint64_t>(origin * 7919 + iter * 13 + levels));
  Case c;
  c.s = random_shape(g, levels, 1, kBuf / 2 - 2 * kGuard);
  c.dst_off = kGuard + g() % 61;  // odd offsets on purpose
  c.src.resize(c.s.extent(c.s.ss));
  for (auto& b : c.src) b = static_cast<unsigned char>(g());
  c.bg.resize(c.s.extent(c.s.ds) + 2 * kGuard);
  for (auto& b : c.bg) b = static_cast<unsigned char>(g() | 1);
  return c;
}

// The target region (with guards) after the strided put of `c`.
std::vector<unsigned char> expected_after_put(const Case& c) {
  std::vector<unsigned char> m = c.bg;
  each_chunk(c.s, c.s.ss, c.s.ds, [&](std::size_t so, std::size_t d) {
    std::memcpy(&m[kGuard + d], &c.src[so], static_cast<std::size_t>(c.s.count[0]));
  });
  return m;
}

void put_bg(const Case& c, unsigned char* block, int proc) {
  EXPECT_EQ(ARMCI_Put(const_cast<unsigned char*>(c.bg.data()), block + c.dst_off - kGuard,
                      static_cast<int>(c.bg.size()), proc),
            0);
}

}  // namespace

class Strided : public mp::MpTest {};

// PutS then GetS of the same patch, for 0..8 levels, blocking and both kinds
// of non-blocking; the target also checks the patch in its own memory.
TEST_F(Strided, PutSGetS) {
  mp::Shared<unsigned char> a(kBuf);
  std::memset(a.mine(), 0, kBuf);
  ARMCI_Barrier();
  for (int iter = 0; iter < 27; ++iter) {
    const int levels = iter % 9, mode = iter / 9;  // 0 blocking, 1 handle, 2 implicit
    Case c = make_case(me(), iter, levels);
    unsigned char* tgt = a.of(right());
    put_bg(c, tgt, right());
    ARMCI_Fence(right());
    Shape& s = c.s;
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) {
      EXPECT_EQ(ARMCI_PutS(c.src.data(), s.ss, tgt + c.dst_off, s.ds, s.count, levels, right()), 0);
    } else {
      EXPECT_EQ(ARMCI_NbPutS(c.src.data(), s.ss, tgt + c.dst_off, s.ds, s.count, levels, right(),
                             mode == 1 ? &h : nullptr),
                0);
      EXPECT_EQ(mode == 1 ? ARMCI_Wait(&h) : ARMCI_WaitProc(right()), 0);
    }
    const auto want = expected_after_put(c);
    std::vector<unsigned char> got(want.size());
    EXPECT_EQ(ARMCI_Get(tgt + c.dst_off - kGuard, got.data(), static_cast<int>(got.size()), right()), 0);
    EXPECT_TRUE(mp::same(got, want, "patch read back by the origin")) << "iteration " << iter << " levels " << levels;
    // GetS of the patch into a local layout with yet other strides.
    auto g = mp::rng(static_cast<uint64_t>(iter + 500));
    int ls[ARMCI_MAX_STRIDE_LEVEL];
    random_strides(g, s, 1, ls);
    std::vector<unsigned char> local(s.extent(ls) + kGuard, 0xA5), lwant = local;
    each_chunk(s, s.ds, ls, [&](std::size_t so, std::size_t d) {
      std::memcpy(&lwant[d], &want[kGuard + so], static_cast<std::size_t>(s.count[0]));
    });
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) {
      EXPECT_EQ(ARMCI_GetS(tgt + c.dst_off, s.ds, local.data(), ls, s.count, levels, right()), 0);
    } else {
      EXPECT_EQ(ARMCI_NbGetS(tgt + c.dst_off, s.ds, local.data(), ls, s.count, levels, right(),
                             mode == 1 ? &h : nullptr),
                0);
      EXPECT_EQ(mode == 1 ? ARMCI_Wait(&h) : ARMCI_WaitAll(), 0);
    }
    EXPECT_TRUE(mp::same(local, lwant, "GetS")) << "iteration " << iter << " levels " << levels;
    ARMCI_Barrier();
    // My left neighbour's case, checked in my own memory.
    Case lc = make_case(left(), iter, levels);
    const auto lw = expected_after_put(lc);
    EXPECT_TRUE(mp::same(a.mine() + lc.dst_off - kGuard, lw.data(), lw.size(), "patch in the target's memory"))
        << "iteration " << iter << " levels " << levels << " from " << left();
    ARMCI_Barrier();
  }
}

// AccS/NbAccS of doubles and ints over random patches onto a known background.
TEST_F(Strided, AccS) {
  mp::Shared<double> a(kBuf / 8);
  ARMCI_Barrier();
  for (int iter = 0; iter < 18; ++iter) {
    const int levels = iter % 9, mode = iter % 3;
    const bool dbl = iter < 9;
    const int es = dbl ? 8 : 4;
    auto g = mp::rng(static_cast<uint64_t>(me() * 31 + iter));
    Shape s = random_shape(g, levels, es, kBuf / 2);
    const std::size_t sext = s.extent(s.ss), dext = s.extent(s.ds), ne = dext / static_cast<std::size_t>(es);
    // Background and source values are small integers: exact in double.
    std::vector<unsigned char> bg(dext), src(sext), want;
    for (std::size_t i = 0; i < ne; ++i) {
      if (dbl) { double v = static_cast<double>(i % 1000) - 300; std::memcpy(&bg[i * 8], &v, 8); }
      else { int v = static_cast<int>(i % 1000) - 300; std::memcpy(&bg[i * 4], &v, 4); }
    }
    for (std::size_t i = 0; i < sext / static_cast<std::size_t>(es); ++i) {
      if (dbl) { double v = static_cast<double>(g() % 64) - 32; std::memcpy(&src[i * 8], &v, 8); }
      else { int v = static_cast<int>(g() % 64) - 32; std::memcpy(&src[i * 4], &v, 4); }
    }
    want = bg;
    double dscale = -1.5;  // exact: source values are integers
    int iscale = 3;
    each_chunk(s, s.ss, s.ds, [&](std::size_t so, std::size_t d) {
      for (int e = 0; e < s.count[0] / es; ++e) {
        const std::size_t si = so + static_cast<std::size_t>(e * es), di = d + static_cast<std::size_t>(e * es);
        if (dbl) {
          double x, y;
          std::memcpy(&x, &src[si], 8);
          std::memcpy(&y, &want[di], 8);
          y += dscale * x;
          std::memcpy(&want[di], &y, 8);
        } else {
          int x, y;
          std::memcpy(&x, &src[si], 4);
          std::memcpy(&y, &want[di], 4);
          y += iscale * x;
          std::memcpy(&want[di], &y, 4);
        }
      }
    });
    unsigned char* tgt = reinterpret_cast<unsigned char*>(a.of(right())) + 64;
    EXPECT_EQ(ARMCI_Put(bg.data(), tgt, static_cast<int>(dext), right()), 0);
    const int op = dbl ? ARMCI_ACC_DBL : ARMCI_ACC_INT;
    void* scale = dbl ? static_cast<void*>(&dscale) : static_cast<void*>(&iscale);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (mode == 0) {
      EXPECT_EQ(ARMCI_AccS(op, scale, src.data(), s.ss, tgt, s.ds, s.count, levels, right()), 0);
    } else {
      EXPECT_EQ(ARMCI_NbAccS(op, scale, src.data(), s.ss, tgt, s.ds, s.count, levels, right(),
                             mode == 1 ? &h : nullptr),
                0);
      EXPECT_EQ(mode == 1 ? ARMCI_Wait(&h) : ARMCI_WaitAll(), 0);
    }
    std::vector<unsigned char> got(dext);
    EXPECT_EQ(ARMCI_Get(tgt, got.data(), static_cast<int>(dext), right()), 0);
    EXPECT_TRUE(mp::same(got, want, "AccS result")) << "iteration " << iter << " levels " << levels
                                                   << (dbl ? " double" : " int");
    ARMCI_Barrier();
  }
}

// The target waits for PutS_flag's flag, then the whole patch must be there.
TEST_F(Strided, PutSFlag) {
  mp::Shared<unsigned char> a(kBuf);
  mp::Shared<int> flag(1);
  *flag.mine() = 0;
  for (int iter = 0; iter < 12; ++iter) {
    const int levels = 1 + iter % 8;
    Case mine = make_case(left(), 100 + iter, levels);  // what my left neighbour sends me
    std::memcpy(a.mine() + mine.dst_off - kGuard, mine.bg.data(), mine.bg.size());
    ARMCI_Barrier();
    Case c = make_case(me(), 100 + iter, levels);
    auto* put_flag = iter % 2 ? ARMCI_PutS_flag_dir : ARMCI_PutS_flag;
    EXPECT_EQ(put_flag(c.src.data(), c.s.ss, a.of(right()) + c.dst_off, c.s.ds, c.s.count, levels,
                       flag.of(right()), iter + 1, right()),
              0);
    const bool arrived = mp::wait_until([&] { return mp::load_acquire(flag.mine()) == iter + 1; });
    EXPECT_TRUE(arrived) << "flag " << iter + 1 << " never arrived";
    if (arrived) {
      const auto want = expected_after_put(mine);
      EXPECT_TRUE(mp::same(a.mine() + mine.dst_off - kGuard, want.data(), want.size(), "patch when the flag arrived"))
          << "iteration " << iter << " levels " << levels;
    }
    ARMCI_Barrier();
  }
}

// Local gather/scatter: packed order is count[0] bytes, then level 1, ...
TEST_F(Strided, ReadWriteStrided) {
  mp::Shared<unsigned char> a(kBuf);
  std::vector<unsigned char> plain(kBuf);
  for (int iter = 0; iter < 18; ++iter) {
    const int levels = iter % 9;
    auto g = mp::rng(static_cast<uint64_t>(me() * 101 + iter));
    Shape s = random_shape(g, levels, 1, kBuf);
    unsigned char* region = iter % 2 ? a.mine() : plain.data();  // ARMCI memory or not
    const std::size_t ext = s.extent(s.ds);
    for (std::size_t i = 0; i < ext; ++i) region[i] = static_cast<unsigned char>(g());
    const std::size_t packed = s.chunks() * static_cast<std::size_t>(s.count[0]);
    std::vector<unsigned char> buf(packed + 1, 0x77), bwant(packed + 1, 0x77);
    std::size_t k = 0;
    each_chunk(s, s.ds, s.ds, [&](std::size_t, std::size_t d) {
      std::memcpy(&bwant[k], region + d, static_cast<std::size_t>(s.count[0]));
      k += static_cast<std::size_t>(s.count[0]);
    });
    armci_read_strided(region, levels, s.ds, s.count, reinterpret_cast<char*>(buf.data()));
    EXPECT_TRUE(mp::same(buf, bwant, "armci_read_strided")) << "levels " << levels;
    for (auto& b : buf) b = static_cast<unsigned char>(g());
    std::vector<unsigned char> rwant(region, region + ext);
    k = 0;
    each_chunk(s, s.ds, s.ds, [&](std::size_t, std::size_t d) {
      std::memcpy(&rwant[d], &buf[k], static_cast<std::size_t>(s.count[0]));
      k += static_cast<std::size_t>(s.count[0]);
    });
    armci_write_strided(region, levels, s.ds, s.count, reinterpret_cast<char*>(buf.data()));
    EXPECT_TRUE(mp::same(region, rwant.data(), ext, "armci_write_strided")) << "levels " << levels;
  }
}

// stride_levels 0 with NULL stride arrays is a contiguous transfer; a zero
// count at any level moves nothing.
TEST_F(Strided, LevelZeroAndEmpty) {
  const int n = 1000;
  mp::Shared<int> a(2 * n);
  for (int i = 0; i < 2 * n; ++i) a.mine()[i] = -i;
  ARMCI_Barrier();
  std::vector<int> src(n), back(n, 0);
  for (int i = 0; i < n; ++i) src[static_cast<std::size_t>(i)] = me() * 10000 + i;
  int cnt[1] = {n * 4};
  int* tgt = a.of(right());
  EXPECT_EQ(ARMCI_PutS(src.data(), nullptr, tgt, nullptr, cnt, 0, right()), 0);
  EXPECT_EQ(ARMCI_GetS(tgt, nullptr, back.data(), nullptr, cnt, 0, right()), 0);
  EXPECT_TRUE(mp::same(back, src, "level-0 PutS/GetS"));
  int two = 2;
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_INT, &two, src.data(), nullptr, tgt, nullptr, cnt, 0, right()), 0);
  EXPECT_EQ(ARMCI_NbAccS(ARMCI_ACC_INT, &two, src.data(), nullptr, tgt, nullptr, cnt, 0, right(), &h), 0);
  EXPECT_EQ(ARMCI_Wait(&h), 0);
  EXPECT_EQ(ARMCI_NbPutS(src.data(), nullptr, tgt + n, nullptr, cnt, 0, right(), nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  std::fill(back.begin(), back.end(), 0);
  EXPECT_EQ(ARMCI_NbGetS(tgt, nullptr, back.data(), nullptr, cnt, 0, right(), nullptr), 0);
  EXPECT_EQ(ARMCI_WaitAll(), 0);
  std::vector<int> w5(n);
  for (int i = 0; i < n; ++i) w5[static_cast<std::size_t>(i)] = 5 * src[static_cast<std::size_t>(i)];
  EXPECT_TRUE(mp::same(back, w5, "level-0 put + 2 accs of scale 2"));
  // Zero blocks at level 2 (or zero bytes): nothing moves.
  std::vector<int> junk(64, 12345);
  int ss[2] = {16, 40}, ds[2] = {20, 44};
  int c1[3] = {8, 2, 0}, c2[3] = {0, 2, 2};
  EXPECT_EQ(ARMCI_PutS(junk.data(), ss, tgt + n, ds, c1, 2, right()), 0);
  EXPECT_EQ(ARMCI_PutS(junk.data(), ss, tgt + n, ds, c2, 2, right()), 0);
  EXPECT_EQ(ARMCI_AccS(ARMCI_ACC_INT, &two, junk.data(), ss, tgt + n, ds, c1, 2, right()), 0);
  EXPECT_EQ(ARMCI_GetS(tgt + n, ds, junk.data(), ss, c1, 2, right()), 0);
  EXPECT_EQ(junk[0], 12345);
  ARMCI_Barrier();
  std::vector<int> want(2 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    want[static_cast<std::size_t>(i)] = 5 * (left() * 10000 + i);
    want[static_cast<std::size_t>(n + i)] = left() * 10000 + i;
  }
  EXPECT_TRUE(mp::same(a.mine(), want.data(), want.size(), "my block"));
}
