#include "armci/topology.hpp"

#include <algorithm>
#include <map>

#include "common/log.hpp"

namespace armci {

Topology make_topology(const std::vector<int>& world, int my_launcher_rank,
                       const std::vector<int>& launcher_nodes, int vnodes) {
  Topology t;
  t.world = world;
  t.vnodes = std::max(1, vnodes);
  const int n = static_cast<int>(world.size());
  t.me = -1;
  for (int i = 0; i < n; ++i)
    if (world[static_cast<std::size_t>(i)] == my_launcher_rank) t.me = i;
  ARMCI_ASSERT(t.me >= 0);
  t.phys_node_of.resize(static_cast<std::size_t>(n));
  std::map<int, std::vector<int>> by_phys;  // ordered by launcher node id
  for (int i = 0; i < n; ++i) {
    int phys = launcher_nodes[static_cast<std::size_t>(world[static_cast<std::size_t>(i)])];
    t.phys_node_of[static_cast<std::size_t>(i)] = phys;
    by_phys[phys].push_back(i);
  }
  t.node_of.assign(static_cast<std::size_t>(n), -1);
  t.local_index.assign(static_cast<std::size_t>(n), -1);
  for (auto& [phys, members] : by_phys) {
    const int m = static_cast<int>(members.size());
    const int k = std::min(t.vnodes, m);
    int pos = 0;
    for (int v = 0; v < k; ++v) {
      const int sz = m / k + (v < m % k ? 1 : 0);
      const int node = static_cast<int>(t.node_procs.size());
      t.node_procs.emplace_back();
      for (int j = 0; j < sz; ++j, ++pos) {
        int r = members[static_cast<std::size_t>(pos)];
        t.node_of[static_cast<std::size_t>(r)] = node;
        t.local_index[static_cast<std::size_t>(r)] = j;
        t.node_procs.back().push_back(r);
      }
    }
  }
  t.nnodes = static_cast<int>(t.node_procs.size());
  return t;
}

std::string Topology::describe() const {
  std::string s = std::to_string(nprocs()) + " processes on " + std::to_string(nnodes) + " node(s)";
  if (vnodes > 1) s += " (ARMCI_VNODES=" + std::to_string(vnodes) + ")";
  s += ":";
  for (int nd = 0; nd < nnodes; ++nd) {
    s += " [";
    const auto& ps = node_procs[static_cast<std::size_t>(nd)];
    for (std::size_t i = 0; i < ps.size(); ++i) s += (i ? "," : "") + std::to_string(ps[i]);
    s += "]";
  }
  return s;
}

}  // namespace armci
