// One-sided GA access: patches spanning many owners, ld padding, strided
// patches, non-blocking calls with wait/test, read-and-increment,
// gather/scatter/scatter-accumulate, and that on-node patches cost no
// network bytes.
#include <algorithm>
#include <numeric>
#include <set>

#include "ga_test.hpp"

using gat::GA;
using mp::me;
using mp::nproc;

class GaRma : public gat::GaTest {};

namespace {
constexpr int R = 40, C = 33;
double val(int i, int j) { return i * 100.0 + j; }
}  // namespace

// Rank r writes rows r, r+P, ...: patches that cross block boundaries.
TEST_F(GaRma, PutRowsGetAll) {
  int dims[2] = {R, C};
  GA g(NGA_Create(C_DBL, 2, dims, gat::op("rows"), nullptr));
  for (int i = me(); i < R; i += nproc()) {
    std::vector<double> row(C);
    for (int j = 0; j < C; ++j) row[static_cast<std::size_t>(j)] = val(i, j);
    int lo[2] = {i, 0}, hi[2] = {i, C - 1}, ld[1] = {C};
    NGA_Put(g, lo, hi, row.data(), ld);
  }
  GA_Sync();
  std::vector<double> all(R * C);
  int lo[2] = {0, 0}, hi[2] = {R - 1, C - 1}, ld[1] = {C};
  NGA_Get(g, lo, hi, all.data(), ld);
  long bad = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) bad += all[static_cast<std::size_t>(i * C + j)] != val(i, j);
  EXPECT_EQ(bad, 0);
  // A patch in the middle into a padded buffer (ld > patch width).
  int plo[2] = {3, 5}, phi[2] = {R - 4, C - 2}, pld[1] = {50};
  std::vector<double> pad(static_cast<std::size_t>((R - 6) * 50), -1.0);
  NGA_Get(g, plo, phi, pad.data(), pld);
  bad = 0;
  for (int i = plo[0]; i <= phi[0]; ++i)
    for (int j = 0; j < 50; ++j) {
      const double got = pad[static_cast<std::size_t>((i - plo[0]) * 50 + j)];
      bad += j <= phi[1] - plo[1] ? got != val(i, j + plo[1]) : got != -1.0;
    }
  EXPECT_EQ(bad, 0) << "padded get";
}

TEST_F(GaRma, AccumulatePaddedAllTypes) {
  int dims[2] = {R, C};
  GA gi(NGA_Create(C_INT, 2, dims, gat::op("i"), nullptr));
  GA gz(NGA_Create(C_DCPL, 2, dims, gat::op("z"), nullptr));
  int lo[2] = {1, 2}, hi[2] = {R - 2, C - 1}, ld[1] = {C + 3};
  std::vector<int> bi(static_cast<std::size_t>(R * (C + 3)), 3);
  std::vector<std::complex<double>> bz(bi.size(), {1.0, -1.0});
  int ai = 2;
  std::complex<double> az(0.0, 1.0);  // (1-i)*i = 1+i
  NGA_Acc(gi, lo, hi, bi.data(), ld, &ai);
  NGA_Acc(gz, lo, hi, bz.data(), ld, &az);
  GA_Sync();
  std::vector<int> ri(R * C);
  std::vector<std::complex<double>> rz(R * C);
  int alo[2] = {0, 0}, ahi[2] = {R - 1, C - 1}, ald[1] = {C};
  NGA_Get(gi, alo, ahi, ri.data(), ald);
  NGA_Get(gz, alo, ahi, rz.data(), ald);
  long bad = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const bool in = i >= 1 && i <= R - 2 && j >= 2;
      bad += ri[static_cast<std::size_t>(i * C + j)] != (in ? 6 * nproc() : 0);
      bad += rz[static_cast<std::size_t>(i * C + j)] != (in ? std::complex<double>(nproc(), nproc()) : 0.0);
    }
  EXPECT_EQ(bad, 0);
}

TEST_F(GaRma, StridedPutGetAcc) {
  int dims[2] = {R, C};
  GA g(NGA_Create(C_LONG, 2, dims, gat::op("s"), nullptr));
  GA_Zero(g);
  int lo[2] = {1, 0}, hi[2] = {R - 1, C - 1}, skip[2] = {3, 4};
  const int n0 = (R - 2) / 3 + 1, n1 = (C - 1) / 4 + 1;
  int ld[1] = {n1};
  std::vector<long> buf(static_cast<std::size_t>(n0 * n1));
  for (int a = 0; a < n0; ++a)
    for (int b = 0; b < n1; ++b) buf[static_cast<std::size_t>(a * n1 + b)] = (1 + 3L * a) * 1000 + 4L * b;
  if (me() == 0) NGA_Strided_put(g, lo, hi, skip, buf.data(), ld);
  GA_Sync();
  std::vector<long> all(R * C);
  int alo[2] = {0, 0}, ahi[2] = {R - 1, C - 1}, ald[1] = {C};
  NGA_Get(g, alo, ahi, all.data(), ald);
  long bad = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      const bool sel = i >= 1 && (i - 1) % 3 == 0 && j % 4 == 0;
      bad += all[static_cast<std::size_t>(i * C + j)] != (sel ? i * 1000L + j : 0);
    }
  EXPECT_EQ(bad, 0) << "strided put";
  std::vector<long> back(buf.size(), -1);
  NGA_Strided_get(g, lo, hi, skip, back.data(), ld);
  EXPECT_TRUE(mp::same(back, buf, "strided get"));
  GA_Sync();
  long one = 1;
  NGA_Strided_acc(g, lo, hi, skip, buf.data(), ld, &one);
  GA_Sync();
  NGA_Strided_get(g, lo, hi, skip, back.data(), ld);
  std::vector<long> want(buf);
  for (long& x : want) x *= 1 + nproc();
  EXPECT_TRUE(mp::same(back, want, "strided acc"));
}

TEST_F(GaRma, NonBlocking) {
  int dims[1] = {1000};
  GA g(NGA_Create(C_DBL, 1, dims, gat::op("nb"), nullptr));
  GA_Zero(g);
  // Each rank fills a strip with NbPut; then NbGet and NbAcc of all of it.
  const int per = 1000 / nproc();
  int lo[1] = {me() * per}, hi[1] = {me() == nproc() - 1 ? 999 : (me() + 1) * per - 1};
  std::vector<double> mine(static_cast<std::size_t>(hi[0] - lo[0] + 1));
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = lo[0] + static_cast<double>(i);
  ga_nbhdl_t h;
  NGA_NbPut(g, lo, hi, mine.data(), nullptr, &h);
  NGA_NbWait(&h);
  GA_Sync();
  std::vector<double> all(1000, -1);
  int alo[1] = {0}, ahi[1] = {999};
  NGA_NbGet(g, alo, ahi, all.data(), nullptr, &h);
  int spins = 0;
  while (!NGA_NbTest(&h)) ++spins;
  long bad = 0;
  for (int i = 0; i < 1000; ++i) bad += all[static_cast<std::size_t>(i)] != i;
  EXPECT_EQ(bad, 0);
  GA_Sync();
  std::vector<double> ones(1000, 1.0);
  double a = 0.5;
  ga_nbhdl_t h2;
  NGA_NbAcc(g, alo, ahi, ones.data(), nullptr, &a, &h2);
  NGA_NbWait(&h2);
  GA_Sync();
  NGA_Get(g, alo, ahi, all.data(), nullptr);
  bad = 0;
  for (int i = 0; i < 1000; ++i) bad += all[static_cast<std::size_t>(i)] != i + 0.5 * nproc();
  EXPECT_EQ(bad, 0);
}

TEST_F(GaRma, ReadIncCounters) {
  int dims[1] = {3};
  GA gl(NGA_Create(C_LONG, 1, dims, gat::op("cl"), nullptr));
  GA gi(NGA_Create(C_INT, 1, dims, gat::op("ci"), nullptr));
  GA_Zero(gl);
  GA_Zero(gi);
  const int n = 40;
  std::vector<long> got;
  int sub[1] = {2};
  for (int k = 0; k < n; ++k) {
    got.push_back(NGA_Read_inc(gl, sub, 1));
    NGA_Read_inc(gi, sub, 3);
  }
  GA_Sync();
  long final_l = -1;
  int final_i = -1;
  NGA_Get(gl, sub, sub, &final_l, nullptr);
  NGA_Get(gi, sub, sub, &final_i, nullptr);
  EXPECT_EQ(final_l, static_cast<long>(n) * nproc());
  EXPECT_EQ(final_i, 3 * n * nproc());
  // Increments beyond the int range on long elements.
  int big[1] = {0};
  const long step = 1L << 40;
  const long before = NGA_Read_inc(gl, big, step);
  EXPECT_EQ(before % step, 0);
  GA_Sync();
  long total = 0;
  NGA_Get(gl, big, big, &total, nullptr);
  EXPECT_EQ(total, step * nproc());
  // The values handed out are 0..n*P-1, each once.
  std::vector<long> marks(static_cast<std::size_t>(n * nproc()), 0);
  for (long v : got)
    if (v >= 0 && v < n * nproc()) marks[static_cast<std::size_t>(v)] += 1;
  GA_Lgop(marks.data(), static_cast<int>(marks.size()), gat::op("+"));
  long bad = 0;
  for (long m : marks) bad += m != 1;
  EXPECT_EQ(bad, 0);
}

TEST_F(GaRma, GatherScatterAcc) {
  int dims[2] = {R, C};
  GA g(NGA_Create(C_DBL, 2, dims, gat::op("gs"), nullptr));
  GA_Zero(g);
  // Each rank scatters to its own set of elements: i*C+j == me (mod P).
  std::vector<std::vector<int>> subs;
  std::vector<double> v;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      if ((i * C + j) % nproc() == me()) {
        subs.push_back({i, j});
        v.push_back(val(i, j));
      }
  std::vector<int*> sp;
  for (auto& s : subs) sp.push_back(s.data());
  NGA_Scatter(g, v.data(), sp.data(), static_cast<int>(sp.size()));
  GA_Sync();
  // Gather a different set: the elements of the next rank.
  std::vector<std::vector<int>> osubs;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      if ((i * C + j) % nproc() == mp::right()) osubs.push_back({i, j});
  std::vector<int*> op;
  for (auto& s : osubs) op.push_back(s.data());
  std::vector<double> got(osubs.size(), -1);
  NGA_Gather(g, got.data(), op.data(), static_cast<int>(op.size()));
  long bad = 0;
  for (std::size_t k = 0; k < osubs.size(); ++k) bad += got[k] != val(osubs[k][0], osubs[k][1]);
  EXPECT_EQ(bad, 0) << "gather";
  GA_Sync();
  // Everybody adds 2x into the same diagonal elements (duplicates included).
  std::vector<std::vector<int>> dsubs;
  for (int k = 0; k < std::min(R, C); ++k) dsubs.push_back({k, k});
  dsubs.push_back({0, 0});
  std::vector<int*> dp;
  for (auto& s : dsubs) dp.push_back(s.data());
  std::vector<double> ones(dsubs.size(), 1.0);
  double two = 2.0;
  NGA_Scatter_acc(g, ones.data(), dp.data(), static_cast<int>(dp.size()), &two);
  GA_Sync();
  std::vector<double> diag(dsubs.size());
  NGA_Gather(g, diag.data(), dp.data(), static_cast<int>(dp.size()));
  bad = 0;
  for (int k = 0; k < std::min(R, C); ++k)
    bad += diag[static_cast<std::size_t>(k)] != val(k, k) + 2.0 * nproc() * (k == 0 ? 2 : 1);
  EXPECT_EQ(bad, 0) << "scatter_acc";
}

// Patches held by processes of my node move no byte through libfabric.
TEST_F(GaRma, OnNodePatchesStayOffTheNetwork) {
  int dims[2] = {64, 64};
  GA g(NGA_Create(C_DBL, 2, dims, gat::op("local"), nullptr));
  GA_Zero(g);
  const long before = gat::remote_bytes();
  std::vector<double> buf(64 * 64, 1.0);
  double one = 1.0;
  for (int w : mp::node_peers()) {
    int lo[2], hi[2];
    NGA_Distribution(g, w, lo, hi);
    if (lo[0] < 0) continue;
    int ld[1] = {hi[1] - lo[1] + 1};
    NGA_Put(g, lo, hi, buf.data(), ld);
    NGA_Get(g, lo, hi, buf.data(), ld);
    if (!gat::nic_accumulates()) NGA_Acc(g, lo, hi, buf.data(), ld, &one);
  }
  EXPECT_EQ(gat::remote_bytes() - before, 0);
  GA_Sync();
}
