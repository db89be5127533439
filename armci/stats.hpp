// Per-process counters (ARMCI_STATS=1 prints them at Finalize;
// ARMCI_Ofi_stats returns them as text).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "transports/ofi/am_protocol.hpp"

namespace armci {

// A counter any thread may bump without a data race.  A plain load and store
// (no locked add: that alone would be a third of an intra-node 8-byte put),
// so counts are exact when one thread calls at a time and may miss a few
// increments when several threads bump the same counter at once.
class Counter {
 public:
  Counter& operator++() { return *this += 1; }
  Counter& operator+=(uint64_t n) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    return *this;
  }
  operator uint64_t() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

struct Stats {
  Counter local_ops;     // load/store operations on the node heap
  Counter remote_ops;    // operations sent through libfabric
  Counter remote_bytes;  // payload moved through libfabric, either direction
  Counter am_sent;       // active messages to node agents
  Counter am_by_op[transport::ofi::kAmRequestKinds];  // by AmOp: which calls cost them
  Counter eagain_retries; // fi_* calls repeated after -FI_EAGAIN
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
  void eagain_wait(const char* what, uint64_t retries, double seconds);  // ofi lock held
  Counter bounce_copies; // RMA through a registered bounce buffer (unregistered local memory, FI_MR_LOCAL)
  Counter seg_queries;   // lazy segment look-ups
  Counter mallocs;
  std::string text() const;
};

}  // namespace armci
