#include "armci/collectives.hpp"

#include <cstring>
#include <vector>

#include "armci/runtime.hpp"

namespace armci::coll {

namespace {
constexpr int kTagBarrier = -101;
constexpr int kTagBcast = -102;
constexpr int kTagReduce = -103;
constexpr int kTagGather = -104;

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
}  // namespace

void barrier(Runtime& rt, const Team& t) {
  const int n = t.size();
  for (int k = 1; k < n; k <<= 1) {
    snd(rt, t, kTagBarrier, (t.me + k) % n, nullptr, 0);
    rcv(rt, t, kTagBarrier, (t.me - k + n) % n, nullptr, 0, "barrier");
  }
}

void bcast(Runtime& rt, const Team& t, int root, void* buf, std::size_t len) {
  const int n = t.size();
  if (n == 1) return;
  const int vr = (t.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      rcv(rt, t, kTagBcast, (vr - mask + root) % n, buf, len, "broadcast");
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (vr + mask < n) snd(rt, t, kTagBcast, (vr + mask + root) % n, buf, len);
    mask >>= 1;
  }
}

void reduce(Runtime& rt, const Team& t, int root, void* buf, std::size_t n_elems, int type,
            ReduceOp op) {
  const int n = t.size();
  const std::size_t bytes = n_elems * msg_type_size(type);
  reduce_prepare(type, op, buf, n_elems);
  if (n == 1) return;
  std::vector<char> tmp(bytes);
  const int vr = (t.me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) == 0) {
      int child = vr | mask;
      if (child < n) {
        rcv(rt, t, kTagReduce, (child + root) % n, tmp.data(), bytes, "reduction");
        reduce_combine(type, op, buf, tmp.data(), n_elems);
      }
    } else {
      snd(rt, t, kTagReduce, (vr - mask + root) % n, buf, bytes);
      break;
    }
  }
}

void allreduce(Runtime& rt, const Team& t, void* buf, std::size_t n, int type, ReduceOp op) {
  reduce(rt, t, 0, buf, n, type, op);
  bcast(rt, t, 0, buf, n * msg_type_size(type));
}

void allgather(Runtime& rt, const Team& t, const void* mine, std::size_t len, void* all) {
  char* out = static_cast<char*>(all);
  const int n = t.size();
  if (len) std::memcpy(out + static_cast<std::size_t>(t.me) * len, mine, len);
  if (t.me == 0) {
    for (int i = 1; i < n; ++i)
      rcv(rt, t, kTagGather, i, out + static_cast<std::size_t>(i) * len, len, "allgather");
  } else {
    snd(rt, t, kTagGather, 0, mine, len);
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
