// Processor groups and locality (domains = (virtual) shared-memory nodes).
#include "armci/armci.h"
#include "armci/mpi_interop.hpp"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

using namespace armci;

namespace {

void check_domain(const char* call, armci_domain_t d) {
  if (d != ARMCI_DOMAIN_SMP) bad_arg(call, "domain %d is not ARMCI_DOMAIN_SMP (0)", d);
}

// -1 names the caller's own domain: GA's ARMCI accepted it (GA's own tests
// call ga_cluster_nprocs(-1)).
int checked_node(Runtime& r, const char* call, int id) {
  if (id == -1) return r.topo.my_node();
  if (id < 0 || id >= r.topo.nnodes)
    bad_arg(call, "domain id %d is out of range (0..%d, or -1 for this process's own)", id,
            r.topo.nnodes - 1);
  return id;
}

}  // namespace

extern "C" {

void PARMCI_Group_create(int n, int* pid_list, ARMCI_Group* group_out) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Group_create");
  if (!group_out) bad_arg("ARMCI_Group_create", "group_out is NULL");
  *group_out = r.groups.create(r, r.groups.default_team(), n, pid_list, "ARMCI_Group_create");
  mpi_group_created(r, *group_out);
  ARMCI_API_CATCH_VOID
}

void PARMCI_Group_create_child(int n, int* pid_list, ARMCI_Group* group_out,
                              ARMCI_Group* group_parent) {
  ARMCI_API_TRY
  const char* call = "ARMCI_Group_create_child";
  Runtime& r = checked_rt(call);
  if (!group_out || !group_parent) bad_arg(call, "a group pointer is NULL");
  *group_out = r.groups.create(r, r.groups.team(*group_parent, call), n, pid_list, call);
  mpi_group_created(r, *group_out);
  ARMCI_API_CATCH_VOID
}

void PARMCI_Group_free(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Group_free");
  if (!group) bad_arg("ARMCI_Group_free", "group is NULL");
  r.groups.freeable(*group, "ARMCI_Group_free");  // refused before anything of it is undone
  mpi_group_freed(r, *group);
  r.groups.free(*group, "ARMCI_Group_free");
  ARMCI_API_CATCH_VOID
}

int PARMCI_Group_rank(ARMCI_Group* group, int* rank) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Group_rank");
  if (!group || !rank) bad_arg("ARMCI_Group_rank", "a pointer argument is NULL");
  *rank = r.groups.team(*group, "ARMCI_Group_rank").me;
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

void PARMCI_Group_size(ARMCI_Group* group, int* size) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Group_size");
  if (!group || !size) bad_arg("ARMCI_Group_size", "a pointer argument is NULL");
  *size = r.groups.team(*group, "ARMCI_Group_size").size();
  ARMCI_API_CATCH_VOID
}

void PARMCI_Group_set_default(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Group_set_default");
  if (!group) bad_arg("ARMCI_Group_set_default", "group is NULL");
  r.groups.set_default(*group, "ARMCI_Group_set_default");
  ARMCI_API_CATCH_VOID
}

void PARMCI_Group_get_default(ARMCI_Group* group_out) {
  Runtime& r = checked_rt("ARMCI_Group_get_default");
  if (group_out) *group_out = r.groups.default_group();
}

void PARMCI_Group_get_world(ARMCI_Group* group_out) {
  checked_rt("ARMCI_Group_get_world");
  if (group_out) *group_out = Groups::kWorld;
}

int PARMCI_Absolute_id(ARMCI_Group* group, int group_rank) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Absolute_id");
  if (!group) bad_arg("ARMCI_Absolute_id", "group is NULL");
  const Team& t = r.groups.team(*group, "ARMCI_Absolute_id");
  if (group_rank < 0 || group_rank >= t.size())
    bad_arg("ARMCI_Absolute_id", "rank %d is out of range for group %d (0..%d)", group_rank, *group,
            t.size() - 1);
  return t.world(group_rank);
  ARMCI_API_CATCH(-1)
}

namespace {
int same_node(const char* call, int proc) {
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  return r.topo.same_node(proc) ? 1 : 0;
}
}  // namespace

int PARMCI_Same_node(int proc) {
  ARMCI_API_TRY
  return same_node("ARMCI_Same_node", proc);
  ARMCI_API_CATCH(0)
}

int armci_sameclusnode(int proc) {
  ARMCI_API_TRY
  return same_node("armci_sameclusnode", proc);
  ARMCI_API_CATCH(0)
}

int armci_domain_nprocs(armci_domain_t domain, int id) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_domain_nprocs");
  check_domain("armci_domain_nprocs", domain);
  id = checked_node(r, "armci_domain_nprocs", id);
  return static_cast<int>(r.topo.node_procs[static_cast<std::size_t>(id)].size());
  ARMCI_API_CATCH(-1)
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_domain_id");
  check_domain("armci_domain_id", domain);
  check_proc(r, "armci_domain_id", glob_proc_id);
  return r.topo.node_of[static_cast<std::size_t>(glob_proc_id)];
  ARMCI_API_CATCH(-1)
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id) {
  ARMCI_API_TRY
  const char* call = "armci_domain_glob_proc_id";
  Runtime& r = checked_rt(call);
  check_domain(call, domain);
  id = checked_node(r, call, id);
  const auto& ps = r.topo.node_procs[static_cast<std::size_t>(id)];
  if (loc_proc_id < 0 || loc_proc_id >= static_cast<int>(ps.size()))
    bad_arg(call, "local process %d is out of range for domain %d (0..%zu)", loc_proc_id, id,
            ps.size() - 1);
  return ps[static_cast<std::size_t>(loc_proc_id)];
  ARMCI_API_CATCH(-1)
}

int armci_domain_my_id(armci_domain_t domain) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_domain_my_id");
  check_domain("armci_domain_my_id", domain);
  return r.topo.my_node();
  ARMCI_API_CATCH(-1)
}

int armci_domain_count(armci_domain_t domain) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_domain_count");
  check_domain("armci_domain_count", domain);
  return r.topo.nnodes;
  ARMCI_API_CATCH(-1)
}

int armci_domain_same_id(armci_domain_t domain, int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_domain_same_id");
  check_domain("armci_domain_same_id", domain);
  check_proc(r, "armci_domain_same_id", proc);
  return r.topo.same_node(proc) ? 1 : 0;
  ARMCI_API_CATCH(0)
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Group_create, ARMCI_Group_create);
ARMCI_WEAK_ALIAS(PARMCI_Group_create_child, ARMCI_Group_create_child);
ARMCI_WEAK_ALIAS(PARMCI_Group_free, ARMCI_Group_free);
ARMCI_WEAK_ALIAS(PARMCI_Group_rank, ARMCI_Group_rank);
ARMCI_WEAK_ALIAS(PARMCI_Group_size, ARMCI_Group_size);
ARMCI_WEAK_ALIAS(PARMCI_Group_set_default, ARMCI_Group_set_default);
ARMCI_WEAK_ALIAS(PARMCI_Group_get_default, ARMCI_Group_get_default);
ARMCI_WEAK_ALIAS(PARMCI_Group_get_world, ARMCI_Group_get_world);
ARMCI_WEAK_ALIAS(PARMCI_Absolute_id, ARMCI_Absolute_id);
ARMCI_WEAK_ALIAS(PARMCI_Same_node, ARMCI_Same_node);
