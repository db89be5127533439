// A statistics counter any thread may bump without a data race.  A plain
// load and store (no locked add: that alone would be a third of an
// intra-node 8-byte put), so counts are exact when one thread calls at a time
// and may miss a few increments when several threads bump one at once.
#pragma once
#include <atomic>
#include <cstdint>

namespace armci {

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

}  // namespace armci
