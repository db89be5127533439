// dst += scale * src for ARMCI's six accumulate types, and the node-shared
// stripe locks that make each element update atomic with respect to every
// other accumulate on the node, whichever process or agent performs it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace armci::memory {
struct NodeControl;
}

namespace armci::transport {

// Element size of an ARMCI_ACC_* type, 0 if `optype` is not one.
std::size_t acc_elem_size(int optype);
// Scale size (same as the element size).
inline std::size_t acc_scale_size(int optype) { return acc_elem_size(optype); }
const char* acc_type_name(int optype);
// True if `scale` is exactly one (lets the kernel skip the multiply).
bool acc_scale_is_one(int optype, const void* scale);

// No locking: the caller holds the stripe lock(s) for dst.
void acc_apply(int optype, const void* scale, const void* src, void* dst, std::size_t bytes);

// Applies the accumulate under the stripe locks of `ctl` covering dst; dst
// lies in the node heap whose base address is `heap_base`.
void acc_locked(memory::NodeControl& ctl, uintptr_t heap_base, int optype, const void* scale,
                const void* src, void* dst, std::size_t bytes);

}  // namespace armci::transport
