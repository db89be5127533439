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

// Accumulates and Rmw go through the NIC for every target, this node's
// included, when the provider does them natively (ARMCI_OFI_ATOMICS=1):
// NIC atomics are not atomic with respect to CPU ones.
inline bool acc_by_cpu(int proc, int optype) {
  return local(proc) && !(rt().ofi && rt().ofi->native_acc(optype));
}
inline bool rmw_by_cpu(int proc, int op) { return local(proc) && !(rt().ofi && rt().ofi->native_rmw(op)); }

inline void signal(int proc, const transport::Signal& s) {
  if (local(proc)) transport::apply_signal(s);
  else rt().ofi->signal(node(proc), s);
}

}  // namespace armci::route
