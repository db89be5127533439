// Argument checks shared by the public calls.  Cheap checks are inline; the
// reports are out of line.  Every report names the call, the bad value and
// (through the log prefix) the calling process.
#pragma once
#include <cstddef>
#include <cstdint>

#include "armci/errors.hpp"
#include "armci/runtime.hpp"

namespace armci {

[[noreturn]] void not_initialized(const char* call);
[[noreturn]] void bad_proc(const char* call, int proc, int nprocs);
[[noreturn]] void bad_remote(const char* call, const char* what, int proc, const void* addr,
                             std::size_t len);

inline Runtime& checked_rt(const char* call) {
  Runtime* r = Runtime::instance();
  if (__builtin_expect(!r, 0)) not_initialized(call);
  return *r;
}

inline void check_proc(Runtime& r, const char* call, int proc) {
  if (__builtin_expect(proc < 0 || proc >= r.nprocs(), 0)) bad_proc(call, proc, r.nprocs());
}

inline void check_count(const char* call, const char* what, long n) {
  if (__builtin_expect(n < 0, 0)) bad_arg(call, "%s %ld is negative", what, n);
}

inline void check_local(const char* call, const char* what, const void* p, std::size_t len) {
  if (__builtin_expect(len > 0 && p == nullptr, 0))
    bad_arg(call, "%s is NULL for a transfer of %zu bytes", what, len);
}

// [addr, addr+len) must lie wholly inside one live ARMCI_Malloc allocation of
// proc; the allocation's record is where the operation goes (check and
// resolve in one look-up).  The reference is good until this thread's next
// check.  ARMCI_CHECKS=0 trusts the caller and names only the node (the
// transport then finds the key itself).
inline const transport::Target& check_remote(Runtime& r, const char* call, const char* what, int proc,
                                             const void* addr, std::size_t len) {
  if (__builtin_expect(len > 0 && r.checks, 1)) {
    const Allocation* a = r.addresses.find_ref(proc, reinterpret_cast<uintptr_t>(addr), len);
    if (__builtin_expect(!a, 0)) bad_remote(call, what, proc, addr, len);
    return a->target;
  }
  return r.addresses.unkeyed(proc);
}

// ARMCI_ACC_* type, scale, and a byte count that is whole elements.
void check_acc(const char* call, int optype, const void* scale, long bytes);
// armci/strided_check.hpp: levels, counts, strides, extents, and (put,
// get: dst_exclusive) destination pieces that cannot overlap.
void check_strided(const char* call, int levels, const int* count, const int* src_stride,
                   const int* dst_stride, bool dst_exclusive);
void check_giov(const char* call, const armci_giov_t* darr, int len);
// ARMCI_THREAD_SINGLE..MULTIPLE (the MPI_THREAD_* values).
void check_thread_level(const char* call, int level);

}  // namespace armci
