// Collective and local memory.
#include "armci/armci.h"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

using namespace armci;

namespace {

int malloc_on(const Team& t, void* ptr_arr[], armci_size_t bytes, const char* call) {
  Runtime& r = rt();
  if (!t.member()) bad_arg(call, "this process is not a member of the group");
  if (bytes < 0) bad_arg(call, "size %ld is negative", bytes);
  if (!ptr_arr) bad_arg(call, "ptr_arr is NULL");
  return r.allocations.malloc(r, t, static_cast<std::size_t>(bytes), ptr_arr, call);
}

int malloc_default(const char* call, void* ptr_arr[], armci_size_t bytes) {
  Runtime& r = checked_rt(call);
  return malloc_on(r.groups.default_team(), ptr_arr, bytes, call);
}

int malloc_group(const char* call, void* ptr_arr[], armci_size_t bytes, ARMCI_Group* group) {
  Runtime& r = checked_rt(call);
  if (!group) bad_arg(call, "group is NULL");
  return malloc_on(r.groups.team(*group, call), ptr_arr, bytes, call);
}

int free_default(const char* call, void* ptr) {
  Runtime& r = checked_rt(call);
  return r.allocations.free(r, r.groups.default_team(), ptr, call);
}

int free_group(const char* call, void* ptr, ARMCI_Group* group) {
  Runtime& r = checked_rt(call);
  if (!group) bad_arg(call, "group is NULL");
  return r.allocations.free(r, r.groups.team(*group, call), ptr, call);
}

}  // namespace

extern "C" {

int PARMCI_Malloc(void* ptr_arr[], armci_size_t bytes) {
  ARMCI_API_TRY
  return malloc_default("ARMCI_Malloc", ptr_arr, bytes);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Malloc_group(void* ptr_arr[], armci_size_t bytes, ARMCI_Group* group) {
  ARMCI_API_TRY
  return malloc_group("ARMCI_Malloc_group", ptr_arr, bytes, group);
  ARMCI_API_CATCH(kErrBadArg)
}

// Device memory is host memory here: the names exist so GA links unchanged.
int PARMCI_Malloc_memdev(void* ptr_arr[], armci_size_t bytes, const char* device) {
  (void)device;
  ARMCI_API_TRY
  return malloc_default("ARMCI_Malloc_memdev", ptr_arr, bytes);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Malloc_group_memdev(void* ptr_arr[], armci_size_t bytes, ARMCI_Group* group,
                              const char* device) {
  (void)device;
  ARMCI_API_TRY
  return malloc_group("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Free(void* ptr) {
  ARMCI_API_TRY
  return free_default("ARMCI_Free", ptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Free_group(void* ptr, ARMCI_Group* group) {
  ARMCI_API_TRY
  return free_group("ARMCI_Free_group", ptr, group);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Free_memdev(void* ptr) {
  ARMCI_API_TRY
  return free_default("ARMCI_Free_memdev", ptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int PARMCI_Free_group_memdev(void* ptr, ARMCI_Group* group) {
  ARMCI_API_TRY
  return free_group("ARMCI_Free_group_memdev", ptr, group);
  ARMCI_API_CATCH(kErrBadArg)
}

void* PARMCI_Malloc_local(armci_size_t bytes) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Malloc_local");
  if (bytes < 0) bad_arg("ARMCI_Malloc_local", "size %ld is negative", bytes);
  return r.allocations.malloc_local(r, static_cast<std::size_t>(bytes), "ARMCI_Malloc_local");
  ARMCI_API_CATCH(nullptr)
}

int PARMCI_Free_local(void* ptr) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Free_local");
  return r.allocations.free_local(r, ptr, "ARMCI_Free_local");
  ARMCI_API_CATCH(kErrBadArg)
}

// Non-collective memory lives in the caller's node heap, like every ARMCI
// allocation: one address on its whole node, reachable from other nodes.
void PARMCI_Memget(size_t bytes, armci_meminfo_t* meminfo, int memflg) {
  ARMCI_API_TRY
  const char* call = "ARMCI_Memget";
  Runtime& r = checked_rt(call);
  if (!meminfo) bad_arg(call, "meminfo is NULL");
  if (memflg != 0) bad_arg(call, "memflg %d is not 0 (the only flag defined)", memflg);
  if (bytes == 0) bad_arg(call, "size 0: Memget needs at least one byte");
  void* p = r.allocations.malloc_local(r, bytes, call);
  if (!p) fatal(call, "cannot allocate %s", format_bytes(bytes).c_str());
  meminfo->armci_addr = static_cast<char*>(p);
  meminfo->addr = static_cast<char*>(p);
  meminfo->size = bytes;
  meminfo->cpid = r.me();
  ARMCI_API_CATCH_VOID
}

void* PARMCI_Memat(armci_meminfo_t* meminfo, long offset) {
  ARMCI_API_TRY
  const char* call = "ARMCI_Memat";
  Runtime& r = checked_rt(call);
  if (!meminfo) bad_arg(call, "meminfo is NULL");
  check_proc(r, call, meminfo->cpid);
  if (offset < 0 || static_cast<std::size_t>(offset) > meminfo->size)
    bad_arg(call, "offset %ld is outside the %zu bytes of the region", offset, meminfo->size);
  return meminfo->addr + offset;
  ARMCI_API_CATCH(nullptr)
}

// Attaching maps nothing (the node heap is mapped everywhere on the node):
// nothing to detach.
void PARMCI_Memdt(armci_meminfo_t* meminfo, long offset) {
  (void)meminfo;
  (void)offset;
}

void PARMCI_Memctl(armci_meminfo_t* meminfo) {
  ARMCI_API_TRY
  const char* call = "ARMCI_Memctl";
  Runtime& r = checked_rt(call);
  if (!meminfo) bad_arg(call, "meminfo is NULL");
  if (meminfo->cpid == r.me() && meminfo->addr) r.allocations.free_local(r, meminfo->addr, call);
  meminfo->addr = nullptr;
  meminfo->armci_addr = nullptr;
  ARMCI_API_CATCH_VOID
}

void PARMCI_Set_shm_limit(unsigned long shmemlimit) {
  Runtime& r = checked_rt("ARMCI_Set_shm_limit");
  std::size_t cap = r.heap->reserved();
  if (shmemlimit > cap) {
    warn("ARMCI_Set_shm_limit", "%s exceeds the heap's reserved address space; using %s",
         format_bytes(shmemlimit).c_str(), format_bytes(cap).c_str());
    shmemlimit = cap;
  }
  r.heap->ctl().limit.store(shmemlimit);
}

int PARMCI_Uses_shm(void) { return 1; }

int PARMCI_Uses_shm_grp(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Uses_shm_grp");
  if (group) r.groups.team(*group, "ARMCI_Uses_shm_grp");
  return 1;
  ARMCI_API_CATCH(0)
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Malloc, ARMCI_Malloc);
ARMCI_WEAK_ALIAS(PARMCI_Malloc_group, ARMCI_Malloc_group);
ARMCI_WEAK_ALIAS(PARMCI_Malloc_memdev, ARMCI_Malloc_memdev);
ARMCI_WEAK_ALIAS(PARMCI_Malloc_group_memdev, ARMCI_Malloc_group_memdev);
ARMCI_WEAK_ALIAS(PARMCI_Free, ARMCI_Free);
ARMCI_WEAK_ALIAS(PARMCI_Free_group, ARMCI_Free_group);
ARMCI_WEAK_ALIAS(PARMCI_Free_memdev, ARMCI_Free_memdev);
ARMCI_WEAK_ALIAS(PARMCI_Free_group_memdev, ARMCI_Free_group_memdev);
ARMCI_WEAK_ALIAS(PARMCI_Malloc_local, ARMCI_Malloc_local);
ARMCI_WEAK_ALIAS(PARMCI_Free_local, ARMCI_Free_local);
ARMCI_WEAK_ALIAS(PARMCI_Memget, ARMCI_Memget);
ARMCI_WEAK_ALIAS(PARMCI_Memat, ARMCI_Memat);
ARMCI_WEAK_ALIAS(PARMCI_Memdt, ARMCI_Memdt);
ARMCI_WEAK_ALIAS(PARMCI_Memctl, ARMCI_Memctl);
ARMCI_WEAK_ALIAS(PARMCI_Set_shm_limit, ARMCI_Set_shm_limit);
ARMCI_WEAK_ALIAS(PARMCI_Uses_shm, ARMCI_Uses_shm);
ARMCI_WEAK_ALIAS(PARMCI_Uses_shm_grp, ARMCI_Uses_shm_grp);
