#include "memory/numa.hpp"

#include <hwloc.h>

#include <cstdint>
#include <cstdlib>

#include "common/log.hpp"

namespace armci::memory {

Numa::Numa(bool enabled) : enabled_(enabled) {
  if (hwloc_topology_init(&topo_) != 0 || hwloc_topology_load(topo_) != 0) {
    warn("ARMCI_Init", "hwloc could not load the topology; NUMA placement is off");
    if (topo_) hwloc_topology_destroy(topo_);
    topo_ = nullptr;
    return;
  }
  nnodes_ = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_NUMANODE);
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo_, cpus, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(cpus, hwloc_topology_get_topology_cpuset(topo_));
  char* s = nullptr;
  hwloc_bitmap_list_asprintf(&s, cpus);
  cpus_ = s ? s : "?";
  std::free(s);
  // The NUMA nodes whose CPUs include ours: a single one is "my" node.
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  hwloc_cpuset_to_nodeset(topo_, cpus, nodes);
  if (hwloc_bitmap_weight(nodes) == 1) my_node_ = hwloc_bitmap_first(nodes);
  hwloc_bitmap_free(nodes);
  hwloc_bitmap_free(cpus);
}

Numa::~Numa() {
  if (topo_) hwloc_topology_destroy(topo_);
}

bool Numa::bind_to(void* addr, std::size_t len, int node) const {
  if (!enabled_ || !topo_ || node < 0 || len == 0) return false;
  // Whole pages only: a neighbour's block may share the edge pages.
  auto a = reinterpret_cast<uintptr_t>(addr);
  uintptr_t lo = (a + 4095) & ~uintptr_t{4095}, hi = (a + len) & ~uintptr_t{4095};
  if (hi <= lo) return false;
  addr = reinterpret_cast<void*>(lo);
  len = hi - lo;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, static_cast<unsigned>(node));
  int rc = hwloc_set_area_membind(topo_, addr, len, set, HWLOC_MEMBIND_BIND,
                                  HWLOC_MEMBIND_BYNODESET);
  hwloc_bitmap_free(set);
  return rc == 0;
}

int Numa::location(void* addr, std::size_t len) const {
  if (!topo_ || len == 0) return -1;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int where = -1;
  if (hwloc_get_area_memlocation(topo_, addr, len, set, HWLOC_MEMBIND_BYNODESET) == 0 &&
      hwloc_bitmap_weight(set) == 1)
    where = hwloc_bitmap_first(set);
  hwloc_bitmap_free(set);
  return where;
}

std::string Numa::describe() const {
  if (!topo_) return "no topology";
  std::string s = "cpus " + cpus_ + ", ";
  if (my_node_ >= 0)
    s += "NUMA node " + std::to_string(my_node_) + " of " + std::to_string(nnodes_);
  else
    s += "no single NUMA node (" + std::to_string(nnodes_) + " on this machine)";
  s += enabled_ ? ", placement bind" : ", placement off";
  return s;
}

}  // namespace armci::memory
