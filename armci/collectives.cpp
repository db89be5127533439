#include "armci/collectives.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "armci/node_coll.hpp"
#include "armci/route.hpp"
#include "armci/runtime.hpp"
#include "transports/ofi/ofi.hpp"

namespace armci::coll {

namespace {
// One tag per level of a hierarchical collective that sends messages (steps
// inside a node go through NodeColl), so a level's messages never match
// another level's whatever the members' progress.  Within a level all
// collectives share the tag: messages between two processes arrive in order,
// so a member that called a different collective receives the other's
// message and the stamp below tells it so, at once, instead of both waiting
// for messages that never come.
constexpr int kFlat = -101;
constexpr int kAmongLeaders = -111;

// Heads every collective message: the public call that made it and its
// number among the collectives of the team.
struct Stamp {
  char call[44] = {};
  uint32_t seq = 0;
};

struct Op {
  Op(Runtime& r, const char* c, uint32_t s, const char* st) : rt(r), call(c), seq(s), step(st) {}
  Runtime& rt;
  const char* call;  // the public call, in reports too
  uint32_t seq;      // the collective's number on its team
  const char* step;  // for reports: barrier, broadcast, ...
  uint32_t phase = 0;  // in-node steps so far (NodeColl::Key)
  uint32_t call_id = 0;  // NodeColl::call_id(call), once an in-node step needs it
  NodeColl::Key key(const Team& t) {
    if (!call_id) call_id = NodeColl::call_id(call);
    return NodeColl::Key{t.ctx, seq, phase++, call, call_id, step};
  }
  // The header of this collective's messages, made when the first is sent
  // or received (collectives inside a node send none).
  const Stamp& stamp() const {
    if (!wire) {
      wire.emplace();
      for (std::size_t i = 0; i + 1 < sizeof wire->call && call[i]; ++i) wire->call[i] = call[i];
      wire->seq = seq;
    }
    return *wire;
  }

 private:
  mutable std::optional<Stamp> wire;
};

// A collective's messages to other processes are copies the provider may
// still be sending when it returns (a rendezvous needs the sender's
// progress until the receiver has read it); if this process then left the
// library (to compute, or into MPI), the receiver would wait for it.  So a
// collective returns only once they are all sent.
// It also orders the collective after what this node's agent did before
// (Runtime::agent_sync), and what follows before what it does next.
// One node's jobs have no node agent moving data for the network.
struct SendsDone {
  Runtime& rt;
  ~SendsDone() {
    if (!rt.ofi) return;
    rt.ofi->msg_drain();
    rt.agent_sync.fetch_add(1, std::memory_order_acq_rel);
  }
};

Op start(Runtime& rt, const Team& t, const char* call, const char* step) {
  if (rt.ofi) {
    route::flush(rt);  // coalesced operations go before the collective's messages
    rt.agent_sync.fetch_add(1, std::memory_order_acq_rel);
  }
  return Op(rt, call, rt.mailbox.next_collective(t.ctx), step);
}

// Messages between nodes go from process to process (ARMCI_COLL_DIRECT, where
// the provider allows): the receiver takes them off its own endpoint.  The
// rest go through the mailbox.
bool direct(const Op& op, int peer) {
  return op.rt.ofi && !op.rt.topo.same_node(peer) && op.rt.ofi->direct_messages();
}

// The tag of a message from `src` on context ctx at a level: the sender is
// part of it, so a receive matches that sender's messages only, in order.
uint64_t msg_tag(int src, uint32_t ctx, int tag) {
  return uint64_t{static_cast<uint32_t>(src) & 0xffffffu} << 40 | uint64_t{ctx} << 8 |
         static_cast<uint8_t>(-tag);
}

// Bodies this large are sent from the caller's buffer (no copy) when the
// caller says it stays untouched until sent() or the collective's end.
constexpr std::size_t kBorrowFrom = 64 * 1024;

void snd(Op& op, const Team& t, int tag, int to, const void* buf, std::size_t len, bool borrow = false) {
  const int peer = t.world(to);
  if (direct(op, peer))
    return op.rt.ofi->msg_send(peer, msg_tag(op.rt.me(), t.ctx, tag), &op.stamp(), sizeof(Stamp), buf, len,
                               borrow && len >= kBorrowFrom);
  op.rt.mailbox.send(t.ctx, tag, peer, &op.stamp(), sizeof(Stamp), buf, len);
}

// Waits until the messages sent so far have left (their buffers may change).
void sent(Op& op) {
  if (op.rt.ofi) op.rt.ofi->msg_drain();
}

[[noreturn]] void mismatch(const Op& op, int peer, const Stamp& theirs) {
  fatal(op.call,
        "collectives do not match: this process (%d) is in %s, its collective #%u on this group, "
        "but process %d sent its part of %s, its collective #%u (every member must make the same "
        "collective calls in the same order)",
        op.rt.me(), op.call, op.seq, peer, theirs.call, theirs.seq);
}

Stamp stamp_of(const Op& op, int peer, const std::vector<char>& m) {
  Stamp s;
  if (m.size() < sizeof s)
    fatal(op.call, "collective message of %zu bytes from process %d is too short for its header", m.size(), peer);
  std::memcpy(&s, m.data(), sizeof s);
  s.call[sizeof s.call - 1] = '\0';
  return s;
}

void check_stamp(const Op& op, int peer, Stamp theirs) {
  theirs.call[sizeof theirs.call - 1] = '\0';
  if (theirs.seq != op.seq || std::strcmp(theirs.call, op.stamp().call) != 0) mismatch(op, peer, theirs);
}

[[noreturn]] void wrong_size(const Op& op, int peer, std::size_t got, std::size_t len) {
  fatal(op.call, "collective #%u (%s): %zu bytes from process %d where %zu were expected "
        "(members passed different sizes?)", op.seq, op.step, got, peer, len);
}

// Straight into buf, the stamp beside it.
void rcv_direct(Op& op, const Team& t, int tag, int peer, void* buf, std::size_t len) {
  char what[160];
  std::snprintf(what, sizeof what, "process %d's part of collective #%u (%s, %s)", peer, op.seq,
                op.call, op.step);
  Stamp theirs;
  bool longer = false;
  const std::size_t n = op.rt.ofi->msg_recv(peer, msg_tag(peer, t.ctx, tag), &theirs, sizeof theirs, buf, len,
                                            what, &longer);
  if (n < sizeof theirs)
    fatal(op.call, "collective message of %zu bytes from process %d is too short for its header", n, peer);
  check_stamp(op, peer, theirs);
  if (longer || n - sizeof theirs != len) wrong_size(op, peer, longer ? len + 1 : n - sizeof theirs, len);
}

void rcv(Op& op, const Team& t, int tag, int from, void* buf, std::size_t len) {
  const int peer = t.world(from);
  if (direct(op, peer)) return rcv_direct(op, t, tag, peer, buf, len);
  std::vector<char> m;
  // A message from another member that is already here tells on a mismatch
  // even when the one awaited never comes: the same number from another
  // call, or a number this process is past (it was never received).  A
  // later number is fine: that member finished this collective already.
  auto others = [&](int src, const std::vector<char>& m) {
    const Stamp s = stamp_of(op, src, m);
    if (static_cast<int32_t>(s.seq - op.seq) < 0 ||
        (s.seq == op.seq && std::strcmp(s.call, op.stamp().call) != 0))
      mismatch(op, src, s);
  };
  if (!op.rt.mailbox.try_recv_whole(t.ctx, tag, peer, m)) {
    char what[160];
    std::snprintf(what, sizeof what, "process %d's part of collective #%u (%s, %s)", peer, op.seq,
                  op.call, op.step);
    m = op.rt.mailbox.recv_whole(t.ctx, tag, peer, op.call, what, others);
  }
  const Stamp theirs = stamp_of(op, peer, m);
  check_stamp(op, peer, theirs);
  if (m.size() - sizeof theirs != len) wrong_size(op, peer, m.size() - sizeof theirs, len);
  if (len) std::memcpy(buf, m.data() + sizeof theirs, len);
}

// ---- one level: binomial trees and dissemination over a team ----

void flat_barrier(Op& op, const Team& t, int tag) {
  const int n = t.size();
  for (int k = 1; k < n; k <<= 1) {
    snd(op, t, tag, (t.me + k) % n, nullptr, 0);
    rcv(op, t, tag, (t.me - k + n) % n, nullptr, 0);
  }
}

void flat_bcast(Op& op, const Team& t, int root, void* buf, std::size_t len, int tag) {
  const int n = t.size();
  if (n == 1) return;
  const int vr = (t.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      rcv(op, t, tag, (vr - mask + root) % n, buf, len);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (vr + mask < n) snd(op, t, tag, (vr + mask + root) % n, buf, len, true);
    mask >>= 1;
  }
}

// Combines into `buf` at `root`; n_elems == 0 makes it a pure fan-in.
void flat_reduce(Op& o, const Team& t, int root, void* buf, std::size_t n_elems, int type,
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
        rcv(o, t, tag, (child + root) % n, tmp.data(), bytes);
        if (n_elems) reduce_combine(type, op, buf, tmp.data(), n_elems);
      }
    } else {
      snd(o, t, tag, (vr - mask + root) % n, buf, bytes, true);
      break;
    }
  }
}

// Every member ends with the combination of all: recursive doubling, so the
// result is ready after log2(n) exchange rounds instead of a reduction up a
// tree and a broadcast down it (two latencies per level instead of one).
// Both partners of a round combine the same two operands in the same order
// (the lower rank's on the left), so all members hold bit-identical results
// whatever the operator or type.  When n is not a power of two the first
// 2*extra members pair up first: the even one hands its operand to the odd
// one and gets the result back at the end.
void flat_allreduce(Op& o, const Team& t, void* buf, std::size_t n_elems, int type, ReduceOp op, int tag) {
  const int n = t.size();
  if (n == 1) return;
  const std::size_t bytes = n_elems * msg_type_size(type);
  std::vector<char> theirs(bytes);
  int p2 = 1;
  while (p2 * 2 <= n) p2 *= 2;
  const int extra = n - p2;
  const int me = t.me;
  // Combines `theirs` into buf, `mine_first` choosing the operand order.
  auto combine = [&](bool mine_first) {
    if (mine_first) return reduce_combine(type, op, buf, theirs.data(), n_elems);
    reduce_combine(type, op, theirs.data(), buf, n_elems);
    std::memcpy(buf, theirs.data(), bytes);
  };
  int vr;  // my rank among the p2 members of the doubling rounds; -1: folded in
  if (me < 2 * extra) {
    if (me % 2 == 0) {
      snd(o, t, tag, me + 1, buf, bytes, true);
      vr = -1;
    } else {
      rcv(o, t, tag, me - 1, theirs.data(), bytes);
      combine(false);
      vr = me / 2;
    }
  } else {
    vr = me - extra;
  }
  if (vr >= 0) {
    auto real = [&](int v) { return v < extra ? 2 * v + 1 : v + extra; };
    for (int mask = 1; mask < p2; mask <<= 1) {
      const int partner = real(vr ^ mask);
      snd(o, t, tag, partner, buf, bytes, true);
      rcv(o, t, tag, partner, theirs.data(), bytes);
      sent(o);  // the partner has read buf: it may change now
      combine(vr < (vr ^ mask));
    }
    if (me < 2 * extra) snd(o, t, tag, me - 1, buf, bytes, true);
  } else {
    sent(o);  // the result lands where my operand was read from
    rcv(o, t, tag, me + 1, buf, bytes);
  }
}

// ---- two levels: members of a node, then one leader per node ----
//
// Messages between nodes are what a collective costs (each is an active
// message); inside a node they are a few stores.  So the trees run inside
// each node first and only the node leaders talk across nodes.

struct Levels {
  bool flat = true;  // one node, or one member per node: a single level pays
  bool one_node = false;  // every member on my node: shared memory only
  Team node;         // the members of t on my node, in t's order
  int node_root = 0; // my node's leader, as a rank of `node`
  Team leaders;      // one member per node (the root's node: the root)
  int leader_root = 0;
  // Names the leaders' member list among those of t's context (MpiColl):
  // the root's world rank, which picks the only leader that varies.
  int anchor() const { return leaders.world(leader_root); }
};

// A small team with one member per node, answered without allocating (its
// collectives are a few microseconds, MPI's call where MpiColl takes them).
bool one_per_node(const Runtime& rt, const Team& t) {
  constexpr int kSmall = 16;
  if (t.size() > kSmall) return false;
  int nodes[kSmall];
  for (int i = 0; i < t.size(); ++i) {
    nodes[i] = rt.topo.node_of[static_cast<std::size_t>(t.world(i))];
    for (int j = 0; j < i; ++j)
      if (nodes[j] == nodes[i]) return false;
  }
  return true;
}

Levels levels(Runtime& rt, const Team& t, int root) {
  Levels l;
  const auto& topo = rt.topo;
  // The common cases first, without building anything: one node, or one
  // member per node.
  l.one_node = std::all_of(t.members.begin(), t.members.end(), [&](int w) { return topo.same_node(w); });
  if (l.one_node || one_per_node(rt, t)) return l;
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
  l.one_node = nodes == 1;
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

// Steps among processes of different nodes (a team with one member per
// node, anchor -1, or the leaders): MPI's collectives where the job runs
// MPI (MpiColl), our own messages otherwise.  Inside MPI nothing drives
// our endpoint, so messages of ours an earlier step sent (an allgather's
// pieces, on their way to a root that waits for them) must have left.
bool to_mpi(Op& op) {
  if (!op.rt.mpi_coll.on()) return false;
  sent(op);
  return true;
}
void across_barrier(Op& op, const Team& t, int anchor, int tag) {
  if (!(to_mpi(op) && op.rt.mpi_coll.barrier(t, anchor))) flat_barrier(op, t, tag);
}
void across_bcast(Op& op, const Team& t, int anchor, int root, void* buf, std::size_t len, int tag) {
  if (!(to_mpi(op) && op.rt.mpi_coll.bcast(t, anchor, root, buf, len))) flat_bcast(op, t, root, buf, len, tag);
}
void across_reduce(Op& o, const Team& t, int anchor, int root, void* buf, std::size_t n, int type, ReduceOp op,
                   int tag) {
  if (!(to_mpi(o) && o.rt.mpi_coll.reduce(t, anchor, root, buf, n, type, op)))
    flat_reduce(o, t, root, buf, n, type, op, tag);
}
void across_allreduce(Op& o, const Team& t, int anchor, void* buf, std::size_t n, int type, ReduceOp op, int tag) {
  if (!(to_mpi(o) && o.rt.mpi_coll.allreduce(t, anchor, buf, n, type, op))) flat_allreduce(o, t, buf, n, type, op, tag);
}

// Steps among the members of one node: through NodeColl's shared buffers.
void node_reduce(Op& op, const Team& node, int root, void* buf, std::size_t n, int type, ReduceOp o) {
  op.rt.node_coll.reduce(node, root, buf, n, type, o, op.key(node));
}
void node_bcast(Op& op, const Team& node, int root, void* buf, std::size_t len) {
  op.rt.node_coll.bcast(node, root, buf, len, op.key(node));
}
// A barrier of one node: everyone publishes, everyone reads everyone.
void node_barrier(Op& op, const Team& node) {
  op.rt.node_coll.allreduce(node, nullptr, 0, ARMCI_INT, ReduceOp::Sum, op.key(node));
  ++op.phase;
}

}  // namespace

namespace {

void barrier(Op& op, const Team& t) {
  Levels l = levels(op.rt, t, 0);
  if (l.one_node) return node_barrier(op, t);
  if (l.flat) return across_barrier(op, t, -1, kFlat);
  node_reduce(op, l.node, l.node_root, nullptr, 0, ARMCI_INT, ReduceOp::Sum);
  if (l.leaders.member()) across_barrier(op, l.leaders, l.anchor(), kAmongLeaders);
  node_bcast(op, l.node, l.node_root, nullptr, 0);
}

void bcast(Op& op, const Team& t, int root, void* buf, std::size_t len) {
  if (t.size() == 1) return;
  Levels l = levels(op.rt, t, root);
  if (l.one_node) return node_bcast(op, t, root, buf, len);
  if (l.flat) return across_bcast(op, t, -1, root, buf, len, kFlat);
  if (l.leaders.member()) across_bcast(op, l.leaders, l.anchor(), l.leader_root, buf, len, kAmongLeaders);
  node_bcast(op, l.node, l.node_root, buf, len);
}

void reduce(Op& o, const Team& t, int root, void* buf, std::size_t n_elems, int type, ReduceOp op) {
  reduce_prepare(type, op, buf, n_elems);
  if (t.size() == 1) return;
  Levels l = levels(o.rt, t, root);
  if (l.one_node) return node_reduce(o, t, root, buf, n_elems, type, op);
  if (l.flat) return across_reduce(o, t, -1, root, buf, n_elems, type, op, kFlat);
  node_reduce(o, l.node, l.node_root, buf, n_elems, type, op);
  if (l.leaders.member())
    across_reduce(o, l.leaders, l.anchor(), l.leader_root, buf, n_elems, type, op, kAmongLeaders);
}

}  // namespace

void barrier(Runtime& rt, const Team& t, const char* call) {
  Op op = start(rt, t, call, "barrier");
  SendsDone done{rt};
  barrier(op, t);
}

void bcast(Runtime& rt, const Team& t, int root, void* buf, std::size_t len, const char* call) {
  Op op = start(rt, t, call, "broadcast");
  SendsDone done{rt};
  bcast(op, t, root, buf, len);
}

void reduce(Runtime& rt, const Team& t, int root, void* buf, std::size_t n, int type, ReduceOp op,
            const char* call) {
  Op o = start(rt, t, call, "reduction");
  SendsDone done{rt};
  reduce(o, t, root, buf, n, type, op);
}

void allreduce(Runtime& rt, const Team& t, void* buf, std::size_t n, int type, ReduceOp op,
               const char* call) {
  Op o = start(rt, t, call, "allreduce");
  SendsDone done{rt};
  reduce_prepare(type, op, buf, n);
  if (t.size() == 1) return;
  // Inside a node: up a tree to the leader and back down (a few stores per
  // hop); between the leaders, whose messages are what it costs: exchanges.
  Levels l = levels(rt, t, 0);
  if (l.one_node) {
    rt.node_coll.allreduce(t, buf, n, type, op, o.key(t));
    ++o.phase;
    return;
  }
  if (l.flat) return across_allreduce(o, t, -1, buf, n, type, op, kFlat);
  node_reduce(o, l.node, l.node_root, buf, n, type, op);
  if (l.leaders.member()) across_allreduce(o, l.leaders, l.anchor(), buf, n, type, op, kAmongLeaders);
  node_bcast(o, l.node, l.node_root, buf, n * msg_type_size(type));
}

void allgather(Runtime& rt, const Team& t, const void* mine, std::size_t len, void* all, const char* call) {
  Op op = start(rt, t, call, "allgather");
  SendsDone done{rt};
  char* out = static_cast<char*>(all);
  const int n = t.size();
  auto at = [&](int rank) { return out + static_cast<std::size_t>(rank) * len; };
  if (len) std::memcpy(at(t.me), mine, len);
  Levels l = levels(rt, t, 0);
  if (l.one_node) {
    rt.node_coll.gather(t, 0, mine, len, all, op.key(t));
    return bcast(op, t, 0, all, len * static_cast<std::size_t>(n));
  }
  if (l.flat) {
    if (t.me == 0) {
      for (int i = 1; i < n; ++i) rcv(op, t, kFlat, i, at(i), len);
    } else {
      snd(op, t, kFlat, 0, mine, len);
    }
    return bcast(op, t, 0, all, len * static_cast<std::size_t>(n));
  }
  // Leaders collect their node's pieces and forward them as one message, in
  // the node's member order, which the root can work out from the topology.
  std::vector<char> pack(l.leaders.member() ? len * static_cast<std::size_t>(l.node.size()) : 0);
  rt.node_coll.gather(l.node, l.node_root, mine, len, pack.data(), op.key(l.node));
  if (l.leaders.member()) {
    if (l.leaders.me != l.leader_root) {
      snd(op, l.leaders, kAmongLeaders, l.leader_root, pack.data(), pack.size());
    } else {
      const auto& node_of = rt.topo.node_of;
      std::vector<std::vector<int>> on_node(static_cast<std::size_t>(rt.topo.nnodes));
      for (int r = 0; r < n; ++r)
        on_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(t.world(r))])].push_back(r);
      for (int li = 0; li < l.leaders.size(); ++li) {
        const auto& ranks = on_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(l.leaders.world(li))])];
        if (li != l.leader_root) {
          pack.resize(len * ranks.size());
          rcv(op, l.leaders, kAmongLeaders, li, pack.data(), pack.size());
        }
        for (std::size_t k = 0; k < ranks.size(); ++k)
          if (len) std::memcpy(at(ranks[k]), pack.data() + k * len, len);
      }
    }
  }
  bcast(op, t, 0, all, len * static_cast<std::size_t>(n));
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
