// Synchronisation objects that live in memory shared by the processes of a
// node (the heap control block).  Plain words and futexes only: no pointers,
// no process-private state, valid at any mapping address.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/wait.hpp"

namespace armci {

// Futex mutex (0 free, 1 locked, 2 locked with sleepers).  Not fair: used for
// short critical sections (allocator, accumulate stripes).
struct SharedMutex {
  std::atomic<uint32_t> state{0};

  bool try_lock() {
    uint32_t z = 0;
    return state.compare_exchange_strong(z, 1, std::memory_order_acquire);
  }
  void lock(const char* call = "lock") {
    if (try_lock()) return;
    for (int i = 0; i < 64; ++i) {
      if (state.load(std::memory_order_relaxed) == 0 && try_lock()) return;
      __builtin_ia32_pause();
    }
    lock_contended(call);
  }
  void unlock() {
    if (state.exchange(0, std::memory_order_release) == 2) futex_wake(&state, 1);
  }

 private:
  void lock_contended(const char* call) {
    WaitWatch watch(call, "a node-shared lock");
    while (state.exchange(2, std::memory_order_acquire) != 0) {
      futex_wait(&state, 2, 0.2);
      watch.check();
    }
  }
};

class SharedLockGuard {
 public:
  explicit SharedLockGuard(SharedMutex& m, const char* call = "lock") : m_(m) { m_.lock(call); }
  ~SharedLockGuard() { m_.unlock(); }
  SharedLockGuard(const SharedLockGuard&) = delete;
  SharedLockGuard& operator=(const SharedLockGuard&) = delete;

 private:
  SharedMutex& m_;
};

// Sense-reversing barrier for a fixed number of processes of one node.
struct SharedBarrier {
  std::atomic<uint32_t> arrived{0};
  std::atomic<uint32_t> generation{0};

  void wait(uint32_t nprocs, const char* call) {
    uint32_t gen = generation.load(std::memory_order_acquire);
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == nprocs) {
      arrived.store(0, std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_release);
      futex_wake(&generation);
      return;
    }
    wait_on_word(&generation, [&] { return generation.load(std::memory_order_acquire) != gen; },
                 call, "the other processes of this node to reach the barrier");
  }
};

}  // namespace armci

namespace armci {

// What waiters sleep on.  A ringer makes the waiters' condition true, then
// rings: a fence and a load of a line nobody writes while no one sleeps,
// the count and a futex wake only once a waiter has announced itself.  So
// a waiter re-checks its condition after announcing (the ringer's release
// of the condition and the waiter's announcement pair up as in Dekker's
// algorithm).
struct Doorbell {
  std::atomic<uint32_t> count{0};
  std::atomic<uint32_t> sleepers{0};

  void ring() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_relaxed) == 0) return;
    count.fetch_add(1, std::memory_order_relaxed);
    futex_wake(&count);
  }

  template <typename Done>
  void wait(Done&& done, const char* call, const char* what) {
    spin_then_block(
        done, [&] { return count.load(std::memory_order_acquire); },
        [&](uint32_t seen) {
          sleepers.fetch_add(1, std::memory_order_seq_cst);
          std::atomic_thread_fence(std::memory_order_seq_cst);
          const bool now = done();  // may consume what it waited for: reported, not asked again
          if (!now) futex_wait(&count, seen, 0.2);
          sleepers.fetch_sub(1, std::memory_order_relaxed);
          return now;
        },
        call, what);
  }
};

}  // namespace armci
