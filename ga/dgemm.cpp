// GA_Dgemm: C = alpha op(A) op(B) + beta C on 2-d C_DBL arrays.
//
// Distributed C: every process computes its own block of C, fetching panels
// of A and B (the next panel in flight while OpenBLAS multiplies the current
// one).  Mirrored C: C is cut into one row band per node and each node's
// processes split their band by columns; they multiply from the node's copies
// of A and B (when mirrored, node-local reads), write their piece into a
// zeroed node copy and the copies are merged, which moves only the written
// tiles.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/blas.hpp"
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_merge.hpp"
#include "ga/mirror_state.hpp"
#include "ga/patch_io.hpp"
#include "ga/registry.hpp"

using namespace ga;

namespace {

constexpr int kPanel = 256;

struct Gemm {
  bool ta, tb;
  int m, n, k;
  double alpha, beta;
  Array* a;
  Array* b;
};

Box box2(int r0, int c0, int r1, int c1) {
  Box b;
  b.ndim = 2;
  b.lo[0] = r0;
  b.lo[1] = c0;
  b.hi[0] = r1;
  b.hi[1] = c1;
  return b;
}

void fetch(Array& a, const Box& box, std::vector<double>& buf, std::vector<armci_hdl_t>& hs) {
  buf.resize(static_cast<std::size_t>(box.elems()));
  Selection s = Selection::dense(box);
  move(a, Op::Get, s, UserBuf::with_ld(buf.data(), 2, s.count, nullptr), nullptr, &hs);
}

// Rows [r0, r1] x columns [c0, c1] of C, stored at c with leading dimension ldc.
void product(const Gemm& g, int r0, int r1, int c0, int c1, double* c, int ldc) {
  const int rows = r1 - r0 + 1, cols = c1 - c0 + 1;
  const int np = (g.k + kPanel - 1) / kPanel;
  std::vector<double> abuf[2], bbuf[2];
  std::vector<armci_hdl_t> hs[2];
  auto start = [&](int p) {
    const int k0 = p * kPanel, k1 = std::min(g.k, k0 + kPanel) - 1;
    fetch(*g.a, g.ta ? box2(k0, r0, k1, r1) : box2(r0, k0, r1, k1), abuf[p % 2], hs[p % 2]);
    fetch(*g.b, g.tb ? box2(c0, k0, c1, k1) : box2(k0, c0, k1, c1), bbuf[p % 2], hs[p % 2]);
  };
  start(0);
  for (int p = 0; p < np; ++p) {
    for (armci_hdl_t& h : hs[p % 2]) ARMCI_Wait(&h);
    hs[p % 2].clear();
    if (p + 1 < np) start(p + 1);
    const int kb = std::min(g.k, (p + 1) * kPanel) - p * kPanel;
    dgemm(g.ta, g.tb, rows, cols, kb, g.alpha, abuf[p % 2].data(), g.ta ? rows : kb, bbuf[p % 2].data(),
          g.tb ? kb : cols, p == 0 ? g.beta : 1.0, c, ldc);
  }
}

void distributed(const Gemm& g, Array& c) {
  sync_begin(c);
  if (c.my_owner >= 0) {
    const Box& blk = c.owner_box[static_cast<std::size_t>(c.my_owner)];
    const Box mine = intersect(blk, box2(0, 0, g.m - 1, g.n - 1));
    if (!mine.empty()) {
      const int ldc = blk.extent(1);
      double* p = reinterpret_cast<double*>(c.owner_base[static_cast<std::size_t>(c.my_owner)]) +
                  static_cast<std::int64_t>(mine.lo[0] - blk.lo[0]) * ldc + (mine.lo[1] - blk.lo[1]);
      product(g, mine.lo[0], mine.hi[0], mine.lo[1], mine.hi[1], p, ldc);
    }
  }
  sync_end(c);
}

void mirrored(const Gemm& g, Array& c) {
  const Mirror& m = *c.mirror;
  const auto& mine = m.node_members[static_cast<std::size_t>(m.my_node)];
  const int P = m.nnodes(), nl = static_cast<int>(mine.size());
  const int j = static_cast<int>(std::find(mine.begin(), mine.end(), c.my_rank) - mine.begin());
  const int r0 = static_cast<int>(static_cast<long>(g.m) * m.my_node / P);
  const int r1 = static_cast<int>(static_cast<long>(g.m) * (m.my_node + 1) / P) - 1;
  const int c0 = static_cast<int>(static_cast<long>(g.n) * j / nl);
  const int c1 = static_cast<int>(static_cast<long>(g.n) * (j + 1) / nl) - 1;
  const bool work = r1 >= r0 && c1 >= c0;
  unmasked_sync(c);
  std::vector<double> piece;
  if (work) {
    const Box box = box2(r0, c0, r1, c1);
    piece.assign(static_cast<std::size_t>(box.elems()), 0.0);
    if (g.beta != 0) get_box(c, box, piece.data());
    product(g, r0, r1, c0, c1, piece.data(), c1 - c0 + 1);
  }
  group_sync(c);  // everyone has read the old C
  if (c.my_owner >= 0)
    std::memset(
        c.owner_base[static_cast<std::size_t>(c.my_owner)], 0,
        static_cast<std::size_t>(c.owner_box[static_cast<std::size_t>(c.my_owner)].elems()) * sizeof(double));
  reset_states(c, Base::Zero);
  group_sync(c);
  if (work) put_box(c, box2(r0, c0, r1, c1), piece.data());
  merge_mirrored(c);
}

void check_operand(const char* call, const Array& x, const char* what, int rows, int cols) {
  check_type(call, x, C_DBL);
  if (x.ndim != 2 || x.dims[0] < rows || x.dims[1] < cols)
    fail(call, "array %d (%s, dims %s) cannot hold a %d x %d operand", x.handle, what,
         show_index(x.ndim, x.dims).c_str(), rows, cols);
}

}  // namespace

extern "C" {

void GA_Dgemm(char ta, char tb, int m, int n, int k, double alpha, int g_a, int g_b, double beta, int g_c) {
  guard("GA_Dgemm", [&] {
    const char* call = "GA_Dgemm";
    Registry& r = reg(call);
    Gemm g{check_trans(call, ta, "ta"), check_trans(call, tb, "tb"), m, n, k, alpha, beta, nullptr, nullptr};
    if (m < 1 || n < 1 || k < 1) fail(call, "m, n, k = %d, %d, %d must be positive", m, n, k);
    g.a = &r.array(call, g_a);
    g.b = &r.array(call, g_b);
    Array& c = r.array(call, g_c);
    check_operand(call, *g.a, "A", g.ta ? k : m, g.ta ? m : k);
    check_operand(call, *g.b, "B", g.tb ? n : k, g.tb ? k : n);
    check_operand(call, c, "C", m, n);
    if (g_c == g_a || g_c == g_b) fail(call, "C (array %d) must not be A or B", g_c);
    if (c.mirrored() && (c.dims[0] != m || c.dims[1] != n))
      fail(call, "mirrored C (array %d, dims %s) must be exactly %d x %d", g_c, show_index(2, c.dims).c_str(),
           m, n);
    if (c.mirrored())
      mirrored(g, c);
    else
      distributed(g, c);
  });
}

}  // extern "C"
