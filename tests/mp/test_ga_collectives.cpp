// Collective array operations with checked data: zero/fill/scale, add,
// copy and copy_patch (shifted, transposed, reshaped, between distributions),
// dot products, dgemm against a serial product, symmetrize, transpose,
// gop/broadcast and masked syncs.
#include <cmath>

#include "ga_test.hpp"

using gat::GA;
using mp::me;
using mp::nproc;

class GaColl : public gat::GaTest {};

namespace {

std::vector<double> get_all(int g, int rows, int cols) {
  std::vector<double> v(static_cast<std::size_t>(rows) * cols);
  int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
  NGA_Get(g, lo, hi, v.data(), ld);
  return v;
}

void put_all(int g, int rows, int cols, const std::vector<double>& v) {
  if (me() == 0) {
    int lo[2] = {0, 0}, hi[2] = {rows - 1, cols - 1}, ld[1] = {cols};
    NGA_Put(g, lo, hi, const_cast<double*>(v.data()), ld);
  }
  GA_Sync();
}

std::vector<double> matrix(int rows, int cols, int salt) {
  std::vector<double> v(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      v[static_cast<std::size_t>(i * cols + j)] = std::sin(0.37 * i + 0.11 * j + salt) + 0.01 * salt;
  return v;
}

int irregular_2d(int type, int rows, int cols, const char* name) {
  const int b0 = std::min(nproc(), 3);
  std::vector<int> map;
  for (int i = 0; i < b0; ++i) map.push_back(i * rows / b0);
  map.push_back(0);
  int dims[2] = {rows, cols}, block[2] = {b0, 1};
  return NGA_Create_irreg(type, 2, dims, const_cast<char*>(name), block, map.data());
}

}  // namespace

TEST_F(GaColl, ZeroFillScaleTypes) {
  int dims[3] = {6, 5, 7};
  auto check = [&](int type, auto zero) {
    using T = decltype(zero);
    GA g(NGA_Create(type, 3, dims, gat::op("zfs"), nullptr));
    T v = gat::pattern<T>(5), s = T(3);
    GA_Fill(g, &v);
    GA_Scale(g, &s);
    std::vector<T> all(6 * 5 * 7);
    int lo[3] = {0, 0, 0}, hi[3] = {5, 4, 6}, ld[2] = {5, 7};
    NGA_Get(g, lo, hi, all.data(), ld);
    long bad = 0;
    for (const T& x : all) bad += x != v * s;
    EXPECT_EQ(bad, 0) << "fill+scale, type " << type;
    GA_Zero(g);
    NGA_Get(g, lo, hi, all.data(), ld);
    bad = 0;
    for (const T& x : all) bad += x != T(0);
    EXPECT_EQ(bad, 0) << "zero, type " << type;
  };
  // C_DBL and C_LONGLONG are filled, scaled and zeroed by the other tests.
  check(C_INT, int{});
  check(C_LONG, long{});
  check(C_FLOAT, float{});
  check(C_SCPL, std::complex<float>{});
  check(C_DCPL, std::complex<double>{});
}

TEST_F(GaColl, AddAcrossDistributions) {
  const int rows = 45, cols = 38;
  int dims[2] = {rows, cols}, chunk[2] = {rows, -1};
  GA a(NGA_Create(C_DBL, 2, dims, gat::op("a"), nullptr));
  GA b(irregular_2d(C_DBL, rows, cols, "b"));
  GA c(NGA_Create(C_DBL, 2, dims, gat::op("c"), chunk));
  const auto va = matrix(rows, cols, 1), vb = matrix(rows, cols, 2);
  put_all(a, rows, cols, va);
  put_all(b, rows, cols, vb);
  double al = 2.0, be = -0.5;
  GA_Add(&al, a, &be, b, c);
  const auto vc = get_all(c, rows, cols);
  long bad = 0;
  for (std::size_t i = 0; i < vc.size(); ++i) bad += std::fabs(vc[i] - (2 * va[i] - 0.5 * vb[i])) > 1e-12;
  EXPECT_EQ(bad, 0);
  // In place: c = c + c.
  double one = 1.0;
  GA_Add(&one, c, &one, c, c);
  const auto v2 = get_all(c, rows, cols);
  bad = 0;
  for (std::size_t i = 0; i < v2.size(); ++i) bad += v2[i] != 2 * vc[i];
  EXPECT_EQ(bad, 0);
}

TEST_F(GaColl, CopyAndCopyPatch) {
  const int rows = 30, cols = 21;
  int dims[2] = {rows, cols};
  GA a(NGA_Create(C_DBL, 2, dims, gat::op("a"), nullptr));
  GA b(irregular_2d(C_DBL, rows, cols, "b"));
  const auto va = matrix(rows, cols, 3);
  put_all(a, rows, cols, va);
  GA_Copy(a, b);
  EXPECT_TRUE(mp::same(get_all(b, rows, cols), va, "GA_Copy"));
  // Shifted patch: b[2..11][3..9] = a[10..19][0..6].
  GA_Zero(b);
  int alo[2] = {10, 0}, ahi[2] = {19, 6}, blo[2] = {2, 3}, bhi[2] = {11, 9};
  NGA_Copy_patch('N', a, alo, ahi, b, blo, bhi);
  auto vb = get_all(b, rows, cols);
  long bad = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const bool in = i >= 2 && i <= 11 && j >= 3 && j <= 9;
      const double want = in ? va[static_cast<std::size_t>((i + 8) * cols + (j - 3))] : 0.0;
      bad += vb[static_cast<std::size_t>(i * cols + j)] != want;
    }
  EXPECT_EQ(bad, 0) << "shifted copy_patch";
  // Transposed: t[j][i] = a[i][j] for the patch a[0..9][0..19].
  int tdims[2] = {cols, rows};
  GA t(NGA_Create(C_DBL, 2, tdims, gat::op("t"), nullptr));
  GA_Zero(t);
  int plo[2] = {0, 0}, phi[2] = {9, 19}, tlo[2] = {1, 5}, thi[2] = {20, 14};
  NGA_Copy_patch('T', a, plo, phi, t, tlo, thi);
  auto vt = get_all(t, cols, rows);
  bad = 0;
  for (int i = 0; i <= 9; ++i)
    for (int j = 0; j <= 19; ++j)
      bad += vt[static_cast<std::size_t>((1 + j) * rows + (5 + i))] !=
             va[static_cast<std::size_t>(i * cols + j)];
  EXPECT_EQ(bad, 0) << "transposed copy_patch";
  // Reshape: the first 7 rows of a (7*21 elements) into a 1-d array.
  int ldims[1] = {200};
  GA l(NGA_Create(C_DBL, 1, ldims, gat::op("l"), nullptr));
  GA_Zero(l);
  int rlo[2] = {0, 0}, rhi[2] = {6, cols - 1}, llo[1] = {10}, lhi[1] = {10 + 7 * cols - 1};
  NGA_Copy_patch('N', a, rlo, rhi, l, llo, lhi);
  std::vector<double> vl(200);
  int l0[1] = {0}, l1[1] = {199};
  NGA_Get(l, l0, l1, vl.data(), nullptr);
  bad = 0;
  for (int k = 0; k < 200; ++k) {
    const bool in = k >= 10 && k < 10 + 7 * cols;
    bad += vl[static_cast<std::size_t>(k)] != (in ? va[static_cast<std::size_t>(k - 10)] : 0.0);
  }
  EXPECT_EQ(bad, 0) << "reshaping copy_patch";
  // And back, from 1-d into a 2-d patch (7 x 21).
  GA_Zero(b);
  int b2lo[2] = {0, 0}, b2hi[2] = {6, 20};
  NGA_Copy_patch('N', l, llo, lhi, b, b2lo, b2hi);
  vb = get_all(b, rows, cols);
  bad = 0;
  for (int k = 0; k < 7 * cols; ++k)
    bad += vb[static_cast<std::size_t>(k)] != va[static_cast<std::size_t>(k)];
  EXPECT_EQ(bad, 0) << "1-d to 2-d copy_patch";
}

TEST_F(GaColl, DotProducts) {
  const int rows = 33, cols = 17;
  int dims[2] = {rows, cols};
  GA a(NGA_Create(C_DBL, 2, dims, gat::op("a"), nullptr));
  GA b(irregular_2d(C_DBL, rows, cols, "b"));
  const auto va = matrix(rows, cols, 4), vb = matrix(rows, cols, 5);
  put_all(a, rows, cols, va);
  put_all(b, rows, cols, vb);
  double want = 0;
  for (std::size_t i = 0; i < va.size(); ++i) want += va[i] * vb[i];
  EXPECT_NEAR(GA_Ddot(a, b), want, 1e-9);
  // Patches: a[2..11][0..4] . b[5..14][3..7], and a transposed pairing.
  int alo[2] = {2, 0}, ahi[2] = {11, 4}, blo[2] = {5, 3}, bhi[2] = {14, 7};
  want = 0;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 5; ++j)
      want += va[static_cast<std::size_t>((2 + i) * cols + j)] *
              vb[static_cast<std::size_t>((5 + i) * cols + 3 + j)];
  EXPECT_NEAR(NGA_Ddot_patch(a, 'N', alo, ahi, b, 'N', blo, bhi), want, 1e-9);
  int tlo[2] = {0, 0}, thi[2] = {4, 9};  // 5 x 10, paired transposed with a's 10 x 5
  want = 0;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 5; ++j)
      want += va[static_cast<std::size_t>((2 + i) * cols + j)] * vb[static_cast<std::size_t>(j * cols + i)];
  EXPECT_NEAR(NGA_Ddot_patch(a, 'N', alo, ahi, b, 'T', tlo, thi), want, 1e-9);
}

TEST_F(GaColl, DgemmAllTransposesVsSerial) {
  const int m = 37, n = 29, k = 300;  // k spans two panels
  int adims[2] = {m, k}, atdims[2] = {k, m}, bdims[2] = {k, n}, btdims[2] = {n, k};
  GA a(NGA_Create(C_DBL, 2, adims, gat::op("A"), nullptr));
  GA at(NGA_Create(C_DBL, 2, atdims, gat::op("At"), nullptr));
  GA b(NGA_Create(C_DBL, 2, bdims, gat::op("B"), nullptr));
  GA bt(NGA_Create(C_DBL, 2, btdims, gat::op("Bt"), nullptr));
  GA c(irregular_2d(C_DBL, m, n, "C"));
  const auto va = matrix(m, k, 6), vb = matrix(k, n, 7), vc = matrix(m, n, 8);
  // At and Bt hold the transposes, so every variant computes the same product.
  std::vector<double> vat(va.size()), vbt(vb.size());
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l)
      vat[static_cast<std::size_t>(l * m + i)] = va[static_cast<std::size_t>(i * k + l)];
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j)
      vbt[static_cast<std::size_t>(j * k + l)] = vb[static_cast<std::size_t>(l * n + j)];
  if (me() == 0) {
    int lo[2] = {0, 0}, ahi[2] = {m - 1, k - 1}, athi[2] = {k - 1, m - 1}, bhi[2] = {k - 1, n - 1},
        bthi[2] = {n - 1, k - 1};
    int lda[1] = {k}, ldat[1] = {m}, ldb[1] = {n}, ldbt[1] = {k};
    NGA_Put(a, lo, ahi, const_cast<double*>(va.data()), lda);
    NGA_Put(at, lo, athi, vat.data(), ldat);
    NGA_Put(b, lo, bhi, const_cast<double*>(vb.data()), ldb);
    NGA_Put(bt, lo, bthi, vbt.data(), ldbt);
  }
  std::vector<double> want(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += va[static_cast<std::size_t>(i * k + l)] * vb[static_cast<std::size_t>(l * n + j)];
      want[static_cast<std::size_t>(i * n + j)] = 0.75 * s - 2.0 * vc[static_cast<std::size_t>(i * n + j)];
    }
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      put_all(c, m, n, vc);
      GA_Dgemm(ta, tb, m, n, k, 0.75, ta == 'N' ? a : at, tb == 'N' ? b : bt, -2.0, c);
      const auto got = get_all(c, m, n);
      double err = 0;
      for (std::size_t i = 0; i < got.size(); ++i) err = std::max(err, std::fabs(got[i] - want[i]));
      EXPECT_LT(err, 1e-10) << "ta=" << ta << " tb=" << tb;
      GA_Sync();
    }
}

TEST_F(GaColl, SymmetrizeAndTranspose) {
  const int n = 23;
  int dims[2] = {n, n};
  GA a(NGA_Create(C_DBL, 2, dims, gat::op("s"), nullptr));
  const auto va = matrix(n, n, 9);
  put_all(a, n, n, va);
  GA_Symmetrize(a);
  auto vs = get_all(a, n, n);
  long bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      bad += std::fabs(vs[static_cast<std::size_t>(i * n + j)] -
                       0.5 * (va[static_cast<std::size_t>(i * n + j)] +
                              va[static_cast<std::size_t>(j * n + i)])) > 1e-15;
  EXPECT_EQ(bad, 0) << "symmetrize";
  int rdims[2] = {19, 11}, tdims[2] = {11, 19};
  GA r(NGA_Create(C_DBL, 2, rdims, gat::op("r"), nullptr));
  GA t(irregular_2d(C_DBL, 11, 19, "t"));
  const auto vr = matrix(19, 11, 10);
  put_all(r, 19, 11, vr);
  GA_Transpose(r, t);
  const auto vt = get_all(t, 11, 19);
  bad = 0;
  for (int i = 0; i < 19; ++i)
    for (int j = 0; j < 11; ++j)
      bad += vt[static_cast<std::size_t>(j * 19 + i)] != vr[static_cast<std::size_t>(i * 11 + j)];
  EXPECT_EQ(bad, 0) << "transpose";
  (void)tdims;
}

TEST_F(GaColl, GopBrdcstMaskSync) {
  double d[2] = {1.0 * me(), 2.0};
  GA_Dgop(d, 2, gat::op("+"));
  EXPECT_EQ(d[0], nproc() * (nproc() - 1) / 2.0);
  EXPECT_EQ(d[1], 2.0 * nproc());
  int i = me();
  GA_Igop(&i, 1, gat::op("max"));
  EXPECT_EQ(i, nproc() - 1);
  long l = me() + 5;
  GA_Lgop(&l, 1, gat::op("min"));
  EXPECT_EQ(l, 5);
  char msg[64] = {};
  const int root = nproc() - 1;
  if (me() == root) std::snprintf(msg, sizeof msg, "hello from %d", root);
  GA_Brdcst(msg, sizeof msg, root);
  EXPECT_EQ(std::string(msg), "hello from " + std::to_string(root));
  // A masked sync skips the barriers of the next collective only.
  int dims[1] = {50};
  GA g(NGA_Create(C_INT, 1, dims, gat::op("m"), nullptr));
  GA_Sync();
  GA_Mask_sync(0, 0);
  GA_Zero(g);
  GA_Sync();
  int v = 4;
  GA_Fill(g, &v);
  std::vector<int> all(50);
  int lo[1] = {0}, hi[1] = {49};
  NGA_Get(g, lo, hi, all.data(), nullptr);
  long bad = 0;
  for (int x : all) bad += x != 4;
  EXPECT_EQ(bad, 0);
}
