// Who holds what: distribution and location inquiries, direct access to
// blocks of this node (the node heap is mapped at the same address by all
// its processes, so another process's block is a plain pointer), process
// and cluster ids.
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_state.hpp"
#include "ga/registry.hpp"
#include "message.h"

using namespace ga;

namespace {

// The owner rank holding all of [lo, hi], on this node (NGA_Access rules).
int accessible_owner(const char* call, const Registry& r, const Array& a, const Box& p) {
  const int j = a.dist.owner_of(p.lo);
  const Box& blk = a.owner_box[static_cast<std::size_t>(j)];
  if (!blk.contains(p))
    fail(call, "patch lo=%s hi=%s spans several blocks of array %d ('%s'); it must lie in one block",
         show_index(a.ndim, p.lo).c_str(), show_index(a.ndim, p.hi).c_str(), a.handle, a.name.c_str());
  const int w = a.owner_world[static_cast<std::size_t>(j)];
  if (!r.same_node(w))
    fail(call,
         "patch lo=%s is held by process %d on node %d, not on this node (%d): only blocks of "
         "this node can be accessed directly",
         show_index(a.ndim, p.lo).c_str(), w, r.node_of[static_cast<std::size_t>(w)], r.my_node);
  return j;
}

Box nonempty_patch(const char* call, const Array& a, int* lo, int* hi) {
  Box p;
  if (!check_patch(call, a, lo, hi, p)) fail(call, "the patch is empty");
  return p;
}

}  // namespace

extern "C" {

void NGA_Distribution(int g_a, int iproc, int lo[], int hi[]) {
  guard("NGA_Distribution", [&] {
    const char* call = "NGA_Distribution";
    Array& a = reg(call).array(call, g_a);
    check_ptr(call, "lo", lo);
    check_ptr(call, "hi", hi);
    const int nproc =
        a.mirrored()
            ? static_cast<int>(a.mirror->node_members[static_cast<std::size_t>(a.mirror->my_node)].size())
            : static_cast<int>(a.members.size());
    if (iproc < 0 || iproc >= nproc)
      fail(call, "iproc %d is outside 0..%d (%s of array %d)", iproc, nproc - 1,
           a.mirrored() ? "node-local ranks" : "ranks of the group", g_a);
    Box b;
    a.dist.block_of(iproc, b);
    for (int d = 0; d < a.ndim; ++d) {
      lo[d] = b.lo[d];
      hi[d] = b.hi[d];
    }
  });
}

int NGA_Locate(int g_a, int subscript[]) {
  return guard("NGA_Locate", [&] {
    Array& a = reg("NGA_Locate").array("NGA_Locate", g_a);
    check_subscript("NGA_Locate", a, subscript, "subscript");
    return a.dist.owner_of(subscript);
  });
}

int NGA_Locate_region(int g_a, int lo[], int hi[], int map[], int procs[]) {
  return guard("NGA_Locate_region", [&] {
    const char* call = "NGA_Locate_region";
    Array& a = reg(call).array(call, g_a);
    Box p;
    if (!check_patch(call, a, lo, hi, p)) return 0;
    check_ptr(call, "map", map);
    check_ptr(call, "procs", procs);
    int n = 0;
    a.dist.for_each_piece(p, [&](int j, const Box& piece) {
      int* m = map + static_cast<std::size_t>(n) * 2 * static_cast<std::size_t>(a.ndim);
      for (int d = 0; d < a.ndim; ++d) {
        m[d] = piece.lo[d];
        m[a.ndim + d] = piece.hi[d];
      }
      procs[n++] = j;
    });
    return n;
  });
}

int NGA_Locate_nnodes(int g_a, int lo[], int hi[]) {
  return guard("NGA_Locate_nnodes", [&] {
    Array& a = reg("NGA_Locate_nnodes").array("NGA_Locate_nnodes", g_a);
    Box p;
    if (!check_patch("NGA_Locate_nnodes", a, lo, hi, p)) return 0;
    int n = 0;
    a.dist.for_each_piece(p, [&](int, const Box&) { ++n; });
    return n;
  });
}

void NGA_Access(int g_a, int lo[], int hi[], void* ptr, int ld[]) {
  guard("NGA_Access", [&] {
    const char* call = "NGA_Access";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    const Box p = nonempty_patch(call, a, lo, hi);
    check_ptr(call, "ptr", ptr);
    if (a.ndim > 1) check_ptr(call, "ld", ld);
    const int j = accessible_owner(call, r, a, p);
    *static_cast<void**>(ptr) = a.element(j, p.lo);
    const Box& blk = a.owner_box[static_cast<std::size_t>(j)];
    for (int d = 0; d + 1 < a.ndim; ++d) ld[d] = blk.extent(d + 1);
  });
}

void NGA_Release(int g_a, int lo[], int hi[]) {
  guard("NGA_Release", [&] {
    Registry& r = reg("NGA_Release");
    Array& a = r.array("NGA_Release", g_a);
    accessible_owner("NGA_Release", r, a, nonempty_patch("NGA_Release", a, lo, hi));
  });
}

void NGA_Release_update(int g_a, int lo[], int hi[]) {
  guard("NGA_Release_update", [&] {
    Registry& r = reg("NGA_Release_update");
    Array& a = r.array("NGA_Release_update", g_a);
    const Box p = nonempty_patch("NGA_Release_update", a, lo, hi);
    accessible_owner("NGA_Release_update", r, a, p);
    mark_dirty(a, p);
  });
}

int GA_Nodeid(void) {
  return guard("GA_Nodeid", [] { return reg("GA_Nodeid").groups.current_default().me; });
}

int GA_Nnodes(void) {
  return guard("GA_Nnodes", [] { return reg("GA_Nnodes").groups.current_default().size(); });
}

int GA_Cluster_nnodes(void) {
  return guard("GA_Cluster_nnodes", [] { return reg("GA_Cluster_nnodes").nnodes; });
}

int GA_Cluster_nodeid(void) {
  return guard("GA_Cluster_nodeid", [] { return reg("GA_Cluster_nodeid").my_node; });
}

int GA_Cluster_nprocs(int node) {
  return guard("GA_Cluster_nprocs", [&] {
    Registry& r = reg("GA_Cluster_nprocs");
    if (node < 0 || node >= r.nnodes)
      fail("GA_Cluster_nprocs", "node %d is outside 0..%d", node, r.nnodes - 1);
    return armci_domain_nprocs(ARMCI_DOMAIN_SMP, node);
  });
}

int GA_Cluster_procid(int node, int loc_proc) {
  return guard("GA_Cluster_procid", [&] {
    Registry& r = reg("GA_Cluster_procid");
    if (node < 0 || node >= r.nnodes)
      fail("GA_Cluster_procid", "node %d is outside 0..%d", node, r.nnodes - 1);
    const int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, node);
    if (loc_proc < 0 || loc_proc >= n)
      fail("GA_Cluster_procid", "local process %d is outside 0..%d on node %d", loc_proc, n - 1, node);
    return armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, node, loc_proc);
  });
}

int GA_Cluster_proc_nodeid(int proc) {
  return guard("GA_Cluster_proc_nodeid", [&] {
    Registry& r = reg("GA_Cluster_proc_nodeid");
    if (proc < 0 || proc >= r.nprocs)
      fail("GA_Cluster_proc_nodeid", "process %d is outside 0..%d", proc, r.nprocs - 1);
    return r.node_of[static_cast<std::size_t>(proc)];
  });
}

}  // extern "C"
