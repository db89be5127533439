// Where an operation goes, resolved once when the memory was allocated
// (ARMCI_Malloc records one per allocation and process) and handed down by
// the router, so a transport does not search for it per operation.
#pragma once
#include <cstdint>

namespace armci::transport {

struct Target {
  int node = 0;  // the target's node (shared memory ignores it)
  // The allocation [lo, hi) holding the operation's remote range and, when
  // `keyed`, the remote key and the NIC's address for lo in the target
  // node's registration.  Unkeyed (ARMCI_CHECKS=0, or a piece outside
  // [lo, hi)): the libfabric transport finds the key itself.
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  uint64_t key = 0;
  uint64_t nic_lo = 0;
  bool keyed = false;

  bool holds(uintptr_t a) const { return keyed && a >= lo && a < hi; }
};

}  // namespace armci::transport
