// Processor groups and process-level collectives (sync, gop, broadcast) on
// the default group, a given group, or the mirror group (a process's node).
#include <cstring>
#include <string>

#include "ga/array_alloc.hpp"
#include "ga/errors.hpp"
#include "ga/registry.hpp"
#include "message.h"

using namespace ga;

namespace {

void check_op(const char* call, const char* op) {
  static const char* const kOps[] = {"+", "*", "max", "min", "absmax", "absmin"};
  if (op)
    for (const char* o : kOps)
      if (std::strcmp(op, o) == 0) return;
  fail(call, "op \"%s\" is not one of + * max min absmax absmin", op ? op : "(null)");
}

void check_buf(const char* call, const void* x, int n) {
  if (n < 0) fail(call, "n = %d is negative", n);
  if (n > 0 && !x) fail(call, "x is NULL for %d elements", n);
}

// Reduction over group `grp` (the mirror group: this process's node).
void gop(const char* call, int grp, void* x, int n, char* op, int type) {
  Registry& r = reg(call);
  check_buf(call, x, n);
  check_op(call, op);
  if (n == 0) return;
  if (grp == Groups::kMirror) {
    armci_msg_group_gop_scope(SCOPE_NODE, x, n, op, type, r.groups.world().armci_ptr());
    return;
  }
  const Pgroup& g = r.groups.member(call, grp);
  armci_msg_group_gop_scope(SCOPE_ALL, x, n, op, type, g.armci_ptr());
}

void sync(const char* call, int grp) {
  Registry& r = reg(call);
  ARMCI_AllFence();
  if (grp == Groups::kMirror) {
    int x = 0;
    armci_msg_group_gop_scope(SCOPE_NODE, &x, 1, const_cast<char*>("+"), ARMCI_INT,
                              r.groups.world().armci_ptr());
    return;
  }
  armci_msg_group_barrier(r.groups.member(call, grp).armci_ptr());
}

void brdcst(const char* call, int grp, void* buf, int len, int root) {
  Registry& r = reg(call);
  if (len < 0) fail(call, "lenbuf = %d is negative", len);
  if (len > 0 && !buf) fail(call, "buf is NULL for %d bytes", len);
  if (grp == Groups::kMirror) {
    const int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, r.my_node);
    if (root < 0 || root >= n) fail(call, "root %d is outside 0..%d (ranks of this node)", root, n - 1);
    const int w = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, r.my_node, root);
    armci_msg_group_bcast_scope(SCOPE_NODE, buf, len, w, r.groups.world().armci_ptr());
    return;
  }
  const Pgroup& g = r.groups.member(call, grp);
  if (root < 0 || root >= g.size())
    fail(call, "root %d is outside 0..%d (ranks of group %d)", root, g.size() - 1, grp);
  armci_msg_group_bcast_scope(SCOPE_ALL, buf, len, g.world(root), g.armci_ptr());
}

}  // namespace

extern "C" {

void GA_Sync(void) {
  guard("GA_Sync", [] { sync("GA_Sync", reg("GA_Sync").groups.default_handle()); });
}

void GA_Mask_sync(int first, int last) {
  guard("GA_Mask_sync", [&] {
    Registry& r = reg("GA_Mask_sync");
    r.skip_first_sync = first == 0;
    r.skip_last_sync = last == 0;
  });
}

void GA_Dgop(double x[], int n, char* op) {
  guard("GA_Dgop", [&] { gop("GA_Dgop", reg("GA_Dgop").groups.default_handle(), x, n, op, ARMCI_DOUBLE); });
}

void GA_Igop(int x[], int n, char* op) {
  guard("GA_Igop", [&] { gop("GA_Igop", reg("GA_Igop").groups.default_handle(), x, n, op, ARMCI_INT); });
}

void GA_Lgop(long x[], int n, char* op) {
  guard("GA_Lgop", [&] { gop("GA_Lgop", reg("GA_Lgop").groups.default_handle(), x, n, op, ARMCI_LONG); });
}

void GA_Brdcst(void* buf, int lenbuf, int root) {
  guard("GA_Brdcst",
        [&] { brdcst("GA_Brdcst", reg("GA_Brdcst").groups.default_handle(), buf, lenbuf, root); });
}

int GA_Pgroup_create(int* list, int count) {
  return guard("GA_Pgroup_create", [&] {
    const char* call = "GA_Pgroup_create";
    Registry& r = reg(call);
    if (count < 1) fail(call, "count = %d: a group needs at least one process", count);
    if (!list) fail(call, "list is NULL");
    const Pgroup& parent = r.groups.current_default();
    return r.groups.create(call, parent, std::vector<int>(list, list + count));
  });
}

int GA_Pgroup_destroy(int grp) {
  return guard("GA_Pgroup_destroy", [&] {
    const char* call = "GA_Pgroup_destroy";
    Registry& r = reg(call);
    if (grp == Groups::kMirror) fail(call, "the mirror group (0) cannot be destroyed");
    r.groups.get(call, grp);
    for (const auto& a : r.arrays)
      if (a &&
          (a->group == grp || a->pgroup == grp || (a->pgroup == Groups::kMirror && a->mirror_over == grp)))
        fail(call, "group %d is still used by array %d ('%s'); destroy the array first", grp, a->handle,
             a->name.c_str());
    r.groups.destroy(call, grp);
    return 1;
  });
}

void GA_Pgroup_set_default(int grp) {
  guard("GA_Pgroup_set_default", [&] {
    Registry& r = reg("GA_Pgroup_set_default");
    if (grp == Groups::kMirror)
      fail("GA_Pgroup_set_default", "the mirror group (0) cannot be the default group");
    r.groups.set_default("GA_Pgroup_set_default", grp);
  });
}

int GA_Pgroup_get_default(void) {
  return guard("GA_Pgroup_get_default", [] { return reg("GA_Pgroup_get_default").groups.default_handle(); });
}

int GA_Pgroup_get_world(void) { return Groups::kWorld; }
int GA_Pgroup_get_mirror(void) { return Groups::kMirror; }

int GA_Pgroup_nodeid(int grp) {
  return guard("GA_Pgroup_nodeid", [&] {
    Registry& r = reg("GA_Pgroup_nodeid");
    if (grp == Groups::kMirror) {
      const int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, r.my_node);
      for (int i = 0; i < n; ++i)
        if (armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, r.my_node, i) == r.me) return i;
      return -1;
    }
    return r.groups.get("GA_Pgroup_nodeid", grp).me;
  });
}

int GA_Pgroup_nnodes(int grp) {
  return guard("GA_Pgroup_nnodes", [&] {
    Registry& r = reg("GA_Pgroup_nnodes");
    if (grp == Groups::kMirror) return armci_domain_nprocs(ARMCI_DOMAIN_SMP, r.my_node);
    return r.groups.get("GA_Pgroup_nnodes", grp).size();
  });
}

void GA_Pgroup_sync(int grp) {
  guard("GA_Pgroup_sync", [&] { sync("GA_Pgroup_sync", grp); });
}

void GA_Pgroup_dgop(int grp, double x[], int n, char* op) {
  guard("GA_Pgroup_dgop", [&] { gop("GA_Pgroup_dgop", grp, x, n, op, ARMCI_DOUBLE); });
}

void GA_Pgroup_igop(int grp, int x[], int n, char* op) {
  guard("GA_Pgroup_igop", [&] { gop("GA_Pgroup_igop", grp, x, n, op, ARMCI_INT); });
}

void GA_Pgroup_lgop(int grp, long x[], int n, char* op) {
  guard("GA_Pgroup_lgop", [&] { gop("GA_Pgroup_lgop", grp, x, n, op, ARMCI_LONG); });
}

void GA_Pgroup_brdcst(int grp, void* buf, int lenbuf, int root) {
  guard("GA_Pgroup_brdcst", [&] { brdcst("GA_Pgroup_brdcst", grp, buf, lenbuf, root); });
}

// Contiguous rank ranges: group i holds ranks [i*size/n, (i+1)*size/n).
int GA_Pgroup_split(int grp, int num_group) {
  return guard("GA_Pgroup_split", [&] {
    const char* call = "GA_Pgroup_split";
    Registry& r = reg(call);
    const Pgroup& g = r.groups.member(call, grp);
    const long size = g.size();
    if (num_group < 1 || num_group > size)
      fail(call, "num_group = %d is outside 1..%ld (the size of group %d)", num_group, size, grp);
    int i = 0;
    while ((i + 1) * size / num_group <= g.me) ++i;
    std::vector<int> list;
    for (long k = i * size / num_group; k < (i + 1) * size / num_group; ++k)
      list.push_back(static_cast<int>(k));
    return r.groups.create(call, g, list);
  });
}

int GA_Pgroup_split_irreg(int grp, int color) {
  return guard("GA_Pgroup_split_irreg", [&] {
    const char* call = "GA_Pgroup_split_irreg";
    Registry& r = reg(call);
    const Pgroup& g = r.groups.member(call, grp);
    if (color < 0) fail(call, "color = %d is negative", color);
    std::vector<int> colors(static_cast<std::size_t>(g.size()), 0);
    colors[static_cast<std::size_t>(g.me)] = color;
    armci_msg_group_igop(colors.data(), g.size(), const_cast<char*>("+"), g.armci_ptr());
    std::vector<int> list;
    for (int k = 0; k < g.size(); ++k)
      if (colors[static_cast<std::size_t>(k)] == color) list.push_back(k);
    return r.groups.create(call, g, list);
  });
}

}  // extern "C"
