// Collective and local memory.
#include "armci/armci.h"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"

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

int ARMCI_Malloc(void* ptr_arr[], armci_size_t bytes) {
  ARMCI_API_TRY
  return malloc_default("ARMCI_Malloc", ptr_arr, bytes);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Malloc_group(void* ptr_arr[], armci_size_t bytes, ARMCI_Group* group) {
  ARMCI_API_TRY
  return malloc_group("ARMCI_Malloc_group", ptr_arr, bytes, group);
  ARMCI_API_CATCH(kErrBadArg)
}

// Device memory is host memory here: the names exist so GA links unchanged.
int ARMCI_Malloc_memdev(void* ptr_arr[], armci_size_t bytes, const char* device) {
  (void)device;
  ARMCI_API_TRY
  return malloc_default("ARMCI_Malloc_memdev", ptr_arr, bytes);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Malloc_group_memdev(void* ptr_arr[], armci_size_t bytes, ARMCI_Group* group,
                              const char* device) {
  (void)device;
  ARMCI_API_TRY
  return malloc_group("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Free(void* ptr) {
  ARMCI_API_TRY
  return free_default("ARMCI_Free", ptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Free_group(void* ptr, ARMCI_Group* group) {
  ARMCI_API_TRY
  return free_group("ARMCI_Free_group", ptr, group);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Free_memdev(void* ptr) {
  ARMCI_API_TRY
  return free_default("ARMCI_Free_memdev", ptr);
  ARMCI_API_CATCH(kErrBadArg)
}

int ARMCI_Free_group_memdev(void* ptr, ARMCI_Group* group) {
  ARMCI_API_TRY
  return free_group("ARMCI_Free_group_memdev", ptr, group);
  ARMCI_API_CATCH(kErrBadArg)
}

void* ARMCI_Malloc_local(armci_size_t bytes) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Malloc_local");
  if (bytes < 0) bad_arg("ARMCI_Malloc_local", "size %ld is negative", bytes);
  return r.allocations.malloc_local(r, static_cast<std::size_t>(bytes), "ARMCI_Malloc_local");
  ARMCI_API_CATCH(nullptr)
}

int ARMCI_Free_local(void* ptr) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Free_local");
  return r.allocations.free_local(r, ptr, "ARMCI_Free_local");
  ARMCI_API_CATCH(kErrBadArg)
}

void ARMCI_Set_shm_limit(unsigned long shmemlimit) {
  Runtime& r = checked_rt("ARMCI_Set_shm_limit");
  std::size_t cap = r.heap->reserved();
  if (shmemlimit > cap) {
    warn("ARMCI_Set_shm_limit", "%s exceeds the heap's reserved address space; using %s",
         format_bytes(shmemlimit).c_str(), format_bytes(cap).c_str());
    shmemlimit = cap;
  }
  r.heap->ctl().limit.store(shmemlimit);
}

int ARMCI_Uses_shm(void) { return 1; }

int ARMCI_Uses_shm_grp(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("ARMCI_Uses_shm_grp");
  if (group) r.groups.team(*group, "ARMCI_Uses_shm_grp");
  return 1;
  ARMCI_API_CATCH(0)
}

}  // extern "C"
