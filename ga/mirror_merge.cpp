// GA_Merge_mirrored: every node copy becomes the sum of all node copies.
//
// Work is sliced by TILES of the global index space (ga/tiles.hpp), never by
// block layout: on a node of nl processes, local process j handles tiles
// [j*T/nl, (j+1)*T/nl).  Nodes with different process counts therefore
// still agree on who exchanges which tile with whom, and all of a node's
// processes share the work.
//
// Per tile, the value to produce is the sum of the nodes' contributions:
//   - a node that wrote the tile since the last zero/merge (dirty) gives its
//     values;
//   - the clean nodes all hold the agreed base value: nothing if it is zero,
//     else ONE representative clean node gives (clean count) x its values;
//   - no dirty node and a non-zero base: every node scales locally.
// The contributions are combined by recursive doubling over the nodes (with
// a fold/unfold step for the nodes beyond the largest power of two), so a
// merge takes log2(nnodes) (+2) network steps.  A node sends a tile in a step
// only if its partial sum contains a contribution, so a tile written by one
// node crosses the network nnodes-1 times, the minimum for every node to
// receive it.
#include "ga/mirror_merge.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_state.hpp"
#include "ga/patch_io.hpp"
#include "ga/patch_map.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"
#include "message.h"

namespace ga {

namespace {

enum class Kind { Fold, Double, Unfold };

struct Step {
  Kind kind;
  int k;  // recursive-doubling level
};

// Node schedule: m = largest power of two <= P, r = P - m extra nodes.
struct Schedule {
  int P = 1, m = 1, r = 0, L = 0;
  std::vector<Step> steps;

  explicit Schedule(int nnodes) : P(nnodes) {
    while (m * 2 <= P) {
      m *= 2;
      ++L;
    }
    r = P - m;
    if (r) steps.push_back({Kind::Fold, 0});
    for (int k = 0; k < L; ++k) steps.push_back({Kind::Double, k});
    if (r) steps.push_back({Kind::Unfold, 0});
  }
  int rd(int node) const { return node < m ? node : node - m; }
  // Partner of `node` in step s, or -1 if it sits the step out.
  int partner(const Step& s, int node) const {
    switch (s.kind) {
      case Kind::Fold: return node >= m ? node - m : (node < r ? node + m : -1);
      case Kind::Double: return node < m ? node ^ (1 << s.k) : -1;
      default: return node < r ? node + m : (node >= m ? node - m : -1);
    }
  }
  // Does `from` send tile data to its partner in step s, given contributors c?
  bool sends(const Step& s, int from, const std::vector<int>& c) const {
    switch (s.kind) {
      case Kind::Fold:
        return from >= m && std::find(c.begin(), c.end(), from) != c.end();
      case Kind::Double:
        if (from >= m) return false;
        for (int x : c)
          if ((rd(x) >> s.k) == (from >> s.k)) return true;
        return false;
      default: {
        if (from >= r) return false;
        for (int x : c)
          if (x != from + m) return true;
        return false;
      }
    }
  }
};

// What one tile needs in this merge.
struct TilePlan {
  std::vector<int> contrib;  // contributing node indices
  int rep = -1;              // clean node giving scale x base
  long scale = 1;
  bool local_scale = false;  // nothing dirty, base non-zero: scale by nnodes
};

struct Ranges {
  std::vector<std::int64_t> prefix;  // bytes before tile t
  int T = 0;
  int handler(int nl, int t) const { return static_cast<int>((static_cast<long>(t + 1) * nl - 1) / T); }
  int first(int nl, int j) const { return static_cast<int>(static_cast<long>(j) * T / nl); }
};

Ranges make_ranges(const Array& a) {
  Ranges g;
  g.T = a.mirror->tiles.count();
  g.prefix.resize(static_cast<std::size_t>(g.T) + 1, 0);
  for (int t = 0; t < g.T; ++t)
    g.prefix[static_cast<std::size_t>(t) + 1] =
        g.prefix[static_cast<std::size_t>(t)] + a.mirror->tiles.tile_elems(t) * static_cast<std::int64_t>(a.elem);
  return g;
}

// Bytes of the tile range of local process j on a node of nl processes.
std::int64_t range_bytes(const Ranges& g, int nl, int j) {
  return g.prefix[static_cast<std::size_t>(g.first(nl, j + 1))] - g.prefix[static_cast<std::size_t>(g.first(nl, j))];
}

void ensure_scratch(Array& a, const Ranges& g, int nslots) {
  Mirror& m = *a.mirror;
  if (!m.scratch_ptrs.empty()) return;
  const auto& mine = m.node_members[static_cast<std::size_t>(m.my_node)];
  const int j = static_cast<int>(std::find(mine.begin(), mine.end(), a.my_rank) - mine.begin());
  m.scratch_bytes = range_bytes(g, static_cast<int>(mine.size()), j) * (nslots + 1);
  m.scratch_ptrs.assign(a.members.size(), nullptr);
  if (ARMCI_Malloc_group(m.scratch_ptrs.data(), static_cast<armci_size_t>(m.scratch_bytes), &a.armci_group) != 0)
    fail("GA_Merge_mirrored", "no memory for the merge buffers of array %d ('%s')", a.handle, a.name.c_str());
}

TilePlan plan_tile(const Array& a, const std::vector<std::uint64_t>& all, int t) {
  const Mirror& m = *a.mirror;
  const int P = m.nnodes(), W = m.words();
  TilePlan p;
  for (int n = 0; n < P; ++n)
    if (bit(all.data() + static_cast<std::size_t>(n) * W, t)) p.contrib.push_back(n);
  const bool same = m.base[static_cast<std::size_t>(t)] == Base::Same;
  if (p.contrib.empty()) {
    p.local_scale = same;
    return p;
  }
  if (same && static_cast<int>(p.contrib.size()) < P) {
    for (int n = 0; n < P && p.rep < 0; ++n)
      if (std::find(p.contrib.begin(), p.contrib.end(), n) == p.contrib.end()) p.rep = n;
    p.scale = P - static_cast<long>(p.contrib.size());
    p.contrib.insert(std::lower_bound(p.contrib.begin(), p.contrib.end(), p.rep), p.rep);
  }
  return p;
}

}  // namespace

void merge_mirrored(Array& a) {
  if (!a.mirrored()) {
    unmasked_sync(a);  // one copy: nothing to sum, but still a collective point
    return;
  }
  Mirror& m = *a.mirror;
  // Writes to node copies are node-local; once fenced, the gather of the
  // dirty bitmaps (an allreduce: it returns only when every process has
  // contributed) doubles as the entry barrier.
  ARMCI_AllFence();
  Registry& r = *reg_or_null();
  r.skip_first_sync = r.skip_last_sync = r.skip_end_sync = false;
  const std::vector<std::uint64_t> all = gather_dirty(a);
  // Everybody on this node has read the bitmap once the gather returned.
  const auto& mine = m.node_members[static_cast<std::size_t>(m.my_node)];
  if (a.my_rank == mine[0])
    for (int i = 0; i < m.words(); ++i) __atomic_store_n(&m.dirty[i], 0, __ATOMIC_RELAXED);

  const Schedule sch(m.nnodes());
  const Ranges g = make_ranges(a);
  const int nslots = static_cast<int>(sch.steps.size());
  ensure_scratch(a, g, nslots);
  const int me_node = m.my_node, nl = static_cast<int>(mine.size());
  const int j = static_cast<int>(std::find(mine.begin(), mine.end(), a.my_rank) - mine.begin());
  const int t0 = g.first(nl, j), t1 = g.first(nl, j + 1);
  const std::int64_t R = g.prefix[static_cast<std::size_t>(t1)] - g.prefix[static_cast<std::size_t>(t0)];
  char* base = static_cast<char*>(m.scratch_ptrs[static_cast<std::size_t>(a.my_rank)]);
  auto work = [&](int t) { return base + (g.prefix[static_cast<std::size_t>(t)] - g.prefix[static_cast<std::size_t>(t0)]); };
  auto tbytes = [&](int t) { return g.prefix[static_cast<std::size_t>(t) + 1] - g.prefix[static_cast<std::size_t>(t)]; };

  std::vector<TilePlan> plans;
  std::vector<char> touched(static_cast<std::size_t>(std::max(0, t1 - t0)), 0);
  m.moved = 0;
  m.full = 0;
  for (int t = t0; t < t1; ++t) {
    plans.push_back(plan_tile(a, all, t));
    TilePlan& p = plans.back();
    const Box tile = m.tiles.tile(t);
    const bool contributes = std::find(p.contrib.begin(), p.contrib.end(), me_node) != p.contrib.end();
    if (p.local_scale) {
      get_box(a, tile, work(t));
      scale_by_count(a.type, work(t), tile.elems(), m.nnodes());
      put_box(a, tile, work(t), false);
    } else if (contributes) {
      get_box(a, tile, work(t));
      if (p.rep == me_node) {
        scale_by_count(a.type, work(t), tile.elems(), p.scale);
        touched[static_cast<std::size_t>(t - t0)] = 1;
      }
    } else if (!p.contrib.empty()) {
      std::memset(work(t), 0, static_cast<std::size_t>(tbytes(t)));
    }
    // A full merge: every node contributes every tile, so I send the tile in
    // every step where I have a partner to send to.
    for (const Step& s : sch.steps)
      if (sch.partner(s, me_node) >= 0 && sch.sends(s, me_node, std::vector<int>{sch.partner(s, me_node), me_node}))
        m.full += tbytes(t);
  }

  for (std::size_t si = 0; si < sch.steps.size(); ++si) {
    const Step& s = sch.steps[si];
    const int pn = sch.partner(s, me_node);
    if (pn < 0) continue;
    const auto& their = m.node_members[static_cast<std::size_t>(pn)];
    const int pnl = static_cast<int>(their.size());
    // Send: one vector put to the partner node, descriptors by tile size.
    std::map<std::int64_t, std::pair<std::vector<void*>, std::vector<void*>>> by_size;
    std::vector<int> targets;  // group ranks notified
    for (int t = t0; t < t1; ++t) {
      const TilePlan& p = plans[static_cast<std::size_t>(t - t0)];
      if (p.contrib.empty() || !sch.sends(s, me_node, p.contrib)) continue;
      const int qj = g.handler(pnl, t);
      const int q = their[static_cast<std::size_t>(qj)];
      const std::int64_t qR = range_bytes(g, pnl, qj);
      char* dst = static_cast<char*>(m.scratch_ptrs[static_cast<std::size_t>(q)]) + (1 + static_cast<std::int64_t>(si)) * qR +
                  (g.prefix[static_cast<std::size_t>(t)] - g.prefix[static_cast<std::size_t>(g.first(pnl, qj))]);
      auto& v = by_size[tbytes(t)];
      v.first.push_back(work(t));
      v.second.push_back(dst);
      if (std::find(targets.begin(), targets.end(), q) == targets.end()) targets.push_back(q);
      m.moved += tbytes(t);
    }
    if (!targets.empty()) {
      std::vector<armci_giov_t> darr;
      for (auto& [bytes, v] : by_size)
        darr.push_back({v.first.data(), v.second.data(), static_cast<int>(v.first.size()), static_cast<int>(bytes)});
      const int proc = a.members[static_cast<std::size_t>(targets[0])];
      ARMCI_PutV(darr.data(), static_cast<int>(darr.size()), proc);
      ARMCI_Fence(proc);
      for (int q : targets) armci_notify(a.members[static_cast<std::size_t>(q)]);
    }
    // Receive: wait for each sending process once, then fold the data in.
    std::vector<int> senders;
    for (int t = t0; t < t1; ++t) {
      const TilePlan& p = plans[static_cast<std::size_t>(t - t0)];
      if (p.contrib.empty() || !sch.sends(s, pn, p.contrib)) continue;
      const int q = their[static_cast<std::size_t>(g.handler(pnl, t))];
      if (std::find(senders.begin(), senders.end(), q) == senders.end()) senders.push_back(q);
    }
    for (int q : senders) armci_notify_wait(a.members[static_cast<std::size_t>(q)], nullptr);
    for (int t = t0; t < t1; ++t) {
      const TilePlan& p = plans[static_cast<std::size_t>(t - t0)];
      if (p.contrib.empty() || !sch.sends(s, pn, p.contrib)) continue;
      const char* in = base + (1 + static_cast<std::int64_t>(si)) * R + (g.prefix[static_cast<std::size_t>(t)] - g.prefix[static_cast<std::size_t>(t0)]);
      if (s.kind == Kind::Unfold) std::memcpy(work(t), in, static_cast<std::size_t>(tbytes(t)));
      else add_elements(a.type, work(t), in, m.tiles.tile_elems(t));
      touched[static_cast<std::size_t>(t - t0)] = 1;
    }
  }

  for (int t = t0; t < t1; ++t)
    if (touched[static_cast<std::size_t>(t - t0)]) put_box(a, m.tiles.tile(t), work(t), false);
  // Every node now agrees on every tile: zero where nothing was there.
  for (int t = 0; t < m.tiles.count(); ++t) {
    bool any = false;
    for (int n = 0; n < m.nnodes() && !any; ++n) any = bit(all.data() + static_cast<std::size_t>(n) * m.words(), t);
    if (any) m.base[static_cast<std::size_t>(t)] = Base::Same;
  }
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
  if (!a.mirrored()) {
    // One node: the patch itself is the sum.
    group_sync(a);
    my_share(b, dst, true, 0, 1, [&](const Box& piece) {
      std::vector<char> buf(static_cast<std::size_t>(piece.elems()) * b.elem);
      fetch_mapped(a, make_patch_map(call, src, dst, false), piece, buf.data());
      put_box(b, piece, buf.data());
    });
    group_sync(a);
    return;
  }
  Mirror& m = *a.mirror;
  const std::vector<std::uint64_t> all = gather_dirty(a);
  group_sync(a);
  const Ranges g = make_ranges(a);
  const auto& mine = m.node_members[static_cast<std::size_t>(m.my_node)];
  const int nl = static_cast<int>(mine.size());
  const int j = static_cast<int>(std::find(mine.begin(), mine.end(), a.my_rank) - mine.begin());
  std::vector<char> one(a.elem, 0);
  dispatch(a.type, [&](auto zero) {
    using T = decltype(zero);
    T v = T(1);
    std::memcpy(one.data(), &v, sizeof v);
  });
  Registry& r = *reg_or_null();
  m.moved = 0;
  m.full = 0;
  std::vector<armci_hdl_t> hs;
  std::vector<std::vector<char>> bufs;
  for (int t = g.first(nl, j); t < g.first(nl, j + 1); ++t) {
    const Box piece = intersect(m.tiles.tile(t), src);
    if (piece.empty()) continue;
    const Box target = mapped_box(to_dst, piece);
    long remote = 0;
    b.dist.for_each_piece(target, [&](int o, const Box& q) {
      if (!r.same_node(b.owner_world[static_cast<std::size_t>(o)])) remote += q.elems() * static_cast<long>(b.elem);
    });
    m.full += remote;
    // How many node copies this node's values stand for (0: none).
    const TilePlan p = plan_tile(a, all, t);
    long k = 0;
    if (p.local_scale) k = m.my_node == 0 ? m.nnodes() : 0;  // node 0 speaks for all equal copies
    else if (std::find(p.contrib.begin(), p.contrib.end(), m.my_node) != p.contrib.end())
      k = p.rep == m.my_node ? p.scale : 1;
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
