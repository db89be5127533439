// The initiator's ordering plan, decided once from the provider's ordering
// bits: which earlier operations to a node must complete before the next
// one of each class starts, and how writes complete.  Operations to one
// node take effect in issue order.  Active messages are applied by the
// agent after they arrive, so RMA after an active message waits for its
// reply; native atomics are ordered with nothing, so everything waits for
// them and they for everything; the rest waits only where the provider
// does not order the pair itself.  Two reads commute, so an active message
// that only reads the target's memory (a get the agent serves: AmGet) never
// waits for earlier reads: a window of gets whose first left as a read and
// whose rest go staged overlaps the two round trips.  OfiImpl::order_only
// applies the plan with the per-node counts (RmaCounts, AmWindow, NodeState).
#pragma once
#include <rdma/fabric.h>

#include <cstdint>

#include "transports/ofi/fabric.hpp"

namespace armci::transport {

enum class OpClass { Write, Read, Am, AmGet, Atomic, FetchAtomic };

struct OrderingPlan {
  enum : uint8_t { kDrainWrites = 1, kDrainReads = 2, kDrainAms = 4, kDrainAtomics = 8 };
  uint8_t before[6] = {};  // by OpClass: the counters that must reach zero first
  // Where writes complete only at the origin (ARMCI_OFI_WRITE_COMPLETION=
  // flush, on a provider that orders a read after writes), a fence reads 8
  // bytes of the node's heap instead: its completion says every earlier
  // write is in place.  Otherwise each write waits for delivery.  Flushed
  // writes ask for inject completion (source reusable), not transmit: tcp
  // acknowledges a transmit-complete write from the target as it does a
  // delivery-complete one, which is the round trip the read replaces.
  bool flush_writes = false;
  uint64_t write_completion = FI_DELIVERY_COMPLETE;

  OrderingPlan() = default;
  OrderingPlan(const ofi::Caps& caps, bool write_flush) {
    auto set = [&](OpClass c, uint8_t m) { before[static_cast<int>(c)] = m; };
    set(OpClass::Atomic, kDrainWrites | kDrainReads | kDrainAms);
    set(OpClass::FetchAtomic, kDrainAtomics | kDrainWrites | kDrainReads | kDrainAms);
    set(OpClass::Write, kDrainAtomics | kDrainAms | (caps.has(FI_ORDER_WAW) ? 0 : kDrainWrites) |
                            (caps.has(FI_ORDER_WAR) ? 0 : kDrainReads));
    set(OpClass::Read, kDrainAtomics | kDrainAms | (caps.has(FI_ORDER_RAW) ? 0 : kDrainWrites));
    set(OpClass::Am, kDrainAtomics | (caps.has(FI_ORDER_SAW) ? 0 : kDrainWrites) |
                         (caps.has(FI_ORDER_SAR) ? 0 : kDrainReads) | (caps.has(FI_ORDER_SAS) ? 0 : kDrainAms));
    set(OpClass::AmGet, kDrainAtomics | (caps.has(FI_ORDER_SAW) ? 0 : kDrainWrites) |
                            (caps.has(FI_ORDER_SAS) ? 0 : kDrainAms));
    flush_writes = write_flush && caps.has(FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAW);
    write_completion = flush_writes ? FI_INJECT_COMPLETE : FI_DELIVERY_COMPLETE;
  }
  uint8_t drains(OpClass next) const { return before[static_cast<int>(next)]; }
  // Flags of an RMA of this direction (write: its completion mode).
  uint64_t rma_flags(bool is_write) const { return is_write ? write_completion | FI_COMPLETION : FI_COMPLETION; }
};

}  // namespace armci::transport
