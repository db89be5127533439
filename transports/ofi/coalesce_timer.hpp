// The thread that sends coalesced batches nobody else sends within
// ARMCI_OFI_COALESCE_US (the process computes, or waits on its own memory).
// It sleeps until the oldest open batch is due and asks the initiator to
// send what is due.  It ticks only while batches keep opening; after a
// while without one it sleeps until the next opens (one wake-up then, not
// one per batch).  Its state is its own: the initiator tells it when a
// batch opens and answers its two questions.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

namespace armci::transport {

int64_t steady_ns();  // CLOCK_MONOTONIC

class CoalesceTimer {
 public:
  struct Hooks {
    // When the oldest batch still open was opened (0: none).  Called
    // without the initiator's lock: a hint, checked again by send_due.
    std::function<int64_t()> oldest_open;
    // Sends the batches opened before `before`; false if the initiator was
    // busy (its lock held: a call under way), so the timer looks again a
    // little later instead of queueing for the lock.
    std::function<bool(int64_t before)> send_due;
  };
  CoalesceTimer() = default;
  CoalesceTimer(const CoalesceTimer&) = delete;
  CoalesceTimer& operator=(const CoalesceTimer&) = delete;
  ~CoalesceTimer() { stop(); }

  void start(int64_t delay_ns, Hooks hooks);
  void stop();
  bool running() const { return thread_.joinable(); }
  // A batch opened at `ns` (steady_ns): wakes the thread if it sleeps.
  void opened(int64_t ns);

 private:
  void main();
  Hooks hooks_;
  int64_t delay_ns_ = 0;
  std::thread thread_;
  std::atomic<uint32_t> word_{0};  // futex: bumped to wake the thread
  std::atomic<bool> ticking_{false};
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> last_open_{0};
};

}  // namespace armci::transport
