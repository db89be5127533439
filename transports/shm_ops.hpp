// Intra-node transport: the target's memory is mapped here at the same address,
// so every operation is a load/store.  Put and get complete on return, which
// is also remote completion; ordering is program order.
#pragma once
#include <atomic>
#include <cstring>

#include "armci/armci.h"
#include "common/copy.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"

namespace armci::transport::shm {

inline void put(const void* src, void* dst, std::size_t n) { copy_bytes(dst, src, n); }
inline void get(const void* src, void* dst, std::size_t n) { copy_bytes(dst, src, n); }

inline void put_strided(const void* src, void* dst, const StridedShape& s) {
  auto sp = static_cast<const char*>(src);
  auto dp = static_cast<char*>(dst);
  for_each_piece(s, [&](long so, long d, std::size_t n) { copy_bytes(dp + d, sp + so, n); });
}

inline void acc(memory::NodeControl& ctl, uintptr_t heap_base, int optype, const void* scale,
                const void* src, void* dst, std::size_t n) {
  acc_locked(ctl, heap_base, optype, scale, src, dst, n);
}

inline void acc_strided(memory::NodeControl& ctl, uintptr_t heap_base, int optype,
                        const void* scale, const void* src, void* dst, const StridedShape& s) {
  auto sp = static_cast<const char*>(src);
  auto dp = static_cast<char*>(dst);
  for_each_piece(s, [&](long so, long d, std::size_t n) {
    acc_locked(ctl, heap_base, optype, scale, sp + so, dp + d, n);
  });
}

// ARMCI_Rmw on memory of this node; atomic with respect to every other Rmw,
// local or executed by the node agent for a remote caller.  Returns the old
// value; `operand` is the increment (fetch-and-add) or the new value (swap).
template <typename T>
inline T rmw_value(int op, T* prem, T operand) {
  if (op == ARMCI_FETCH_AND_ADD || op == ARMCI_FETCH_AND_ADD_LONG)
    return __atomic_fetch_add(prem, operand, __ATOMIC_SEQ_CST);
  return __atomic_exchange_n(prem, operand, __ATOMIC_SEQ_CST);
}

inline void rmw(int op, void* ploc, void* prem, long extra) {
  if (op == ARMCI_FETCH_AND_ADD || op == ARMCI_SWAP) {
    int* l = static_cast<int*>(ploc);
    *l = rmw_value<int>(op, static_cast<int*>(prem), op == ARMCI_SWAP ? *l : static_cast<int>(extra));
  } else {
    long* l = static_cast<long*>(ploc);
    *l = rmw_value<long>(op, static_cast<long*>(prem), op == ARMCI_SWAP_LONG ? *l : extra);
  }
}

}  // namespace armci::transport::shm
