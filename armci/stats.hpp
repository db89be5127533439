// Per-process counters (ARMCI_STATS=1 prints them at Finalize;
// ARMCI_Ofi_stats returns them as text).
#pragma once
#include <cstdint>
#include <string>

#include "transports/ofi/am_protocol.hpp"

namespace armci {

struct Stats {
  uint64_t local_ops = 0;     // load/store operations on the node heap
  uint64_t remote_ops = 0;    // operations sent through libfabric
  uint64_t remote_bytes = 0;  // payload moved through libfabric, either direction
  uint64_t am_sent = 0;       // active messages to node agents
  uint64_t am_by_op[transport::ofi::kAmRequestKinds] = {};  // by AmOp: which calls cost them
  uint64_t eagain_retries = 0;
  uint64_t seg_queries = 0;   // lazy segment look-ups
  uint64_t mallocs = 0;
  std::string text() const;
};

}  // namespace armci
