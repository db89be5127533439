// Intra-node transport: the target's memory is mapped here at the same address,
// so every operation is a load/store.  Put and get complete on return, which
// is also remote completion; ordering is program order.
#pragma once
#include <atomic>
#include <cstring>

#include "armci/armci.h"
#include "transports/acc_kernels.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"

namespace armci::transport::shm {

inline void put(const void* src, void* dst, std::size_t n) { std::memcpy(dst, src, n); }
inline void get(const void* src, void* dst, std::size_t n) { std::memcpy(dst, src, n); }

inline void put_strided(const void* src, void* dst, const StridedShape& s) {
  auto sp = static_cast<const char*>(src);
  auto dp = static_cast<char*>(dst);
  for_each_piece(s, [&](long so, long d, std::size_t n) { std::memcpy(dp + d, sp + so, n); });
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
// local or executed by the node agent for a remote caller.
inline void rmw(int op, void* ploc, void* prem, long extra) {
  switch (op) {
    case ARMCI_FETCH_AND_ADD:
      *static_cast<int*>(ploc) =
          __atomic_fetch_add(static_cast<int*>(prem), static_cast<int>(extra), __ATOMIC_SEQ_CST);
      break;
    case ARMCI_FETCH_AND_ADD_LONG:
      *static_cast<long*>(ploc) = __atomic_fetch_add(static_cast<long*>(prem), extra, __ATOMIC_SEQ_CST);
      break;
    case ARMCI_SWAP:
      *static_cast<int*>(ploc) =
          __atomic_exchange_n(static_cast<int*>(prem), *static_cast<int*>(ploc), __ATOMIC_SEQ_CST);
      break;
    case ARMCI_SWAP_LONG:
      *static_cast<long*>(ploc) =
          __atomic_exchange_n(static_cast<long*>(prem), *static_cast<long*>(ploc), __ATOMIC_SEQ_CST);
      break;
  }
}

}  // namespace armci::transport::shm
