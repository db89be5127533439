// NUMA placement of each process's blocks of the node heap (hwloc).
#pragma once
#include <cstddef>
#include <string>

struct hwloc_topology;

namespace armci::memory {

class Numa {
 public:
  explicit Numa(bool enabled);
  ~Numa();
  Numa(const Numa&) = delete;
  Numa& operator=(const Numa&) = delete;

  // OS index of the one NUMA node this process runs on, or -1 when binding
  // is off, the machine has one node, or the process spans several.
  int my_node() const { return my_node_; }
  int numa_nodes() const { return nnodes_; }
  // Binds [addr, addr+len) to my_node() before its pages are allocated.
  bool bind(void* addr, std::size_t len) const { return bind_to(addr, len, my_node_); }
  // Binds a range to NUMA node `node` (OS index); false if not possible.
  bool bind_to(void* addr, std::size_t len, int node) const;
  // NUMA node holding the pages of the range (-1 unknown or mixed).
  int location(void* addr, std::size_t len) const;
  std::string describe() const;  // "cpus 0-1, NUMA node 0 of 1"

 private:
  hwloc_topology* topo_ = nullptr;
  bool enabled_;
  int my_node_ = -1;
  int nnodes_ = 0;
  std::string cpus_;
};

}  // namespace armci::memory
