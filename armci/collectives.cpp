#include "armci/collectives.hpp"

#include <cstring>
#include <vector>

#include "armci/runtime.hpp"

namespace armci::coll {

namespace {
// Each level of a hierarchical collective has its own tags so that a level's
// messages never match another level's, whatever the members' progress.
struct Tags {
  int barrier, bcast, reduce, gather;
};
constexpr Tags kFlat{-101, -102, -103, -104};
constexpr Tags kAmongLeaders{-111, -112, -113, -114};
constexpr Tags kInNode{-121, -122, -123, -124};

void snd(Runtime& rt, const Team& t, int tag, int to, const void* buf, std::size_t len) {
  rt.mailbox.send(t.ctx, tag, t.world(to), buf, len);
}
void rcv(Runtime& rt, const Team& t, int tag, int from, void* buf, std::size_t len,
         const char* call) {
  std::size_t got = rt.mailbox.recv(t.ctx, tag, t.world(from), buf, len, nullptr, call);
  if (got != len)
    fatal(call, "collective message of %zu bytes from process %d where %zu were expected "
          "(members called different collectives?)", got, t.world(from), len);
}

// ---- one level: binomial trees and dissemination over a team ----

void flat_barrier(Runtime& rt, const Team& t, int tag) {
  const int n = t.size();
  for (int k = 1; k < n; k <<= 1) {
    snd(rt, t, tag, (t.me + k) % n, nullptr, 0);
    rcv(rt, t, tag, (t.me - k + n) % n, nullptr, 0, "barrier");
  }
}

void flat_bcast(Runtime& rt, const Team& t, int root, void* buf, std::size_t len, int tag) {
  const int n = t.size();
  if (n == 1) return;
  const int vr = (t.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      rcv(rt, t, tag, (vr - mask + root) % n, buf, len, "broadcast");
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (vr + mask < n) snd(rt, t, tag, (vr + mask + root) % n, buf, len);
    mask >>= 1;
  }
}

// Combines into `buf` at `root`; n_elems == 0 makes it a pure fan-in.
void flat_reduce(Runtime& rt, const Team& t, int root, void* buf, std::size_t n_elems, int type,
                 ReduceOp op, int tag) {
  const int n = t.size();
  if (n == 1) return;
  const std::size_t bytes = n_elems * msg_type_size(type);
  std::vector<char> tmp(bytes);
  const int vr = (t.me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) == 0) {
      int child = vr | mask;
      if (child < n) {
        rcv(rt, t, tag, (child + root) % n, tmp.data(), bytes, "reduction");
        if (n_elems) reduce_combine(type, op, buf, tmp.data(), n_elems);
      }
    } else {
      snd(rt, t, tag, (vr - mask + root) % n, buf, bytes);
      break;
    }
  }
}

// ---- two levels: members of a node, then one leader per node ----
//
// Messages between nodes are what a collective costs (each is an active
// message); inside a node they are a few stores.  So the trees run inside
// each node first and only the node leaders talk across nodes.

struct Levels {
  bool flat = true;  // one node, or one member per node: a single level pays
  Team node;         // the members of t on my node, in t's order
  int node_root = 0; // my node's leader, as a rank of `node`
  Team leaders;      // one member per node (the root's node: the root)
  int leader_root = 0;
};

Levels levels(Runtime& rt, const Team& t, int root) {
  Levels l;
  const auto& topo = rt.topo;
  const int root_node = topo.node_of[static_cast<std::size_t>(t.world(root))];
  std::vector<int> leader(static_cast<std::size_t>(topo.nnodes), -1);
  leader[static_cast<std::size_t>(root_node)] = t.world(root);
  std::vector<int> order;  // nodes in order of first appearance in t
  std::vector<char> seen(static_cast<std::size_t>(topo.nnodes), 0);
  for (int w : t.members) {
    const auto nd = static_cast<std::size_t>(topo.node_of[static_cast<std::size_t>(w)]);
    if (leader[nd] < 0) leader[nd] = w;
    if (!seen[nd]) {
      seen[nd] = 1;
      order.push_back(static_cast<int>(nd));
    }
  }
  const int nodes = static_cast<int>(order.size());
  if (nodes == 1 || nodes == t.size()) return l;
  l.flat = false;
  const int my_node = topo.my_node();
  l.node.ctx = l.leaders.ctx = t.ctx;
  for (int w : t.members) {
    if (topo.node_of[static_cast<std::size_t>(w)] != my_node) continue;
    if (w == rt.me()) l.node.me = l.node.size();
    if (w == leader[static_cast<std::size_t>(my_node)]) l.node_root = l.node.size();
    l.node.members.push_back(w);
  }
  for (int nd : order) {
    int w = leader[static_cast<std::size_t>(nd)];
    if (w == rt.me()) l.leaders.me = l.leaders.size();
    if (nd == root_node) l.leader_root = l.leaders.size();
    l.leaders.members.push_back(w);
  }
  return l;
}
}  // namespace

void barrier(Runtime& rt, const Team& t) {
  Levels l = levels(rt, t, 0);
  if (l.flat) return flat_barrier(rt, t, kFlat.barrier);
  flat_reduce(rt, l.node, l.node_root, nullptr, 0, ARMCI_INT, ReduceOp::Sum, kInNode.barrier);
  if (l.leaders.member()) flat_barrier(rt, l.leaders, kAmongLeaders.barrier);
  flat_bcast(rt, l.node, l.node_root, nullptr, 0, kInNode.barrier);
}

void bcast(Runtime& rt, const Team& t, int root, void* buf, std::size_t len) {
  if (t.size() == 1) return;
  Levels l = levels(rt, t, root);
  if (l.flat) return flat_bcast(rt, t, root, buf, len, kFlat.bcast);
  if (l.leaders.member()) flat_bcast(rt, l.leaders, l.leader_root, buf, len, kAmongLeaders.bcast);
  flat_bcast(rt, l.node, l.node_root, buf, len, kInNode.bcast);
}

void reduce(Runtime& rt, const Team& t, int root, void* buf, std::size_t n_elems, int type,
            ReduceOp op) {
  reduce_prepare(type, op, buf, n_elems);
  if (t.size() == 1) return;
  Levels l = levels(rt, t, root);
  if (l.flat) return flat_reduce(rt, t, root, buf, n_elems, type, op, kFlat.reduce);
  flat_reduce(rt, l.node, l.node_root, buf, n_elems, type, op, kInNode.reduce);
  if (l.leaders.member())
    flat_reduce(rt, l.leaders, l.leader_root, buf, n_elems, type, op, kAmongLeaders.reduce);
}

void allreduce(Runtime& rt, const Team& t, void* buf, std::size_t n, int type, ReduceOp op) {
  reduce(rt, t, 0, buf, n, type, op);
  bcast(rt, t, 0, buf, n * msg_type_size(type));
}

void allgather(Runtime& rt, const Team& t, const void* mine, std::size_t len, void* all) {
  char* out = static_cast<char*>(all);
  const int n = t.size();
  auto at = [&](int rank) { return out + static_cast<std::size_t>(rank) * len; };
  if (len) std::memcpy(at(t.me), mine, len);
  Levels l = levels(rt, t, 0);
  if (l.flat) {
    if (t.me == 0) {
      for (int i = 1; i < n; ++i) rcv(rt, t, kFlat.gather, i, at(i), len, "allgather");
    } else {
      snd(rt, t, kFlat.gather, 0, mine, len);
    }
    return flat_bcast(rt, t, 0, all, len * static_cast<std::size_t>(n), kFlat.bcast);
  }
  // Leaders collect their node's pieces and forward them as one message, in
  // the node's member order, which the root can work out from the topology.
  if (!l.leaders.member()) {
    snd(rt, l.node, kInNode.gather, l.node_root, mine, len);
  } else {
    std::vector<char> pack(len * static_cast<std::size_t>(l.node.size()));
    for (int i = 0; i < l.node.size(); ++i) {
      char* dst = pack.data() + static_cast<std::size_t>(i) * len;
      if (i == l.node.me) {
        if (len) std::memcpy(dst, mine, len);
      } else {
        rcv(rt, l.node, kInNode.gather, i, dst, len, "allgather");
      }
    }
    if (l.leaders.me != l.leader_root) {
      snd(rt, l.leaders, kAmongLeaders.gather, l.leader_root, pack.data(), pack.size());
    } else {
      const auto& node_of = rt.topo.node_of;
      std::vector<std::vector<int>> on_node(static_cast<std::size_t>(rt.topo.nnodes));
      for (int r = 0; r < n; ++r)
        on_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(t.world(r))])].push_back(r);
      for (int li = 0; li < l.leaders.size(); ++li) {
        const auto& ranks = on_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(l.leaders.world(li))])];
        if (li != l.leader_root) {
          pack.resize(len * ranks.size());
          rcv(rt, l.leaders, kAmongLeaders.gather, li, pack.data(), pack.size(), "allgather");
        }
        for (std::size_t k = 0; k < ranks.size(); ++k)
          if (len) std::memcpy(at(ranks[k]), pack.data() + k * len, len);
      }
    }
  }
  bcast(rt, t, 0, all, len * static_cast<std::size_t>(n));
}

Team node_team(Runtime& rt, const Team& t) {
  Team s;
  s.ctx = ctx_node_scope(t.ctx);
  for (int w : t.members)
    if (rt.topo.same_node(w)) {
      if (w == rt.me()) s.me = s.size();
      s.members.push_back(w);
    }
  return s;
}

Team masters_team(Runtime& rt, const Team& t) {
  Team s;
  s.ctx = ctx_masters_scope(t.ctx);
  std::vector<char> seen(static_cast<std::size_t>(rt.topo.nnodes), 0);
  for (int w : t.members) {
    int nd = rt.topo.node_of[static_cast<std::size_t>(w)];
    if (seen[static_cast<std::size_t>(nd)]) continue;
    seen[static_cast<std::size_t>(nd)] = 1;
    if (w == rt.me()) s.me = s.size();
    s.members.push_back(w);
  }
  return s;
}

}  // namespace armci::coll
