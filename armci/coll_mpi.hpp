// The steps between nodes of a collective, on MPI's collectives when the job
// runs MPI (every GA job does).  Inside a node our shared-memory steps are
// faster than MPI's; between nodes MPI's point-to-point path is cheaper
// per message than a libfabric one here (tcp: 4.4 against 5.5-5.9 us one
// way on loopback, Open MPI btl tcp against fi_pingpong over tcp;ofi_rxm),
// and no algorithm of ours can make up for a message that costs more.  So
// a two-level collective runs its node steps itself and hands the step
// among the node leaders to MPI, on communicators of its own
// (docs/protocol.md, "Messages between processes").
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "armci/reduce_ops.hpp"
#include "armci/team.hpp"

namespace armci {

class Runtime;

class MpiColl {
 public:
  MpiColl();
  ~MpiColl();
  MpiColl(const MpiColl&) = delete;
  MpiColl& operator=(const MpiColl&) = delete;

  // At the end of ARMCI_Init: on when MPI was initialised first, with at
  // least the thread level ARMCI runs at, no host runs more processes than
  // it has CPUs, ARMCI_COLL_MPI allows it and the ARMCI world spans nodes;
  // agreed over the world (an MPI_Allreduce), so every process takes the
  // same path.
  void start(Runtime& rt);
  // ARMCI_Finalize: frees the communicators while MPI still runs.
  void stop();
  // More threads than MPI allows: collectives stay on our own messages.
  void thread_level_raised(int level);
  // Several threads may look up communicators at once.
  void set_threaded(bool on);
  // A group's context is gone: its communicators go too.
  void forget(uint32_t ctx);
  bool on() const { return on_.load(std::memory_order_relaxed); }
  // Steps among the processes of `t` (one per node; every member calls).
  // `anchor` tells apart the member lists one context may have (the
  // leaders of a broadcast depend on its root): the same value for the same
  // list.  False when MPI is not used for it (off, or an operator MPI lacks
  // for the type): the caller runs its own step instead.
  bool barrier(const Team& t, int anchor);
  bool bcast(const Team& t, int anchor, int root, void* buf, std::size_t len);
  bool reduce(const Team& t, int anchor, int root, void* buf, std::size_t n, int type, ReduceOp op);
  bool allreduce(const Team& t, int anchor, void* buf, std::size_t n, int type, ReduceOp op);
  uint64_t steps() const;  // collectives handed to MPI so far

 private:
  struct Comms;
  std::unique_ptr<Comms> comms_;
  std::atomic<bool> on_{false};
};

}  // namespace armci
