// The router: one branch per operation picks load/store (same node) or
// libfabric (other node), from the per-process table built at start-up.
#pragma once
#include <cstdint>

#include "armci/runtime.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/shm_ops.hpp"

namespace armci::route {

inline bool local(int proc) { return rt().topo.same_node(proc); }
inline int node(int proc) { return rt().topo.node_of[static_cast<std::size_t>(proc)]; }

inline void signal(int proc, const transport::Signal& s) {
  if (local(proc)) transport::apply_signal(s);
  else rt().ofi->signal(node(proc), s);
}

}  // namespace armci::route
