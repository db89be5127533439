// Who is where: the ARMCI world as an explicit list of launcher ranks, and
// the (virtual) node of every member.
#pragma once
#include <string>
#include <vector>

namespace armci {

struct Topology {
  std::vector<int> world;        // ARMCI rank -> launcher rank
  int me = 0;                    // my ARMCI rank
  std::vector<int> node_of;      // ARMCI rank -> node (dense, 0..nnodes-1)
  std::vector<int> local_index;  // ARMCI rank -> index within its node
  std::vector<int> phys_node_of; // ARMCI rank -> launcher's node id
  std::vector<std::vector<int>> node_procs;  // node -> ARMCI ranks, ascending
  int nnodes = 0;
  int vnodes = 1;                // requested split

  int nprocs() const { return static_cast<int>(world.size()); }
  int my_node() const { return node_of[static_cast<std::size_t>(me)]; }
  int my_local() const { return local_index[static_cast<std::size_t>(me)]; }
  int nlocal() const { return static_cast<int>(node_procs[static_cast<std::size_t>(my_node())].size()); }
  int node_leader(int node) const { return node_procs[static_cast<std::size_t>(node)][0]; }
  bool same_node(int proc) const { return node_of[static_cast<std::size_t>(proc)] == my_node(); }
  // Processes that reach `node` over the network.
  int procs_outside(int node) const {
    return nprocs() - static_cast<int>(node_procs[static_cast<std::size_t>(node)].size());
  }
  std::string describe() const;
};

// `launcher_nodes[r]` is the launcher's node id of launcher rank r.  Each
// physical node's members (in ARMCI rank order) are split into min(vnodes, n)
// virtual nodes of consecutive members whose sizes differ by at most one.
Topology make_topology(const std::vector<int>& world, int my_launcher_rank,
                       const std::vector<int>& launcher_nodes, int vnodes);

}  // namespace armci
