// Per-process counters (ARMCI_STATS=1 prints them at Finalize;
// ARMCI_Ofi_stats returns them as text).
#pragma once
#include <cstdint>
#include <string>

#include "common/counter.hpp"
#include "transports/ofi/context.hpp"

namespace armci {

struct Stats {
  Counter local_ops;         // load/store operations on the node heap
  Counter mallocs;
  transport::OfiStats ofi;   // the libfabric initiator's
  std::string text() const;  // "name=value ..." (ARMCI_STATS, ARMCI_Ofi_stats)
};

}  // namespace armci
