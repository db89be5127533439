#include "armci/allocations.hpp"

#include <algorithm>
#include <cstring>

#include "armci/collectives.hpp"
#include "armci/errors.hpp"
#include "armci/route.hpp"
#include "armci/runtime.hpp"

namespace armci {

std::size_t block_alignment(std::size_t bytes) {
  // Page-aligned blocks can be placed on their owner's NUMA node; small ones
  // only need cache-line alignment.
  return bytes >= (64u << 10) ? 4096 : 64;
}

namespace {

std::size_t up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Offsets of each member's block inside its node's allocation, and the
// allocation's total size, from the sizes of the node's members.
struct NodeLayout {
  std::vector<std::size_t> offset;  // by team rank (valid for this node's members)
  std::size_t total = 0;
};

NodeLayout layout_for_node(const Runtime& rt, const Team& t, const std::vector<int64_t>& sizes,
                           int node) {
  NodeLayout l;
  l.offset.assign(static_cast<std::size_t>(t.size()), 0);
  std::size_t off = 0;
  for (int i = 0; i < t.size(); ++i) {
    if (rt.topo.node_of[static_cast<std::size_t>(t.world(i))] != node) continue;
    auto sz = static_cast<std::size_t>(sizes[static_cast<std::size_t>(i)]);
    off = up(off, block_alignment(sz));
    l.offset[static_cast<std::size_t>(i)] = off;
    off += sz;
  }
  l.total = up(off, 64);
  return l;
}

struct Exchange {
  int32_t status;    // 0 ok, else failed on this member's node
  uint32_t seg;      // segment of the node allocation
  uint64_t base;     // address of the node allocation (leaders only)
  uint64_t seg_off;
  uint64_t seg_size;
  uint64_t seg_keys[memory::kMaxNics];  // one per NIC in use
};

}  // namespace

int Allocations::malloc(Runtime& rt, const Team& t, std::size_t bytes, void** ptr_arr,
                        const char* call) {
  const int n = t.size();
  std::vector<int64_t> sizes(static_cast<std::size_t>(n));
  int64_t mine = static_cast<int64_t>(bytes);
  coll::allgather(rt, t, &mine, sizeof mine, sizes.data(), call);

  const int my_node = rt.topo.my_node();
  NodeLayout l = layout_for_node(rt, t, sizes, my_node);
  // The node's first member of the team allocates for all of them.
  int leader = -1;
  for (int i = 0; i < n && leader < 0; ++i)
    if (rt.topo.node_of[static_cast<std::size_t>(t.world(i))] == my_node) leader = i;
  Exchange ex{};
  uint64_t node_off = 0;
  bool own = false;
  if (leader == t.me && l.total > 0) {
    memory::NodeAllocation a = rt.heap->allocate(l.total, 4096, call);
    if (!a.ok) {
      warn(call, "%s", a.error.c_str());
      ex.status = kErrNoMem;
    } else {
      own = true;
      node_off = a.off;
      uintptr_t base = rt.heap->base() + a.off;
      // Each block on the NUMA node of its owner, then allocate the pages now.
      for (int i = 0; i < n; ++i) {
        int w = t.world(i);
        if (rt.topo.node_of[static_cast<std::size_t>(w)] != my_node) continue;
        int numa = rt.heap->ctl().procs[rt.topo.local_index[static_cast<std::size_t>(w)]].numa_node.load();
        rt.numa->bind_to(reinterpret_cast<void*>(base + l.offset[static_cast<std::size_t>(i)]),
                         static_cast<std::size_t>(sizes[static_cast<std::size_t>(i)]), numa);
      }
      if (int rc = rt.heap->commit(base, l.total)) {
        warn(call, "cannot allocate the pages of %s on this node: %s%s", format_bytes(l.total).c_str(),
             std::strerror(rc),
             rc == ENOSPC ? " (/dev/shm is full: raise its size or use ARMCI_SHM_BACKEND=memfd)" : "");
        rt.heap->release(a.off);
        own = false;
        ex.status = kErrNoMem;
      } else {
        int s = rt.heap->segment_of(base);
        const auto& e = rt.heap->ctl().seg[s];
        ex.seg = static_cast<uint32_t>(s);
        ex.base = base;
        ex.seg_off = e.off;
        ex.seg_size = e.size;
        std::copy(std::begin(e.keys), std::end(e.keys), ex.seg_keys);
      }
    }
  }
  std::vector<Exchange> all(static_cast<std::size_t>(n));
  coll::allgather(rt, t, &ex, sizeof ex, all.data(), call);

  int failed_node = -1;
  for (int i = 0; i < n; ++i)
    if (all[static_cast<std::size_t>(i)].status != 0)
      failed_node = rt.topo.node_of[static_cast<std::size_t>(t.world(i))];
  if (failed_node >= 0) {
    if (own) rt.heap->release(node_off);
    if (failed_node != my_node)
      warn(call, "allocation of %s failed on node %d (see its message); nothing was allocated",
           format_bytes(bytes).c_str(), failed_node);
    for (int i = 0; i < n; ++i) ptr_arr[i] = nullptr;
    return kErrNoMem;
  }

  // Every member's address from its node leader's base and the node layout.
  std::vector<uintptr_t> node_base(static_cast<std::size_t>(rt.topo.nnodes), 0);
  for (int i = 0; i < n; ++i) {
    const Exchange& e = all[static_cast<std::size_t>(i)];
    if (!e.base) continue;
    int nd = rt.topo.node_of[static_cast<std::size_t>(t.world(i))];
    node_base[static_cast<std::size_t>(nd)] = e.base;
    route::learn_segment(rt, nd, e.seg, e.seg_off, e.seg_size, e.seg_keys);
  }
  std::vector<NodeLayout> layouts(static_cast<std::size_t>(rt.topo.nnodes));
  std::vector<char> have(static_cast<std::size_t>(rt.topo.nnodes), 0);
  Record rec;
  rec.ctx = t.ctx;
  rec.ptrs.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    int nd = rt.topo.node_of[static_cast<std::size_t>(t.world(i))];
    if (!have[static_cast<std::size_t>(nd)]) {
      layouts[static_cast<std::size_t>(nd)] = layout_for_node(rt, t, sizes, nd);
      have[static_cast<std::size_t>(nd)] = 1;
    }
    void* p = nullptr;
    if (sizes[static_cast<std::size_t>(i)] > 0)
      p = reinterpret_cast<void*>(node_base[static_cast<std::size_t>(nd)] +
                                  layouts[static_cast<std::size_t>(nd)].offset[static_cast<std::size_t>(i)]);
    ptr_arr[i] = p;
    rec.ptrs[static_cast<std::size_t>(i)] = p;
  }
  // Every member's block goes into the address table; blocks on this node are
  // mapped here now (another process may have grown the heap for them).
  for (int i = 0; i < n; ++i) {
    auto sz = static_cast<std::size_t>(sizes[static_cast<std::size_t>(i)]);
    if (!sz) continue;
    auto p = reinterpret_cast<uintptr_t>(ptr_arr[i]);
    const int w = t.world(i);
    if (rt.topo.same_node(w)) rt.heap->contains(p, sz);
    rt.addresses.add(w, p, sz, route::resolve(rt, w, ptr_arr[i], sz));
  }
  if (verbose_on(2) && bytes) {
    void* p = ptr_arr[t.me];
    verbose(2, "%s: %s at %p, NUMA node %d", call, format_bytes(bytes).c_str(), p,
            rt.numa->location(p, bytes));
  }
  rec.node_owner = own;
  rec.node_off = node_off;
  live_.push_back(std::move(rec));
  ++rt.stats.mallocs;
  return 0;
}

int Allocations::free(Runtime& rt, const Team& t, void* ptr, const char* call) {
  // My operations into the memory must be complete before anyone frees it.
  route::fence_all(rt);
  std::vector<void*> ptrs(static_cast<std::size_t>(t.size()));
  coll::allgather(rt, t, &ptr, sizeof ptr, ptrs.data(), call);
  auto it = std::find_if(live_.begin(), live_.end(),
                         [&](const Record& r) { return r.ctx == t.ctx && r.ptrs == ptrs; });
  if (it == live_.end()) {
    // Every member sees the same pointers, so all report it.
    for (int i = 0; i < t.size(); ++i) {
      void* p = ptrs[static_cast<std::size_t>(i)];
      if (p != nullptr)
        bad_arg(call, "process %d passed %p, which does not start an allocation made by this "
                "group's ARMCI_Malloc (freed twice, or a different group is the default?)",
                t.world(i), p);
    }
    bad_arg(call, "every process passed NULL and no zero-size allocation of this group is live");
  }
  for (int i = 0; i < t.size(); ++i)
    if (void* p = it->ptrs[static_cast<std::size_t>(i)]) rt.addresses.remove(t.world(i), reinterpret_cast<uintptr_t>(p));
  if (it->node_owner) rt.heap->release(it->node_off);
  live_.erase(it);
  return 0;
}

void Allocations::start_local_pool(Runtime& rt) {
  pool_ = std::make_unique<memory::LocalPool>(*rt.heap, *rt.numa, static_cast<std::size_t>(rt.knobs.LOCAL_CACHE));
}

void* Allocations::malloc_local(Runtime& rt, std::size_t bytes, const char* call) {
  (void)rt;
  if (bytes == 0) return nullptr;
  std::string why;
  void* p = pool_->allocate(bytes, &why);
  if (!p) warn(call, "%s", why.c_str());
  return p;
}

int Allocations::free_local(Runtime& rt, void* ptr, const char* call) {
  (void)rt;
  if (!ptr) return 0;
  if (!pool_->release(ptr))
    bad_arg(call, "%p was not returned by ARMCI_Malloc_local (or was freed already)", ptr);
  return 0;
}

}  // namespace armci
