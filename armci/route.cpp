#include "armci/route.hpp"

#include "armci/runtime.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/shm.hpp"

namespace armci::route {

namespace {

using transport::Request;

// What an operation to another node counts on: a stack request for a
// blocking call (waited for here), the request behind the user's handle, or
// none (implicit: WaitAll/WaitProc/fences complete it).  A handle whose
// operations all completed while posting is released at once.
class Completion {
 public:
  Completion(Runtime& r, armci_hdl_t* h) : r_(r), h_(h) {
    if (!h) {
      stack_.blocking = true;
      req = &stack_;
    } else if (h != kImplicit) {
      req = r.handles.for_handle(h);
    }
  }
  void finish() {
    if (!h_) r_.ofi->wait(stack_);
    else if (req && !req->aggregate && req->pending.load(std::memory_order_acquire) == 0) r_.handles.release(h_);
  }
  Request* req = nullptr;

 private:
  Runtime& r_;
  armci_hdl_t* h_;
  Request stack_;
};

int node_of(const Runtime& r, int proc) { return r.topo.node_of[static_cast<std::size_t>(proc)]; }

// A data movement through libfabric, completed as h says.
template <typename Op>
void other_node(Runtime& r, armci_hdl_t* h, Op&& op) {
  Completion c(r, h);
  op(*r.ofi, c.req);
  c.finish();
}

// One data movement: op(transport, request) through shared memory to this
// node, through libfabric to the others.
template <typename Op>
void transfer(Runtime& r, int proc, armci_hdl_t* h, std::size_t pieces, Op&& op) {
  if (!r.topo.same_node(proc)) return other_node(r, h, op);
  op(*r.shm, nullptr);
  r.stats.local_ops += pieces;
}

// Accumulates and Rmw: by the CPU on this node, unless the NIC does this
// kind natively (then every process's go through the NIC).
template <typename Op>
void update(Runtime& r, int proc, bool native, std::size_t pieces, Op&& op) {
  if (r.topo.same_node(proc) && !native) {
    op(*r.shm);
    r.stats.local_ops += pieces;
    return;
  }
  op(*r.ofi);
}

bool native_acc(Runtime& r, int optype) { return r.ofi && r.ofi->native_acc(optype); }
bool native_rmw(Runtime& r, int op) { return r.ofi && r.ofi->native_rmw(op); }
uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

Target resolve(Runtime& r, int proc, const void* base, std::size_t len) {
  // Keys are needed across nodes, and on this node when the NIC does
  // accumulates/Rmw (those go through it too).
  if (r.ofi) return r.ofi->resolve(node_of(r, proc), addr(base), len);
  return r.addresses.unkeyed(proc);  // one node: nothing to resolve
}

namespace detail {

void put_other_node(Runtime& r, const Target& at, const void* src, void* dst, std::size_t n, armci_hdl_t* h) {
  other_node(r, h, [&](transport::Ofi& t, Request* q) { t.put(at, src, addr(dst), n, q); });
}

void get_other_node(Runtime& r, const Target& at, const void* src, void* dst, std::size_t n, armci_hdl_t* h) {
  other_node(r, h, [&](transport::Ofi& t, Request* q) { t.get(at, addr(src), dst, n, q); });
}

}  // namespace detail

void acc(Runtime& r, int proc, const Target& at, int optype, const void* scale, const void* src, void* dst,
         std::size_t n) {
  update(r, proc, native_acc(r, optype), 1, [&](auto& t) { t.acc(at, optype, scale, src, addr(dst), n); });
}

void put_strided(Runtime& r, int proc, const Target& at, const void* src, void* dst, const StridedShape& s,
                 armci_hdl_t* h) {
  transfer(r, proc, h, 1, [&](auto& t, Request* q) { t.put_strided(at, src, addr(dst), s, q); });
}

void get_strided(Runtime& r, int proc, const Target& at, const void* src, void* dst, const StridedShape& s,
                 armci_hdl_t* h) {
  transfer(r, proc, h, 1, [&](auto& t, Request* q) { t.get_strided(at, addr(src), dst, s, q); });
}

void acc_strided(Runtime& r, int proc, const Target& at, int optype, const void* scale, const void* src,
                 void* dst, const StridedShape& s) {
  update(r, proc, native_acc(r, optype), 1,
         [&](auto& t) { t.acc_strided(at, optype, scale, src, addr(dst), s); });
}

void put_pieces(Runtime& r, int proc, const Target& at, Pieces p, armci_hdl_t* h) {
  transfer(r, proc, h, p.size(), [&](auto& t, Request* q) { t.put_pieces(at, p, q); });
}

void get_pieces(Runtime& r, int proc, const Target& at, Pieces p, armci_hdl_t* h) {
  transfer(r, proc, h, p.size(), [&](auto& t, Request* q) { t.get_pieces(at, p, q); });
}

void acc_pieces(Runtime& r, int proc, const Target& at, int optype, const void* scale, Pieces p) {
  update(r, proc, native_acc(r, optype), p.size(), [&](auto& t) { t.acc_pieces(at, optype, scale, p); });
}

void rmw(Runtime& r, int proc, const Target& at, int op, void* ploc, void* prem, long extra) {
  update(r, proc, native_rmw(r, op), 1, [&](auto& t) { t.rmw(at, op, ploc, addr(prem), extra); });
}

void signal(Runtime& r, int proc, const transport::Signal& s) {
  if (r.topo.same_node(proc)) r.shm->signal(0, s);
  else r.ofi->signal(node_of(r, proc), s);
}

void lock(Runtime& r, int proc, void* l) {
  if (r.topo.same_node(proc)) r.shm->lock(0, addr(l));
  else r.ofi->lock(node_of(r, proc), addr(l));
}

bool trylock(Runtime& r, int proc, void* l) {
  return r.topo.same_node(proc) ? r.shm->trylock(0, addr(l)) : r.ofi->trylock(node_of(r, proc), addr(l));
}

void unlock(Runtime& r, int proc, void* l) {
  // What was written under the lock, on any node, is in place before the
  // next holder runs (the ofi unlock fences all nodes itself).
  if (r.topo.same_node(proc)) {
    fence_all(r);
    r.shm->unlock(0, addr(l));
  } else {
    r.ofi->unlock(node_of(r, proc), addr(l));
  }
}

void fence(Runtime& r, int proc) {
  r.shm->fence(0);
  if (!r.topo.same_node(proc)) r.ofi->fence(node_of(r, proc));
}

void fence_all(Runtime& r) {
  r.shm->fence_all();
  if (r.ofi) r.ofi->fence_all();
}

// A handle with nothing in flight (every operation of one node, or an
// aggregate handle opened on one) has no transport to ask.
void wait(Runtime& r, armci_hdl_t* h) {
  if (Request* q = r.handles.lookup(*h); q && r.ofi) r.ofi->wait(*q);
  r.handles.release(h);
}

bool test(Runtime& r, armci_hdl_t* h) {
  Request* q = r.handles.lookup(*h);
  if (!q || !r.ofi) {
    r.handles.release(h);
    return true;
  }
  if (!r.ofi->test(*q)) return false;
  r.handles.release(h);
  return true;
}

void wait_proc(Runtime& r, int proc) {
  if (!r.topo.same_node(proc)) r.ofi->wait_node(node_of(r, proc));
}

void wait_all(Runtime& r) {
  if (r.ofi) r.ofi->wait_all();
}

void progress(Runtime& r) {
  if (r.ofi) r.ofi->progress();
}

void flush(Runtime& r) {
  if (r.ofi) r.ofi->flush();
}

void learn_segment(Runtime& r, int node, uint32_t index, uint64_t off, uint64_t size, const uint64_t* keys) {
  if (r.ofi) r.ofi->learn_segment(node, index, off, size, keys);
}

std::size_t key_table_entries(Runtime& r) { return r.ofi ? r.ofi->key_table_entries() : 0; }

}  // namespace armci::route
