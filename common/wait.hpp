// Waiting without stealing a core: poll briefly, yield, then sleep in the
// kernel (futex on shared memory), bounded by ARMCI_TIMEOUT.  Every blocking
// wait in armci-ofi goes through here so oversubscribed runs make progress.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace armci {

// Futex on a 32-bit word that may live in memory shared between processes.
// Returns false on timeout.
bool futex_wait(const std::atomic<uint32_t>* word, uint32_t expected, double timeout_s);
void futex_wake(const std::atomic<uint32_t>* word, int count = INT32_MAX);

struct WaitPolicy {
  long spin_us = 50;
  double timeout_s = 600;
  // Called every slice while blocked; may abort the job (dead peer).
  std::function<void()> check_health;
};
const WaitPolicy& wait_policy();  // from the runtime, or defaults before init

// Wait until done() is true. `word` changes (and is futex-woken) whenever
// done() may have become true.  `what` names the wait in a timeout report.
template <typename Done>
void wait_on_word(const std::atomic<uint32_t>* word, Done&& done, const char* call,
                  const char* what);

// Wait for a condition nobody signals through a word (progress-driven waits,
// e.g. network completions): poll with backoff that yields, then sleeps.
class Backoff {
 public:
  explicit Backoff(const char* call, const char* what);
  void pause();  // one step: spin, then yield, then sleep up to 1 ms
  void reset() { spins_ = 0; }

 private:
  const char* call_;
  const char* what_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_check_;
  unsigned long spins_ = 0;
};

void sched_yield_hint();
[[noreturn]] void wait_timed_out(const char* call, const char* what, double seconds);

// ---- implementation of the template ---------------------------------------
template <typename Done>
void wait_on_word(const std::atomic<uint32_t>* word, Done&& done, const char* call,
                  const char* what) {
  if (done()) return;
  const WaitPolicy& p = wait_policy();
  auto start = std::chrono::steady_clock::now();
  auto spin_end = start + std::chrono::microseconds(p.spin_us);
  unsigned n = 0;
  for (;;) {
    uint32_t seen = word->load(std::memory_order_acquire);
    if (done()) return;
    auto now = std::chrono::steady_clock::now();
    if (now < spin_end) {
      if ((++n & 15) == 0) sched_yield_hint();
      continue;
    }
    futex_wait(word, seen, 0.2);
    if (done()) return;
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (p.check_health) p.check_health();
    if (p.timeout_s > 0 && waited > p.timeout_s) wait_timed_out(call, what, waited);
  }
}

}  // namespace armci
