#include "armci/validate.hpp"

#include <cstdio>

#include "armci/strided_check.hpp"
#include "transports/acc_kernels.hpp"

namespace armci {

void not_initialized(const char* call) {
  fatal(call, "ARMCI is not initialized (call ARMCI_Init first)");
}

void bad_proc(const char* call, int proc, int nprocs) {
  bad_arg(call, "process id %d is out of range (valid: 0..%d)", proc, nprocs - 1);
}

void bad_remote(const char* call, const char* what, int proc, const void* addr, std::size_t len) {
  Runtime& r = rt();
  const auto a = reinterpret_cast<uintptr_t>(addr);
  char near[160] = "";
  Allocation n;
  if (!r.addresses.nearest(proc, a, &n))
    std::snprintf(near, sizeof near, "; process %d has no live allocation this process may address", proc);
  else if (a >= n.base && a - n.base < n.len)
    std::snprintf(near, sizeof near, "; it runs past the end of the allocation [%p, +%zu bytes) by %zu bytes",
                  reinterpret_cast<void*>(n.base), n.len, static_cast<std::size_t>(a - n.base) + len - n.len);
  else
    std::snprintf(near, sizeof near, "; the nearest allocation of process %d is [%p, +%zu bytes)", proc,
                  reinterpret_cast<void*>(n.base), n.len);
  bad_arg(call,
          "%s %p (+%zu bytes) is not inside one live ARMCI_Malloc allocation of process %d (node %d)%s",
          what, addr, len, proc, r.topo.node_of[static_cast<std::size_t>(proc)], near);
}

void check_acc(const char* call, int optype, const void* scale, long bytes) {
  std::size_t es = transport::acc_elem_size(optype);
  if (es == 0)
    bad_arg(call, "accumulate type %d is not one of ARMCI_ACC_INT (37), DBL, FLT, CPL, DCP, LNG (42)",
            optype);
  if (!scale) bad_arg(call, "scale is NULL (%s needs a pointer to one element)", transport::acc_type_name(optype));
  if (bytes % static_cast<long>(es) != 0)
    bad_arg(call, "%ld bytes is not a whole number of %s elements (%zu bytes each)", bytes,
            transport::acc_type_name(optype), es);
}

void check_strided(const char* call, int levels, const int* count, const int* src_stride,
                   const int* dst_stride, bool dst_exclusive) {
  char why[256];
  if (strided_problem(levels, count, src_stride, dst_stride, dst_exclusive, why, sizeof why))
    bad_arg(call, "%s", why);
}

void check_giov(const char* call, const armci_giov_t* darr, int len) {
  if (len < 0) bad_arg(call, "descriptor count %d is negative", len);
  if (len > 0 && !darr) bad_arg(call, "descriptor array is NULL for %d descriptors", len);
  for (int i = 0; i < len; ++i) {
    const armci_giov_t& d = darr[i];
    if (d.ptr_array_len < 0 || d.bytes < 0)
      bad_arg(call, "descriptor %d has ptr_array_len %d and bytes %d (negative)", i,
              d.ptr_array_len, d.bytes);
    if (d.ptr_array_len > 0 && d.bytes > 0 && (!d.src_ptr_array || !d.dst_ptr_array))
      bad_arg(call, "descriptor %d has a NULL pointer array", i);
  }
}

void check_thread_level(const char* call, int level) {
  if (level < ARMCI_THREAD_SINGLE || level > ARMCI_THREAD_MULTIPLE)
    bad_arg(call, "thread level %d is not one of MPI_THREAD_SINGLE (%d) .. MPI_THREAD_MULTIPLE (%d)",
            level, ARMCI_THREAD_SINGLE, ARMCI_THREAD_MULTIPLE);
}

}  // namespace armci
