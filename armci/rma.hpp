// The operations behind Put/Get/Acc in all their shapes (contiguous, strided,
// vector; blocking or not): check the arguments, then hand the operation to
// the router (armci/route.hpp).
#pragma once
#include "armci/armci.h"
#include "armci/route.hpp"
#include "armci/runtime.hpp"
#include "transports/strided.hpp"

namespace armci::rma {

// h: nullptr = blocking; kImplicit = non-blocking without handle; else handle.
using route::kImplicit;

// ARMCI_PROFILE: one call of op moving `bytes` to or from proc.
inline void profile(Runtime& r, ProfOp op, int proc, std::size_t bytes) {
  if (__builtin_expect(r.profile.on, 0)) r.profile.record(op, !r.topo.same_node(proc), bytes);
}

int put(const char* call, void* src, void* dst, long bytes, int proc, armci_hdl_t* h);
int get(const char* call, void* src, void* dst, long bytes, int proc, armci_hdl_t* h);
int acc(const char* call, int optype, void* scale, void* src, void* dst, long bytes, int proc,
        armci_hdl_t* h);
int puts(const char* call, void* src, int* src_stride, void* dst, int* dst_stride, int* count,
         int levels, int proc, armci_hdl_t* h);
int gets(const char* call, void* src, int* src_stride, void* dst, int* dst_stride, int* count,
         int levels, int proc, armci_hdl_t* h);
int accs(const char* call, int optype, void* scale, void* src, int* src_stride, void* dst,
         int* dst_stride, int* count, int levels, int proc, armci_hdl_t* h);
int putv(const char* call, armci_giov_t* darr, int len, int proc, armci_hdl_t* h);
int getv(const char* call, armci_giov_t* darr, int len, int proc, armci_hdl_t* h);
int accv(const char* call, int optype, void* scale, armci_giov_t* darr, int len, int proc,
         armci_hdl_t* h);
void packed_strides(int levels, const int* count, int* out);
// armci_read_strided (read: region -> buf) and armci_write_strided.
int local_strided(const char* call, bool read, void* ptr, int levels, int* stride_arr, int* count,
                  char* buf);

// The flag store after the data, ordered; `flag` is in proc's memory.
void set_flag(const char* call, int* flag, int value, int proc);

}  // namespace armci::rma
