#include "ga/patch_io.hpp"

#include <cstring>
#include <map>

#include "armci/armcix.h"
#include "common/copy.hpp"
#include "ga/mirror_state.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"

namespace ga {

Selection Selection::dense(const Box& patch) {
  Selection s;
  s.patch = patch;
  for (int d = 0; d < patch.ndim; ++d) {
    s.step[d] = 1;
    s.count[d] = patch.extent(d);
  }
  return s;
}

Selection Selection::strided(const Box& patch, const int* step) {
  Selection s;
  s.patch = patch;
  for (int d = 0; d < patch.ndim; ++d) {
    s.step[d] = step[d];
    s.count[d] = (patch.hi[d] - patch.lo[d]) / step[d] + 1;
  }
  return s;
}

UserBuf UserBuf::with_ld(void* base, int ndim, const int* count, const int* ld) {
  UserBuf u;
  u.base = static_cast<char*>(base);
  std::int64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    u.stride[d] = s;
    if (d > 0) s *= ld ? ld[d - 1] : count[d];
  }
  return u;
}

namespace {

// Rows of one piece: all of the same length.
struct Rows {
  int bytes = 0;
  std::vector<void*> mine, theirs;  // user side, array side
};

// One vector request per owner: ARMCI checks every address against the
// allocation of the process it names.
using OwnerBatches = std::map<int, std::vector<Rows>>;  // by owner (world rank)

// Rows of the selected elements of `sel` inside owner j's block `piece`.
bool piece_rows(const Array& a, int j, const Box& piece, const Selection& sel, const UserBuf& buf,
                Rows& out) {
  const int n = a.ndim;
  std::int64_t bstride[kMaxDim];
  a.block_strides(j, bstride);
  const Box& blk = a.owner_box[static_cast<std::size_t>(j)];
  int cnt[kMaxDim];
  std::int64_t loff = 0, roff = 0, ls[kMaxDim], rs[kMaxDim];
  for (int d = 0; d < n; ++d) {
    const int st = sel.step[d];
    const int k0 = (piece.lo[d] - sel.patch.lo[d] + st - 1) / st;
    const int k1 = (piece.hi[d] - sel.patch.lo[d]) / st;
    if (k1 < k0) return false;
    cnt[d] = k1 - k0 + 1;
    loff += k0 * buf.stride[d];
    roff += (sel.patch.lo[d] + static_cast<std::int64_t>(k0) * st - blk.lo[d]) * bstride[d];
    ls[d] = buf.stride[d];
    rs[d] = bstride[d] * st;
  }
  // Contiguous run along the last dimension, grown over outer dimensions
  // while both sides stay contiguous.
  int outer = n;
  std::int64_t run = 1;
  if (ls[n - 1] == 1 && rs[n - 1] == 1) {
    run = cnt[n - 1];
    outer = n - 1;
    while (outer > 0 && ls[outer - 1] == run && rs[outer - 1] == run) {
      run *= cnt[outer - 1];
      --outer;
    }
  }
  const std::int64_t es = static_cast<std::int64_t>(a.elem);
  out.bytes = static_cast<int>(run * es);
  char* lbase = buf.base + loff * es;
  char* rbase = a.owner_base[static_cast<std::size_t>(j)] + roff * es;
  int k[kMaxDim] = {};
  for (;;) {
    std::int64_t lo = 0, ro = 0;
    for (int d = 0; d < outer; ++d) {
      lo += k[d] * ls[d];
      ro += k[d] * rs[d];
    }
    out.mine.push_back(lbase + lo * es);
    out.theirs.push_back(rbase + ro * es);
    int d = outer - 1;
    for (; d >= 0; --d) {
      if (++k[d] < cnt[d]) break;
      k[d] = 0;
    }
    if (d < 0) break;
  }
  return true;
}

std::vector<armci_giov_t> giov_of(std::vector<Rows>& pieces, Op op) {
  std::vector<armci_giov_t> v;
  for (Rows& r : pieces) {
    armci_giov_t g;
    g.src_ptr_array = op == Op::Get ? r.theirs.data() : r.mine.data();
    g.dst_ptr_array = op == Op::Get ? r.mine.data() : r.theirs.data();
    g.ptr_array_len = static_cast<int>(r.mine.size());
    g.bytes = r.bytes;
    v.push_back(g);
  }
  return v;
}

}  // namespace

void move(Array& a, Op op, const Selection& sel, const UserBuf& buf, const void* alpha,
          std::vector<armci_hdl_t>* nb, bool track) {
  if (sel.patch.empty()) return;
  Registry& r = *reg_or_null();
  // ARMCI_TRACE: every access, the GA layer's own (GA_Dgemm's panels,
  // copies, merges) included; non-blocking ones for the time they took to issue.
  Trace* trace = r.trace.get();
  const double t0 = trace ? trace->now() : 0;
  const TypeInfo& ti = *type_info(a.type);
  // Every owner, this node's too, is one vector call: the router picks the
  // transport (load/store on this node) and the profile counts it there.
  OwnerBatches by_owner;
  a.dist.for_each_piece(sel.patch, [&](int j, const Box& piece) {
    Rows rows;
    if (!piece_rows(a, j, piece, sel, buf, rows)) return;
    by_owner[a.owner_world[static_cast<std::size_t>(j)]].push_back(std::move(rows));
  });
  void* scale = const_cast<void*>(alpha);
  std::vector<armci_hdl_t> mine;
  std::vector<armci_hdl_t>& hs = nb ? *nb : mine;
  for (auto& [w, b] : by_owner) {
    auto darr = giov_of(b, op);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    const int len = static_cast<int>(darr.size());
    if (op == Op::Put)
      ARMCI_NbPutV(darr.data(), len, w, &h);
    else if (op == Op::Get)
      ARMCI_NbGetV(darr.data(), len, w, &h);
    else
      ARMCI_NbAccV(ti.acc_op, scale, darr.data(), len, w, &h);
    if (h) hs.push_back(h);
  }
  if (!nb)
    for (armci_hdl_t& h : mine) ARMCI_Wait(&h);
  if (op != Op::Get && track && a.mirrored()) mark_dirty(a, sel.patch);
  if (trace) trace->record(a, op, sel.patch.lo, sel.patch.hi, t0, trace->now() - t0);
}

void get_box(Array& a, const Box& box, void* buf) {
  Selection s = Selection::dense(box);
  move(a, Op::Get, s, UserBuf::with_ld(buf, box.ndim, s.count, nullptr), nullptr, nullptr);
}

void put_box(Array& a, const Box& box, const void* buf, bool track) {
  Selection s = Selection::dense(box);
  move(a, Op::Put, s, UserBuf::with_ld(const_cast<void*>(buf), box.ndim, s.count, nullptr), nullptr, nullptr,
       track);
}

void acc_box(Array& a, const Box& box, const void* buf, const void* alpha, std::vector<armci_hdl_t>* nb) {
  Selection s = Selection::dense(box);
  move(a, Op::Acc, s, UserBuf::with_ld(const_cast<void*>(buf), box.ndim, s.count, nullptr), alpha, nb);
}

}  // namespace ga
