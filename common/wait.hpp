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
  // Polls between yields while spinning: 1 where this host has more
  // processes than CPUs (a waiter must hand its core to the one it waits for
  // at once), 16 otherwise (a yield with nobody to run costs a system call).
  unsigned yield_every = 16;
  double timeout_s = 600;
  // Called every slice while blocked; may abort the job (dead peer).
  std::function<void()> check_health;
  // Drives the network while waiting; true if operations of ours are still
  // in flight (then sleeps are short, since a peer may need our progress).
  std::function<bool()> poll_network;
};
const WaitPolicy& wait_policy();  // the runtime's, or defaults before init
void install_wait_policy(const WaitPolicy* p);  // nullptr: back to defaults

// Wait until done() is true. `word` changes (and is futex-woken) whenever
// done() may have become true.  `what` names the wait in a timeout report.
template <typename Done>
void wait_on_word(const std::atomic<uint32_t>* word, Done&& done, const char* call,
                  const char* what);

// The clock of one long wait: every 200 ms at most it runs the health check
// (dead peers, lost launcher) and ends the job past ARMCI_TIMEOUT.  Time is
// read from the clock, never summed from sleep slices, since a futex or a
// sleep may return early any number of times.
class WaitWatch {
 public:
  WaitWatch(const char* call, const char* what);
  void check();  // cheap between checks: one clock read
  double waited() const;

 private:
  const char* call_;
  const char* what_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_check_;
};

// Polls between yields for a wait starting now: the policy's, or 1 while
// the host has more runnable threads than CPUs (/proc/loadavg, read at
// most once a millisecond per thread): hosts that share CPUs (namespace
// hosts, containers) count as oversubscribed although each sees few
// processes of its own.
unsigned yield_every_now(const WaitPolicy& p);

// Wait for a condition nobody signals through a word (progress-driven waits,
// e.g. network completions): poll with backoff that yields, then sleeps.
class Backoff {
 public:
  explicit Backoff(const char* call, const char* what)
      : watch_(call, what), quiet_since_(std::chrono::steady_clock::now()), every_(yield_every_now(wait_policy())) {}
  void pause();  // one step: spin, then yield, then sleep up to 1 ms
  // The caller made progress: spin and yield again before any sleep.  The
  // phases count from the last progress, not from the wait's start, or a
  // transfer longer than a millisecond (4 MiB gets in flight) would sleep
  // between the completions that keep coming.  Not on a contested host:
  // there a waiter must sleep now and then however its wait goes (a yield
  // does not hand the core to another scheduling group; see pause()).
  // Only marked here (called on every completion); the next pause reads
  // the clock anyway.
  void reset() {
    spins_ = 0;
    progressed_ = every_ > 1;
  }
  double waited() const { return watch_.waited(); }  // seconds since made

 private:
  WaitWatch watch_;
  std::chrono::steady_clock::time_point quiet_since_;
  bool progressed_ = false;  // since the last pause
  unsigned every_;  // polls between yields while spinning
  unsigned long spins_ = 0;
};

void sched_yield_hint();
void block_briefly();  // ~50 us nap
[[noreturn]] void wait_timed_out(const char* call, const char* what, double seconds);

// ---- implementation of the templates -------------------------------------
// The common loop: poll done() for the spin window (yielding now and then),
// then block(seen) in slices; `seen` is the word's value read before done().
// block returns true when it found done() true itself (done may consume
// what it waits for, so it is not asked again).
template <typename Done, typename Load, typename Block>
void spin_then_block(Done&& done, Load&& load, Block&& block, const char* call, const char* what) {
  if (done()) return;
  const WaitPolicy& p = wait_policy();
  const unsigned every = yield_every_now(p);
  WaitWatch watch(call, what);
  auto spin_end = std::chrono::steady_clock::now() + std::chrono::microseconds(p.spin_us);
  unsigned n = 0;
  for (;;) {
    uint32_t seen = load();
    if (done()) return;
    const bool in_flight = p.poll_network && p.poll_network();
    if (std::chrono::steady_clock::now() < spin_end) {
      if (++n % every == 0) sched_yield_hint();
      continue;
    }
    if (in_flight) {
      sched_yield_hint();  // keep our own traffic moving: no long sleep
      if ((++n & 63) == 0) block_briefly();
      if (done()) return;
    } else if (block(seen)) {
      return;
    }
    if (done()) return;
    watch.check();
  }
}

template <typename Done>
void wait_on_word(const std::atomic<uint32_t>* word, Done&& done, const char* call,
                  const char* what) {
  spin_then_block(
      done, [&] { return word->load(std::memory_order_acquire); },
      [&](uint32_t seen) {
        futex_wait(word, seen, 0.2);
        return false;
      },
      call, what);
}

}  // namespace armci
