// GA_Merge_mirrored: every node copy becomes the sum of all node copies.
//
// Work is sliced by TILES of the global index space (ga/tiles.hpp), never by
// block layout, so nodes with different process counts and layouts still
// agree on who exchanges which tile with whom, and all of a node's processes
// share the work (ga/merge_plan.hpp).  A node sends a tile in a step only if
// its partial sum holds a contribution: a tile written by one node crosses
// the network nnodes-1 times, the minimum for every node to receive it, and
// tiles nobody wrote since the last zero/merge/fill do not move at all.  From
// 4 nodes and 1 MiB copies, tiles that most nodes wrote are reduce-scattered
// and gathered instead (ga/merge_schedule.hpp): 2(m-1)/m of the array per
// node rather than log2(m) times it.
//
// Buffers: each process has one scratch allocation (made at the first merge):
// its tiles' partial sums, then one receive area per step, so a fast partner
// of the next step cannot overwrite data still being added.
#include "ga/mirror_merge.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/errors.hpp"
#include "ga/merge_plan.hpp"
#include "ga/patch_io.hpp"
#include "ga/patch_map.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"
#include "message.h"

namespace ga {

namespace {

// My index among my node's processes of the array's group.
int local_index(const Array& a) {
  const auto& mine = a.mirror->node_members[static_cast<std::size_t>(a.mirror->my_node)];
  return static_cast<int>(std::find(mine.begin(), mine.end(), a.my_rank) - mine.begin());
}

int node_size(const Mirror& m, int node) {
  return static_cast<int>(m.node_members[static_cast<std::size_t>(node)].size());
}

int max_node_size(const Mirror& m) {
  int n = 1;
  for (int node = 0; node < m.nnodes(); ++node) n = std::max(n, node_size(m, node));
  return n;
}

class Merge {
 public:
  Merge(Array& a, const std::vector<std::uint64_t>& all)
      : a_(a),
        m_(*a.mirror),
        sch_(m_.nnodes(), m_.tiles.count(), max_node_size(m_)),
        g_(m_.tiles, a.elem),
        node_(m_.my_node),
        nl_(node_size(m_, node_)),
        j_(local_index(a)),
        t0_(g_.first(nl_, j_)),
        t1_(g_.first(nl_, j_ + 1)) {
    std::map<std::pair<std::vector<int>, int>, Route> routes;  // tiles share few contributor sets
    const bool big = g_.before(g_.count()) >= kScatterFromBytes;  // the same answer everywhere
    auto route = [&](const std::vector<int>& c, int home) {
      if (!big) return Route::Doubling;
      auto [it, fresh] = routes.try_emplace({c, home});
      if (fresh) it->second = sch_.route(c, home);
      return it->second;
    };
    for (int n = 0; n < m_.nnodes(); ++n) everyone_.push_back(n);
    full_route_ = route(everyone_, 0);  // a tile everyone wrote costs the same whatever its home
    for (int t = t0_; t < t1_; ++t) {
      TilePlan p = plan_tile(m_, all, t);
      p.home = sch_.home(t);
      p.route = route(p.contrib, p.home);
      plans_.push_back(std::move(p));
    }
    touched_.assign(plans_.size(), 0);
  }

  void run() {
    ensure_scratch();
    base_ = static_cast<char*>(m_.scratch_ptrs[static_cast<std::size_t>(a_.my_rank)]);
    m_.moved = m_.full = 0;
    start();
    for (std::size_t s = 0; s < sch_.steps.size(); ++s) exchange(static_cast<int>(s));
    for_runs([&](int t, int u) { return touched_[idx(t)] == touched_[idx(u)]; },
             [&](int t, int, const Box& b) {
               if (touched_[idx(t)]) put_box(a_, b, work(t), false);
             });
  }

 private:
  Array& a_;
  Mirror& m_;
  const Schedule sch_;
  const TileRanges g_;
  const int node_, nl_, j_, t0_, t1_;
  std::vector<TilePlan> plans_;
  std::vector<int> everyone_;           // a tile every node wrote...
  Route full_route_ = Route::Doubling;  // ... and its route, for the full-merge count
  std::vector<char> touched_;  // partial sum differs from the node copy
  char* base_ = nullptr;

  std::size_t idx(int t) const { return static_cast<std::size_t>(t - t0_); }
  char* work(int t) const { return base_ + g_.offset(nl_, j_, t); }
  const TilePlan& plan(int t) const { return plans_[idx(t)]; }
  // Receive area of step s of local process q on a node of nq processes.
  std::int64_t area(int nq, int q, int s) const {
    return (1 + static_cast<std::int64_t>(s)) * g_.range_bytes(nq, q);
  }

  void ensure_scratch() {
    if (!m_.scratch_ptrs.empty()) return;
    m_.scratch_bytes = area(nl_, j_, static_cast<int>(sch_.steps.size()));
    m_.scratch_ptrs.assign(a_.members.size(), nullptr);
    if (ARMCI_Malloc_group(m_.scratch_ptrs.data(), static_cast<armci_size_t>(m_.scratch_bytes),
                           &a_.armci_group))
      fail("GA_Merge_mirrored", "no memory for the merge buffers of array %d ('%s')", a_.handle,
           a_.name.c_str());
  }

  // Consecutive tiles of my range whose union b is one box laid out as the
  // concatenation of theirs (they advance along one dimension, and every
  // dimension before it has extent 1: always so for 1-D arrays), since their
  // work buffers are consecutive too: f(first, end, b) for each maximal run
  // of tiles that same(first, t) also groups.  One get or put per run instead
  // of per tile: a tile is as small as 2 KiB and each GA access costs about
  // half a microsecond of planning.
  template <typename Same, typename F>
  void for_runs(Same&& same, F&& f) const {
    for (int t = t0_; t < t1_;) {
      Box b = m_.tiles.tile(t);
      int e = t + 1;
      while (e < t1_ && same(t, e) && extend(b, m_.tiles.tile(e))) ++e;
      f(t, e, b);
      t = e;
    }
  }
  static bool extend(Box& b, const Box& next) {
    int d = -1;  // the one dimension next advances b along
    for (int x = 0; x < b.ndim; ++x) {
      if (next.lo[x] == b.lo[x] && next.hi[x] == b.hi[x]) continue;
      if (d >= 0 || next.lo[x] != b.hi[x] + 1) return false;
      d = x;
    }
    if (d < 0) return false;
    for (int x = 0; x < d; ++x)
      if (b.extent(x) != 1) return false;
    b.hi[d] = next.hi[d];
    return true;
  }

  // How a tile's partial sum starts.
  enum class Start {
    Untouched,     // nobody wrote it
    ScaleInPlace,  // equal copies: scaled in the node copy itself
    MineScaled,    // my node's copy, scaled for the copies it stands for
    Mine,          // my node's copy as it is
    Zeros,         // only other nodes wrote it
  };
  Start start_of(const TilePlan& p) const {
    if (p.local_scale) return Start::ScaleInPlace;
    if (p.has(node_)) return p.rep == node_ ? Start::MineScaled : Start::Mine;
    return p.contrib.empty() ? Start::Untouched : Start::Zeros;
  }

  // My node's contribution to my tiles, in their partial-sum buffers.
  void start() {
    auto same = [&](int t, int u) {
      const TilePlan &p = plan(t), &q = plan(u);
      return start_of(p) == start_of(q) && (start_of(p) != Start::MineScaled || p.scale == q.scale);
    };
    for_runs(same, [&](int t, int e, const Box& b) {
      const TilePlan& p = plan(t);
      switch (start_of(p)) {
        case Start::ScaleInPlace:
          get_box(a_, b, work(t));
          scale_by_count(a_.type, work(t), b.elems(), m_.nnodes());
          put_box(a_, b, work(t), false);
          break;
        case Start::MineScaled:
          get_box(a_, b, work(t));
          scale_by_count(a_.type, work(t), b.elems(), p.scale);
          for (int u = t; u < e; ++u) touched_[idx(u)] = 1;
          break;
        case Start::Mine:
          get_box(a_, b, work(t));
          break;
        case Start::Zeros:
          std::memset(work(t), 0, static_cast<std::size_t>(b.elems()) * a_.elem);
          break;
        case Start::Untouched:
          break;
      }
    });
    // What a merge of fully written copies would have me send.
    for (int t = t0_; t < t1_; ++t)
      for (const Step& s : sch_.steps)
        if (sch_.partner(s, node_) >= 0 && sch_.sends(s, node_, everyone_, full_route_, plan(t).home))
          m_.full += g_.bytes(t);
  }

  // Step s: one vector put of my tiles to the partner node (into the
  // receive areas of the processes handling them there), then add what the
  // partner node's processes sent me (or copy it: a finished sum).
  void exchange(int s) {
    const Step& step = sch_.steps[static_cast<std::size_t>(s)];
    const int pn = sch_.partner(step, node_);
    if (pn < 0) return;
    const auto& their = m_.node_members[static_cast<std::size_t>(pn)];
    const int pnl = static_cast<int>(their.size());
    // Per process of the partner node, descriptors in tile order, a new one
    // wherever the tile size changes: tiles that lie end to end stay next to
    // each other in the request, where ARMCI_PutV joins them (grouped by
    // size, every row of 2-D tiles would split at its narrower last tile).
    struct Run {
      int bytes;
      std::vector<void*> src, dst;
    };
    std::vector<std::vector<Run>> runs(static_cast<std::size_t>(pnl));
    std::vector<int> senders;  // indices on the partner node, as qj below
    auto proc_of = [&](int qj) {  // the ARMCI process of the partner node's qj-th
      return a_.members[static_cast<std::size_t>(their[static_cast<std::size_t>(qj)])];
    };
    for (int t = t0_; t < t1_; ++t) {
      const TilePlan& p = plan(t);
      if (p.contrib.empty()) continue;
      const int qj = g_.handler(pnl, t);
      if (sch_.sends(step, node_, p.contrib, p.route, p.home)) {
        const auto bytes = static_cast<int>(g_.bytes(t));
        auto& rs = runs[static_cast<std::size_t>(qj)];
        if (rs.empty() || rs.back().bytes != bytes) rs.push_back({bytes, {}, {}});
        rs.back().src.push_back(work(t));
        const int q = their[static_cast<std::size_t>(qj)];
        rs.back().dst.push_back(static_cast<char*>(m_.scratch_ptrs[static_cast<std::size_t>(q)]) +
                                area(pnl, qj, s) + g_.offset(pnl, qj, t));
        m_.moved += bytes;
      }
      if (sch_.sends(step, pn, p.contrib, p.route, p.home) &&
          std::find(senders.begin(), senders.end(), qj) == senders.end())
        senders.push_back(qj);
    }
    std::vector<armci_giov_t> darr;
    for (int qj = 0; qj < pnl; ++qj) {
      darr.clear();
      for (Run& r : runs[static_cast<std::size_t>(qj)])
        darr.push_back({r.src.data(), r.dst.data(), static_cast<int>(r.src.size()), r.bytes});
      if (!darr.empty()) ARMCI_PutV(darr.data(), static_cast<int>(darr.size()), proc_of(qj));
    }
    // Notices are ordered after earlier puts to the same node, whichever of
    // its processes they address: no fence needed.
    for (int qj = 0; qj < pnl; ++qj)
      if (!runs[static_cast<std::size_t>(qj)].empty()) armci_notify(proc_of(qj));
    for (int qj : senders) armci_notify_wait(proc_of(qj), nullptr);
    for (int t = t0_; t < t1_; ++t) {
      const TilePlan& p = plan(t);
      if (p.contrib.empty() || !sch_.sends(step, pn, p.contrib, p.route, p.home)) continue;
      const char* in = base_ + area(nl_, j_, s) + g_.offset(nl_, j_, t);
      if (sch_.finished(step, p.route))
        std::memcpy(work(t), in, static_cast<std::size_t>(g_.bytes(t)));
      else
        add_elements(a_.type, work(t), in, m_.tiles.tile_elems(t));
      touched_[idx(t)] = 1;
    }
  }
};

// Tile t of my share of patch `src`, as it should be accumulated into the
// distributed patch: how many node copies my node's values stand for.
long copies_behind(const Mirror& m, const TilePlan& p) {
  if (p.local_scale) return m.my_node == 0 ? m.nnodes() : 0;  // node 0 speaks for equal copies
  if (!p.has(m.my_node)) return 0;
  return p.rep == m.my_node ? p.scale : 1;
}

}  // namespace

void merge_mirrored(Array& a) {
  if (!a.mirrored()) {
    unmasked_sync(a);  // one copy: nothing to sum, but still a collective point
    return;
  }
  // Writes to node copies are node-local; once fenced, the gather of the
  // dirty bitmaps (an allreduce: it returns only when every process has
  // contributed) doubles as the entry barrier.
  ARMCI_AllFence();
  Registry& r = *reg_or_null();
  r.skip_first_sync = r.skip_last_sync = r.skip_end_sync = false;
  Mirror& m = *a.mirror;
  const std::vector<std::uint64_t> all = gather_dirty(a);
  // Everybody on this node has read the bitmap once the gather returned.
  if (a.my_rank == m.node_members[static_cast<std::size_t>(m.my_node)][0])
    for (int i = 0; i < m.words(); ++i) __atomic_store_n(&m.dirty[i], 0, __ATOMIC_RELAXED);
  Merge(a, all).run();
  // Every node now holds the same values in every tile anybody wrote.
  for (int t = 0; t < m.tiles.count(); ++t)
    for (int n = 0; n < m.nnodes(); ++n)
      if (bit(all.data() + static_cast<std::ptrdiff_t>(n) * m.words(), t))
        m.base[static_cast<std::size_t>(t)] = Base::Same;
  group_sync(a);
}

void merge_distr_patch(const char* call, Array& a, const Box& src, Array& b, const Box& dst) {
  const PatchMap to_dst = make_patch_map(call, dst, src, false);  // src piece -> dst box
  if (!to_dst.same_shape) fail(call, "the patches must have the same shape (up to unit dimensions)");
  if (a.group != b.group)
    fail(call, "mirrored array %d and distributed array %d must live on the same group", a.handle, b.handle);
  unmasked_sync(a);
  if (b.my_owner >= 0) {
    const Box piece = intersect(b.owner_box[static_cast<std::size_t>(b.my_owner)], dst);
    if (!piece.empty()) {
      std::vector<char> zeros(static_cast<std::size_t>(piece.elems()) * b.elem, 0);
      put_box(b, piece, zeros.data());
    }
  }
  if (!a.mirrored()) {  // one copy: the patch itself is the sum
    group_sync(a);
    const PatchMap m = make_patch_map(call, src, dst, false);
    my_share(b, dst, true, 0, 1, [&](const Box& piece) {
      std::vector<char> buf(static_cast<std::size_t>(piece.elems()) * b.elem);
      fetch_mapped(a, m, piece, buf.data());
      put_box(b, piece, buf.data());
    });
    group_sync(a);
    return;
  }
  Mirror& m = *a.mirror;
  const std::vector<std::uint64_t> all = gather_dirty(a);  // also: everybody has zeroed
  const TileRanges g(m.tiles, a.elem);
  const int nl = node_size(m, m.my_node), j = local_index(a);
  std::vector<char> one(a.elem, 0);
  dispatch(a.type, [&](auto zero) {
    using T = decltype(zero);
    const T v = T(1);
    std::memcpy(one.data(), &v, sizeof v);
  });
  Registry& r = *reg_or_null();
  m.moved = m.full = 0;
  std::vector<armci_hdl_t> hs;
  std::vector<std::vector<char>> bufs;  // alive until the accumulates complete
  for (int t = g.first(nl, j); t < g.first(nl, j + 1); ++t) {
    const Box piece = intersect(m.tiles.tile(t), src);
    if (piece.empty()) continue;
    const Box target = mapped_box(to_dst, piece);
    long remote = 0;
    b.dist.for_each_piece(target, [&](int o, const Box& q) {
      if (!r.same_node(b.owner_world[static_cast<std::size_t>(o)]))
        remote += q.elems() * static_cast<long>(b.elem);
    });
    m.full += remote;
    const long k = copies_behind(m, plan_tile(m, all, t));
    if (k == 0) continue;
    bufs.emplace_back(static_cast<std::size_t>(piece.elems()) * a.elem);
    get_box(a, piece, bufs.back().data());
    if (k != 1) scale_by_count(a.type, bufs.back().data(), piece.elems(), k);
    acc_box(b, target, bufs.back().data(), one.data(), &hs);
    m.moved += remote;
  }
  for (armci_hdl_t& h : hs) ARMCI_Wait(&h);
  group_sync(a);
}

}  // namespace ga
