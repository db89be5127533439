// How often to poll a completion queue that holds nothing of ours: each
// poll is still a pass of the provider's progress engine (system calls over
// tcp;ofi_rxm), paid by whatever the poller waits for.  While the caller
// says the queue is busy it is polled on every call, else on every kEvery-th
// (the provider's own housekeeping: connection requests, unasked arrivals).
// Used by the initiators' message endpoint and rails and by the node agents'
// further NICs.
#pragma once
#include <cstdint>

namespace armci::transport::ofi {

struct IdlePoll {
  static constexpr uint32_t kEvery = 16;
  uint32_t skipped = 0;
  bool due(bool busy) { return busy || ++skipped % kEvery == 0; }
};

}  // namespace armci::transport::ofi
