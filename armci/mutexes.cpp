#include "armci/mutexes.hpp"

#include "armci/collectives.hpp"
#include "armci/errors.hpp"
#include "armci/route.hpp"
#include "armci/runtime.hpp"
#include "common/shared_sync.hpp"

namespace armci {

int MutexSet::create(Runtime& rt, const Team& t, int num, const char* call) {
  if (num < 0) bad_arg(call, "number of mutexes %d is negative", num);
  if (exists_) bad_arg(call, "mutexes already exist; call ARMCI_Destroy_mutexes first");
  if (!t.member()) bad_arg(call, "this process is not a member of the group");
  team_ = t;
  tables_.assign(static_cast<std::size_t>(t.size()), nullptr);
  if (int rc = rt.allocations.malloc(rt, t, static_cast<std::size_t>(num) * sizeof(TicketLock),
                                     tables_.data(), call))
    return rc;
  mine_ = tables_[static_cast<std::size_t>(t.me)];
  for (int i = 0; i < num; ++i) new (static_cast<TicketLock*>(mine_) + i) TicketLock();
  counts_.assign(static_cast<std::size_t>(t.size()), 0);
  coll::allgather(rt, t, &num, sizeof num, counts_.data(), call);
  exists_ = true;
  coll::barrier(rt, t, call);  // every table initialised before anyone locks
  return 0;
}

int MutexSet::destroy(Runtime& rt, const char* call) {
  if (!exists_) bad_arg(call, "no mutexes exist (they were not created, or already destroyed)");
  exists_ = false;
  int rc = rt.allocations.free(rt, team_, mine_, call);
  tables_.clear();
  counts_.clear();
  mine_ = nullptr;
  return rc;
}

TicketLock* MutexSet::address(int mutex, int proc, const char* call) {
  if (!exists_) bad_arg(call, "no mutexes exist (call ARMCI_Create_mutexes first)");
  if (proc < 0 || proc >= team_.size())
    bad_arg(call, "process %d is out of range (0..%d)", proc, team_.size() - 1);
  int n = counts_[static_cast<std::size_t>(proc)];
  if (mutex < 0 || mutex >= n)
    bad_arg(call, "mutex %d does not exist on process %d (it created %d)", mutex, proc, n);
  return static_cast<TicketLock*>(tables_[static_cast<std::size_t>(proc)]) + mutex;
}

void MutexSet::lock(Runtime& rt, int mutex, int proc, const char* call) {
  TicketLock* l = address(mutex, proc, call);
  const int w = world_of(proc);
  route::lock(rt, w, l);
}

bool MutexSet::trylock(Runtime& rt, int mutex, int proc, const char* call) {
  TicketLock* l = address(mutex, proc, call);
  const int w = world_of(proc);
  return route::trylock(rt, w, l);
}

void MutexSet::unlock(Runtime& rt, int mutex, int proc, const char* call) {
  TicketLock* l = address(mutex, proc, call);
  const int w = world_of(proc);
  route::unlock(rt, w, l);
}

}  // namespace armci
