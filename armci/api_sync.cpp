// Completion, synchronisation, atomics, mutexes and notification.
#include "armci/armci.h"
#include "armci/collectives.hpp"
#include "armci/rma.hpp"
#include "armci/route.hpp"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

using namespace armci;

extern "C" {

int PARMCI_Wait(armci_hdl_t* h) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Wait");
  if (!h) bad_arg("ARMCI_Wait", "handle pointer is NULL");
  route::wait(r, h);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Test(armci_hdl_t* h) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Test");
  if (!h) bad_arg("ARMCI_Test", "handle pointer is NULL");
  return route::test(r, h) ? 0 : 1;
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_WaitProc(int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_WaitProc");
  check_proc(r, "ARMCI_WaitProc", proc);
  route::wait_proc(r, proc);
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_WaitAll(void) {
  ARMCI_API_TRY
  route::wait_all(checked_rt("ARMCI_WaitAll"));
  return 0;
  ARMCI_API_CATCH(kErrBadArg)
}

// Non-blocking operations on an aggregate handle to another node are
// gathered into one message per node whatever their size (up to what one
// message holds) and whatever ARMCI_OFI_COALESCE says, until a wait on the
// handle, a fence, or another operation to that node sends them, as the
// original ARMCI aggregated them.  The handle stays open (it is not
// released when its puts are locally complete) until ARMCI_Wait.
void PARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t* h) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_SET_AGGREGATE_HANDLE");
  if (!h) bad_arg("ARMCI_SET_AGGREGATE_HANDLE", "handle pointer is NULL");
  r.handles.for_handle(h)->aggregate = true;
  ARMCI_API_CATCH_VOID
}

void PARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t* h) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_UNSET_AGGREGATE_HANDLE");
  if (!h) bad_arg("ARMCI_UNSET_AGGREGATE_HANDLE", "handle pointer is NULL");
  if (Request* q = r.handles.lookup(*h)) q->aggregate = false;
  ARMCI_API_CATCH_VOID
}

void PARMCI_Fence(int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Fence");
  check_proc(r, "ARMCI_Fence", proc);
  route::fence(r, proc);
  ARMCI_API_CATCH_VOID
}

void PARMCI_AllFence(void) {
  ARMCI_API_TRY
  route::fence_all(checked_rt("ARMCI_AllFence"));
  ARMCI_API_CATCH_VOID
}

void PARMCI_GroupFence(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_GroupFence");
  if (!group) bad_arg("ARMCI_GroupFence", "group is NULL");
  for (int w : r.groups.team(*group, "ARMCI_GroupFence").members) route::fence(r, w);
  ARMCI_API_CATCH_VOID
}

void PARMCI_Barrier(void) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Barrier");
  route::fence_all(r);
  coll::barrier(r, r.groups.default_team(), "ARMCI_Barrier");
  ARMCI_API_CATCH_VOID
}

namespace {

int rmw(const char* call, int op, void* ploc, void* prem, long extra, int proc) {
  Runtime& r = checked_rt(call);
  check_proc(r, call, proc);
  std::size_t size;
  switch (op) {
    case ARMCI_FETCH_AND_ADD:
    case ARMCI_SWAP: size = sizeof(int); break;
    case ARMCI_FETCH_AND_ADD_LONG:
    case ARMCI_SWAP_LONG: size = sizeof(long); break;
    default:
      bad_arg(call, "operation %d is not ARMCI_SWAP (10), SWAP_LONG (11), FETCH_AND_ADD (12) or "
              "FETCH_AND_ADD_LONG (13)", op);
  }
  if (!ploc) bad_arg(call, "ploc is NULL");
  if (reinterpret_cast<uintptr_t>(prem) % size)
    bad_arg(call, "remote address %p is not aligned to %zu bytes", prem, size);
  const transport::Target& at = check_remote(r, call, "remote address", proc, prem, size);
  rma::profile(r, ProfOp::Rmw, proc, size);
  route::rmw(r, proc, at, op, ploc, prem, extra);
  return 0;
}

}  // namespace

int PARMCI_Rmw(int op, void* ploc, void* prem, int extra, int proc) {
  ARMCI_API_TRY
  return rmw("ARMCI_Rmw", op, ploc, prem, extra, proc);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Rmw_long(int op, void* ploc, void* prem, long extra, int proc) {
  ARMCI_API_TRY
  return rmw("ARMCI_Rmw_long", op, ploc, prem, extra, proc);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Create_mutexes(int num) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Create_mutexes");
  return r.mutexes.create(r, r.groups.world(), num, "ARMCI_Create_mutexes");
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Destroy_mutexes(void) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Destroy_mutexes");
  return r.mutexes.destroy(r, "ARMCI_Destroy_mutexes");
  ARMCI_API_CATCH(kErrBadArg)
}

void PARMCI_Lock(int mutex, int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Lock");
  r.mutexes.lock(r, mutex, proc, "ARMCI_Lock");
  ARMCI_API_CATCH_VOID
}

void PARMCI_Unlock(int mutex, int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Unlock");
  r.mutexes.unlock(r, mutex, proc, "ARMCI_Unlock");
  ARMCI_API_CATCH_VOID
}

// Notify: my count of notices sent to proc, stored (after my earlier puts to
// proc, in order) into proc's counter for me.
int parmci_notify(int proc) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_notify");
  check_proc(r, "armci_notify", proc);
  auto& sent = r.mailbox.notices_sent(proc);
  ++sent;
  transport::Signal s;
  s.flag_op = transport::FlagOp::Store;
  s.flag = r.mailbox.notices_addr(proc, r.me());
  s.flag_val = sent;
  s.wake_flag = true;
  route::signal(r, proc, s);
  return static_cast<int>(sent);
  ARMCI_API_CATCH(kErrBadArg)
}

// Waits for the next notice from proc; *pval = notices waited for so far,
// returns the number received.
int parmci_notify_wait(int proc, int* pval) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_notify_wait");
  check_proc(r, "armci_notify_wait", proc);
  auto& waited = r.mailbox.notices_waited(proc);
  ++waited;
  auto& counter = r.mailbox.notices_from(proc);
  wait_on_word(&counter,
               [&] { return static_cast<int32_t>(counter.load(std::memory_order_acquire) - waited) >= 0; },
               "armci_notify_wait", "a notification");
  if (pval) *pval = static_cast<int>(waited);
  return static_cast<int>(counter.load(std::memory_order_acquire));
  ARMCI_API_CATCH(kErrBadArg)
}

// Memory is coherent: an access epoch only needs ordering.
void PARMCI_Access_begin(void* ptr) {
  (void)ptr;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
void PARMCI_Access_end(void* ptr) {
  (void)ptr;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Wait, ARMCI_Wait);
ARMCI_WEAK_ALIAS(PARMCI_Test, ARMCI_Test);
ARMCI_WEAK_ALIAS(PARMCI_WaitProc, ARMCI_WaitProc);
ARMCI_WEAK_ALIAS(PARMCI_WaitAll, ARMCI_WaitAll);
ARMCI_WEAK_ALIAS(PARMCI_SET_AGGREGATE_HANDLE, ARMCI_SET_AGGREGATE_HANDLE);
ARMCI_WEAK_ALIAS(PARMCI_UNSET_AGGREGATE_HANDLE, ARMCI_UNSET_AGGREGATE_HANDLE);
ARMCI_WEAK_ALIAS(PARMCI_Fence, ARMCI_Fence);
ARMCI_WEAK_ALIAS(PARMCI_AllFence, ARMCI_AllFence);
ARMCI_WEAK_ALIAS(PARMCI_GroupFence, ARMCI_GroupFence);
ARMCI_WEAK_ALIAS(PARMCI_Barrier, ARMCI_Barrier);
ARMCI_WEAK_ALIAS(PARMCI_Rmw, ARMCI_Rmw);
ARMCI_WEAK_ALIAS(PARMCI_Rmw_long, ARMCI_Rmw_long);
ARMCI_WEAK_ALIAS(PARMCI_Create_mutexes, ARMCI_Create_mutexes);
ARMCI_WEAK_ALIAS(PARMCI_Destroy_mutexes, ARMCI_Destroy_mutexes);
ARMCI_WEAK_ALIAS(PARMCI_Lock, ARMCI_Lock);
ARMCI_WEAK_ALIAS(PARMCI_Unlock, ARMCI_Unlock);
ARMCI_WEAK_ALIAS(parmci_notify, armci_notify);
ARMCI_WEAK_ALIAS(parmci_notify_wait, armci_notify_wait);
ARMCI_WEAK_ALIAS(PARMCI_Access_begin, ARMCI_Access_begin);
ARMCI_WEAK_ALIAS(PARMCI_Access_end, ARMCI_Access_end);
