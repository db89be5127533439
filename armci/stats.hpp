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
  uint64_t eagain_retries = 0; // fi_* calls repeated after -FI_EAGAIN
  // Which libfabric calls met -FI_EAGAIN, how often, and for how long:
  // tells a connection set-up (few posts, long waits) from a full queue
  // (many posts, short waits).
  struct EagainWait {
    const char* what = nullptr;
    uint64_t posts = 0;
    uint64_t retries = 0;
    double seconds = 0;
  };
  EagainWait eagain_by[8];
  void eagain_wait(const char* what, uint64_t retries, double seconds);
  uint64_t bounce_copies = 0; // RMA through a registered bounce buffer (unregistered local memory, FI_MR_LOCAL)
  uint64_t seg_queries = 0;   // lazy segment look-ups
  uint64_t mallocs = 0;
  std::string text() const;
};

}  // namespace armci
