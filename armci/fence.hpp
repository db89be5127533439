// Remote completion.  Intra-node operations are complete when they return;
// a fence there only orders memory.  Inter-node ones wait for the transport.
#pragma once
#include <atomic>

#include "armci/runtime.hpp"
#include "transports/ofi/ofi.hpp"

namespace armci {

inline void fence_proc(Runtime& rt, int proc) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!rt.topo.same_node(proc)) rt.ofi->fence(rt.topo.node_of[static_cast<std::size_t>(proc)]);
}

inline void fence_all(Runtime& rt) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (rt.ofi) rt.ofi->fence_all();
}

}  // namespace armci
