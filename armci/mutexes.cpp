#include "armci/mutexes.hpp"

#include "armci/collectives.hpp"
#include "armci/errors.hpp"
#include "armci/fence.hpp"
#include "armci/runtime.hpp"
#include "common/shared_sync.hpp"
#include "transports/ofi/ofi.hpp"

namespace armci {

using transport::ticket_release;
using transport::ticket_take;

int Mutexes::create(Runtime& rt, int num, const char* call) {
  if (num < 0) bad_arg(call, "number of mutexes %d is negative", num);
  if (exists_) bad_arg(call, "mutexes already exist; call ARMCI_Destroy_mutexes first");
  const Team& w = rt.groups.world();
  tables_.assign(static_cast<std::size_t>(w.size()), nullptr);
  if (int rc = rt.allocations.malloc(rt, w, static_cast<std::size_t>(num) * sizeof(TicketLock),
                                     tables_.data(), call))
    return rc;
  mine_ = tables_[static_cast<std::size_t>(rt.me())];
  for (int i = 0; i < num; ++i) new (static_cast<TicketLock*>(mine_) + i) TicketLock();
  counts_.assign(static_cast<std::size_t>(w.size()), 0);
  coll::allgather(rt, w, &num, sizeof num, counts_.data());
  exists_ = true;
  coll::barrier(rt, w);  // every table initialised before anyone locks
  return 0;
}

int Mutexes::destroy(Runtime& rt, const char* call) {
  if (!exists_) bad_arg(call, "no mutexes exist (ARMCI_Create_mutexes was not called)");
  exists_ = false;
  int rc = rt.allocations.free(rt, rt.groups.world(), mine_, call);
  tables_.clear();
  counts_.clear();
  mine_ = nullptr;
  return rc;
}

TicketLock* Mutexes::address(Runtime& rt, int mutex, int proc, const char* call) {
  if (!exists_) bad_arg(call, "no mutexes exist (call ARMCI_Create_mutexes first)");
  if (proc < 0 || proc >= rt.nprocs())
    bad_arg(call, "process %d is out of range (0..%d)", proc, rt.nprocs() - 1);
  int n = counts_[static_cast<std::size_t>(proc)];
  if (mutex < 0 || mutex >= n)
    bad_arg(call, "mutex %d does not exist on process %d (it created %d)", mutex, proc, n);
  return static_cast<TicketLock*>(tables_[static_cast<std::size_t>(proc)]) + mutex;
}

void Mutexes::lock(Runtime& rt, int mutex, int proc, const char* call) {
  TicketLock* l = address(rt, mutex, proc, call);
  if (!rt.topo.same_node(proc)) {
    rt.ofi->lock(rt.topo.node_of[static_cast<std::size_t>(proc)], reinterpret_cast<uintptr_t>(l));
    return;
  }
  const uint32_t t = ticket_take(*l);
  wait_on_word(&l->serving, [&] { return l->serving.load(std::memory_order_acquire) == t; }, call,
               "a mutex held by another process");
}

void Mutexes::unlock(Runtime& rt, int mutex, int proc, const char* call) {
  TicketLock* l = address(rt, mutex, proc, call);
  if (!rt.topo.same_node(proc)) {
    // Data written under the lock must be in place before the next holder.
    rt.ofi->unlock(rt.topo.node_of[static_cast<std::size_t>(proc)], reinterpret_cast<uintptr_t>(l));
    return;
  }
  fence_all(rt);
  ticket_release(*l);
  if (l->remote_waiters.load(std::memory_order_acquire) != 0) {
    // The agent holds tickets for remote lockers: tell it to look.
    rt.heap->poke_agent();
  }
}

}  // namespace armci
